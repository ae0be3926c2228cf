// batch_norm in inference: y = (x - mean[c]) * rsqrt(var[c] + eps) * w[c] + b[c] over a
// contiguous [n, c, hw] tensor (channel = (i / hw) % c), in f32 (float16 bindings load through
// f32(...)), rounded to Y's type on the store. Workgroups: grid(ceil(numel / 64)).
{{DECLS}}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = wg_linear(wid, nwg) * WG + lid;
  if (i >= mu(M_NUMEL)) { return; }
  let c = (i / mu(M_HW)) % mu(M_C);
  var y = (f32(X[i]) - f32(Mean[c])) * inverseSqrt(f32(Var[c]) + mf(M_EPS));
  if (mu(M_HAS_W) != 0u) { y *= f32(W[c]); }
  if (mu(M_HAS_B) != 0u) { y += f32(Bias[c]); }
  Y[i] = Y_T(y);
}
