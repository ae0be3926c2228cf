// index_select / embedding (MODE 0: Idx is 1-d, output dim `dim` takes x[..., Idx[j], ...]) and
// gather (MODE 1: Idx has the output's shape, out[i] = x[i with dim := Idx[i]]). X and Idx are
// strided views (Idx int32); Y contiguous with the output shape. An index outside
// [-x_dim_size, x_dim_size) cannot raise on the GPU: it writes 0 (the executor validates indices
// when it must). row_count != 0 (MODE 0, a table split into parts of rows, one dispatch each): X
// holds rows [row_first, row_first + row_count) of dim `dim`; an index outside them is another
// part's, not written here (the part at row 0 writes the zeros of invalid ones).
// Workgroups: grid(ceil(numel / 64)).
const MODE: u32 = {{MODE}}u;
{{DECLS}}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = wg_linear(wid, nwg) * WG + lid;
  if (i >= mu(M_NUMEL)) { return; }
  let dim = mu(M_DIM);
  var rem = i;
  var ox = mu(M_X_OFF);
  var oi = mu(M_IDX_OFF);
  var qd = 0u;
  for (var d = i32(mu(M_RANK)) - 1; d >= 0; d--) {
    let du = u32(d);
    let s = mu(M_SHAPE + du);
    let q = rem % s;
    rem = rem / s;
    if (du == dim) { qd = q; } else { ox += q * mu(M_X_STRIDES + du); }
    if (MODE == 1u) { oi += q * mu(M_IDX_STRIDES + du); }
  }
  if (MODE == 0u) { oi += qd * mu(M_IDX_STRIDES); }
  var j = Idx[oi];
  let n = i32(mu(M_X_DIM_SIZE));
  if (j < 0) { j += n; }
  let first = mu(M_ROW_FIRST);
  if (j < 0 || j >= n) {
    if (first == 0u) { Y[i] = 0; }
    return;
  }
  var r = u32(j);
  let count = mu(M_ROW_COUNT);
  if (count != 0u) {
    if (r < first || r >= first + count) { return; }
    r -= first;
  }
  Y[i] = Y_T(X[ox + r * mu(M_X_STRIDES + dim)]);  // f16 -> f32 for a float16 table
}
