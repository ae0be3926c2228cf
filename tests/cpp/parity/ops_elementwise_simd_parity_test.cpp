// The float32 SIMD elementwise rows (kernels/elementwise_simd.h) against
// PyTorch's own CPU kernels (LibTorch), both measured against float64 truth over
// the same dense sweeps (tests/cpp/ew_cases.h): ours must be no less accurate.
// Plus NaN propagation and signed zeros of maximum/minimum/relu against torch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

#include "ew_cases.h"
#include "kernels/elementwise.h"
#include "kernels/elementwise_simd.h"
#include "test_util.h"
#include "torch_backend/reference.h"
#include "ulp.h"

namespace tir {
namespace {

TensorMeta input_meta(const std::string& name, const Shape& shape) {
  TensorMeta m;
  m.name = name;
  m.shape = shape;
  m.dtype = DType::F32;
  m.producer_node = name;  // a graph input
  return m;
}

// torch's result of `aten` on float32 inputs (one per tensor input).
std::vector<float> torch_result(const char* aten, const AttrMap& attrs, const std::vector<Tensor>& ins) {
  OpNode n;
  n.name = "op";
  n.op_type = aten;
  n.attrs = attrs;
  for (size_t i = 0; i < ins.size(); ++i) n.inputs.push_back(input_meta("x" + std::to_string(i), ins[i].shape));
  return test::values_f32(run_node_reference(n, ins)[0]);
}

Tensor tensor_of(const std::vector<float>& v) { return test::tensor_f32({int64_t(v.size())}, v); }

TEST(EwSimdParity, NoLessAccurateThanTorch) {
  for (const auto& t : test::transcendental()) {
    const std::vector<float> x = test::sweep(t.lo, t.hi, 997);
    const Tensor in = tensor_of(x);
    Tensor out = make_owned(DType::F32, in.shape);
    unary_kernel(t.c.op, out, in, t.c.p, EwPath::Auto);
    const std::vector<float> ours = test::values_f32(out), torch = torch_result(t.aten, t.attrs, {in});
    double e_ours = 0, e_torch = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double truth = double(t.truth(x[i], t.c.p));
      e_ours = std::max(e_ours, test::ulp_error(ours[i], truth));
      e_torch = std::max(e_torch, test::ulp_error(torch[i], truth));
    }
    std::printf("  %-11s %zu inputs: max ulp ours %.4g (%s), torch %s %.4g\n", t.c.name, x.size(), e_ours,
                unary_row_f32(t.c.op) ? "simd" : "scalar", libtorch_version().c_str(), e_torch);
    if (unary_row_f32(t.c.op)) EXPECT_LE(e_ours, e_torch) << t.c.name;
  }
}

TEST(EwSimdParity, SpecialValuesAsTorch) {
  // NaN-ness and infinities as torch (finite values: NoLessAccurateThanTorch; where
  // torch's exp overflows, sigmoid(-100) say, torch gives 0 and ours the denormal
  // truth). Signed zeros are checked against torch 2.14 in the unit test
  // (EwSimd.SignedZerosTinyAndInfiniteInputsAsTorch2): LibTorch 1.13 gives +0 for
  // gelu(-0.) and elu(-0.), and 0 for elu(-1e-45), where ours and torch 2.x follow the math.
  constexpr float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {nan, inf, -inf, 0.0f, -0.0f, 3e38f, -3e38f, 1e-45f, -1e-45f, 100.0f, -100.0f};
  for (const auto& t : test::transcendental()) {
    const Tensor in = tensor_of(x);
    Tensor out = make_owned(DType::F32, in.shape);
    unary_kernel(t.c.op, out, in, t.c.p, EwPath::Auto);
    const std::vector<float> ours = test::values_f32(out), torch = torch_result(t.aten, t.attrs, {in});
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_EQ(std::isnan(ours[i]), std::isnan(torch[i])) << t.c.name << "(" << x[i] << ")";
      if (std::isnan(ours[i]) || std::isnan(torch[i])) continue;
      EXPECT_EQ(std::isinf(ours[i]), std::isinf(torch[i])) << t.c.name << "(" << x[i] << ")";
      if (std::isinf(torch[i])) EXPECT_EQ(ours[i], torch[i]) << t.c.name << "(" << x[i] << ")";
    }
  }
}

TEST(EwSimdParity, MaximumMinimumReluNaNAndZerosAsTorch) {
  constexpr float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // 19 elements: more than a vector, so torch takes its vectorized loop too.
  std::vector<float> a = {nan, 1.0f, -0.0f, 0.0f, -inf, nan, 2.0f, -0.0f, 0.0f, 5.0f},
                     b = {1.0f, nan, 0.0f, -0.0f, inf, nan, 2.0f, -0.0f, 0.0f, -5.0f};
  a.insert(a.end(), a.begin(), a.begin() + 9);
  b.insert(b.end(), b.begin(), b.begin() + 9);
  const Tensor ta = tensor_of(a), tb = tensor_of(b);
  const auto same = [](const std::vector<float>& ours, const std::vector<float>& torch, const char* what) {
    ASSERT_EQ(ours.size(), torch.size());
    for (size_t i = 0; i < ours.size(); ++i) {
      EXPECT_EQ(std::isnan(ours[i]), std::isnan(torch[i])) << what << " at " << i;
      if (!std::isnan(ours[i]))
        EXPECT_TRUE(ours[i] == torch[i] && std::signbit(ours[i]) == std::signbit(torch[i]))
            << what << " at " << i << ": ours " << ours[i] << " torch " << torch[i];
    }
  };
  for (const auto& [op, aten] : {std::pair{BinaryOp::Maximum, "aten.maximum.default"},
                                 std::pair{BinaryOp::Minimum, "aten.minimum.default"}}) {
    Tensor out = make_owned(DType::F32, ta.shape);
    binary_kernel(op, out, ta, tb);
    same(test::values_f32(out), torch_result(aten, {}, {ta, tb}), aten);
  }
  Tensor out = make_owned(DType::F32, ta.shape);
  unary_kernel(UnaryOp::Relu, out, ta);
  same(test::values_f32(out), torch_result("aten.relu.default", {}, {ta}), "relu");
}

}  // namespace
}  // namespace tir
