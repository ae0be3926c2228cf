// The second half of a split-K GEMM (matmul.wgsl, conv2d_gemm.wgsl with k_chunk set): Y[o] =
// alpha * sum over the chunks s of P[s * numel + o] + beta * C + Bias[m], then the fused
// epilogue, rounded once to Y's type. P is the [chunks, batch, M, N] partial sums (f32), Y the
// contiguous [batch, M, N] output, o its flat index; C a strided view broadcast over up to 4
// batch dims (matmul.wgsl's c_* fields), Bias one value per row m (a convolution's bias). The
// chunks add in order, each from its own f32 sum. Workgroups: grid(ceil(numel / 64)).
{{DECLS}}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let o = wg_linear(wid, nwg) * WG + lid;
  let numel = mu(M_NUMEL);
  if (o >= numel) { return; }
  let N = mu(M_N);
  let M = mu(M_M);
  let n = o % N;
  let m = (o / N) % M;
  var acc = 0.0;
  for (var s = 0u; s < mu(M_CHUNKS); s++) { acc += P[s * numel + o]; }
  var r = mf(M_ALPHA) * acc;
  let beta = mf(M_BETA);
  if (mu(M_HAS_C) != 0u && beta != 0.0) {
    var rem = o / (M * N);
    var oc = mu(M_C_OFF) + m * mu(M_C_RS) + n * mu(M_C_CS);
    for (var d = i32(mu(M_BATCH_RANK)) - 1; d >= 0; d--) {
      let du = u32(d);
      let sz = mu(M_BATCH_SHAPE + du);
      oc += (rem % sz) * mu(M_C_BS + du);
      rem = rem / sz;
    }
    r += beta * f32(C[oc]);
  }
  if (mu(M_HAS_BIAS) != 0u) { r += f32(Bias[m]); }
  Y[o] = Y_T(epilogue(r, o));
}
