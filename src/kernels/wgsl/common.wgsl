// Prelude of every kernel (npm/src/lib/webgpu/kernels.ts prepends it, then the kernel's
// M_* field constants from kernels.json). Binding 0 is the kernel's parameter block: 64 u32
// slots, read by field index; f32 parameters are stored as their bits.
struct Meta { v: array<vec4<u32>, 16> }
@group(0) @binding(0) var<uniform> params: Meta;
fn mu(i: u32) -> u32 { return params.v[i >> 2u][i & 3u]; }
fn mf(i: u32) -> f32 { return bitcast<f32>(mu(i)); }
// Workgroup grids wider than 65535 are folded into y (npm/src/lib/webgpu/kernels.ts grid()).
fn wg_linear(wid: vec3<u32>, nwg: vec3<u32>) -> u32 { return wid.x + wid.y * nwg.x; }
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
