// Ungrouped 2-d convolution (NCHW) as an implicit GEMM per image: Y[n][co, p] =
// sum_r W[co, r] * Xcol[n][r, p] + Bias[co], r = (c, ky, kx) over cin * kh * kw and p = (oy, ox)
// over oh * ow. Xcol is never stored: the B-tile load computes each element's input position
// (stride, padding with zeros, dilation) from a strided 4-d X. W is contiguous
// [cout, cin, kh, kw], Y contiguous [n, cout, oh, ow]. The tiling is matmul.wgsl's: T x T
// outputs per workgroup of S x S invocations (T, S = {{TILE}}, {{THREADS}}), K in steps of 16
// through workgroup memory (gemm_tile.wgsl); a fused epilogue (epilogue.wgsl) before the store.
// Split-K (k_chunk != 0): workgroup z = chunk * n + image sums only r in [chunk * k_chunk,
// +k_chunk) into the [chunks, n, cout, oh * ow] partial sums (no bias, no epilogue), which
// split_k_sum.wgsl adds up (matmul.wgsl's split).
// Workgroups: (ceil(oh * ow / T), ceil(cout / T), n * chunks).
{{DECLS}}

@compute @workgroup_size(S, S)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>,
        @builtin(local_invocation_index) tid: u32) {
  let CO = mu(M_COUT);
  let OW = mu(M_OW);
  let P = mu(M_OH) * OW;
  let KH = mu(M_KH); let KW = mu(M_KW);
  let KK = KH * KW;
  let K = mu(M_CIN) * KK;
  let H = i32(mu(M_H)); let W_ = i32(mu(M_W));
  let xs1 = mu(M_X_STRIDES + 1u); let xs2 = mu(M_X_STRIDES + 2u); let xs3 = mu(M_X_STRIDES + 3u);
  let images = mu(M_N);
  let xn = mu(M_X_OFF) + (wid.z % images) * mu(M_X_STRIDES);
  let m0 = wid.y * T;
  let n0 = wid.x * T;
  let chunk = mu(M_K_CHUNK);
  let kb = select(0u, (wid.z / images) * chunk, chunk != 0u);
  let ke = select(K, min(K, kb + chunk), chunk != 0u);
  var acc: array<array<f32, R>, R>;
  for (var k0 = kb; k0 < ke; k0 += TK) {
    for (var i = 0u; i < LOADS; i++) {
      let e = tid + i * S * S;
      let am = e / TK; let ak = e % TK;
      let gm = m0 + am; let gk = k0 + ak;
      var va = 0.0;
      if (gm < CO && gk < ke) { va = f32(W[gm * K + gk]); }
      As[ak][am] = va;
      let bk = e / T; let bp = e % T;
      let gk2 = k0 + bk; let gp = n0 + bp;
      var vb = 0.0;
      if (gk2 < ke && gp < P) {
        let c = gk2 / KK; let kr = gk2 % KK;
        let yy = i32((gp / OW) * mu(M_SH) + (kr / KW) * mu(M_DH)) - i32(mu(M_PH));
        let xx = i32((gp % OW) * mu(M_SW) + (kr % KW) * mu(M_DW)) - i32(mu(M_PW));
        if (yy >= 0 && yy < H && xx >= 0 && xx < W_) { vb = f32(X[xn + c * xs1 + u32(yy) * xs2 + u32(xx) * xs3]); }
      }
      Bs[bk][bp] = vb;
    }
    workgroupBarrier();
    tile_mac(lid3, &acc);
    workgroupBarrier();
  }
  let has_b = mu(M_HAS_B) != 0u;
  let oy = wid.z * CO * P;
  for (var i = 0u; i < R; i++) {
    let gm = m0 + lid3.y + S * i;
    if (gm >= CO) { continue; }
    var bias = 0.0;
    if (has_b) { bias = f32(Bias[gm]); }
    for (var j = 0u; j < R; j++) {
      let gp = n0 + lid3.x + S * j;
      if (gp >= P) { continue; }
      let o = oy + gm * P + gp;
      Y[o] = Y_T(epilogue(acc[i][j] + bias, o));
    }
  }
}
