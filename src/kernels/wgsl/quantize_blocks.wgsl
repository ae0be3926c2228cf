// quantize_affine (torchao) on a contiguous float32 X with one (scale, zero point) per block of
// `block` consecutive elements (a row, or groups along it), as ops/quantize.cpp computes it:
//   q = clamp(round(x * (1 / scale)) + zp, qmin, qmax), 1 / scale in float32; a NaN gives 0
// into int8 / uint8 bytes, four to a word of Y. Zero points as in qlinear.wgsl (z_kind 1 / 2
// bytes, 3 int32 words). With params_meta, one block whose 1 / scale and zero point are the
// parameters inv and zero (quantize_per_tensor with a Python-float scale: the lowering forms
// float32(1.0 / scale) in float64, as the CPU does). One invocation per word.
// Workgroups: grid(ceil(numel / 256)).
{{DECLS}}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let numel = mu(M_NUMEL);
  let w = wg_linear(wid, nwg) * 64u + lid;
  if (w * 4u >= numel) { return; }
  let qmin = mf(M_QMIN);
  let qmax = mf(M_QMAX);
  var word = 0u;
  for (var j = 0u; j < 4u; j++) {
    let i = w * 4u + j;
    if (i >= numel) { break; }
    let p = i / mu(M_BLOCK);
    var inv = mf(M_INV);
    var zp = mf(M_ZERO);
    if (mu(M_PARAMS_META) == 0u) {
      inv = 1.0 / S[mu(M_S_OFF) + p];
      let kind = mu(M_Z_KIND);
      let e = mu(M_Z_OFF) + p;
      if (kind != 0u) { zp = f32(zero_point_in(kind, Z[zero_point_word(kind, e)], e)); }
    }
    var q = round(X[mu(M_X_OFF) + i] * inv) + zp;
    q = select(min(max(q, qmin), qmax), 0.0, is_nan_f(q));
    word |= (u32(i32(q)) & 0xffu) << (8u * j);
  }
  Y[w] = word;
}
