// Shared by the row kernels (reduce, rowwise): one workgroup of 64 per row; a row is the
// reduced dim (r elements, stride r_stride) at one index of the kept dims (shape, strides).

// Offset of row `row` (row-major over the kept dims' shape) in a view with `strides_at` strides.
fn row_offset(row: u32, strides_at: u32, off: u32) -> u32 {
  var rem = row;
  var o = off;
  for (var d = i32(mu(M_RANK)) - 1; d >= 0; d--) {
    let du = u32(d);
    let s = mu(M_SHAPE + du);
    o += (rem % s) * mu(strides_at + du);
    rem = rem / s;
  }
  return o;
}
