// The SIMD kernels under every Highway target this build compiled and this CPU
// runs (kernels/simd_dispatch.h), one parameter per target: each is held to the
// scalar references the default target is (exact ops: the same bits; float64-lane
// transcendentals: within 1 ulp of the best target, which FMA may move by one
// rounding, or the scalar reference's bits where a target has no row kernel;
// gemm/conv/pool: the selfcheck sweeps). The whole kernel suites also
// run per target through TIR_SIMD_TARGET (tests/CMakeLists.txt: simd_target_*).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels/elementwise.h"
#include "kernels/elementwise_math.h"
#include "kernels/elementwise_simd.h"
#include "kernels/gemm.h"
#include "kernels/grid_sample.h"
#include "kernels/selfcheck.h"
#include "kernels/simd_dispatch.h"
#include "test_util.h"

namespace tir {
namespace {

// Applies TIR_SIMD_TARGET for the whole binary (the simd_target_* ctest runs);
// a target this CPU lacks skips the run instead of failing it.
class SimdTargetEnv : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* env = std::getenv("TIR_SIMD_TARGET");
    if (env && *env && !simd_limit_target(env)) GTEST_SKIP() << "TIR_SIMD_TARGET " << env << " not usable here";
  }
};
[[maybe_unused]] ::testing::Environment* const kEnv = ::testing::AddGlobalTestEnvironment(new SimdTargetEnv);

// n values in [-8, 8) with NaN, +-inf, +-0, denormals and huge values mixed in.
std::vector<float> values(size_t n, uint32_t seed) {
  static const float kSpecial[] = {std::numeric_limits<float>::quiet_NaN(), INFINITY, -INFINITY, 0.0f, -0.0f,
                                   std::numeric_limits<float>::max(), 1e-40f, -1e-40f, 88.8f, -88.8f, 3.0f, -6.0f};
  std::vector<float> v = test::random_vec(n, seed);
  for (auto& x : v) x *= 8;
  for (size_t i = 0; i < n; i += 7) v[i] = kSpecial[(i / 7 + seed) % (sizeof(kSpecial) / sizeof(float))];
  return v;
}

Tensor tensor_of(const std::vector<float>& v) {
  Tensor t = make_owned(DType::F32, {int64_t(v.size())});
  std::memcpy(t.data<float>(), v.data(), v.size() * sizeof(float));
  return t;
}

// Largest distance in ulps (NaN must meet NaN); 2^31 for a size or NaN mismatch.
int64_t max_ulps(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return int64_t(1) << 31;
  int64_t worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) || std::isnan(want[i])) {
      if (std::isnan(got[i]) != std::isnan(want[i])) return int64_t(1) << 31;
      continue;
    }
    int32_t a, b;
    std::memcpy(&a, &got[i], 4);
    std::memcpy(&b, &want[i], 4);
    const int64_t ia = a < 0 ? int64_t(INT32_MIN) - a : a, ib = b < 0 ? int64_t(INT32_MIN) - b : b;
    worst = std::max(worst, std::abs(ia - ib));
  }
  return worst;
}

constexpr int64_t kN = 1031;  // whole vectors of every target and a ragged tail

std::vector<float> unary(UnaryOp op, const UnaryParams& p, EwPath path) {
  const Tensor in = tensor_of(values(kN, uint32_t(op))), out = make_owned(DType::F32, {kN});
  unary_kernel(op, out, in, p, path);
  return test::values_f32(out);
}

class SimdTargets : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { use(GetParam()); }
  void TearDown() override { simd_limit_target(simd_targets().front()); }
  static void use(const std::string& target) {
    ASSERT_TRUE(simd_limit_target(target));
    ASSERT_EQ(simd_target(), target);
  }
};

TEST(SimdDispatch, DefaultIsTheBestUsableTarget) {
  const std::vector<std::string> all = simd_targets();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(simd_target(), all.front());
  EXPECT_FALSE(simd_limit_target("NO_SUCH_TARGET"));
  EXPECT_EQ(simd_target(), all.front());
  std::string list;
  for (const auto& t : all) list += " " + t;
  std::printf("[ SIMD     ] chosen %s; usable:%s\n", simd_target().c_str(), list.c_str());
}

TEST_P(SimdTargets, GemmTileFollowsTheTarget) {
  // NR is two vectors of floats: the packed layouts change with the target.
  const std::string t = GetParam();
  const int64_t lanes = t == "AVX3" ? 16 : t == "AVX2" ? 8 : t == "SCALAR" ? 1 : 4;
  EXPECT_EQ(gemm_nr(), 2 * lanes);
  EXPECT_EQ(packed_b_size(3, 1), 3 * gemm_nr());
}

TEST_P(SimdTargets, SelfcheckGemmConvPool) {
  for (const SelfcheckResult& r : {selfcheck_gemm(), selfcheck_conv(), selfcheck_pool(), selfcheck_quantized()}) {
    EXPECT_GT(r.cases, 40);
    EXPECT_EQ(r.failures, 0) << r.report;
  }
}

TEST_P(SimdTargets, ExactElementwiseOpsGiveTheScalarBits) {
  UnaryParams clamp;
  clamp.a = -2.5, clamp.b = 3.5, clamp.has_a = clamp.has_b = true;
  UnaryParams slope;
  slope.a = 0.01;
  for (auto [op, p] : std::vector<std::pair<UnaryOp, UnaryParams>>{
           {UnaryOp::Relu, {}}, {UnaryOp::Neg, {}}, {UnaryOp::Abs, {}}, {UnaryOp::Clamp, clamp},
           {UnaryOp::LeakyRelu, slope}, {UnaryOp::Hardswish, {}}, {UnaryOp::Hardsigmoid, {}},
           {UnaryOp::Sqrt, {}}, {UnaryOp::Rsqrt, {}}, {UnaryOp::Reciprocal, {}}})
    EXPECT_EQ(max_ulps(unary(op, p, EwPath::Auto), unary(op, p, EwPath::Scalar)), 0) << "unary op " << int(op);
  const Tensor a = tensor_of(values(kN, 1)), b = tensor_of(values(kN, 2)), out = make_owned(DType::F32, {kN});
  for (BinaryOp op : {BinaryOp::Add, BinaryOp::Mul, BinaryOp::Div, BinaryOp::Maximum, BinaryOp::Minimum})
    for (double alpha : {1.0, 2.5}) {
      if (alpha != 1.0 && op != BinaryOp::Add) continue;
      binary_kernel(op, out, a, b, Scalar::of_double(alpha), EwPath::Auto);
      const std::vector<float> simd = test::values_f32(out);
      binary_kernel(op, out, a, b, Scalar::of_double(alpha), EwPath::Scalar);
      EXPECT_EQ(max_ulps(simd, test::values_f32(out)), 0) << "binary op " << int(op) << " alpha " << alpha;
    }
}

TEST_P(SimdTargets, TranscendentalsWithinOneUlpOfTheBestTarget) {
  UnaryParams elu;
  elu.a = elu.b = elu.c = 1.0;
  UnaryParams softplus;
  softplus.a = 1.0, softplus.b = 20.0;
  for (auto [op, p] : std::vector<std::pair<UnaryOp, UnaryParams>>{
           {UnaryOp::Exp, {}}, {UnaryOp::Log, {}}, {UnaryOp::Tanh, {}}, {UnaryOp::Sigmoid, {}},
           {UnaryOp::Silu, {}}, {UnaryOp::Gelu, {}}, {UnaryOp::GeluTanh, {}}, {UnaryOp::Elu, elu},
           {UnaryOp::Softplus, softplus}, {UnaryOp::Mish, {}}}) {
    use(simd_targets().front());
    const std::vector<float> best = unary(op, p, EwPath::Auto);
    use(GetParam());
    if (unary_row_f32(op))
      EXPECT_LE(max_ulps(unary(op, p, EwPath::Auto), best), 1) << "unary op " << int(op);
    else  // no row kernel on this target (HWY_SCALAR): the scalar reference runs
      EXPECT_EQ(max_ulps(unary(op, p, EwPath::Auto), unary(op, p, EwPath::Scalar)), 0) << "unary op " << int(op);
  }
  for (MathUnaryOp op : {MathUnaryOp::Acos, MathUnaryOp::Asinh, MathUnaryOp::Atan, MathUnaryOp::Sinh,
                         MathUnaryOp::Log10}) {
    const Tensor in = tensor_of(values(kN, 7)), out = make_owned(DType::F32, {kN});
    math_unary_kernel(op, out, in, {}, MathPath::Simd);
    const std::vector<float> simd = test::values_f32(out);
    math_unary_kernel(op, out, in, {}, MathPath::Scalar);
    EXPECT_LE(max_ulps(simd, test::values_f32(out)), 1) << "math op " << int(op);
  }
}

TEST_P(SimdTargets, GridSampleGivesTheReferenceBits) {
  GridSampleArgs a;
  a.N = 2, a.C = 3, a.H = 9, a.W = 13, a.oH = 7, a.oW = 11;
  const std::vector<float> in = test::random_vec(size_t(a.N * a.C * a.H * a.W), 3);
  std::vector<float> grid = test::random_vec(size_t(a.N * a.oH * a.oW * 2), 4);
  for (auto& g : grid) g *= 1.3f;  // some positions outside the image
  for (GridPad pad : {GridPad::Zeros, GridPad::Border})
    for (bool align : {false, true}) {
      a.pad = pad, a.align_corners = align;
      std::vector<float> fast(size_t(a.N * a.C * a.oH * a.oW)), ref(fast.size());
      ASSERT_TRUE(grid_sample_f32_fast(a, in.data(), grid.data(), fast.data()));
      grid_sample_ref(a, in.data(), grid.data(), ref.data());
      EXPECT_EQ(max_ulps(fast, ref), 0) << "pad " << int(pad) << " align " << align;
    }
}

INSTANTIATE_TEST_SUITE_P(Usable, SimdTargets, ::testing::ValuesIn(simd_targets()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace tir
