// stft (torch.stft, center=False: the IR pads before it): Y[b, f, t] = scale * sum_n x[b, t * hop
// + n] * w[n] * exp(-2 pi i f n / n_fft), as float32 pairs (re, im), Y contiguous [batch, bins,
// frames, 2] (a complex64 output's storage, or return_complex=False's real one). The window
// (win samples, centered in n_fft: w_left zeros before it) is optional: none reads every sample
// as is, as ops/fft.cpp. A direct DFT, one invocation per output bin: its twiddles come from
// the exact phase index (f * n) mod n_fft, folded into the first octant and evaluated there by
// sincos_f (~1 ulp, where the angle 2 pi k / n_fft in f32 alone would be off by up to 8 ulp);
// terms add in blocks of 16, then the blocks (error ~ (16 + n/16) ulp, not n). Workgroups:
// grid(ceil(numel / 64)), numel = batch * bins * frames.
{{DECLS}}

// (cos, sin) of 2 pi k / n for k < n < 2^24.
fn twiddle(k: u32, n: u32) -> vec2<f32> {
  let q = (4u * k) / n;  // quarter turns
  let r = 4u * k - q * n;  // the rest: an angle of (pi / 2) r / n
  let flip = 2u * r > n;  // past pi / 4: the complement's sine and cosine, swapped
  let rr = select(r, n - r, flip);
  let sc = sincos_f(f32(rr) / f32(n) * 1.5707963267948966);
  let c = select(sc.y, sc.x, flip);
  let s = select(sc.x, sc.y, flip);
  switch (q) {
    case 0u: { return vec2<f32>(c, s); }
    case 1u: { return vec2<f32>(-s, c); }
    case 2u: { return vec2<f32>(-c, -s); }
    default: { return vec2<f32>(s, -c); }
  }
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = wg_linear(wid, nwg) * WG + lid;
  if (i >= mu(M_NUMEL)) { return; }
  let frames = mu(M_FRAMES);
  let bins = mu(M_BINS);
  let t = i % frames;
  let f = (i / frames) % bins;
  let b = i / (frames * bins);
  let n_fft = mu(M_N_FFT);
  let xs = mu(M_X_S);
  let xb = mu(M_X_OFF) + b * mu(M_X_BS) + t * mu(M_HOP) * xs;
  let has_w = mu(M_HAS_W) != 0u;
  let left = mu(M_W_LEFT);
  let win = mu(M_WIN);
  let fk = f % n_fft;
  var p = 0u;  // (f * n) mod n_fft
  var sr = 0.0;
  var si = 0.0;
  for (var n0 = 0u; n0 < n_fft; n0 += 16u) {
    var br = 0.0;
    var bi = 0.0;
    let n1 = min(n_fft, n0 + 16u);
    for (var n = n0; n < n1; n++) {
      var x = X[xb + n * xs];
      if (has_w) {
        var w = 0.0;
        if (n >= left && n < left + win) { w = W[mu(M_W_OFF) + (n - left) * mu(M_W_S)]; }
        x = x * w;
      }
      let cs = twiddle(p, n_fft);
      br = fma(x, cs.x, br);
      bi = fma(-x, cs.y, bi);
      p += fk;
      if (p >= n_fft) { p -= n_fft; }
    }
    sr += br;
    si += bi;
  }
  let scale = mf(M_SCALE);
  Y[2u * i] = sr * scale;
  Y[2u * i + 1u] = si * scale;
}
