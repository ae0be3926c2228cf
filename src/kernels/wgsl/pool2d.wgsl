// 2-d pooling (NCHW), one output element per invocation over a strided 4-d view: max (dilation,
// padding never chosen), avg (torch's divisor: count_include_pad, divisor override) and adaptive
// avg (windows floor(o*H/OH) .. ceil((o+1)*H/OH)). Y contiguous. Computed in f32 (float16 loads
// too), rounded to Y's type on the store. Workgroups: grid(ceil(numel/64)).
const MODE: u32 = {{MODE}}u;  // 0 max, 1 avg, 2 adaptive avg
{{DECLS}}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = wg_linear(wid, nwg) * WG + lid;
  if (i >= mu(M_NUMEL)) { return; }
  let OW = mu(M_OW); let OH = mu(M_OH);
  let ox = i % OW;
  let oy = (i / OW) % OH;
  let nc = i / (OW * OH);
  let C = mu(M_C);
  let H = i32(mu(M_H)); let W_ = i32(mu(M_W));
  let base = mu(M_X_OFF) + (nc / C) * mu(M_X_STRIDES) + (nc % C) * mu(M_X_STRIDES + 1u);
  let xs2 = mu(M_X_STRIDES + 2u); let xs3 = mu(M_X_STRIDES + 3u);
  var hs: i32; var he: i32; var ws: i32; var we: i32;
  if (MODE == 2u) {
    hs = i32((oy * u32(H)) / OH); he = i32(((oy + 1u) * u32(H) + OH - 1u) / OH);
    ws = i32((ox * u32(W_)) / OW); we = i32(((ox + 1u) * u32(W_) + OW - 1u) / OW);
    var s = 0.0;
    for (var y = hs; y < he; y++) { for (var x = ws; x < we; x++) { s += f32(X[base + u32(y) * xs2 + u32(x) * xs3]); } }
    Y[i] = Y_T(s / f32((he - hs) * (we - ws)));
    return;
  }
  hs = i32(oy * mu(M_SH)) - i32(mu(M_PH));
  ws = i32(ox * mu(M_SW)) - i32(mu(M_PW));
  let KH = i32(mu(M_KH)); let KW = i32(mu(M_KW));
  if (MODE == 0u) {
    let DH = i32(mu(M_DH)); let DW = i32(mu(M_DW));
    var m = 0.0;
    var any = false;
    for (var ky = 0; ky < KH; ky++) {
      let y = hs + ky * DH;
      if (y < 0 || y >= H) { continue; }
      for (var kx = 0; kx < KW; kx++) {
        let x = ws + kx * DW;
        if (x < 0 || x >= W_) { continue; }
        let v = f32(X[base + u32(y) * xs2 + u32(x) * xs3]);
        // A NaN is the max and stays (torch).
        if (!any || is_nan_f(v) || (!is_nan_f(m) && v > m)) { m = v; any = true; }
      }
    }
    Y[i] = Y_T(m);
    return;
  }
  he = min(hs + KH, H + i32(mu(M_PH)));
  we = min(ws + KW, W_ + i32(mu(M_PW)));
  let pool = (he - hs) * (we - ws);
  let hs2 = max(hs, 0); let ws2 = max(ws, 0);
  let he2 = min(he, H); let we2 = min(we, W_);
  var s = 0.0;
  for (var y = hs2; y < he2; y++) { for (var x = ws2; x < we2; x++) { s += f32(X[base + u32(y) * xs2 + u32(x) * xs3]); } }
  var div = f32(select((he2 - hs2) * (we2 - ws2), pool, mu(M_COUNT_INCLUDE_PAD) != 0u));
  if (mu(M_DIVISOR) != 0u) { div = f32(mu(M_DIVISOR)); }
  Y[i] = Y_T(s / div);
}
