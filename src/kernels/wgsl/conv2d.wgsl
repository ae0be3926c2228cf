// Direct 2-d convolution (NCHW), one output element per invocation: groups (depthwise when
// groups = cin), stride, padding (zeros), dilation, optional bias. X is a strided 4-d view,
// W contiguous [cout, cin / groups, kh, kw], Y contiguous [n, cout, oh, ow]. 1x1 stride-1
// unpadded convolutions go to matmul.wgsl as a GEMM instead (the executor's choice). A fused
// epilogue (batch norm, residual, relu/clamp: epilogue.wgsl) is applied before the store.
// transposed != 0: conv_transpose2d, W [cin, cout / groups, kh, kw]; output (oy, ox) gathers
// the inputs iy = (oy + ph - ky * dh) / sh where that divides (the same for x), so each output
// sums its own terms and no two invocations write one element (the output's size, with its
// output_padding, comes from Y's shape).
// Workgroups: grid(ceil(numel / 64)).
{{DECLS}}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = wg_linear(wid, nwg) * WG + lid;
  if (i >= mu(M_NUMEL)) { return; }
  let OW = mu(M_OW); let OH = mu(M_OH); let CO = mu(M_COUT);
  let ox = i % OW;
  let oy = (i / OW) % OH;
  let co = (i / (OW * OH)) % CO;
  let n = i / (OW * OH * CO);
  let cpg = mu(M_CIN) / mu(M_GROUPS);
  let opg = CO / mu(M_GROUPS);
  let g = co / opg;
  let H = i32(mu(M_H)); let W_ = i32(mu(M_W));
  let KH = mu(M_KH); let KW = mu(M_KW);
  let xs0 = mu(M_X_STRIDES); let xs1 = mu(M_X_STRIDES + 1u);
  let xs2 = mu(M_X_STRIDES + 2u); let xs3 = mu(M_X_STRIDES + 3u);
  let y0 = i32(oy * mu(M_SH)) - i32(mu(M_PH));
  let x0 = i32(ox * mu(M_SW)) - i32(mu(M_PW));
  var acc = 0.0;
  if (mu(M_TRANSPOSED) != 0u) {
    let SH = i32(mu(M_SH)); let SW = i32(mu(M_SW));
    for (var c = 0u; c < cpg; c++) {
      let ci = g * cpg + c;
      let xc = mu(M_X_OFF) + n * xs0 + ci * xs1;
      let wc = (ci * opg + co % opg) * KH * KW;
      for (var ky = 0u; ky < KH; ky++) {
        let ny = i32(oy + mu(M_PH)) - i32(ky * mu(M_DH));
        if (ny < 0 || ny % SH != 0 || ny / SH >= H) { continue; }
        for (var kx = 0u; kx < KW; kx++) {
          let nx = i32(ox + mu(M_PW)) - i32(kx * mu(M_DW));
          if (nx < 0 || nx % SW != 0 || nx / SW >= W_) { continue; }
          acc = fma(f32(X[xc + u32(ny / SH) * xs2 + u32(nx / SW) * xs3]), f32(W[wc + ky * KW + kx]), acc);
        }
      }
    }
    if (mu(M_HAS_B) != 0u) { acc += f32(Bias[co]); }
    Y[i] = Y_T(epilogue(acc, i));
    return;
  }
  for (var c = 0u; c < cpg; c++) {
    let xc = mu(M_X_OFF) + n * xs0 + (g * cpg + c) * xs1;
    let wc = (co * cpg + c) * KH * KW;
    for (var ky = 0u; ky < KH; ky++) {
      let yy = y0 + i32(ky * mu(M_DH));
      if (yy < 0 || yy >= H) { continue; }
      for (var kx = 0u; kx < KW; kx++) {
        let xx = x0 + i32(kx * mu(M_DW));
        if (xx < 0 || xx >= W_) { continue; }
        acc = fma(f32(X[xc + u32(yy) * xs2 + u32(xx) * xs3]), f32(W[wc + ky * KW + kx]), acc);
      }
    }
  }
  if (mu(M_HAS_B) != 0u) { acc += f32(Bias[co]); }
  Y[i] = Y_T(epilogue(acc, i));
}
