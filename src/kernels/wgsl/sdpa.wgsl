// scaled_dot_product_attention, flash style: one workgroup (64) per query row (b, h, i); keys and
// values stream in tiles of 64 with an online softmax (running max m, sum l, rescaled
// accumulators), so no L x S score matrix exists. GQA: query head h reads kv head
// h / (hq / hkv). Masks: causal (torch's top-left: key j > i masked), additive f32 or bool
// (0 = masked) views broadcast to [b, h, l, s] by strides. Q, K, V strided 4-d views; O contiguous
// [b, hq, l, dv]; d, dv <= 256. A fully masked row gives NaN, as torch. Workgroups: grid(b*hq*l).
{{DECLS}}

var<workgroup> qs: array<f32, 256>;
var<workgroup> ps: array<f32, 64>;
const NEG: f32 = -3.0e38;

fn off4(o: u32, at: u32, a: u32, b: u32, c: u32, d: u32) -> u32 {
  return o + a * mu(at) + b * mu(at + 1u) + c * mu(at + 2u) + d * mu(at + 3u);
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let L = mu(M_L); let S = mu(M_S); let D = mu(M_D); let DV = mu(M_DV);
  let HQ = mu(M_HQ);
  let id = wg_linear(wid, nwg);
  if (id >= mu(M_B) * HQ * L) { return; }
  let i = id % L;
  let h = (id / L) % HQ;
  let b = id / (L * HQ);
  let hk = h / (HQ / mu(M_HKV));
  for (var d = lid; d < D; d += 64u) { qs[d] = Q[off4(mu(M_Q_OFF), M_Q_STRIDES, b, h, i, d)]; }
  workgroupBarrier();
  let scale = mf(M_SCALE);
  let mode = mu(M_MASK_MODE);
  var m = NEG;
  var l = 0.0;
  var acc: array<f32, 4>;
  for (var s0 = 0u; s0 < S; s0 += 64u) {
    let j = s0 + lid;
    var sc = NEG;
    var valid = j < S && !(mu(M_CAUSAL) != 0u && j > i);
    if (valid) {
      var dot = 0.0;
      for (var d = 0u; d < D; d++) { dot = fma(qs[d], K[off4(mu(M_K_OFF), M_K_STRIDES, b, hk, j, d)], dot); }
      sc = dot * scale;
      if (mode != 0u) {
        let mv = Mask[off4(mu(M_M_OFF), M_M_STRIDES, b, h, i, j)];
        if (mode == 2u) { valid = mv != 0; } else { sc += f32(mv); }
      }
    }
    let tmax = wg_reduce(select(NEG, sc, valid), lid, 1u);
    let mn = max(m, tmax);
    let alpha = exp(m - mn);
    let p = select(0.0, exp(sc - mn), valid);
    ps[lid] = p;
    l = l * alpha + wg_reduce(p, lid, 0u);
    let n = min(64u, S - s0);
    for (var t = 0u; t < 4u; t++) {
      let d = lid + 64u * t;
      if (d >= DV) { break; }
      var a = acc[t] * alpha;
      for (var jj = 0u; jj < n; jj++) { a = fma(ps[jj], V[off4(mu(M_V_OFF), M_V_STRIDES, b, hk, s0 + jj, d)], a); }
      acc[t] = a;
    }
    m = mn;
    workgroupBarrier();
  }
  for (var t = 0u; t < 4u; t++) {
    let d = lid + 64u * t;
    if (d >= DV) { break; }
    O[((b * HQ + h) * L + i) * DV + d] = acc[t] / l;
  }
}
