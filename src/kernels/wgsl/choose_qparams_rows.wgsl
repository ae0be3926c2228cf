// torchao's choose_qparams_affine, ASYMMETRIC, one block per row of a contiguous float32 input
// X [rows, K] (from x_off), in float32 as ops/quantize_choose.cpp computes it (and, with one row
// of the whole input, PT2E's choose_qparams.tensor: kernels/quantize.h choose_per_tensor_affine):
//   lo, hi = min, max of the row (NaN propagating); mneg = min(lo, 0), mpos = max(hi, 0)
//   scale = (mpos - mneg) / (qmax - qmin), raised to eps; zp = clamp(qmin - round(mneg / scale), qmin, qmax)
// S[r] = scale; Z[r] = zp as int8 / uint8 bytes (z_kind 1 / 2: four rows to a word) or int32 (3),
// a NaN zero point stored as 0 (the CPU's integer cast). One workgroup per four rows (one word of
// bytes). Workgroups: grid(ceil(rows / 4)).
{{DECLS}}

fn zp_byte(z: f32) -> u32 { return u32(i32(select(z, 0.0, is_nan_f(z)))) & 0xffu; }

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let rows = mu(M_ROWS);
  let K = mu(M_K);
  let r0 = wg_linear(wid, nwg) * 4u;
  if (r0 >= rows) { return; }
  let qmin = mf(M_QMIN);
  let qmax = mf(M_QMAX);
  var word = 0u;
  for (var j = 0u; j < 4u; j++) {
    if (r0 + j >= rows) { break; }  // (uniform: the reductions' barriers stay in uniform control flow)
    let r = r0 + j;
    var lo = X[mu(M_X_OFF) + r * K];  // (a row is never empty here; WGSL has no inf constant)
    var hi = lo;
    for (var k = lid; k < K; k += 64u) {
      let v = X[mu(M_X_OFF) + r * K + k];
      lo = min_nan(lo, v);
      hi = max_nan(hi, v);
    }
    lo = wg_reduce(lo, lid, 2u);
    hi = wg_reduce(hi, lid, 1u);
    if (lid == 0u) {
      let mneg = select(min(lo, 0.0), lo, is_nan_f(lo));
      let mpos = select(max(hi, 0.0), hi, is_nan_f(hi));
      var scale = (mpos - mneg) / (qmax - qmin);
      if (!(scale >= mf(M_EPS)) && !is_nan_f(scale)) { scale = mf(M_EPS); }
      var zp = qmin - round(mneg / scale);
      if (!is_nan_f(zp)) { zp = min(max(zp, qmin), qmax); }
      S[mu(M_S_OFF) + r0 + j] = scale;
      if (mu(M_Z_KIND) == 3u) {
        Z[mu(M_Z_OFF) + r0 + j] = bitcast<u32>(i32(select(zp, 0.0, is_nan_f(zp))));
      } else {
        word |= zp_byte(zp) << (8u * j);
      }
    }
  }
  if (lid == 0u && mu(M_Z_KIND) != 3u) { Z[(mu(M_Z_OFF) + r0) >> 2u] = word; }
}
