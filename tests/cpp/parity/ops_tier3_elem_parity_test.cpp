// Parity against LibTorch 1.13 for the tier-3 elementwise ops (issue 11):
// inverse/hyperbolic trig, erfc/erfinv/exp2/log10/frac/sgn, threshold and the
// shrinks, atan2 (+ out=), hypot, copysign, true_divide, __xor__, the shifts,
// addcmul/addcdiv/lerp (+ in-place), rrelu, feature_alpha_dropout,
// native_dropout. Awkward shapes (odd, size-1, 0-size, 0-d, broadcast,
// transposed views), domain edges, int/bool promotion, every attr variant.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "parity/parity_util.h"

namespace {

using tir::DType;
using tir::Shape;
using tir::parity::in;
using tir::parity::tr;

ParityInput vals(Shape s, DType d, std::vector<double> v) {
  ParityInput p = in(std::move(s), d);
  p.values = std::move(v);
  return p;
}

// Unary shapes: odd, size-1, 0-size, 0-d, transposed view.
std::vector<ParityInput> unary_shapes(double lo, double hi) {
  return {in({3, 5}, DType::F32, lo, hi), in({1, 7, 1}, DType::F32, lo, hi), in({0, 4}, DType::F32, lo, hi),
          in({}, DType::F32, lo, hi),     tr({5, 3}, DType::F32, lo, hi),    in({2, 33}, DType::F64, lo, hi)};
}

const double kInf = INFINITY;

TEST(Tier3ElemParity, UnaryMathShapesAndDomains) {
  struct Case { const char* op; double lo, hi; };
  const Case cases[] = {
      {"aten.acos.default", -1, 1},   {"aten.asin.default", -1, 1},   {"aten.atan.default", -30, 30},
      {"aten.acosh.default", 1, 50},  {"aten.asinh.default", -50, 50}, {"aten.atanh.default", -0.999, 0.999},
      {"aten.cosh.default", -10, 10}, {"aten.sinh.default", -10, 10}, {"aten.tan.default", -1.5, 1.5},
      {"aten.erfc.default", -4, 9},   {"aten.erfinv.default", -0.999, 0.999}, {"aten.exp2.default", -20, 20},
      {"aten.log10.default", 1e-3, 1e4}, {"aten.frac.default", -100, 100}};
  for (const auto& c : cases)
    for (const auto& s : unary_shapes(c.lo, c.hi)) EXPECT_TRUE(node_parity(c.op, {s}, "{}", 2e-6, 1e-6)) << c.op;
}

TEST(Tier3ElemParity, UnaryMathEdges) {
  // NaN outside the domain, +-inf at its edges, signed zeros, NaN/inf inputs, huge and tiny values.
  const std::vector<double> v = {-2, -1, -0.0, 0, 1, 2, 0.5, -0.99999994, 0.99999994, 1e-30, -1e-30,
                                 1e30, -1e30, 88, 89, 90, -100, 1e-45, kInf, -kInf, NAN, 3.14159265};
  const Shape s = {int64_t(v.size())};
  for (const char* op : {"aten.acos.default", "aten.asin.default", "aten.atan.default", "aten.acosh.default",
                         "aten.asinh.default", "aten.atanh.default", "aten.cosh.default", "aten.sinh.default",
                         "aten.tan.default", "aten.erfc.default", "aten.erfinv.default", "aten.exp2.default",
                         "aten.log10.default", "aten.frac.default", "aten.sgn.default"}) {
    EXPECT_TRUE(node_parity(op, {vals(s, DType::F64, v)}, "{}", 1e-12, 0)) << op;
    if (std::string(op) == "aten.erfinv.default") continue;  // f32 below
    EXPECT_TRUE(node_parity(op, {vals(s, DType::F32, v)}, "{}", 2e-6, 0)) << op;
  }
  // float32 erfinv near +-1: torch 1.13 computes in float (erf saturates in its Newton
  // steps: 3.8325372 at 0.99999994, truth 3.8325069); we compute in double, so that
  // point is checked against float64 truth in the unit tests (EwMath.ErfinvNearOne).
  std::vector<double> e;
  for (double x : v)
    if (std::abs(x) < 0.9999) e.push_back(x);
  EXPECT_TRUE(node_parity("aten.erfinv.default", {vals({int64_t(e.size())}, DType::F32, e)}, "{}", 2e-6, 0));
}

TEST(Tier3ElemParity, UnaryMathIntBoolPromotion) {
  for (const char* op : {"aten.acos.default", "aten.asin.default", "aten.atan.default", "aten.acosh.default",
                         "aten.asinh.default", "aten.atanh.default", "aten.cosh.default", "aten.sinh.default",
                         "aten.tan.default", "aten.erfc.default", "aten.erfinv.default", "aten.exp2.default",
                         "aten.log10.default", "aten.sgn.default"}) {
    EXPECT_TRUE(node_parity(op, {in({2, 5}, DType::I64, -4, 5)}, "{}", 2e-6, 1e-7)) << op;
    EXPECT_TRUE(node_parity(op, {in({7}, DType::Bool)}, "{}", 2e-6, 1e-7)) << op;
    EXPECT_TRUE(node_parity(op, {tr({3, 4}, DType::I32, -3, 4)}, "{}", 2e-6, 1e-7)) << op;
    EXPECT_TRUE(node_parity(op, {in({4}, DType::U8, 0, 3)}, "{}", 2e-6, 1e-7)) << op;
  }
}

TEST(Tier3ElemParity, HalfInputs) {
  // LibTorch 1.13 has float16 kernels for few of these on CPU; bfloat16 for all.
  for (const char* op : {"aten.acos.default", "aten.sinh.default", "aten.erfinv.default", "aten.log10.default",
                         "aten.frac.default", "aten.exp2.default", "aten.atanh.default", "aten.erfc.default"})
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::BF16, -0.9, 0.9)}, "{}", 1e-2, 1e-2)) << op;
  for (const char* op : {"aten.frac.default", "aten.exp2.default"})
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::F16, -0.9, 0.9)}, "{}", 2e-3, 1e-3)) << op;
}

TEST(Tier3ElemParity, SgnSigns) {
  EXPECT_TRUE(node_parity("aten.sgn.default", {vals({6}, DType::F32, {-0.0, 0, NAN, -kInf, 3, -2})}));
  EXPECT_TRUE(node_parity("aten.sgn.default", {in({2, 3}, DType::I64, -3, 3)}));
  EXPECT_TRUE(node_parity("aten.sgn.default", {in({0, 3})}));
}

TEST(Tier3ElemParity, ThresholdAndShrinks) {
  for (const auto& s : unary_shapes(-2, 2)) {
    EXPECT_TRUE(node_parity("aten.threshold.default", {s}, R"({"threshold": 0.1, "value": 20})"));
    EXPECT_TRUE(node_parity("aten.hardshrink.default", {s}, "{}"));
    EXPECT_TRUE(node_parity("aten.hardshrink.default", {s}, R"({"lambd": 1.25})"));
    EXPECT_TRUE(node_parity("aten.softshrink.default", {s}, "{}"));
    EXPECT_TRUE(node_parity("aten.softshrink.default", {s}, R"({"lambd": 0})"));
    EXPECT_TRUE(node_parity("aten.softshrink.default", {s}, R"({"lambd": 1.5})"));
  }
  const std::vector<double> e = {NAN, 0.5, -0.5, 0.6, -0.6, kInf, -kInf, -0.0, 0.1};
  for (const char* op : {"aten.hardshrink.default", "aten.softshrink.default"})
    EXPECT_TRUE(node_parity(op, {vals({9}, DType::F32, e)}, R"({"lambd": 0.5})")) << op;
  EXPECT_TRUE(node_parity("aten.threshold.default", {vals({9}, DType::F32, e)}, R"({"threshold": 0.5, "value": -1})"));
  EXPECT_TRUE(node_parity("aten.threshold.default", {vals({9}, DType::F32, e)}, R"({"threshold": NaN, "value": 1})"));
  // ints keep their dtype; float bounds are cast to it
  EXPECT_TRUE(node_parity("aten.threshold.default", {in({3, 5}, DType::I64, -5, 5)}, R"({"threshold": 0.5, "value": 2.5})"));
  EXPECT_TRUE(node_parity("aten.threshold.default", {tr({3, 5}, DType::I32, -5, 5)}, R"({"threshold": 1, "value": 7})"));
  EXPECT_TRUE(node_parity("aten.threshold.default", {in({4}, DType::U8, 0, 9)}, R"({"threshold": 3, "value": 0})"));
  EXPECT_TRUE(node_parity("aten.threshold.default", {in({4}, DType::BF16)}, R"({"threshold": 0, "value": 0})", 1e-2, 1e-2));
}

const std::vector<std::pair<ParityInput, ParityInput>>& binary_shapes() {
  static const std::vector<std::pair<ParityInput, ParityInput>> v = {
      {in({3, 5}), in({3, 5})},  {in({2, 1, 4}), in({3, 1})}, {in({7}), in({})},   {in({}), in({2, 3})},
      {in({0, 3}), in({3})},     {tr({4, 3}), in({4, 3})},     {in({1}), tr({2, 3})}, {tr({5, 3}), tr({5, 3})},
  };
  return v;
}

TEST(Tier3ElemParity, BinaryFloatShapes) {
  for (const char* op : {"aten.atan2.default", "aten.hypot.default", "aten.copysign.Tensor", "aten.true_divide.Tensor"})
    for (const auto& s : binary_shapes()) EXPECT_TRUE(node_parity(op, {s.first, s.second}, "{}", 2e-6, 1e-7)) << op;
}

TEST(Tier3ElemParity, BinaryFloatEdgesAndSigns) {
  // signed zeros and infinities: atan2's quadrants, copysign of -0 / NaN, hypot with inf and NaN
  const std::vector<double> a = {0, -0.0, 0, -0.0, 1, -1, kInf, -kInf, kInf, NAN, 1e30, 1e-30, 3, -3, NAN, kInf};
  const std::vector<double> b = {0, 0, -0.0, -0.0, -0.0, -0.0, kInf, kInf, -kInf, 1, 1e30, 1e-30, -4, 4, kInf, NAN};
  const Shape s = {int64_t(a.size())};
  for (DType d : {DType::F32, DType::F64})
    for (const char* op : {"aten.atan2.default", "aten.hypot.default", "aten.copysign.Tensor", "aten.true_divide.Tensor"})
      EXPECT_TRUE(node_parity(op, {vals(s, d, a), vals(s, d, b)}, "{}", 1e-6, 0)) << op;
}

TEST(Tier3ElemParity, BinaryFloatPromotion) {
  for (const char* op : {"aten.atan2.default", "aten.copysign.Tensor", "aten.true_divide.Tensor"}) {
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::I64, -5, 5), in({4}, DType::I64, -5, 5)}, "{}", 2e-6, 1e-7)) << op;
    EXPECT_TRUE(node_parity(op, {in({3}, DType::Bool), in({3}, DType::I32, -5, 5)}, "{}", 2e-6, 1e-7)) << op;
    EXPECT_TRUE(node_parity(op, {in({3}, DType::I64, -5, 5), in({3}, DType::F64)}, "{}", 1e-12, 0)) << op;
  }
  for (const char* op : {"aten.atan2.default", "aten.hypot.default", "aten.copysign.Tensor"}) {
    EXPECT_TRUE(node_parity(op, {in({2, 3}, DType::F16), in({2, 3})}, "{}", 2e-6, 1e-7)) << op;
    EXPECT_TRUE(node_parity(op, {in({2, 3}, DType::I64, -5, 5), in({3}, DType::F32)}, "{}", 2e-6, 1e-7)) << op;
    EXPECT_TRUE(node_parity(op, {in({2, 3}, DType::F32), in({}, DType::F64)}, "{}", 2e-6, 1e-7)) << op;
    EXPECT_TRUE(node_parity(op, {in({2, 3}, DType::BF16), in({2, 3}, DType::BF16)}, "{}", 1e-2, 1e-2)) << op;
  }
}

TEST(Tier3ElemParity, Atan2Out) {
  // out= in the result's dtype and in a wider float dtype; out is the third input
  EXPECT_TRUE(node_parity("aten.atan2.out", {in({3, 4}), in({4}), in({3, 4})}, "{}", 2e-6, 1e-7));
  EXPECT_TRUE(node_parity("aten.atan2.out", {tr({3, 4}), in({}), in({3, 4}, DType::F64)}, "{}", 2e-6, 1e-7));
  EXPECT_TRUE(node_parity("aten.atan2.out", {in({2, 3}, DType::I64, -4, 4), in({2, 3}, DType::I64, -4, 4), in({2, 3})},
                          "{}", 2e-6, 1e-7));
  EXPECT_TRUE(node_parity("aten.atan2.out", {in({0, 3}), in({3}), in({0, 3})}));
}

TEST(Tier3ElemParity, XorTensor) {
  for (DType d : {DType::I64, DType::I32, DType::U8, DType::I8}) {
    EXPECT_TRUE(node_parity("aten.__xor__.Tensor", {in({3, 5}, d, 0, 100), in({5}, d, 0, 100)}));
    EXPECT_TRUE(node_parity("aten.__xor__.Tensor", {tr({4, 3}, d, 0, 100), in({}, d, 0, 100)}));
  }
  EXPECT_TRUE(node_parity("aten.__xor__.Tensor", {in({2, 3}, DType::Bool), in({2, 3}, DType::Bool)}));
  EXPECT_TRUE(node_parity("aten.__xor__.Tensor", {in({3}, DType::Bool), in({3}, DType::I64, -9, 9)}));
  EXPECT_TRUE(node_parity("aten.__xor__.Tensor", {in({0, 2}, DType::I64, 0, 9), in({2}, DType::I64, 0, 9)}));
}

TEST(Tier3ElemParity, ShiftsInRange) {
  // counts inside [0, bits): torch 1.13 and >= 2.1 agree (outside they differ: unit tests, vs 2.14)
  const char* ops[] = {"aten.__lshift__.Scalar", "aten.__rshift__.Scalar", "aten.bitwise_left_shift.Tensor_Scalar",
                       "aten.bitwise_right_shift.Tensor_Scalar"};
  struct D { DType d; int bits; };
  for (const char* op : ops)
    for (D d : {D{DType::I64, 64}, D{DType::I32, 32}, D{DType::I16, 16}, D{DType::I8, 8}, D{DType::U8, 8}})
      for (int c : {0, 1, 3, d.bits - 1}) {
        const std::string a = "{\"other\": " + std::to_string(c) + "}";
        EXPECT_TRUE(node_parity(op, {in({3, 5}, d.d, -100, 100)}, a)) << op << " " << c;
        EXPECT_TRUE(node_parity(op, {tr({4, 3}, d.d, -100, 100)}, a)) << op << " " << c;
      }
  for (const char* op : ops) {
    EXPECT_TRUE(node_parity(op, {in({}, DType::I64, -100, 100)}, R"({"other": 2})")) << op;
    EXPECT_TRUE(node_parity(op, {in({0, 3}, DType::I64, -100, 100)}, R"({"other": 2})")) << op;
    EXPECT_TRUE(node_parity(op, {in({5}, DType::Bool)}, R"({"other": 1})")) << op;  // bool -> int64
    EXPECT_TRUE(node_parity(op, {vals({4}, DType::I64, {-9223372036854775807.0, 9.2e18, -1, 1})}, R"({"other": 62})")) << op;
  }
}

TEST(Tier3ElemParity, AddcmulAddcdiv) {
  const std::vector<std::vector<ParityInput>> shapes = {
      {in({3, 5}), in({3, 5}), in({3, 5})},   {in({2, 1, 4}), in({3, 1}), in({4})},
      {in({}), in({2, 3}), in({})},           {in({0, 3}), in({3}), in({1, 3})},
      {tr({4, 3}), in({4, 3}), tr({4, 3})},   {in({1}), tr({2, 3}), in({2, 1})},
  };
  for (const char* op : {"aten.addcmul.default", "aten.addcdiv.default"})
    for (const auto& s : shapes)
      for (const char* a : {"{}", R"({"value": 0.5})", R"({"value": -3})"}) {
        std::vector<ParityInput> v = s;
        if (std::string(op) == "aten.addcdiv.default") v[2].lo = 0.5, v[2].hi = 2;
        EXPECT_TRUE(node_parity(op, v, a, 2e-6, 1e-6)) << op << " " << a;
      }
  // type promotion: ints (value cast to int), mixed, f64, half
  EXPECT_TRUE(node_parity("aten.addcmul.default", {in({3, 4}, DType::I64, -9, 9), in({4}, DType::I64, -9, 9),
                                                   in({3, 1}, DType::I32, -9, 9)}, R"({"value": 2})"));
  EXPECT_TRUE(node_parity("aten.addcmul.default", {in({3}, DType::I64, -9, 9), in({3}, DType::I64, -9, 9),
                                                   in({3}, DType::I64, -9, 9)}, R"({"value": 0.5})"));
  EXPECT_TRUE(node_parity("aten.addcmul.default", {in({3}, DType::I64, -9, 9), in({3}), in({3}, DType::I64, -9, 9)},
                          R"({"value": 2})"));
  EXPECT_TRUE(node_parity("aten.addcmul.default", {in({3}, DType::F64), in({3}), in({})}, R"({"value": 0.1})", 1e-12, 0));
  EXPECT_TRUE(node_parity("aten.addcdiv.default", {in({3}, DType::I64, -9, 9), in({3}, DType::F32, 1, 2),
                                                   in({3}, DType::F32, 1, 2)}, "{}", 2e-6, 1e-6));
  EXPECT_TRUE(node_parity("aten.addcdiv.default", {in({2, 3}, DType::BF16), in({2, 3}, DType::BF16),
                                                   in({2, 3}, DType::BF16, 1, 2)}, "{}", 1e-2, 1e-2));
  // division by zero, inf, NaN
  EXPECT_TRUE(node_parity("aten.addcdiv.default", {vals({4}, DType::F32, {1, 1, NAN, 0}), vals({4}, DType::F32, {1, 0, 1, kInf}),
                                                   vals({4}, DType::F32, {0, 0, 1, kInf})}));
}

TEST(Tier3ElemParity, AddcInplace) {
  for (const char* op : {"aten.addcmul_.default", "aten.addcdiv_.default"}) {
    EXPECT_TRUE(node_parity(op, {in({3, 4}), in({4}), in({3, 1}, DType::F32, 1, 2)}, R"({"value": 0.5})", 2e-6, 1e-6)) << op;
    EXPECT_TRUE(node_parity(op, {tr({4, 3}), tr({4, 3}), in({}, DType::F32, 1, 2)}, "{}", 2e-6, 1e-6)) << op;
    EXPECT_TRUE(node_parity(op, {in({0, 2}), in({2}), in({2}, DType::F32, 1, 2)}, "{}")) << op;
  }
  EXPECT_TRUE(node_parity("aten.addcmul_.default", {in({3}, DType::I64, -9, 9), in({3}, DType::I32, -9, 9),
                                                    in({3}, DType::I64, -9, 9)}, R"({"value": 3})"));
}

TEST(Tier3ElemParity, Lerp) {
  for (const char* w : {"0.3", "0.5", "0.7", "-1.5", "2", "0", "1"}) {
    const std::string a = std::string("{\"weight\": ") + w + "}";
    EXPECT_TRUE(node_parity("aten.lerp.Scalar", {in({3, 5}), in({3, 5})}, a, 2e-6, 1e-6)) << w;
    EXPECT_TRUE(node_parity("aten.lerp.Scalar", {tr({4, 3}), in({3})}, a, 2e-6, 1e-6)) << w;
    EXPECT_TRUE(node_parity("aten.lerp.Scalar", {in({}), in({2, 3})}, a, 2e-6, 1e-6)) << w;
    EXPECT_TRUE(node_parity("aten.lerp.Scalar", {in({0, 3}), in({1, 3})}, a)) << w;
    EXPECT_TRUE(node_parity("aten.lerp.Scalar", {in({2, 3}, DType::F64), in({2, 3}, DType::F64)}, a, 1e-12, 0)) << w;
    EXPECT_TRUE(node_parity("aten.lerp_.Scalar", {tr({4, 3}), in({4, 1})}, a, 2e-6, 1e-6)) << w;
  }
  // tensor weights on both sides of 0.5 and outside [0, 1]
  EXPECT_TRUE(node_parity("aten.lerp.Tensor", {in({3, 5}), in({3, 5}), in({3, 5}, DType::F32, -1, 2)}, "{}", 2e-6, 1e-6));
  EXPECT_TRUE(node_parity("aten.lerp.Tensor", {in({3}), in({}), in({2, 1}, DType::F32, -1, 2)}, "{}", 2e-6, 1e-6));
  EXPECT_TRUE(node_parity("aten.lerp.Tensor", {tr({4, 3}), tr({4, 3}), in({3}, DType::F32, 0, 1)}, "{}", 2e-6, 1e-6));
  EXPECT_TRUE(node_parity("aten.lerp.Tensor", {in({0, 2}), in({2}), in({1})}, "{}"));
  EXPECT_TRUE(node_parity("aten.lerp.Tensor", {in({2, 3}, DType::F64), in({3}, DType::F64), in({2, 3}, DType::F64)},
                          "{}", 1e-12, 0));
  EXPECT_TRUE(node_parity("aten.lerp.Tensor", {in({2, 3}, DType::BF16), in({2, 3}, DType::BF16), in({2, 3}, DType::BF16, 0, 1)},
                          "{}", 1e-2, 1e-2));
  EXPECT_TRUE(node_parity("aten.lerp.Tensor", {vals({3}, DType::F32, {kInf, 1, NAN}), vals({3}, DType::F32, {1, -kInf, 0}),
                                               vals({3}, DType::F32, {0.25, 0.75, 0.5})}));
}

TEST(Tier3ElemParity, RreluEval) {
  for (const auto& s : unary_shapes(-2, 2)) {
    EXPECT_TRUE(node_parity("aten.rrelu.default", {s}, "{}"));
    EXPECT_TRUE(node_parity("aten.rrelu.default", {s}, R"({"lower": 0.1, "upper": 0.3, "training": false})"));
  }
  // 1.13's decomposition of rrelu: the noise tensor is only read in training
  EXPECT_TRUE(node_parity("aten.rrelu_with_noise.default", {in({3, 5}), in({3, 5})}, R"({"lower": 0.1, "upper": 0.3})"));
  EXPECT_TRUE(node_parity("aten.rrelu_with_noise.default", {tr({4, 3}), in({4, 3})}, "{}"));
  EXPECT_TRUE(node_parity("aten.rrelu_with_noise.default", {in({}), in({})}, R"({"training": false})"));
  EXPECT_TRUE(node_parity("aten.rrelu.default", {in({4}, DType::BF16)}, R"({"lower": 0.2, "upper": 0.4})", 1e-2, 1e-2));
}

TEST(Tier3ElemParity, DropoutsEval) {
  for (const auto& s : unary_shapes(-2, 2)) {
    EXPECT_TRUE(node_parity("aten.feature_alpha_dropout.default", {s}, R"({"p": 0.5, "train": false})"));
    EXPECT_TRUE(node_parity("aten.native_dropout.default", {s}, R"({"p": 0.5, "train": false})"));
  }
  EXPECT_TRUE(node_parity("aten.feature_alpha_dropout.default", {in({2, 3})}, R"({"p": 0.0, "train": true})"));
  EXPECT_TRUE(node_parity("aten.native_dropout.default", {in({2, 3}, DType::I64, -5, 5)}, R"({"p": 0.2, "train": false})"));
  // train=True (or None) is deterministic only for p=0 and p=1
  EXPECT_TRUE(node_parity("aten.native_dropout.default", {tr({3, 4})}, R"({"p": 0.0, "train": true})"));
  EXPECT_TRUE(node_parity("aten.native_dropout.default", {in({3, 4})}, R"({"p": 0.0})"));
  EXPECT_TRUE(node_parity("aten.native_dropout.default", {vals({4}, DType::F32, {-1, 2, kInf, NAN})},
                          R"({"p": 1.0, "train": true})"));
}

}  // namespace
