// The float32 SIMD rows of binary_kernel / unary_kernel (kernels/elementwise_simd.h)
// against the scalar reference (EwPath::Scalar) and float64 truth: lengths 0, 1 and
// every length around each vector width, unaligned starts (offset views), a
// broadcast scalar on either side, broadcast rows, in-place, non-contiguous views
// (the scalar fallback), and NaN, +-inf, +-0, denormals and huge values.
// Exact ops must give the scalar reference's bits; transcendental ones (through
// float64 lanes) must stay within 0.5 ulp (+1e-3) of the truth over dense sweeps.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/elementwise.h"
#include "kernels/elementwise_simd.h"
#include "kernels/selfcheck.h"
#include "ew_cases.h"
#include "test_util.h"
#include "ulp.h"

namespace tir {
namespace {

using test::params;
using test::sweep;
using test::transcendental;
using test::UnCase;
using test::ulp_error;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

const std::vector<float>& specials() {
  static const std::vector<float> v = {
      kNaN, kInf, -kInf, 0.0f, -0.0f, std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
      std::numeric_limits<float>::min(), -std::numeric_limits<float>::min(),
      std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(), 1e-40f, -1e-40f,
      1e30f, -1e30f, 100.0f, -100.0f, 88.8f, -88.8f, 3.0f, -3.0f, 6.0f, -6.0f, 1.0f, -1.0f, 20.0f, 0.5f};
  return v;
}

// Every length up to 4 vectors of 16 lanes (AVX-512 float32), a few past it, and
// rows long enough to be split across threads.
std::vector<int64_t> lengths() {
  std::vector<int64_t> v;
  for (int64_t n = 0; n <= 67; ++n) v.push_back(n);
  for (int64_t n : {127, 128, 129, 1000, 140001}) v.push_back(n);
  return v;
}

// n values in [-8, 8) with the special values mixed in every 5th place.
std::vector<float> values(size_t n, uint32_t seed) {
  std::vector<float> v = test::random_vec(n, seed);
  for (auto& x : v) x *= 8;
  for (size_t i = 0; i < n; i += 5) v[i] = specials()[(i / 5 + seed) % specials().size()];
  return v;
}

// A 1-D float32 view of `v` starting `offset` elements into its buffer (unaligned for offset > 0).
Tensor view_of(const std::vector<float>& v, int64_t offset) {
  Tensor base = make_owned(DType::F32, {int64_t(v.size()) + offset});
  std::fill(base.data<float>(), base.data<float>() + offset, 1234.5f);
  if (!v.empty()) std::memcpy(base.data<float>() + offset, v.data(), v.size() * 4);
  return base.view_as({int64_t(v.size())}, {1}, offset);
}

std::vector<float> values_of(const Tensor& t) { return test::values_f32(t); }

// Same bits, or both NaN.
::testing::AssertionResult same_bits(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes " << got.size() << " vs " << want.size();
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) && std::isnan(want[i])) continue;
    if (std::memcmp(&got[i], &want[i], 4) != 0)
      return ::testing::AssertionFailure() << "at " << i << ": " << got[i] << " vs " << want[i];
  }
  return ::testing::AssertionSuccess();
}

struct BinCase {
  BinaryOp op;
  double alpha;
  const char* name;
};
const BinCase kBinary[] = {
    {BinaryOp::Add, 1, "add"},           {BinaryOp::Add, -1, "sub"},         {BinaryOp::Add, 2.5, "add_alpha"},
    {BinaryOp::Mul, 1, "mul"},           {BinaryOp::Div, 1, "div"},          {BinaryOp::Maximum, 1, "maximum"},
    {BinaryOp::Minimum, 1, "minimum"},
};

// out = op(a, b) on both paths; the results must have the same bits.
::testing::AssertionResult binary_paths_agree(const BinCase& c, const Tensor& a, const Tensor& b) {
  Tensor simd = make_owned(DType::F32, a.shape), ref = make_owned(DType::F32, a.shape);
  const Scalar alpha = Scalar::of_double(c.alpha);
  binary_kernel(c.op, simd, a, b, alpha, EwPath::Auto);
  binary_kernel(c.op, ref, a, b, alpha, EwPath::Scalar);
  return same_bits(values_of(simd), values_of(ref));
}

TEST(EwSimd, ExactBinaryOpsGiveTheScalarBits) {
  for (const BinCase& c : kBinary) {
    ASSERT_NE(binary_row_f32(c.op, float(c.alpha)), nullptr) << c.name;
    for (int64_t n : lengths()) {
      const std::vector<float> x = values(size_t(n), 1), y = values(size_t(n), 2);
      for (int64_t off : {0, 1, 3}) {
        const Tensor a = view_of(x, off), b = view_of(y, (off * 2) % 5);
        EXPECT_TRUE(binary_paths_agree(c, a, b)) << c.name << " n=" << n << " offset=" << off;
        if (n == 0) continue;
        // A broadcast scalar on either side (each special value among them).
        const Tensor s = view_of({y[size_t(n) / 2]}, off).view_as({n}, {0}, off);
        EXPECT_TRUE(binary_paths_agree(c, a, s)) << c.name << " vec-scalar n=" << n;
        EXPECT_TRUE(binary_paths_agree(c, s, a)) << c.name << " scalar-vec n=" << n;
      }
    }
  }
}

TEST(EwSimd, BinaryBroadcastRowsInPlaceAndStrided) {
  for (const BinCase& c : kBinary) {
    for (int64_t cols : {1, 3, 8, 17, 33}) {
      const int64_t rows = 5;
      const std::vector<float> x = values(size_t(rows * cols), 3), y = values(size_t(cols), 4);
      const Tensor a = view_of(x, 1).view_as({rows, cols}, {cols, 1}, 1);
      const Tensor row = view_of(y, 2).view_as({rows, cols}, {0, 1}, 2);  // b[cols] broadcast over rows
      EXPECT_TRUE(binary_paths_agree(c, a, row)) << c.name << " rows cols=" << cols;
      EXPECT_TRUE(binary_paths_agree(c, row, a)) << c.name << " rows cols=" << cols;
      // A transposed (non-contiguous) operand takes the scalar code.
      const Tensor at = view_of(x, 0).view_as({cols, rows}, {1, cols}, 0);
      const Tensor bt = view_of(values(size_t(rows * cols), 5), 0).view_as({cols, rows}, {rows, 1}, 0);
      EXPECT_TRUE(binary_paths_agree(c, at, bt)) << c.name << " transposed cols=" << cols;
      // In place: out is a (same view).
      Tensor inplace = view_of(x, 1).view_as({rows, cols}, {cols, 1}, 1);
      Tensor ref = make_owned(DType::F32, {rows, cols});
      binary_kernel(c.op, ref, inplace, row, Scalar::of_double(c.alpha), EwPath::Scalar);
      binary_kernel(c.op, inplace, inplace, row, Scalar::of_double(c.alpha), EwPath::Auto);
      EXPECT_TRUE(same_bits(values_of(inplace), values_of(ref))) << c.name << " in place cols=" << cols;
    }
  }
}

TEST(EwSimd, MaximumMinimumPropagateNaNAndKeepSignedZeros) {
  const Tensor a = test::tensor_f32({6}, {kNaN, 1.0f, -0.0f, 0.0f, -kInf, kNaN});
  const Tensor b = test::tensor_f32({6}, {1.0f, kNaN, 0.0f, -0.0f, kInf, kNaN});
  Tensor mx = make_owned(DType::F32, {6}), mn = make_owned(DType::F32, {6});
  binary_kernel(BinaryOp::Maximum, mx, a, b);
  binary_kernel(BinaryOp::Minimum, mn, a, b);
  const std::vector<float> vx = values_of(mx), vn = values_of(mn);
  for (int i : {0, 1, 5}) EXPECT_TRUE(std::isnan(vx[size_t(i)]) && std::isnan(vn[size_t(i)])) << i;
  // Equal zeros give the second operand, as torch's vectorized kernels (torch 2.14:
  // maximum(-0., 0.) = 0., maximum(0., -0.) = -0.; the same for minimum).
  EXPECT_TRUE(!std::signbit(vx[2]) && !std::signbit(vn[2]));
  EXPECT_TRUE(std::signbit(vx[3]) && std::signbit(vn[3]));
  EXPECT_EQ(vx[4], kInf);
  EXPECT_EQ(vn[4], -kInf);
}

const std::vector<UnCase>& exact_unary() {
  static const std::vector<UnCase> v = {
      {UnaryOp::Relu, {}, "relu"},
      {UnaryOp::Neg, {}, "neg"},
      {UnaryOp::Abs, {}, "abs"},
      {UnaryOp::Clamp, params(-1.5, 2.25), "clamp"},
      {UnaryOp::Clamp, params(0, 0, 0, true, false), "clamp_min0"},
      {UnaryOp::Clamp, params(0, 6, 0, false, true), "clamp_max6"},
      {UnaryOp::LeakyRelu, params(0.01), "leaky_relu"},
      {UnaryOp::Hardswish, {}, "hardswish"},
      {UnaryOp::Hardsigmoid, {}, "hardsigmoid"},
      {UnaryOp::Sqrt, {}, "sqrt"},
      {UnaryOp::Rsqrt, {}, "rsqrt"},
      {UnaryOp::Reciprocal, {}, "reciprocal"},
  };
  return v;
}

std::vector<float> run_unary(const UnCase& c, const Tensor& in, EwPath path) {
  Tensor out = make_owned(DType::F32, in.shape);
  unary_kernel(c.op, out, in, c.p, path);
  return values_of(out);
}

TEST(EwSimd, ExactUnaryOpsGiveTheScalarBits) {
  for (const UnCase& c : exact_unary()) {
    ASSERT_NE(unary_row_f32(c.op), nullptr) << c.name;
    for (int64_t n : lengths()) {
      const std::vector<float> x = values(size_t(n), 6);
      for (int64_t off : {0, 1, 3}) {
        const Tensor in = view_of(x, off);
        EXPECT_TRUE(same_bits(run_unary(c, in, EwPath::Auto), run_unary(c, in, EwPath::Scalar)))
            << c.name << " n=" << n << " offset=" << off;
      }
    }
  }
}

TEST(EwSimd, UnaryInPlaceAndStrided) {
  std::vector<UnCase> all = exact_unary();
  for (const auto& t : transcendental()) all.push_back(t.c);
  for (const UnCase& c : all) {
    const std::vector<float> x = values(7 * 19, 7);
    // Transposed view: the scalar code on both paths.
    const Tensor t = view_of(x, 0).view_as({19, 7}, {1, 19}, 0);
    EXPECT_TRUE(same_bits(run_unary(c, t, EwPath::Auto), run_unary(c, t, EwPath::Scalar))) << c.name;
    // In place (out is in) gives what out-of-place gives.
    const std::vector<float> want = run_unary(c, view_of(x, 1), EwPath::Auto);
    Tensor inplace = view_of(x, 1);
    unary_kernel(c.op, inplace, inplace, c.p, EwPath::Auto);
    EXPECT_TRUE(same_bits(values_of(inplace), want)) << c.name;
  }
}

TEST(EwSimd, TranscendentalRowsAreLengthAndAlignmentIndependent) {
  // Each element sees the same lane code wherever it sits (body or tail, any offset).
  for (const auto& t : transcendental()) {
    const std::vector<float> x = values(200, 8);
    const std::vector<float> full = run_unary(t.c, view_of(x, 0), EwPath::Auto);
    for (int64_t n : lengths()) {
      if (n > 200) break;
      for (int64_t off : {1, 3}) {
        const std::vector<float> part(x.begin(), x.begin() + n);
        EXPECT_TRUE(same_bits(run_unary(t.c, view_of(part, off), EwPath::Auto),
                              std::vector<float>(full.begin(), full.begin() + n)))
            << t.c.name << " n=" << n << " offset=" << off;
      }
    }
  }
}

TEST(EwSimd, TranscendentalSpecialValuesMatchTheScalarReference) {
  // NaN, +-inf, +-0, denormals and huge values: the same results (signed zeros
  // included) as the scalar reference, i.e. torch's float formulas.
  for (const auto& t : transcendental()) {
    std::vector<float> x = specials();
    const Tensor in = view_of(x, 0);
    const std::vector<float> simd = run_unary(t.c, in, EwPath::Auto), ref = run_unary(t.c, in, EwPath::Scalar);
    // No SIMD path on this target (WASM, Highway's HWY_SCALAR fallback): Auto is the scalar code.
    const bool has_simd = unary_row_f32(t.c.op) != nullptr;
    for (size_t i = 0; i < x.size(); ++i) {
      const float xi = x[i];
      if (!std::isfinite(xi) || xi == 0 || !has_simd)
        EXPECT_TRUE(same_bits({simd[i]}, {ref[i]})) << t.c.name << "(" << xi << "): " << simd[i] << " vs " << ref[i];
      else
        EXPECT_LE(ulp_error(simd[i], double(t.truth(xi, t.c.p))), 0.5 + 1e-3) << t.c.name << "(" << xi << ")";
    }
  }
}

TEST(EwSimd, SignedZerosTinyAndInfiniteInputsAsTorch2) {
  // Recorded from torch 2.14.1 (the sid chroot) on a 16-element float32 tensor
  // [-0., 0., -1e-45, -inf, nan, 1., ...]: F.gelu, F.gelu(approximate="tanh"),
  // F.elu, F.selu, F.silu, F.mish, torch.tanh, F.relu. (LibTorch 1.13 gives +0
  // for gelu(-0.) and elu(-0.), from its exp(x) - 1 and erf forms.)
  const float d = std::numeric_limits<float>::denorm_min();
  const std::vector<float> x = {-0.0f, 0.0f, -d, -kInf, kNaN, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  struct Want {
    UnCase c;
    float r[5];
  };
  const Want wants[] = {
      {{UnaryOp::Gelu, {}, "gelu"}, {-0.0f, 0.0f, -0.0f, kNaN, kNaN}},
      {{UnaryOp::GeluTanh, {}, "gelu_tanh"}, {-0.0f, 0.0f, -0.0f, kNaN, kNaN}},
      {{UnaryOp::Elu, params(1, 1, 1), "elu"}, {-0.0f, 0.0f, -d, -1.0f, kNaN}},
      {{UnaryOp::Elu, params(1.6732632423543772, 1.0507009873554805, 1), "selu"},
       {-0.0f, 0.0f, -2 * d, -1.7580993175506592f, kNaN}},
      {{UnaryOp::Silu, {}, "silu"}, {-0.0f, 0.0f, -0.0f, kNaN, kNaN}},
      {{UnaryOp::Mish, {}, "mish"}, {-0.0f, 0.0f, -d, kNaN, kNaN}},
      {{UnaryOp::Tanh, {}, "tanh"}, {-0.0f, 0.0f, -d, -1.0f, kNaN}},
      {{UnaryOp::Relu, {}, "relu"}, {-0.0f, 0.0f, 0.0f, 0.0f, kNaN}},
  };
  for (const Want& w : wants)
    for (EwPath path : {EwPath::Auto, EwPath::Scalar}) {
      const std::vector<float> got = run_unary(w.c, view_of(x, 0), path);
      EXPECT_TRUE(same_bits({got.begin(), got.begin() + 5}, {w.r, w.r + 5}))
          << w.c.name << (path == EwPath::Auto ? " auto" : " scalar");
    }
}

TEST(EwSimd, TranscendentalUlpSweepAgainstFloat64Truth) {
  for (const auto& t : transcendental()) {
    const std::vector<float> x = sweep(t.lo, t.hi, 997);
    ASSERT_GT(x.size(), 100000u) << t.c.name;
    const Tensor in = view_of(x, 0);
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<float> simd = run_unary(t.c, in, EwPath::Auto);
    const auto t1 = std::chrono::steady_clock::now();
    const std::vector<float> ref = run_unary(t.c, in, EwPath::Scalar);
    const auto t2 = std::chrono::steady_clock::now();
    double e_simd = 0, e_ref = 0;
    float worst = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double truth = double(t.truth(x[i], t.c.p));
      const double e = ulp_error(simd[i], truth);
      if (e > e_simd) e_simd = e, worst = x[i];
      e_ref = std::max(e_ref, ulp_error(ref[i], truth));
    }
    const bool has_simd = unary_row_f32(t.c.op) != nullptr;
    std::printf("  %-11s %zu inputs: max ulp auto %.4f (at %g, %.1f ms, %s) scalar %.4g (%.1f ms)\n", t.c.name,
                x.size(), e_simd, double(worst), std::chrono::duration<double, std::milli>(t1 - t0).count(),
                has_simd ? "simd" : "scalar", e_ref, std::chrono::duration<double, std::milli>(t2 - t1).count());
    // The SIMD path rounds a float64 evaluation once (no SIMD path: Auto is the scalar code).
    if (has_simd) EXPECT_LE(e_simd, 0.5 + 1e-3) << t.c.name << " at " << worst;
    else EXPECT_EQ(e_simd, e_ref) << t.c.name;
  }
}

TEST(EwSimd, NarrowFloat32RowsAreNoLessAccurateThanTheScalarReference) {
  // unary_row_f32_narrow (float32 lanes: WASM's transcendental path) on every
  // target here: over the dense sweep, and over |x| <= 8 where the values are
  // normal floats, its max ulp error must not exceed the scalar reference's (the
  // std:: float functions WASM ran before) or 1 ulp (PyTorch's bound for exp:
  // Sleef's u10); on NaN, +-inf and +-0 it must give the reference's results.
  size_t checked = 0;
  for (const auto& t : transcendental()) {
    const UnaryRowF32 narrow = unary_row_f32_narrow(t.c.op);
    if (!narrow) continue;
    ++checked;
    const std::vector<float> x = sweep(t.lo, t.hi, 997);
    std::vector<float> got(x.size());
    narrow(got.data(), x.data(), int64_t(x.size()), RowParams{});
    const std::vector<float> ref = run_unary(t.c, view_of(x, 0), EwPath::Scalar);
    double e_narrow = 0, e_ref = 0, m_narrow = 0, m_ref = 0;
    float worst = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double truth = double(t.truth(x[i], t.c.p));
      const double e = ulp_error(got[i], truth);
      if (e > e_narrow) e_narrow = e, worst = x[i];
      e_ref = std::max(e_ref, ulp_error(ref[i], truth));
      if (std::abs(x[i]) <= 8) m_narrow = std::max(m_narrow, e), m_ref = std::max(m_ref, ulp_error(ref[i], truth));
    }
    std::printf("  %-11s narrow max ulp %.4f (at %g), scalar reference %.4g; |x| <= 8: %.4f vs %.4g\n", t.c.name,
                e_narrow, double(worst), e_ref, m_narrow, m_ref);
    // A quarter ulp of slack: both evaluate the same float formula where it dominates (sigmoid's 1 + e).
    EXPECT_LE(e_narrow, std::max(e_ref, 1.0) + 0.25) << t.c.name << " at " << worst;
    EXPECT_LE(m_narrow, std::max(m_ref, 1.0) + 0.25) << t.c.name << " on |x| <= 8";
    const std::vector<float> sx = specials();
    std::vector<float> sgot(sx.size());
    narrow(sgot.data(), sx.data(), int64_t(sx.size()), RowParams{});
    const std::vector<float> sref = run_unary(t.c, view_of(sx, 0), EwPath::Scalar);
    for (size_t i = 0; i < sx.size(); ++i)
      if (!std::isfinite(sx[i]) || sx[i] == 0)
        EXPECT_TRUE(same_bits({sgot[i]}, {sref[i]})) << t.c.name << "(" << sx[i] << "): " << sgot[i] << " vs " << sref[i];
  }
  EXPECT_EQ(checked, 5u);  // exp, sigmoid, silu, gelu, gelu_tanh
}

TEST(EwSimd, TranscendentalSelfcheckAsInWasm) {
  // The sweep npm/test/kernels.test.mjs runs inside the WASM builds, here on this target's rows.
  const SelfcheckResult r = selfcheck_transcendental();
  if (unary_row_f32(UnaryOp::Gelu)) EXPECT_GT(r.cases, 20000);  // else this target runs the scalar reference
  EXPECT_EQ(r.failures, 0) << r.report;
}

}  // namespace
}  // namespace tir
