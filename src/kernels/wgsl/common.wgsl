// Prelude of every kernel (npm/src/lib/webgpu/kernels.ts prepends it, then the kernel's
// M_* field constants from kernels.json). Binding 0 is the kernel's parameter block: 64 u32
// slots, read by field index; f32 parameters are stored as their bits.
struct Meta { v: array<vec4<u32>, 16> }
@group(0) @binding(0) var<uniform> params: Meta;
fn mu(i: u32) -> u32 { return params.v[i >> 2u][i & 3u]; }
fn mf(i: u32) -> f32 { return bitcast<f32>(mu(i)); }
// Workgroup grids wider than 65535 are folded into y (npm/src/lib/webgpu/kernels.ts grid()).
fn wg_linear(wid: vec3<u32>, nwg: vec3<u32>) -> u32 { return wid.x + wid.y * nwg.x; }
// NaN on the bits: compilers may assume no NaN and fold v != v to false (lavapipe's LLVM does),
// and WGSL's max/min may return either operand for a NaN. torch propagates NaN through max, min,
// clamp, relu and the max reductions: max_nan / min_nan do.
fn is_nan_f(v: f32) -> bool { return (bitcast<u32>(v) & 0x7fffffffu) > 0x7f800000u; }
fn max_nan(a: f32, b: f32) -> f32 { return select(select(max(a, b), b, is_nan_f(b)), a, is_nan_f(a)); }
fn min_nan(a: f32, b: f32) -> f32 { return select(select(min(a, b), b, is_nan_f(b)), a, is_nan_f(a)); }
// erf for f32 (WGSL has none): the rational approximation Eigen and XLA use, |err| ~ 1 ulp.
fn erf_f(x0: f32) -> f32 {
  let x = clamp(x0, -4.0, 4.0);
  let x2 = x * x;
  var p = x2 * -2.72614225801306e-10 + 2.77068142495902e-08;
  p = x2 * p + -2.10102402082508e-06;
  p = x2 * p + -5.69250639462346e-05;
  p = x2 * p + -7.34990630326855e-04;
  p = x2 * p + -2.95459980854025e-03;
  p = x2 * p + -1.60960333262415e-02;
  p = x * p;
  var q = x2 * -1.45660718464996e-05 + -2.13374055278905e-04;
  q = x2 * q + -1.68282697438203e-03;
  q = x2 * q + -7.37332916720468e-03;
  q = x2 * q + -1.42647390514189e-02;
  return p / q;
}
// erfc for f32 without 1 - erf's cancellation for large x: Numerical Recipes' erfcc
// (Chebyshev fit of exp(z^2) erfc(z), fractional error < 1.2e-7).
fn erfc_f(x: f32) -> f32 {
  let z = abs(x);
  let t = 1.0 / (1.0 + 0.5 * z);
  var p = -0.82215223 + t * 0.17087277;
  p = 1.48851587 + t * p;
  p = -1.13520398 + t * p;
  p = 0.27886807 + t * p;
  p = -0.18628806 + t * p;
  p = 0.09678418 + t * p;
  p = 0.37409196 + t * p;
  p = 1.00002368 + t * p;
  let r = t * exp(-z * z - 1.26551223 + t * p);
  return select(2.0 - r, r, x >= 0.0);
}
// tanh for f32: Eigen's rational approximation on [-7.9, 7.9] (saturated beyond), a few ulp.
fn tanh_f(x0: f32) -> f32 {
  if (abs(x0) < 0.0004) { return x0; }
  let x = clamp(x0, -7.90531110763549805, 7.90531110763549805);
  let x2 = x * x;
  var p = x2 * -2.76076847742355e-16 + 2.00018790482477e-13;
  p = x2 * p + -8.60467152213735e-11;
  p = x2 * p + 5.12229709037114e-08;
  p = x2 * p + 1.48572235717979e-05;
  p = x2 * p + 6.37261928875436e-04;
  p = x2 * p + 4.89352455891786e-03;
  p = x * p;
  var q = x2 * 1.19825839466702e-06 + 1.18534705686654e-04;
  q = x2 * q + 2.26843463243900e-03;
  q = x2 * q + 4.89352518554385e-03;
  return p / q;
}
fn sigmoid_f(x: f32) -> f32 { return 1.0 / (1.0 + exp(-x)); }
fn softplus_f(x: f32) -> f32 { return select(log(1.0 + exp(x)), x, x > 20.0); }
// torch.pow on f32: negative bases with integral exponents keep their sign.
fn pow_f(a: f32, b: f32) -> f32 {
  if (b == 0.0) { return 1.0; }
  if (a == 0.0) { return select(0.0, 1.0 / abs(a), b < 0.0); }
  let r = exp2(b * log2(abs(a)));
  if (a > 0.0) { return r; }
  if (trunc(b) != b) { return sqrt(a); }  // NaN (a < 0)
  return select(r, -r, (i32(trunc(b)) & 1) == 1);
}
// x - k * pi/2 for an integer k < 2^24 (Cody-Waite): pi/2 in four 12-bit parts and a rounded
// fifth, k split in two 12-bit halves, so every k * part is exact in f32 (and the same whether or
// not a compiler fuses it into an fma), and with the right k the large steps subtract exactly:
// the error is relative to the result, even next to a multiple of pi/2.
fn pio2_reduce(x: f32, k: f32) -> f32 {
  let p0 = bitcast<f32>(0x3fc90000u);
  let p1 = bitcast<f32>(0x39fda000u);
  let p2 = bitcast<f32>(0x33a22000u);
  let p3 = bitcast<f32>(0x2c346000u);
  let p4 = bitcast<f32>(0x248d3132u);
  let kh = trunc(k * (1.0 / 4096.0)) * 4096.0;
  let kl = k - kh;
  var r = (x - kh * p0) - kl * p0;
  r = (r - kh * p1) - kl * p1;
  // The small parts: where they are small next to r, summed first and taken off in one rounding
  // (six roundings at r's scale would cost up to ~3 ulp); next to a multiple of pi/2 (r about
  // their size), one by one, where each step cancels exactly.
  let tail = ((kh * p2 + kl * p2) + (kh * p3 + kl * p3)) + (kh * p4 + kl * p4);
  if (abs(r) > 64.0 * abs(tail)) { return r - tail; }
  r = (r - kh * p2) - kl * p2;
  r = (r - kh * p3) - kl * p3;
  return (r - kh * p4) - kl * p4;
}
// (sin x, cos x) for f32 within ~1.5 ulp of 1 for |x| < 2^24. WGSL's builtins are only specified
// to 2^-11 inside [-pi, pi], and GPUs' hardware sine loses more outside it, while rotary
// embeddings take arguments up to position x 1.0. k = round(x * 2/pi) can be one off (x * 2/pi
// rounds in f32): then the reduction runs again with the corrected k. Then cephes' sinf/cosf
// polynomials on [-pi/4, pi/4]. Past 2^24, k itself is not exact in f32: the builtins.
fn sincos_f(x: f32) -> vec2<f32> {
  if (!(abs(x) < 16777216.0)) { return vec2<f32>(sin(x), cos(x)); }
  let rk = pio2_split(x);
  let r = rk.x;
  let z = r * r;
  let s = ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * r + r;
  let c = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z - 0.5 * z + 1.0;
  switch (i32(rk.y) & 3) {
    case 0: { return vec2<f32>(s, c); }
    case 1: { return vec2<f32>(c, -s); }
    case 2: { return vec2<f32>(-s, -c); }
    default: { return vec2<f32>(-c, s); }
  }
}
// (r, k): x = r + k * pi/2 with |r| <= pi/4, for |x| < 2^24 (sincos_f, tan_f).
fn pio2_split(x: f32) -> vec2<f32> {
  let two_over_pi = bitcast<f32>(0x3f22f983u);
  var k = round(x * two_over_pi);
  var r = pio2_reduce(x, k);
  let k2 = round(r * two_over_pi);
  if (k2 != 0.0) {
    k += k2;
    r = pio2_reduce(x, k);
  }
  return vec2<f32>(r, k);
}
// tan: cephes' tanf polynomial on the reduced r, -1/tan(r) for odd k: within ~1.5 ulp to 2^24
// (sin / cos would add both their errors: 4 ulp).
fn tan_f(x: f32) -> f32 {
  if (!(abs(x) < 16777216.0)) { return tan(x); }
  let rk = pio2_split(x);
  let r = rk.x;
  let z = r * r;
  var t = r;
  if (abs(r) > 1e-4) {
    t = (((((9.38540185543e-3 * z + 3.11992232697e-3) * z + 2.44301354525e-2) * z + 5.34112807005e-2) * z +
          1.33387994085e-1) * z + 3.33331568548e-1) * z * r + r;
  }
  return select(t, -1.0 / t, (i32(rk.y) & 1) == 1);
}
// Element i of an int8 / uint8 binding held as bytes, four to a word (GpuDispatch::packed_bytes):
// byte i & 3 of `word` (the one at index i >> 2), sign-extended for int8.
fn byte_s8(word: u32, i: u32) -> i32 { return extractBits(bitcast<i32>(word), (i & 3u) * 8u, 8u); }
fn byte_u8(word: u32, i: u32) -> i32 { return i32(extractBits(word, (i & 3u) * 8u, 8u)); }
// Zero point i of a binding by its kind (ops/webgpu.h gpu_zero_point_kind): 0 none, 1 int8 /
// 2 uint8 bytes, 3 int32 words; `word` is the binding's word at zero_point_word(kind, i).
fn zero_point_word(kind: u32, i: u32) -> u32 { return select(i, i >> 2u, kind != 3u); }
fn zero_point_in(kind: u32, word: u32, i: u32) -> i32 {
  if (kind == 1u) { return byte_s8(word, i); }
  if (kind == 2u) { return byte_u8(word, i); }
  if (kind == 3u) { return bitcast<i32>(word); }
  return 0;
}
