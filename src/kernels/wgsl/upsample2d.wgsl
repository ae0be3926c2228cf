// 2-d resampling (NCHW), one output element per invocation over a strided 4-d input view, with
// torch's CPU index arithmetic (src/kernels/upsample.cpp): MODE 0 nearest (floor(o * scale) in
// f32, clamped; out == in and out == 2 * in map without float arithmetic, as torch), MODE 1
// bilinear (source index scale * o, or scale * (o + 0.5) - 0.5 clamped at 0; W interpolated
// first, then H, as the CPU's separable passes). scale_h/scale_w are the f32 scales the CPU
// computes. Y contiguous. Workgroups: grid(ceil(numel / 64)).
const MODE: u32 = {{MODE}}u;  // 0 nearest, 1 bilinear
{{DECLS}}

fn nearest_src(o: u32, n_in: u32, n_out: u32, s: f32) -> u32 {
  if (n_out == n_in) { return o; }
  if (n_out == 2u * n_in) { return o >> 1u; }
  return min(u32(floor(f32(o) * s)), n_in - 1u);
}

// The two taps (i0, i1) and the weight of i1 along one axis.
struct Taps { i0: u32, i1: u32, l1: f32 }
fn linear_taps(o: u32, n_in: u32, s: f32, align: bool) -> Taps {
  var src = s * f32(o);
  if (!align) { src = max(s * (f32(o) + 0.5) - 0.5, 0.0); }
  let i0 = min(u32(floor(src)), n_in - 1u);
  let l1 = clamp(src - f32(i0), 0.0, 1.0);
  return Taps(i0, select(i0, i0 + 1u, i0 < n_in - 1u), l1);
}

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
  let base = mu(M_X_OFF) + (nc / C) * mu(M_X_STRIDES) + (nc % C) * mu(M_X_STRIDES + 1u);
  let xs2 = mu(M_X_STRIDES + 2u); let xs3 = mu(M_X_STRIDES + 3u);
  let H = mu(M_H); let W_ = mu(M_W);
  if (MODE == 0u) {
    let y = nearest_src(oy, H, OH, mf(M_SCALE_H));
    let x = nearest_src(ox, W_, OW, mf(M_SCALE_W));
    Y[i] = X[base + y * xs2 + x * xs3];
    return;
  }
  let align = mu(M_ALIGN_CORNERS) == 1u;
  // An axis whose size does not change is not interpolated (the CPU skips it too).
  var th = Taps(oy, oy, 0.0);
  if (OH != H) { th = linear_taps(oy, H, mf(M_SCALE_H), align); }
  var tw = Taps(ox, ox, 0.0);
  if (OW != W_) { tw = linear_taps(ox, W_, mf(M_SCALE_W), align); }
  let r0 = base + th.i0 * xs2;
  let r1 = base + th.i1 * xs2;
  var v0 = X[r0 + tw.i0 * xs3];
  var v1 = X[r1 + tw.i0 * xs3];
  if (OW != W_) {
    v0 = v0 * (1.0 - tw.l1) + X[r0 + tw.i1 * xs3] * tw.l1;
    v1 = v1 * (1.0 - tw.l1) + X[r1 + tw.i1 * xs3] * tw.l1;
  }
  Y[i] = select(v0, v0 * (1.0 - th.l1) + v1 * th.l1, OH != H);
}
