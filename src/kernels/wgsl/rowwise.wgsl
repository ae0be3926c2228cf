// Row-normalising ops over one dim (r elements, stride r_stride) of a strided view, written to Y
// with its own strides: softmax and log_softmax (max-subtracted: no overflow), and the norms:
// y = (x - mean) * rsqrt(var + eps) * w[j] + b[j] with the biased variance (two passes) and
// j = (row % groups) * cpg + k / hw: layer_norm (groups 1, cpg 0, hw 1: j = k) and group_norm
// (row = (n, g), r = cpg * hw: j = channel). Loads are f32 (float16 too), the result is rounded
// to Y's type on the store. Workgroups: grid(rows).
const MODE: u32 = {{MODE}}u;  // 0 softmax, 1 log_softmax, 2 norm
{{DECLS}}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let row = wg_linear(wid, nwg);
  if (row >= mu(M_ROWS)) { return; }
  let xb = row_offset(row, M_X_STRIDES, mu(M_X_OFF));
  let yb = row_offset(row, M_Y_STRIDES, 0u);
  let R = mu(M_R);
  let rs = mu(M_R_STRIDE);
  let ys = mu(M_Y_R_STRIDE);
  if (MODE == 2u) {
    var s = 0.0;
    for (var k = lid; k < R; k += 64u) { s += f32(X[xb + k * rs]); }
    let mean = wg_reduce(s, lid, 0u) / f32(R);
    var sq = 0.0;
    for (var k = lid; k < R; k += 64u) { let dv = f32(X[xb + k * rs]) - mean; sq = fma(dv, dv, sq); }
    let rstd = inverseSqrt(wg_reduce(sq, lid, 0u) / f32(R) + mf(M_EPS));
    let jb = (row % mu(M_GROUPS)) * mu(M_CPG);
    let hw = mu(M_HW);
    for (var k = lid; k < R; k += 64u) {
      let j = jb + k / hw;
      var y = (f32(X[xb + k * rs]) - mean) * rstd;
      if (mu(M_HAS_W) != 0u) { y *= f32(W[j]); }
      if (mu(M_HAS_B) != 0u) { y += f32(Bias[j]); }
      Y[yb + k * ys] = Y_T(y);
    }
    return;
  }
  var m = f32(X[xb]);
  for (var k = lid; k < R; k += 64u) { m = max(m, f32(X[xb + k * rs])); }
  m = wg_reduce(m, lid, 1u);
  var s = 0.0;
  for (var k = lid; k < R; k += 64u) { s += exp(f32(X[xb + k * rs]) - m); }
  s = wg_reduce(s, lid, 0u);
  let ls = log(s);
  for (var k = lid; k < R; k += 64u) {
    let v = f32(X[xb + k * rs]) - m;
    Y[yb + k * ys] = Y_T(select(exp(v) / s, v - ls, MODE == 1u));
  }
}
