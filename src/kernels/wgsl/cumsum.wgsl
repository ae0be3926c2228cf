// cumsum over one dim of a strided view, one invocation per row summing in index order (the
// CPU's order, so results match it bit for bit on f32). Y has its own strides.
// Workgroups: grid(ceil(rows / 64)).
{{DECLS}}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wg_linear(wid, nwg) * WG + lid;
  if (row >= mu(M_ROWS)) { return; }
  let xb = row_offset(row, M_X_STRIDES, mu(M_X_OFF));
  let yb = row_offset(row, M_Y_STRIDES, 0u);
  var s = 0.0;
  for (var k = 0u; k < mu(M_R); k++) {
    s += X[xb + k * mu(M_R_STRIDE)];
    Y[yb + k * mu(M_Y_R_STRIDE)] = s;
  }
}
