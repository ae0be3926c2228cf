// pad in the modes that read the input again (reflect, replicate, circular: ops/pad.cpp's
// source_index with non-negative pads): each output element copies the input element its index
// maps to, dim by dim. MODE 1 reflect, 2 replicate, 3 circular. X strided; Y contiguous with the
// output's shape; left[d]: dim d's leading pad (0 for dims not padded).
// Workgroups: grid(ceil(numel / 64)).
const MODE: u32 = {{MODE}}u;
{{DECLS}}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = wg_linear(wid, nwg) * WG + lid;
  if (i >= mu(M_NUMEL)) { return; }
  var rem = i;
  var ox = mu(M_X_OFF);
  for (var d = i32(mu(M_RANK)) - 1; d >= 0; d--) {
    let du = u32(d);
    let s = mu(M_SHAPE + du);
    let o = i32(rem % s);
    rem = rem / s;
    let size = i32(mu(M_X_SHAPE + du));
    var j = o - i32(mu(M_LEFT + du));
    if (MODE == 1u) {
      if (j < 0) { j = -j; }
      if (j >= size) { j = 2 * (size - 1) - j; }
    } else if (MODE == 2u) {
      j = clamp(j, 0, size - 1);
    } else {
      j = ((j % size) + size) % size;
    }
    ox += u32(j) * mu(M_X_STRIDES + du);
  }
  Y[i] = X[ox];
}
