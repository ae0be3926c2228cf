// Parity against LibTorch for elementwise, comparison, conversion, reduction,
// softmax and normalization ops: awkward shapes (odd sizes, size-1 and 0-size
// dims, broadcasting, 0-d, transposed views) and every attr variant.
// Ops newer than the linked LibTorch (_safe_softmax, rms_norm, any.dims,
// _native_batch_norm_legit*) are covered by the unit tests instead.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parity/parity_util.h"
#include "torch_backend/reference.h"

namespace {

using tir::DType;
using tir::Shape;

using tir::parity::in;
using tir::parity::tr;
using tir::parity::wt;

ParityInput pos(Shape s) { return in(std::move(s), DType::F32, 0.1, 3); }
ParityInput vals(Shape s, DType d, std::vector<double> v) {
  ParityInput p = in(std::move(s), d);
  p.values = std::move(v);
  return p;
}

// Shape pairs every broadcasting binary op is run on.
const std::vector<std::pair<ParityInput, ParityInput>>& binary_shapes() {
  static const std::vector<std::pair<ParityInput, ParityInput>> v = {
      {in({3, 5}), in({3, 5})},       {in({2, 1, 4}), in({3, 1})}, {in({7}), in({})},
      {in({}), in({2, 3})},           {in({0, 3}), in({3})},      {tr({4, 3}), in({4, 3})},
      {in({1}), tr({2, 3})},          {tr({5, 3}), tr({5, 3})},
  };
  return v;
}

TEST(EwParity, BinaryArithmeticShapes) {
  for (const char* op : {"aten.add.Tensor", "aten.sub.Tensor", "aten.mul.Tensor", "aten.div.Tensor",
                         "aten.maximum.default", "aten.minimum.default", "aten.rsub.Tensor"})
    for (const auto& s : binary_shapes()) EXPECT_TRUE(node_parity(op, {s.first, s.second}));
  for (const auto& s : binary_shapes())
    EXPECT_TRUE(node_parity("aten.pow.Tensor_Tensor", {in(s.first.shape, DType::F32, 0.1, 3), s.second}, "{}", 1e-5, 1e-5));
}

TEST(EwParity, AlphaAndPythonScalars) {
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({3, 4}), in({4})}, R"({"alpha": 2})"));
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({3, 4}), tr({3, 4})}, R"({"alpha": -0.5})"));
  EXPECT_TRUE(node_parity("aten.sub.Tensor", {in({3, 4}), in({3, 1})}, R"({"alpha": 3})"));
  EXPECT_TRUE(node_parity("aten.rsub.Tensor", {in({3, 4}), in({3, 1})}, R"({"alpha": 2})"));
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({2, 3})}, R"({"other": 1e-06})"));
  EXPECT_TRUE(node_parity("aten.mul.Tensor", {tr({2, 3})}, R"({"other": 0.5})"));
  EXPECT_TRUE(node_parity("aten.div.Tensor", {in({5})}, R"({"other": 3})"));
  EXPECT_TRUE(node_parity("aten.add.Scalar", {in({2, 3})}, R"({"other": 2, "alpha": 3})"));
  EXPECT_TRUE(node_parity("aten.sub.Scalar", {in({2, 3})}, R"({"other": 0.25})"));
  EXPECT_TRUE(node_parity("aten.rsub.Scalar", {tr({2, 3})}, R"({"other": 1})"));
  EXPECT_TRUE(node_parity("aten.rsub.Scalar", {in({4})}, R"({"other": 1.5, "alpha": 2})"));
  EXPECT_TRUE(node_parity("aten.mul.Scalar", {in({0, 2})}, R"({"other": 3})"));
  EXPECT_TRUE(node_parity("aten.div.Scalar", {in({3})}, R"({"other": -0.7})"));
}

TEST(EwParity, TypePromotion) {
  EXPECT_TRUE(node_parity("aten.mul.Tensor", {in({4}, DType::I64, -5, 5)}, R"({"other": 0.5})"));
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({4}, DType::I64, -5, 5)}, R"({"other": 2})"));
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({4}, DType::I64, -5, 5), in({}, DType::F64)}));
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({4}, DType::I32, -5, 5), in({}, DType::I64, -5, 5)}));
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({4}, DType::Bool)}, R"({"other": 2})"));
  EXPECT_TRUE(node_parity("aten.mul.Tensor", {in({4}, DType::Bool)}, R"({"other": 2.5})"));
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({4}, DType::U8, 0, 200), in({4}, DType::I8, -100, 100)}));
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({4}, DType::Bool), in({4}, DType::Bool)}));
  EXPECT_TRUE(node_parity("aten.mul.Tensor", {in({3, 2}, DType::I64, -9, 9), tr({3, 2}, DType::I32, -9, 9)}));
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({3}), in({3}, DType::F64)}));
  EXPECT_TRUE(node_parity("aten.sub.Tensor", {in({3}, DType::I64, -9, 9), in({3})}, R"({"alpha": 2})"));
  EXPECT_TRUE(node_parity("aten.div.Tensor", {in({6}, DType::I64, -9, 9), in({6}, DType::I64, 1, 5)}));
  EXPECT_TRUE(node_parity("aten.maximum.default", {in({2, 3}, DType::I32, -9, 9), in({3}, DType::F32)}));
}

TEST(EwParity, DivisionModes) {
  const auto a = vals({8}, DType::I64, {-7, 7, -8, 8, 0, -1, 9, -9});
  const auto b = vals({8}, DType::I64, {2, 2, 3, -3, 5, 4, -2, -2});
  for (const char* mode : {R"({"rounding_mode": "floor"})", R"({"rounding_mode": "trunc"})", R"({"rounding_mode": null})", "{}"}) {
    EXPECT_TRUE(node_parity("aten.div.Tensor_mode", {a, b}, mode));
    EXPECT_TRUE(node_parity("aten.div.Tensor_mode", {in({3, 5}, DType::F32, -9, 9), in({5}, DType::F32, -3, 3)}, mode));
    EXPECT_TRUE(node_parity("aten.div.Tensor_mode", {tr({4, 3}, DType::F32, -9, 9), tr({4, 3}, DType::F32, -3, 3)}, mode));
  }
  EXPECT_TRUE(node_parity("aten.div.Tensor_mode", {a}, R"({"other": 2, "rounding_mode": "floor"})"));
  EXPECT_TRUE(node_parity("aten.div.Tensor_mode", {a}, R"({"other": -3, "rounding_mode": "trunc"})"));
  EXPECT_TRUE(node_parity("aten.div.Tensor_mode", {a}, R"({"other": 2.5, "rounding_mode": "floor"})"));
  EXPECT_TRUE(node_parity("aten.div.Scalar_mode", {in({6}, DType::F32, -9, 9)}, R"({"other": 2, "rounding_mode": "floor"})"));
  EXPECT_TRUE(node_parity("aten.floor_divide.default", {a, b}));
  // Float division by zero follows IEEE (inf, nan).
  EXPECT_TRUE(node_parity("aten.div.Tensor", {vals({3}, DType::F32, {1, -1, 0}), vals({3}, DType::F32, {0, 0, 0})}));
}

TEST(EwParity, Pow) {
  for (const char* e : {R"({"exponent": 2})", R"({"exponent": 3})", R"({"exponent": 0.5})", R"({"exponent": -0.5})",
                        R"({"exponent": -1})", R"({"exponent": -2})", R"({"exponent": 2.5})", R"({"exponent": 0})"})
    EXPECT_TRUE(node_parity("aten.pow.Tensor_Scalar", {tr({3, 4}, DType::F32, 0.1, 3)}, e));
  EXPECT_TRUE(node_parity("aten.pow.Tensor_Scalar", {in({5})}, R"({"exponent": 2})"));
  EXPECT_TRUE(node_parity("aten.pow.Tensor_Scalar", {in({5}, DType::I64, -5, 5)}, R"({"exponent": 3})"));
  EXPECT_TRUE(node_parity("aten.pow.Tensor_Scalar", {in({5}, DType::I64, 0, 9)}, R"({"exponent": 0.5})"));
  EXPECT_TRUE(node_parity("aten.pow.Scalar", {in({2, 3})}, R"({"self": 2})"));
  EXPECT_TRUE(node_parity("aten.pow.Scalar", {in({2, 3})}, R"({"self": 2.5})"));
  EXPECT_TRUE(node_parity("aten.pow.Scalar", {in({4}, DType::I64, 0, 6)}, R"({"self": 3})"));
  EXPECT_TRUE(node_parity("aten.pow.Tensor_Tensor",
                          {vals({4}, DType::I64, {2, -1, 1, 3}), vals({4}, DType::I64, {-1, -3, -2, 2})}));
}

TEST(EwParity, InPlaceBinary) {
  EXPECT_TRUE(node_parity("aten.add_.Tensor", {tr({4, 3}), in({3})}));
  EXPECT_TRUE(node_parity("aten.add_.Tensor", {tr({4, 3}), tr({4, 3})}, R"({"alpha": 0.5})"));
  EXPECT_TRUE(node_parity("aten.add_.Tensor", {in({3})}, R"({"other": 1})"));
  EXPECT_TRUE(node_parity("aten.add_.Tensor", {in({3}), in({3}, DType::F64)}));
  EXPECT_TRUE(node_parity("aten.add_.Tensor", {in({3}, DType::I64, -5, 5), in({3}, DType::I32, -5, 5)}));
  EXPECT_TRUE(node_parity("aten.add_.Scalar", {tr({2, 3})}, R"({"other": 2, "alpha": 2})"));
  EXPECT_TRUE(node_parity("aten.sub_.Tensor", {tr({2, 3}), in({2, 1})}, R"({"alpha": 2})"));
  EXPECT_TRUE(node_parity("aten.mul_.Tensor", {tr({3, 3}), in({})}));
  EXPECT_TRUE(node_parity("aten.mul_.Scalar", {tr({3, 2})}, R"({"other": -1.5})"));
  EXPECT_TRUE(node_parity("aten.div_.Tensor", {tr({3, 2}), pos({2})}));
  EXPECT_TRUE(node_parity("aten.div_.Tensor", {in({0, 2}), pos({2})}));
}

TEST(EwParity, ComparisonsAndLogic) {
  for (const char* op : {"aten.eq.Tensor", "aten.ne.Tensor", "aten.lt.Tensor", "aten.le.Tensor", "aten.gt.Tensor",
                         "aten.ge.Tensor"}) {
    EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::I64, -2, 2), in({4}, DType::I64, -2, 2)}));
    EXPECT_TRUE(node_parity(op, {tr({3, 4}), in({3, 1})}));
    EXPECT_TRUE(node_parity(op, {in({3}, DType::I64, -3, 3), in({3})}));
  }
  for (const char* op : {"aten.eq.Scalar", "aten.ne.Scalar", "aten.lt.Scalar", "aten.le.Scalar", "aten.gt.Scalar",
                         "aten.ge.Scalar"}) {
    EXPECT_TRUE(node_parity(op, {in({5}, DType::I64, -2, 2)}, R"({"other": 0})"));
    EXPECT_TRUE(node_parity(op, {in({5}, DType::I64, -2, 2)}, R"({"other": 0.5})"));
    EXPECT_TRUE(node_parity(op, {tr({2, 3})}, R"({"other": -0.25})"));
    EXPECT_TRUE(node_parity(op, {in({0})}, R"({"other": 1})"));
  }
  for (const char* op : {"aten.logical_and.default", "aten.logical_or.default", "aten.logical_xor.default"}) {
    EXPECT_TRUE(node_parity(op, {in({2, 4}, DType::Bool), in({4}, DType::Bool)}));
    EXPECT_TRUE(node_parity(op, {in({3}, DType::F32, -1, 2), in({3}, DType::I64, 0, 2)}));
  }
  EXPECT_TRUE(node_parity("aten.logical_not.default", {tr({2, 3}, DType::Bool)}));
  EXPECT_TRUE(node_parity("aten.logical_not.default", {in({4}, DType::I64, -1, 2)}));
  EXPECT_TRUE(node_parity("aten.bitwise_not.default", {in({2, 3}, DType::Bool)}));
  EXPECT_TRUE(node_parity("aten.bitwise_not.default", {in({5}, DType::I64, -9, 9)}));
  EXPECT_TRUE(node_parity("aten.bitwise_not.default", {in({5}, DType::U8, 0, 255)}));
}

TEST(EwParity, WhereAndMaskedFill) {
  EXPECT_TRUE(node_parity("aten.where.self", {in({2, 1, 4}, DType::Bool), in({3, 4}), in({4}, DType::I64, -5, 5)}));
  EXPECT_TRUE(node_parity("aten.where.self", {tr({3, 2}, DType::Bool), tr({3, 2}), in({})}));
  EXPECT_TRUE(node_parity("aten.where.self", {in({0, 2}, DType::Bool), in({2}), in({2})}));
  EXPECT_TRUE(node_parity("aten.where.ScalarOther", {in({2, 3}, DType::Bool), in({3})}, R"({"other": 0.0})"));
  EXPECT_TRUE(node_parity("aten.where.ScalarOther", {in({2, 3}, DType::Bool), in({3}, DType::I64, 0, 9)}, R"({"other": 2})"));
  EXPECT_TRUE(node_parity("aten.where.ScalarSelf", {in({2, 3}, DType::Bool), tr({2, 3})}, R"({"self": 1.0})"));
  EXPECT_TRUE(node_parity("aten.masked_fill.Scalar", {in({2, 3, 4}), in({3, 1}, DType::Bool)}, R"({"value": -Infinity})"));
  EXPECT_TRUE(node_parity("aten.masked_fill.Scalar", {tr({4, 3}), tr({4, 3}, DType::Bool)}, R"({"value": 0.5})"));
  EXPECT_TRUE(node_parity("aten.masked_fill.Scalar", {in({5}, DType::I64, -9, 9), in({5}, DType::Bool)}, R"({"value": 2.7})"));
  EXPECT_TRUE(node_parity("aten.masked_fill.Tensor", {in({2, 3}), in({3}, DType::Bool), in({})}));
  EXPECT_TRUE(node_parity("aten.masked_fill_.Scalar", {tr({3, 4}), in({4}, DType::Bool)}, R"({"value": -10000.0})"));
  EXPECT_TRUE(node_parity("aten.masked_fill_.Tensor", {tr({3, 4}), in({3, 4}, DType::Bool), in({})}));
}

TEST(EwParity, UnaryFloat) {
  const std::vector<ParityInput> shapes = {tr({3, 5}), in({0, 4}), in({}), in({2, 1, 7}, DType::F32, -6, 6)};
  for (const char* op : {"aten.relu.default", "aten.sigmoid.default", "aten.tanh.default", "aten.hardtanh.default",
                         "aten.gelu.default", "aten.silu.default", "aten.hardswish.default", "aten.hardsigmoid.default",
                         "aten.neg.default", "aten.abs.default", "aten.exp.default", "aten.sin.default",
                         "aten.cos.default", "aten.erf.default", "aten.reciprocal.default",
                         "aten.leaky_relu.default", "aten.elu.default", "aten.softplus.default"})
    for (const auto& s : shapes) EXPECT_TRUE(node_parity(op, {s}));
  for (const char* op : {"aten.log.default", "aten.sqrt.default", "aten.rsqrt.default"}) {
    EXPECT_TRUE(node_parity(op, {tr({3, 5}, DType::F32, 0.01, 9)}));
    EXPECT_TRUE(node_parity(op, {vals({3}, DType::F32, {0, -1, 4})}));
  }
  EXPECT_TRUE(node_parity("aten.gelu.default", {tr({3, 5}, DType::F32, -5, 5)}, R"({"approximate": "tanh"})"));
  EXPECT_TRUE(node_parity("aten.gelu.default", {in({6})}, R"({"approximate": "none"})"));
  EXPECT_TRUE(node_parity("aten.hardtanh.default", {in({9}, DType::F32, -8, 8)}, R"({"min_val": 0.0, "max_val": 6.0})"));
  EXPECT_TRUE(node_parity("aten.leaky_relu.default", {in({9})}, R"({"negative_slope": 0.2})"));
  EXPECT_TRUE(node_parity("aten.elu.default", {in({9})}, R"({"alpha": 1.5, "scale": 2, "input_scale": 0.5})"));
  EXPECT_TRUE(node_parity("aten.softplus.default", {in({9}, DType::F32, -5, 5)}, R"({"beta": 2, "threshold": 1})"));
  EXPECT_TRUE(node_parity("aten.sigmoid.default", {vals({4}, DType::F32, {-100, 100, -20, 20})}));
}

TEST(EwParity, UnaryIntAndClamp) {
  for (const char* op : {"aten.sigmoid.default", "aten.exp.default", "aten.neg.default", "aten.abs.default",
                         "aten.relu.default", "aten.tanh.default"})
    EXPECT_TRUE(node_parity(op, {in({5}, DType::I64, -5, 5)}));
  EXPECT_TRUE(node_parity("aten.sqrt.default", {in({5}, DType::I64, 0, 9)}));
  EXPECT_TRUE(node_parity("aten.clamp.default", {tr({3, 4})}, R"({"min": -0.5, "max": 0.5})"));
  EXPECT_TRUE(node_parity("aten.clamp.default", {in({7})}, R"({"min": null, "max": 0.3})"));
  EXPECT_TRUE(node_parity("aten.clamp.default", {in({7})}, R"({"min": -1})"));
  EXPECT_TRUE(node_parity("aten.clamp.default", {in({7})}, R"({"min": 1, "max": -1})"));
  EXPECT_TRUE(node_parity("aten.clamp.default", {in({7}, DType::I64, -9, 9)}, R"({"min": -2, "max": 3})"));
  EXPECT_TRUE(node_parity("aten.clamp.default", {in({7}, DType::I64, -9, 9)}, R"({"min": 0.5})"));
  EXPECT_TRUE(node_parity("aten.clamp_min.default", {tr({2, 3})}, R"({"min": 0})"));
  EXPECT_TRUE(node_parity("aten.clamp_max.default", {in({2, 3})}, R"({"max": 0.1})"));
  EXPECT_TRUE(node_parity("aten.clamp.Tensor", {in({3, 4}), in({4}), in({3, 1}, DType::F32, 0, 3)}));
  EXPECT_TRUE(node_parity("aten.clamp_min.Tensor", {tr({3, 4}), in({4})}));
  EXPECT_TRUE(node_parity("aten.clamp_max.Tensor", {in({3, 4}), in({})}));
}

TEST(EwParity, UnaryInPlace) {
  for (const char* op : {"aten.relu_.default", "aten.hardtanh_.default", "aten.silu_.default", "aten.gelu_.default",
                         "aten.hardswish_.default", "aten.hardsigmoid_.default", "aten.sigmoid_.default",
                         "aten.tanh_.default", "aten.neg_.default", "aten.exp_.default", "aten.leaky_relu_.default"})
    EXPECT_TRUE(node_parity(op, {tr({4, 3}, DType::F32, -5, 5)}));
  EXPECT_TRUE(node_parity("aten.hardtanh_.default", {tr({4, 3}, DType::F32, -9, 9)}, R"({"min_val": 0, "max_val": 6})"));
  EXPECT_TRUE(node_parity("aten.gelu_.default", {tr({4, 3})}, R"({"approximate": "tanh"})"));
  EXPECT_TRUE(node_parity("aten.clamp_.default", {tr({4, 3})}, R"({"min": -0.1, "max": 0.2})"));
  EXPECT_TRUE(node_parity("aten.relu_.default", {in({5}, DType::I64, -5, 5)}));
  EXPECT_TRUE(node_parity("aten.sqrt_.default", {tr({2, 3}, DType::F32, 0, 4)}));
}

TEST(EwParity, Conversions) {
  const auto f = in({3, 4}, DType::F32, -5, 5);
  EXPECT_TRUE(node_parity("aten.to.dtype", {f}, R"({"dtype": "torch.int64"})"));
  EXPECT_TRUE(node_parity("aten.to.dtype", {tr({3, 4}, DType::F32, -5, 5)}, R"({"dtype": "torch.int32"})"));
  EXPECT_TRUE(node_parity("aten.to.dtype", {f}, R"({"dtype": "torch.bool"})"));
  EXPECT_TRUE(node_parity("aten.to.dtype", {f}, R"({"dtype": "torch.float64"})"));
  EXPECT_TRUE(node_parity("aten.to.dtype", {f}, R"({"dtype": "torch.float32"})"));
  EXPECT_TRUE(node_parity("aten.to.dtype", {in({4}, DType::I64, -9, 9)}, R"({"dtype": 6})"));
  EXPECT_TRUE(node_parity("aten.to.dtype", {f}, R"({"dtype": "torch.float32", "copy": true})"));
  EXPECT_TRUE(node_parity("aten.to.dtype_layout", {f}, R"({"dtype": "torch.int32", "layout": "torch.strided", "device": "cpu"})"));
  EXPECT_TRUE(node_parity("aten.to.dtype_layout", {f}, R"({"device": "cpu"})"));
  EXPECT_TRUE(node_parity("aten._to_copy.default", {tr({3, 4})}, R"({"dtype": "torch.float64"})"));
  EXPECT_TRUE(node_parity("aten._to_copy.default", {in({0, 3})}));
  EXPECT_TRUE(node_parity("aten._to_copy.default", {in({3}, DType::Bool)}, R"({"dtype": "torch.float32"})"));
  EXPECT_TRUE(node_parity("aten._to_copy.default", {vals({3}, DType::F32, {300, -1.5, 255.9})}, R"({"dtype": "torch.uint8"})"));
  EXPECT_TRUE(node_parity("aten.type_as.default", {f, in({1}, DType::I64)}));
  EXPECT_TRUE(node_parity("aten.clone.default", {tr({3, 4})}));
  EXPECT_TRUE(node_parity("aten.clone.default", {in({})}, R"({"memory_format": "torch.contiguous_format"})"));
  EXPECT_TRUE(node_parity("aten.lift_fresh_copy.default", {in({2, 2})}));
  EXPECT_TRUE(node_parity("aten.copy_.default", {tr({3, 4}), in({4}, DType::I64, -9, 9)}));
  EXPECT_TRUE(node_parity("aten.copy_.default", {in({2, 3}), tr({2, 3})}));
  EXPECT_TRUE(node_parity("aten.copy_.default", {in({2, 3}, DType::I64), in({}, DType::F32, -9, 9)}));
  EXPECT_TRUE(node_parity("aten.fill_.Scalar", {tr({3, 2})}, R"({"value": 1.5})"));
  EXPECT_TRUE(node_parity("aten.fill_.Scalar", {in({3}, DType::I64)}, R"({"value": 2.9})"));
  EXPECT_TRUE(node_parity("aten.fill_.Tensor", {tr({3, 2}), in({})}));
  EXPECT_TRUE(node_parity("aten.zero_.default", {tr({3, 2})}));
}

TEST(EwParity, Reductions) {
  const auto x = in({3, 5, 7});
  for (const char* a : {R"({"dim": [1], "keepdim": true})", R"({"dim": [-1, 0]})", R"({"dim": null})", R"({"dim": []})",
                        R"({"dim": [2], "dtype": "torch.float64"})", R"({"dim": [0, 1, 2], "keepdim": true})"}) {
    EXPECT_TRUE(node_parity("aten.sum.dim_IntList", {x}, a));
    EXPECT_TRUE(node_parity("aten.mean.dim", {x}, a));
  }
  EXPECT_TRUE(node_parity("aten.mean.dim", {tr({4, 6})}, R"({"dim": [-1, -2], "keepdim": true})"));
  EXPECT_TRUE(node_parity("aten.mean.dim", {tr({4, 6})}, R"({"dim": [0]})"));
  EXPECT_TRUE(node_parity("aten.mean.dim", {in({2, 3, 4, 5})}, R"({"dim": [-1, -2], "keepdim": true})"));
  EXPECT_TRUE(node_parity("aten.mean.dim", {in({4}, DType::I64)}, R"({"dim": [0], "dtype": "torch.float32"})"));
  EXPECT_TRUE(node_parity("aten.sum.dim_IntList", {in({0, 3})}, R"({"dim": [0]})"));
  EXPECT_TRUE(node_parity("aten.sum.dim_IntList", {in({2, 5}, DType::Bool)}, R"({"dim": [1]})"));
  EXPECT_TRUE(node_parity("aten.sum.dim_IntList", {in({2, 5}, DType::I32, -9, 9)}, R"({"dim": [1]})"));
  EXPECT_TRUE(node_parity("aten.sum.default", {in({2, 5}, DType::Bool)}));
  EXPECT_TRUE(node_parity("aten.sum.default", {tr({4, 3})}));
  EXPECT_TRUE(node_parity("aten.sum.default", {in({4, 3}, DType::I64, -9, 9)}, R"({"dtype": "torch.float32"})"));
  EXPECT_TRUE(node_parity("aten.mean.default", {tr({4, 3})}));
  EXPECT_TRUE(node_parity("aten.sum.dim_IntList", {in({3, 100003}, DType::F32, 0, 1)}, R"({"dim": [1]})"));
  EXPECT_TRUE(node_parity("aten.mean.dim", {in({2, 65537}, DType::F32, -1, 3)}, R"({"dim": [-1]})"));
  EXPECT_TRUE(node_parity("aten.prod.dim_int", {in({3, 4}, DType::F32, 0.5, 1.5)}, R"({"dim": 1})"));
  EXPECT_TRUE(node_parity("aten.prod.default", {in({5}, DType::I64, -3, 3)}));

  for (const char* op : {"aten.amax.default", "aten.amin.default"}) {
    EXPECT_TRUE(node_parity(op, {x}, R"({"dim": [1]})"));
    EXPECT_TRUE(node_parity(op, {x}, R"({"dim": [0, 2], "keepdim": true})"));
    EXPECT_TRUE(node_parity(op, {tr({4, 3})}, R"({"dim": [-1]})"));
    EXPECT_TRUE(node_parity(op, {in({4, 3}, DType::I64, -3, 3)}, R"({"dim": [0]})"));
  }
  for (const char* op : {"aten.argmax.default", "aten.argmin.default"}) {
    EXPECT_TRUE(node_parity(op, {x}, R"({"dim": 1})"));
    EXPECT_TRUE(node_parity(op, {x}));
    EXPECT_TRUE(node_parity(op, {x}, R"({"dim": -1, "keepdim": true})"));
    EXPECT_TRUE(node_parity(op, {in({6, 9}, DType::I64, 0, 3)}, R"({"dim": 1})"));  // ties: first index
    EXPECT_TRUE(node_parity(op, {tr({6, 9}, DType::I64, 0, 3)}, R"({"dim": 0})"));
    EXPECT_TRUE(node_parity(op, {vals({2, 3}, DType::F32, {1, NAN, 3, 2, 2, NAN})}, R"({"dim": 1})"));
  }
  for (const char* op : {"aten.max.dim", "aten.min.dim"}) {
    EXPECT_TRUE(node_parity(op, {x}, R"({"dim": 0})"));
    EXPECT_TRUE(node_parity(op, {tr({5, 4})}, R"({"dim": -1, "keepdim": true})"));
    EXPECT_TRUE(node_parity(op, {in({6, 9}, DType::I64, 0, 3)}, R"({"dim": 1})"));
  }
  EXPECT_TRUE(node_parity("aten.max.default", {tr({3, 4})}));
  EXPECT_TRUE(node_parity("aten.min.default", {in({3, 4}, DType::I64, -9, 9)}));
  for (const char* op : {"aten.any.dim", "aten.all.dim"}) {
    EXPECT_TRUE(node_parity(op, {in({4, 3}, DType::Bool)}, R"({"dim": 1})"));
    EXPECT_TRUE(node_parity(op, {tr({4, 3}, DType::Bool)}, R"({"dim": 0, "keepdim": true})"));
    EXPECT_TRUE(node_parity(op, {in({3, 2}, DType::I64, 0, 2)}, R"({"dim": -1})"));
    EXPECT_TRUE(node_parity(op, {in({0, 2}, DType::Bool)}, R"({"dim": 0})"));
  }
  EXPECT_TRUE(node_parity("aten.any.default", {in({3, 2}, DType::Bool)}));
  EXPECT_TRUE(node_parity("aten.all.default", {in({3, 2}, DType::F32)}));
}

TEST(EwParity, Softmax) {
  const auto x = in({3, 4, 5}, DType::F32, -6, 6);
  for (const char* d : {R"({"dim": 0})", R"({"dim": 1})", R"({"dim": -1})"}) {
    EXPECT_TRUE(node_parity("aten.softmax.int", {x}, d));
    EXPECT_TRUE(node_parity("aten.log_softmax.int", {x}, d));
  }
  EXPECT_TRUE(node_parity("aten.softmax.int", {tr({4, 7})}, R"({"dim": -1})"));
  EXPECT_TRUE(node_parity("aten.softmax.int", {tr({4, 7})}, R"({"dim": 0})"));
  EXPECT_TRUE(node_parity("aten.softmax.int", {in({2, 3})}, R"({"dim": 1, "dtype": "torch.float64"})"));
  EXPECT_TRUE(node_parity("aten.log_softmax.int", {in({2, 3})}, R"({"dim": 0, "dtype": "torch.float64"})"));
  EXPECT_TRUE(node_parity("aten.softmax.int", {in({0, 3})}, R"({"dim": 1})"));
  EXPECT_TRUE(node_parity("aten.softmax.int", {in({})}, R"({"dim": 0})"));
  EXPECT_TRUE(node_parity("aten.softmax.int", {in({2, 1})}, R"({"dim": 1})"));
  EXPECT_TRUE(node_parity("aten._softmax.default", {x}, R"({"dim": 2, "half_to_float": false})"));
  EXPECT_TRUE(node_parity("aten._softmax.default", {tr({5, 3})}, R"({"dim": 0, "half_to_float": false})"));
  EXPECT_TRUE(node_parity("aten._log_softmax.default", {x}, R"({"dim": 1, "half_to_float": false})"));
  EXPECT_TRUE(node_parity("aten.softmax.int", {in({2, 3000}, DType::F32, -20, 20)}, R"({"dim": -1})"));
  // Masked rows (-inf entries), as attention masks produce.
  const auto m = vals({2, 3}, DType::F32, {0.5, -INFINITY, 1.0, -INFINITY, 2.0, -INFINITY});
  EXPECT_TRUE(node_parity("aten.softmax.int", {m}, R"({"dim": 1})"));
  EXPECT_TRUE(node_parity("aten._log_softmax.default", {m}, R"({"dim": 1, "half_to_float": false})"));
}

TEST(EwParity, LayerNorm) {
  EXPECT_TRUE(node_parity("aten.layer_norm.default", {in({2, 3, 8}), wt({8}), wt({8})}, R"({"normalized_shape": [8]})"));
  EXPECT_TRUE(node_parity("aten.layer_norm.default", {in({4, 2, 3}), wt({2, 3}), wt({2, 3})},
                          R"({"normalized_shape": [2, 3], "eps": 0.001, "cudnn_enable": true})"));
  EXPECT_TRUE(node_parity("aten.layer_norm.default", {tr({5, 6})}, R"({"normalized_shape": [6]})"));
  EXPECT_TRUE(node_parity("aten.layer_norm.default", {in({3, 7}), wt({7})}, R"({"normalized_shape": [7]})"));
  EXPECT_TRUE(node_parity("aten.layer_norm.default", {in({0, 4}), wt({4}), wt({4})}, R"({"normalized_shape": [4]})"));
  EXPECT_TRUE(node_parity("aten.layer_norm.default", {in({2, 1000}, DType::F32, 5, 7), wt({1000}), wt({1000})},
                          R"({"normalized_shape": [1000], "eps": 1e-12})"));
  EXPECT_TRUE(node_parity("aten.native_layer_norm.default", {in({2, 3, 8}), wt({8}), wt({8})},
                          R"({"normalized_shape": [8], "eps": 1e-05})"));
  EXPECT_TRUE(node_parity("aten.native_layer_norm.default", {tr({4, 6}), wt({4, 6}), wt({4, 6})},
                          R"({"normalized_shape": [4, 6], "eps": 1e-05})"));
}

TEST(EwParity, BatchAndGroupNorm) {
  const auto x = in({2, 3, 4, 5});
  const auto rm = wt({3}), rv = wt({3}, 0.5, 2), w = wt({3}), b = wt({3});
  const char* eval = R"({"training": false, "momentum": 0.1, "eps": 1e-05, "cudnn_enabled": true})";
  const char* train = R"({"training": true, "momentum": 0.1, "eps": 1e-05, "cudnn_enabled": true})";
  EXPECT_TRUE(node_parity("aten.batch_norm.default", {x, w, b, rm, rv}, eval));
  EXPECT_TRUE(node_parity("aten.batch_norm.default", {x, rm, rv}, eval));
  EXPECT_TRUE(node_parity("aten.batch_norm.default", {in({4, 3}), w, b, rm, rv}, eval));
  EXPECT_TRUE(node_parity("aten.batch_norm.default", {in({2, 3, 7}), w, b, rm, rv}, eval));
  EXPECT_TRUE(node_parity("aten.batch_norm.default", {x, w, b}, train));
  EXPECT_TRUE(node_parity("aten.batch_norm.default", {tr({5, 3}), w, b}, train));
  EXPECT_TRUE(node_parity("aten.native_batch_norm.default", {x, w, b, rm, rv},
                          R"({"training": true, "momentum": 0.1, "eps": 1e-05})"));
  EXPECT_TRUE(node_parity("aten.native_batch_norm.default", {x, w, b, rm, rv},
                          R"({"training": false, "momentum": 0.1, "eps": 0.001})"));
  EXPECT_TRUE(node_parity("aten.instance_norm.default", {in({2, 3, 6}), w, b},
                          R"({"use_input_stats": true, "momentum": 0.1, "eps": 1e-05, "cudnn_enabled": false})"));
  const auto gx = in({2, 4, 3, 3});
  EXPECT_TRUE(node_parity("aten.group_norm.default", {gx, wt({4}), wt({4})}, R"({"num_groups": 2})"));
  EXPECT_TRUE(node_parity("aten.group_norm.default", {gx}, R"({"num_groups": 4, "eps": 0.001})"));
  EXPECT_TRUE(node_parity("aten.group_norm.default", {in({3, 6, 5}), wt({6}), wt({6})}, R"({"num_groups": 3})"));
  EXPECT_TRUE(node_parity("aten.native_group_norm.default", {gx, wt({4}), wt({4})},
                          R"({"N": 2, "C": 4, "HxW": 9, "group": 2, "eps": 1e-05})"));
}

// f16/bf16 IR values are computed in f32 here; torch rounds to half precision.
TEST(EwParity, HalfInputsComputeInFloat) {
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({4}, DType::F16), in({4}, DType::BF16)}, "{}", 1e-2, 1e-2));
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({4}, DType::F16)}, R"({"other": 2.5})", 1e-2, 1e-2));
  EXPECT_TRUE(node_parity("aten.mul.Tensor", {in({4}, DType::F16), in({}, DType::F64)}, "{}", 1e-2, 1e-2));
  EXPECT_TRUE(node_parity("aten.gelu.default", {in({6}, DType::BF16)}, "{}", 2e-2, 2e-2));
  EXPECT_TRUE(node_parity("aten.mean.dim", {in({3, 8}, DType::BF16)}, R"({"dim": [-1]})", 2e-2, 2e-2));
  EXPECT_TRUE(node_parity("aten._to_copy.default", {in({5}, DType::F16)}, R"({"dtype": "torch.float32"})", 1e-3, 1e-3));
  EXPECT_TRUE(node_parity("aten.where.self", {in({5}, DType::Bool), in({5}, DType::F16), in({5})}, "{}", 1e-3, 1e-3));
}

// ---------------- bitwise, remainder, fmod, floor_divide ----------------

TEST(EwParity, BitwiseOps) {
  for (const char* op : {"aten.bitwise_and.Tensor", "aten.bitwise_or.Tensor", "aten.bitwise_xor.Tensor",
                         "aten.__and__.Tensor", "aten.__or__.Tensor"}) {
    EXPECT_TRUE(node_parity(op, {in({3, 5}, DType::Bool), in({5}, DType::Bool)}));
    EXPECT_TRUE(node_parity(op, {tr({4, 3}, DType::I64, -50, 50), in({4, 1}, DType::I64, -50, 50)}));
    EXPECT_TRUE(node_parity(op, {in({0, 2}, DType::I64), in({2}, DType::I64)}));
    EXPECT_TRUE(node_parity(op, {in({3}, DType::Bool), in({}, DType::I64, 0, 9)}));
    EXPECT_TRUE(node_parity(op, {in({5}, DType::U8, 0, 255), in({5}, DType::I32, -99, 99)}));
  }
  for (const char* op : {"aten.bitwise_and.Scalar", "aten.bitwise_or.Scalar", "aten.bitwise_xor.Scalar"}) {
    EXPECT_TRUE(node_parity(op, {tr({3, 2}, DType::I64, -50, 50)}, R"({"other": 6})"));
    EXPECT_TRUE(node_parity(op, {in({4}, DType::Bool)}, R"({"other": true})"));
    EXPECT_TRUE(node_parity(op, {in({4}, DType::Bool)}, R"({"other": 3})"));
    EXPECT_TRUE(node_parity(op, {in({1}, DType::I32, -9, 9)}, R"({"other": -2})"));
  }
}

TEST(EwParity, RemainderFmodFloorDivide) {
  const auto ia = in({3, 7}, DType::I64, -20, 20), ib = in({7}, DType::I64, 1, 6);
  const auto ibn = vals({7}, DType::I64, {-3, 2, -5, 4, 1, -1, 7});
  for (const char* op : {"aten.remainder.Tensor", "aten.fmod.Tensor", "aten.floor_divide.default"}) {
    EXPECT_TRUE(node_parity(op, {ia, ib}));
    EXPECT_TRUE(node_parity(op, {ia, ibn}));
    EXPECT_TRUE(node_parity(op, {in({3, 7}, DType::F32, -9, 9), in({7}, DType::F32, -3, 3)}));
    EXPECT_TRUE(node_parity(op, {tr({4, 3}, DType::F64, -9, 9), tr({4, 3}, DType::F64, 0.5, 3)}));
    EXPECT_TRUE(node_parity(op, {in({0, 3}), in({3})}));
    EXPECT_TRUE(node_parity(op, {in({1}, DType::I64, -9, 9), in({2, 1}, DType::F32, 1, 3)}));
    EXPECT_TRUE(node_parity(op, {in({5}, DType::I32, -9, 9), in({}, DType::I64, 1, 4)}));
    // float division by zero: nan/inf as torch
    EXPECT_TRUE(node_parity(op, {vals({3}, DType::F32, {1, -1, 0}), vals({3}, DType::F32, {0, 0, 0})}));
  }
  for (const char* op : {"aten.remainder.Scalar", "aten.fmod.Scalar", "aten.floor_divide.Scalar"}) {
    EXPECT_TRUE(node_parity(op, {ia}, R"({"other": 3})"));
    EXPECT_TRUE(node_parity(op, {ia}, R"({"other": -4})"));
    EXPECT_TRUE(node_parity(op, {ia}, R"({"other": 2.5})"));
    EXPECT_TRUE(node_parity(op, {tr({3, 4}, DType::F32, -9, 9)}, R"({"other": -1.5})"));
    EXPECT_TRUE(node_parity(op, {in({4}, DType::F64, -9, 9)}, R"({"other": 0.7})"));
  }
  EXPECT_TRUE(node_parity("aten.remainder.Scalar_Tensor", {in({2, 3}, DType::I64, 1, 6)}, R"({"self": 7})"));
  EXPECT_TRUE(node_parity("aten.remainder.Scalar_Tensor", {tr({2, 3}, DType::F32, -3, 3)}, R"({"self": -5.5})"));
  EXPECT_TRUE(node_parity("aten.remainder.Scalar_Tensor", {in({4}, DType::I64, 1, 6)}, R"({"self": 2.5})"));
  // Large int64 products stay exact through remainder/floor_divide.
  EXPECT_TRUE(node_parity("aten.mul.Tensor", {in({6}, DType::I64, 1e9, 4e9), in({6}, DType::I64, 1e9, 2e9)}));
  EXPECT_TRUE(node_parity("aten.remainder.Tensor", {in({6}, DType::I64, -1e15, 1e15), in({6}, DType::I64, 3, 1e6)}));
  EXPECT_TRUE(node_parity("aten.floor_divide.default", {in({6}, DType::I64, -1e15, 1e15), in({6}, DType::I64, -99, -2)}));
  EXPECT_TRUE(node_parity("aten.floor_divide_.Tensor", {tr({4, 3}, DType::F32, -9, 9), in({3}, DType::F32, 0.5, 2)}));
  EXPECT_TRUE(node_parity("aten.floor_divide_.Tensor", {in({5}, DType::I64, -9, 9), in({5}, DType::I64, 1, 4)}));
}

// ---------------- unary additions ----------------

TEST(EwParity, RoundingSignAndFloatMath) {
  const auto halves = vals({10}, DType::F32, {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.7, -3.7, 1e8, -0.0});
  const std::vector<ParityInput> shapes = {tr({3, 5}, DType::F32, -9, 9), in({0, 4}), in({}), in({2, 1, 7}, DType::F64, -9, 9),
                                           halves};
  for (const char* op : {"aten.ceil.default", "aten.floor.default", "aten.trunc.default", "aten.round.default",
                         "aten.sign.default", "aten.square.default", "aten.expm1.default"}) {
    for (const auto& s : shapes) EXPECT_TRUE(node_parity(op, {s}));
    EXPECT_TRUE(node_parity(op, {in({5}, DType::I64, -9, 9)}));
  }
  EXPECT_TRUE(node_parity("aten.sign.default", {in({5}, DType::Bool)}));
  EXPECT_TRUE(node_parity("aten.square.default", {in({5}, DType::Bool)}));
  EXPECT_TRUE(node_parity("aten.sign.default", {vals({3}, DType::F32, {NAN, -0.0, INFINITY})}));
  for (const char* d : {R"({"decimals": 0})", R"({"decimals": 1})", R"({"decimals": 2})", R"({"decimals": -1})",
                        R"({"decimals": -2})"}) {
    EXPECT_TRUE(node_parity("aten.round.decimals", {tr({3, 5}, DType::F32, -500, 500)}, d));
    EXPECT_TRUE(node_parity("aten.round.decimals", {in({7}, DType::F64, -500, 500)}, d));
    EXPECT_TRUE(node_parity("aten.round.decimals", {vals({4}, DType::F32, {1.25, 2.35, -0.125, 125})}, d));
  }
  for (const char* op : {"aten.log1p.default", "aten.log2.default"}) {
    EXPECT_TRUE(node_parity(op, {tr({3, 5}, DType::F32, 0.01, 9)}));
    EXPECT_TRUE(node_parity(op, {in({4}, DType::F64, 0.01, 9)}));
    EXPECT_TRUE(node_parity(op, {in({4}, DType::I64, 0, 9)}));
    EXPECT_TRUE(node_parity(op, {in({3}, DType::Bool)}));
    EXPECT_TRUE(node_parity(op, {vals({4}, DType::F32, {0, -1, -2, 1e-9})}));
    EXPECT_TRUE(node_parity(op, {in({0})}));
  }
  EXPECT_TRUE(node_parity("aten.expm1.default", {in({3}, DType::Bool)}));
}

TEST(EwParity, NanInfTests) {
  const auto special = vals({2, 3}, DType::F32, {NAN, INFINITY, -INFINITY, 0, -1.5, 3e38});
  for (const char* op : {"aten.isnan.default", "aten.isinf.default", "aten.isfinite.default"}) {
    EXPECT_TRUE(node_parity(op, {special}));
    EXPECT_TRUE(node_parity(op, {tr({3, 2}, DType::F64)}));
    EXPECT_TRUE(node_parity(op, {in({4}, DType::I64, -9, 9)}));
    EXPECT_TRUE(node_parity(op, {in({4}, DType::Bool)}));
    EXPECT_TRUE(node_parity(op, {in({0, 2})}));
  }
  EXPECT_TRUE(node_parity("aten.nan_to_num.default", {special}));
  EXPECT_TRUE(node_parity("aten.nan_to_num.default", {special}, R"({"nan": 1.5, "posinf": 100.0, "neginf": -100.0})"));
  EXPECT_TRUE(node_parity("aten.nan_to_num.default", {special}, R"({"nan": null, "posinf": 7.0})"));
  EXPECT_TRUE(node_parity("aten.nan_to_num.default", {special}, R"({"neginf": -2.0})"));
  EXPECT_TRUE(node_parity("aten.nan_to_num.default", {vals({3}, DType::F64, {NAN, INFINITY, -INFINITY})}));
  EXPECT_TRUE(node_parity("aten.nan_to_num.default", {in({4}, DType::I64, -9, 9)}));
  EXPECT_TRUE(node_parity("aten.nan_to_num.default", {in({4}, DType::Bool)}));
  EXPECT_TRUE(node_parity("aten.nan_to_num.default", {tr({2, 3})}));
}

TEST(EwParity, MoreActivations) {
  const std::vector<ParityInput> shapes = {tr({3, 5}, DType::F32, -6, 6), in({0, 4}), in({}), in({2, 1, 7}, DType::F64, -6, 6),
                                           vals({4}, DType::F32, {-100, 100, -30, 30})};
  for (const char* op : {"aten.selu.default", "aten.celu.default", "aten.relu6.default", "aten.mish.default",
                         "aten.log_sigmoid.default"})
    for (const auto& s : shapes) EXPECT_TRUE(node_parity(op, {s}));
  EXPECT_TRUE(node_parity("aten.celu.default", {in({9}, DType::F32, -4, 4)}, R"({"alpha": 2.0})"));
  EXPECT_TRUE(node_parity("aten.celu.default", {in({9}, DType::F32, -4, 4)}, R"({"alpha": 0.5})"));
  EXPECT_TRUE(node_parity("aten.relu6.default", {in({9}, DType::I64, -9, 9)}));
  EXPECT_TRUE(node_parity("aten.relu6.default", {in({9}, DType::F32, -9, 9)}));
  for (const auto& s : shapes) EXPECT_TRUE(node_parity("aten.log_sigmoid_forward.default", {s}));
  for (const char* d : {"{}", R"({"dim": -1})", R"({"dim": 0})", R"({"dim": 1})"})
    EXPECT_TRUE(node_parity("aten.glu.default", {in({4, 6})}, d));
  EXPECT_TRUE(node_parity("aten.glu.default", {tr({4, 6})}, R"({"dim": 0})"));
  EXPECT_TRUE(node_parity("aten.glu.default", {in({2, 0, 4}, DType::F64)}, R"({"dim": 2})"));
  EXPECT_TRUE(node_parity("aten.glu.default", {in({3, 2}, DType::F64, -9, 9)}));
  EXPECT_TRUE(node_parity("aten.prelu.default", {in({2, 3, 4}), wt({3})}));
  EXPECT_TRUE(node_parity("aten.prelu.default", {tr({5, 3}), wt({3})}));
  EXPECT_TRUE(node_parity("aten.prelu.default", {in({2, 3, 2, 2}), wt({1})}));
  EXPECT_TRUE(node_parity("aten.prelu.default", {in({7}), wt({1})}));
  EXPECT_TRUE(node_parity("aten.prelu.default", {in({0, 3}), wt({3})}));
  EXPECT_TRUE(node_parity("aten.prelu.default", {in({2, 1, 3}, DType::F64), in({1}, DType::F64)}));
  for (const char* a : {R"({"p": 0.5, "train": false})", R"({"p": 0.0, "train": true})"}) {
    EXPECT_TRUE(node_parity("aten.alpha_dropout.default", {tr({3, 4})}, a));
    EXPECT_TRUE(node_parity("aten.feature_dropout_.default", {in({2, 3, 4})}, a));
  }
}

// _prelu_kernel takes a weight already broadcastable to self; LibTorch 1.13 lacks it (the
// EwMisc.Prelu unit tests cover it there; tools/check_libtorch2.sh runs this against 2.x).
TEST(EwParity, PreluKernel) {
  const char* op = "aten._prelu_kernel.default";
  if (!tir::reference_supports(op)) GTEST_SKIP() << "LibTorch " << tir::libtorch_version() << " has no " << op;
  EXPECT_TRUE(node_parity(op, {in({2, 3, 4}), wt({1, 3, 1})}));
  EXPECT_TRUE(node_parity(op, {tr({5, 3}), wt({3})}));
  EXPECT_TRUE(node_parity(op, {in({2, 3, 2, 2}), wt({1})}));
  EXPECT_TRUE(node_parity(op, {in({0, 3}), wt({3})}));
  EXPECT_TRUE(node_parity(op, {in({2, 1, 3}, DType::F64), in({1}, DType::F64)}));
}

TEST(EwParity, CosineSimilarity) {
  const char* op = "aten.cosine_similarity.default";
  EXPECT_TRUE(node_parity(op, {in({4, 5}), in({4, 5})}));
  EXPECT_TRUE(node_parity(op, {in({4, 5}), in({5})}, R"({"dim": -1})"));
  EXPECT_TRUE(node_parity(op, {tr({3, 6}), in({3, 6})}, R"({"dim": 0})"));
  EXPECT_TRUE(node_parity(op, {in({2, 3, 4}), in({1, 3, 1})}, R"({"dim": 1, "eps": 0.001})"));
  EXPECT_TRUE(node_parity(op, {in({2, 1, 7}, DType::F64), in({3, 7}, DType::F64)}, R"({"dim": 2})"));
  EXPECT_TRUE(node_parity(op, {in({3, 5}), in({3, 5}, DType::F64)}));
  EXPECT_TRUE(node_parity(op, {in({0, 4}), in({0, 4})}));
  EXPECT_TRUE(node_parity(op, {in({3, 0}), in({3, 0})}));
  EXPECT_TRUE(node_parity(op, {in({5}), in({5})}, R"({"dim": 0})"));
  EXPECT_TRUE(node_parity(op, {vals({2, 2}, DType::F32, {0, 0, 1e-5, 0}), vals({2, 2}, DType::F32, {1, 1, 1, 1})},
                          R"({"dim": 1, "eps": 0.001})"));
}

// ---------------- dtype discipline (issue 4 item 2) ----------------

TEST(EwParity, DtypeDiscipline) {
  // tensor-tensor, 0-d and Python-scalar promotion across several ops
  for (const char* op : {"aten.add.Tensor", "aten.mul.Tensor", "aten.remainder.Tensor", "aten.maximum.default"}) {
    EXPECT_TRUE(node_parity(op, {in({4}, DType::I32, 1, 9), in({}, DType::I64, 1, 9)}));
    EXPECT_TRUE(node_parity(op, {in({4}, DType::I64, 1, 9), in({}, DType::F64, 1, 9)}));
    EXPECT_TRUE(node_parity(op, {in({4}, DType::F32, 1, 9), in({}, DType::F64, 1, 9)}));
    EXPECT_TRUE(node_parity(op, {in({}, DType::I64, 1, 9), in({}, DType::F64, 1, 9)}));
    EXPECT_TRUE(node_parity(op, {in({4}, DType::U8, 1, 9), in({4}, DType::I8, 1, 9)}));
    EXPECT_TRUE(node_parity(op, {in({4}, DType::Bool), in({4}, DType::I32, 1, 9)}));
    EXPECT_TRUE(node_parity(op, {in({2, 3}, DType::F32, 1, 9), tr({2, 3}, DType::F64, 1, 9)}));
  }
  for (const char* s : {R"({"other": 3})", R"({"other": 2.5})", R"({"other": true})"}) {
    EXPECT_TRUE(node_parity("aten.add.Tensor", {in({4}, DType::I64, -9, 9)}, s));
    EXPECT_TRUE(node_parity("aten.mul.Tensor", {in({4}, DType::Bool)}, s));
    EXPECT_TRUE(node_parity("aten.add.Tensor", {in({4}, DType::U8, 0, 200)}, s));
    EXPECT_TRUE(node_parity("aten.mul.Tensor", {in({}, DType::I32, -9, 9)}, s));
    EXPECT_TRUE(node_parity("aten.add.Tensor", {in({4}, DType::F64)}, s));
  }
  // int64 products and sums beyond 2^53 stay exact; float64 math in float64
  EXPECT_TRUE(node_parity("aten.mul.Tensor", {in({8}, DType::I64, 3e9, 3.03e9), in({8}, DType::I64, 3e9, 3.03e9)}));
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({8}, DType::I64, 4e15, 9e15), in({8}, DType::I64, 4e15, 9e15)},
                          R"({"alpha": 3})"));
  EXPECT_TRUE(node_parity("aten.add.Tensor", {in({3}, DType::F64)}, R"({"other": 1e-12})", 0, 0));
  EXPECT_TRUE(node_parity("aten.div.Tensor", {in({5}, DType::F64), in({5}, DType::F64, 1, 3)}, "{}", 1e-15, 0));
  EXPECT_TRUE(node_parity("aten.exp.default", {in({5}, DType::F64)}, "{}", 1e-15, 0));
}

// to(f16/bf16) values are rounded exactly as torch's 16-bit storage (compared at 0 tolerance).
TEST(EwParity, HalfConversionsRound) {
  for (const char* d : {R"({"dtype": "torch.float16"})", R"({"dtype": "torch.bfloat16"})", R"({"dtype": 5})",
                        R"({"dtype": 15})"}) {
    EXPECT_TRUE(node_parity("aten.to.dtype", {in({4, 7}, DType::F32, -70000, 70000)}, d, 0, 0));
    EXPECT_TRUE(node_parity("aten.to.dtype", {tr({5, 3}, DType::F32, -1, 1)}, d, 0, 0));
    EXPECT_TRUE(node_parity("aten._to_copy.default", {in({9}, DType::F32, -1e-4, 1e-4)}, d, 0, 0));  // subnormals
    EXPECT_TRUE(node_parity("aten._to_copy.default", {in({9}, DType::F64, -3, 3)}, d, 0, 0));
    EXPECT_TRUE(node_parity("aten._to_copy.default", {in({9}, DType::I64, -5000, 5000)}, d, 0, 0));
    EXPECT_TRUE(node_parity("aten.to.dtype", {vals({4}, DType::F32, {NAN, INFINITY, 65520, -0.0})}, d, 0, 0));
  }
  EXPECT_TRUE(node_parity("aten.to.dtype", {in({6}, DType::F16)}, R"({"dtype": "torch.float32"})", 0, 0));
  EXPECT_TRUE(node_parity("aten.to.dtype", {in({6}, DType::F16)}, R"({"dtype": "torch.bfloat16"})", 0, 0));
  EXPECT_TRUE(node_parity("aten.to.dtype", {in({6}, DType::BF16)}, R"({"dtype": "torch.float16"})", 0, 0));
  EXPECT_TRUE(node_parity("aten.type_as.default", {in({6}, DType::F32, -3, 3), in({1}, DType::F16)}, "{}", 0, 0));
  EXPECT_TRUE(node_parity("aten.type_as.default", {in({6}, DType::F64, -3, 3), in({1}, DType::BF16)}, "{}", 0, 0));
  EXPECT_TRUE(node_parity("aten.copy_.default", {in({2, 3}, DType::F16), tr({2, 3}, DType::F32)}, "{}", 0, 0));
  EXPECT_TRUE(node_parity("aten.fill_.Scalar", {in({3}, DType::BF16)}, R"({"value": 0.1})", 0, 0));
}

}  // namespace
