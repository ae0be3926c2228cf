// Batched matmul with epilogue: Y[b,m,n] = alpha * sum_k A[b,m,k] * B[b,k,n] + beta * C[b,m,n].
// A, B, C are strided views (row/column strides, up to 4 broadcast batch dims with their own
// batch strides, 0 where broadcast), so mm, bmm, addmm, linear (B = W^T by strides) and
// broadcasting matmul are one kernel; Y is [batch, M, N] with rows y_rs apart from y_off
// (y_rs = N: contiguous; a wider row: a column window of a larger output). Tiles: T x T outputs per
// workgroup of S x S invocations, T/S x T/S outputs each (T, S = {{TILE}}, {{THREADS}}: the
// lowering's gemm_tile picks 64, 16 or, for outputs too small for enough 64x64 workgroups, 16, 8;
// the tests also run 32, 8), K in steps of 16 through workgroup memory; edge tiles load zeros and
// skip stores (the core: gemm_tile.wgsl). The B tile loads k fastest when b_kfast is set (the
// lowering sets it where B's row stride is 1 and its column stride is not). Operands load into
// f32 (float16 ones too: f32 accumulation); a fused epilogue (epilogue.wgsl: batch norm,
// residual, an activation) follows the alpha/beta one, and the result is rounded once to Y's
// type (Y_T: f32 or f16) on the store.
// Split-K (k_chunk != 0): workgroup z = chunk * batch + b sums only K [chunk * k_chunk, +k_chunk)
// and its Y is the [chunks, batch, M, N] partial sums (alpha 1, no C, no epilogue), which
// split_k_sum.wgsl adds up: more workgroups where the output has too few tiles to fill the GPU.
// Workgroups: (ceil(N/T), ceil(M/T), batch * chunks).
{{DECLS}}

@compute @workgroup_size(S, S)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>,
        @builtin(local_invocation_index) tid: u32) {
  let M = mu(M_M);
  let N = mu(M_N);
  let K = mu(M_K);
  var rem = wid.z;
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
  let ars = mu(M_A_RS); let acs = mu(M_A_CS);
  let brs = mu(M_B_RS); let bcs = mu(M_B_CS);
  let b_kfast = mu(M_B_KFAST) != 0u;
  let m0 = wid.y * T;
  let n0 = wid.x * T;
  let chunk = mu(M_K_CHUNK);
  let kb = select(0u, rem * chunk, chunk != 0u);  // rem: the chunk index once the batch is taken
  let ke = select(K, min(K, kb + chunk), chunk != 0u);
  var acc: array<array<f32, R>, R>;
  for (var k0 = kb; k0 < ke; k0 += TK) {
    for (var i = 0u; i < LOADS; i++) {
      let e = tid + i * S * S;
      let am = e / TK; let ak = e % TK;     // A tile: T rows x 16 k
      let gm = m0 + am; let gk = k0 + ak;
      var va = 0.0;
      if (gm < M && gk < ke) { va = f32(A[oa + gm * ars + gk * acs]); }
      As[ak][am] = va;
      // B tile: 16 k x T columns; k fastest where B's rows are its contiguous dim (a linear's
      // W^T, B_KFAST), so neighbouring invocations read neighbouring elements.
      var bk = e / T; var bn = e % T;
      if (b_kfast) { bk = e % TK; bn = e / TK; }
      let gk2 = k0 + bk; let gn = n0 + bn;
      var vb = 0.0;
      if (gk2 < ke && gn < N) { vb = f32(B[ob + gk2 * brs + gn * bcs]); }
      Bs[bk][bn] = vb;
    }
    workgroupBarrier();
    tile_mac(lid3, &acc);
    workgroupBarrier();
  }
  let alpha = mf(M_ALPHA);
  let beta = mf(M_BETA);
  let use_c = mu(M_HAS_C) != 0u && beta != 0.0;
  let yrs = mu(M_Y_RS);
  let oy = mu(M_Y_OFF) + wid.z * M * yrs;
  for (var i = 0u; i < R; i++) {
    let gm = m0 + lid3.y + S * i;
    if (gm >= M) { continue; }
    for (var j = 0u; j < R; j++) {
      let gn = n0 + lid3.x + S * j;
      if (gn >= N) { continue; }
      var r = alpha * acc[i][j];
      if (use_c) { r += beta * f32(C[oc + gm * mu(M_C_RS) + gn * mu(M_C_CS)]); }
      let o = oy + gm * yrs + gn;
      Y[o] = Y_T(epilogue(r, o));
    }
  }
}
