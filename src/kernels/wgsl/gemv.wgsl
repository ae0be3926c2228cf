// Matrix-vector path of matmul (M = 1, the decode step): Y[b,0,n] = alpha * sum_k A[b,0,k] *
// B[b,k,n] + beta * C[b,0,n], same views and parameters as matmul.wgsl (Y's rows y_rs apart from y_off). One workgroup per output
// (b, n): its 256 invocations stride over K (coalesced when k is B's contiguous dim, as in a
// linear layer's weight [N, K]) and reduce in workgroup memory; matmul.wgsl's fused epilogue.
// Workgroups: grid(batch * N).
{{DECLS}}

var<workgroup> part: array<f32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let N = mu(M_N);
  let K = mu(M_K);
  let id = wg_linear(wid, nwg);
  if (id >= mu(M_BATCH) * N) { return; }
  let n = id % N;
  var rem = id / N;
  let bi = rem;
  var oa = mu(M_A_OFF);
  var ob = mu(M_B_OFF);
  var oc = mu(M_C_OFF);
  for (var d = i32(mu(M_BATCH_RANK)) - 1; d >= 0; d--) {
    let du = u32(d);
    let s = mu(M_BATCH_SHAPE + du);
    let q = rem % s;
    rem = rem / s;
    oa += q * mu(M_A_BS + du);
    ob += q * mu(M_B_BS + du);
    oc += q * mu(M_C_BS + du);
  }
  let acs = mu(M_A_CS);
  let brs = mu(M_B_RS);
  let bn = ob + n * mu(M_B_CS);
  var s = 0.0;
  for (var k = lid; k < K; k += 256u) { s = fma(f32(A[oa + k * acs]), f32(B[bn + k * brs]), s); }
  part[lid] = s;
  workgroupBarrier();
  for (var w = 128u; w > 0u; w >>= 1u) {
    if (lid < w) { part[lid] += part[lid + w]; }
    workgroupBarrier();
  }
  if (lid == 0u) {
    var r = mf(M_ALPHA) * part[0];
    let beta = mf(M_BETA);
    if (mu(M_HAS_C) != 0u && beta != 0.0) { r += beta * f32(C[oc + n * mu(M_C_CS)]); }
    let o = mu(M_Y_OFF) + bi * mu(M_Y_RS) + n;
    Y[o] = Y_T(epilogue(r, o));
  }
}
