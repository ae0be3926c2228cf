// Unit tests for elementwise, conversion, reduction, softmax and norm ops:
// torch type promotion (OPS.md §3.1), hand-checked values, in-place writes
// through strided views, and error messages. No LibTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "kernels/elementwise.h"
#include "ops/op.h"
#include "op_test_util.h"
#include "test_util.h"

namespace tir {
namespace {

using test::tensor_f32;
using test::tensor_i64;
using test::values_f32;
using test::values_i64;
using ::testing::ElementsAre;
using ::testing::FloatEq;
using ::testing::HasSubstr;

const float kNaN = std::numeric_limits<float>::quiet_NaN(), kInf = std::numeric_limits<float>::infinity();

using test::B;
using test::error_of;
using test::F;
using test::I;
using test::ints;
using test::run_op;
using test::S;
using test::tensor_of;
using test::transposed;
Tensor tensor_b(const Shape& shape, const std::vector<double>& v) { return tensor_of(DType::Bool, shape, v); }
Tensor run1(const std::string& op, const std::vector<Tensor>& in, AttrMap attrs = {}) {
  return run_op(op, in, attrs).out[0];
}

// ---------------- type promotion ----------------

// b: a tensor operand of shape b_shape, else `scalar` as a Python scalar attr.
struct PromoCase { const char* op; DType a; std::optional<DType> b; Shape b_shape; Attr scalar; DType want; };

TEST(EwPromotion, ResultTypesFollowTorch) {
  const std::vector<PromoCase> cases = {
      {"aten.mul.Tensor", DType::I64, std::nullopt, {}, F(0.5), DType::F32},      // int64*0.5
      {"aten.add.Tensor", DType::I64, DType::F64, {}, {}, DType::F64},              // int64+f64_0d
      {"aten.add.Tensor", DType::I32, DType::I64, {}, {}, DType::I32},              // int32+int64_0d
      {"aten.add.Tensor", DType::Bool, std::nullopt, {}, I(2), DType::I64},        // bool+2
      {"aten.mul.Tensor", DType::Bool, std::nullopt, {}, F(2.5), DType::F32},      // bool*2.5
      {"aten.add.Tensor", DType::U8, DType::I8, {2}, {}, DType::I16},               // u8+i8
      {"aten.add.Tensor", DType::F32, std::nullopt, {}, I(2), DType::F32},
      {"aten.add.Tensor", DType::F32, DType::F64, {2}, {}, DType::F64},
      {"aten.div.Tensor", DType::I64, DType::I64, {2}, {}, DType::F32},             // int/int true div
      {"aten.div.Tensor_mode", DType::I64, DType::I64, {2}, {}, DType::F32},        // mode null
      {"aten.eq.Scalar", DType::I64, std::nullopt, {}, F(2.0), DType::Bool},
      {"aten.pow.Tensor_Scalar", DType::I64, std::nullopt, {}, I(2), DType::I64},  // pow(int,2)
      {"aten.pow.Tensor_Scalar", DType::I64, std::nullopt, {}, F(0.5), DType::F32},
      {"aten.maximum.default", DType::I32, DType::F32, {2}, {}, DType::F32},
  };
  for (const auto& c : cases) {
    std::vector<Tensor> in{tensor_of(c.a, {2}, {1.0, 1.0})};
    AttrMap attrs;
    if (c.b) in.push_back(tensor_of(*c.b, c.b_shape, std::vector<double>(size_t(shape_numel(c.b_shape)), 1.0)));
    else attrs[std::string(c.op).find("pow") != std::string::npos ? "exponent" : "other"] = c.scalar;
    Tensor out = run1(c.op, in, attrs);
    EXPECT_EQ(out.dtype, c.want) << c.op << " " << dtype_name(c.a) << " -> got " << dtype_name(out.dtype);
  }
}

TEST(EwPromotion, ScalarValuesCastIntoCommonType) {
  // uint8 + 300 wraps in uint8 like torch (300 -> 44).
  Tensor u = tensor_of(DType::U8, {2}, {1, 250});
  Tensor r = run1("aten.add.Tensor", {u}, {{"other", I(300)}});
  EXPECT_EQ(r.dtype, DType::U8);
  EXPECT_THAT(values_i64(r), ElementsAre(45, 38));
  // int64 * 0.5 is computed in float.
  EXPECT_THAT(values_f32(run1("aten.mul.Tensor", {tensor_i64({3}, {1, 3, -5})}, {{"other", F(0.5)}})),
              ElementsAre(0.5f, 1.5f, -2.5f));
  // int / int is true division.
  EXPECT_THAT(values_f32(run1("aten.div.Tensor", {tensor_i64({2}, {7, -7}), tensor_i64({2}, {2, 2})})),
              ElementsAre(3.5f, -3.5f));
}

// ---------------- arithmetic values ----------------

TEST(EwBinary, AlphaSubRsubAndBroadcast) {
  Tensor a = tensor_f32({2, 1}, {1, 2});
  Tensor b = tensor_f32({3}, {10, 20, 30});
  Tensor r = run1("aten.add.Tensor", {a, b}, {{"alpha", I(2)}});
  EXPECT_EQ(r.shape, (Shape{2, 3}));
  EXPECT_THAT(values_f32(r), ElementsAre(21, 41, 61, 22, 42, 62));
  EXPECT_THAT(values_f32(run1("aten.sub.Tensor", {a, b}, {{"alpha", F(0.5)}})),
              ElementsAre(-4, -9, -14, -3, -8, -13));
  // rsub.Scalar(x, 1) = 1 - x; with alpha: other - alpha*self.
  EXPECT_THAT(values_f32(run1("aten.rsub.Scalar", {b}, {{"other", I(1)}, {"alpha", I(2)}})),
              ElementsAre(-19, -39, -59));
  EXPECT_THAT(values_f32(run1("aten.rsub.Tensor", {a, b})), ElementsAre(9, 19, 29, 8, 18, 28));
  // int alpha with int tensors; float alpha with int tensors is an error.
  EXPECT_THAT(values_i64(run1("aten.add.Tensor", {tensor_i64({2}, {1, 2}), tensor_i64({2}, {3, 4})}, {{"alpha", I(-1)}})),
              ElementsAre(-2, -2));
  EXPECT_THAT(error_of([&] { run1("aten.add.Tensor", {tensor_i64({1}, {1}), tensor_i64({1}, {1})}, {{"alpha", F(0.5)}}); }),
              HasSubstr("alpha must not be a floating point"));
  EXPECT_THAT(error_of([&] { run1("aten.add.Tensor", {tensor_f32({2}, {1, 2}), tensor_f32({3}, {1, 2, 3})}); }),
              HasSubstr("cannot be broadcast"));
}

TEST(EwBinary, DivisionRoundingModes) {
  Tensor a = tensor_i64({4}, {-7, 7, -8, 7});
  Tensor b = tensor_i64({4}, {2, 2, 3, -2});
  Tensor fl = run1("aten.div.Tensor_mode", {a, b}, {{"rounding_mode", S("floor")}});
  EXPECT_EQ(fl.dtype, DType::I64);
  EXPECT_THAT(values_i64(fl), ElementsAre(-4, 3, -3, -4));
  EXPECT_THAT(values_i64(run1("aten.div.Tensor_mode", {a, b}, {{"rounding_mode", S("trunc")}})),
              ElementsAre(-3, 3, -2, -3));
  // Python-scalar divisor stored in attrs.
  EXPECT_THAT(values_i64(run1("aten.div.Tensor_mode", {a}, {{"other", I(2)}, {"rounding_mode", S("floor")}})),
              ElementsAre(-4, 3, -4, 3));
  Tensor f = tensor_f32({3}, {-7.5f, 7.5f, -0.5f});
  EXPECT_THAT(values_f32(run1("aten.div.Tensor_mode", {f}, {{"other", I(2)}, {"rounding_mode", S("floor")}})),
              ElementsAre(-4, 3, -1));
  EXPECT_THAT(values_f32(run1("aten.div.Tensor_mode", {f}, {{"other", I(2)}, {"rounding_mode", S("trunc")}})),
              ElementsAre(-3, 3, -0.0f));
  EXPECT_THAT(error_of([&] {
                run1("aten.div.Tensor_mode", {a, tensor_i64({4}, {1, 0, 1, 1})}, {{"rounding_mode", S("trunc")}});
              }),
              HasSubstr("ZeroDivisionError"));
  EXPECT_THAT(error_of([&] { run1("aten.div.Tensor_mode", {a, b}, {{"rounding_mode", S("round")}}); }),
              HasSubstr("rounding_mode"));
  // Float division by zero is IEEE.
  auto z = values_f32(run1("aten.div.Tensor", {tensor_i64({2}, {-1, 0})}, {{"other", I(0)}}));
  EXPECT_EQ(z[0], -kInf);
  EXPECT_TRUE(std::isnan(z[1]));
}

TEST(EwBinary, PowCases) {
  Tensor i = tensor_i64({3}, {2, -3, 4});
  Tensor sq = run1("aten.pow.Tensor_Scalar", {i}, {{"exponent", I(2)}});
  EXPECT_EQ(sq.dtype, DType::I64);
  EXPECT_THAT(values_i64(sq), ElementsAre(4, 9, 16));
  EXPECT_THAT(error_of([&] { run1("aten.pow.Tensor_Scalar", {i}, {{"exponent", I(-1)}}); }),
              HasSubstr("Integers to negative integer powers are not allowed"));
  EXPECT_THAT(values_i64(run1("aten.pow.Tensor_Tensor", {tensor_i64({4}, {2, -1, 1, 3}), tensor_i64({4}, {-1, -3, -2, 2})})),
              ElementsAre(0, -1, 1, 9));
  Tensor ps = run1("aten.pow.Scalar", {tensor_f32({3}, {0, 1, 3})}, {{"self", I(2)}});
  EXPECT_EQ(ps.dtype, DType::F32);
  EXPECT_THAT(values_f32(ps), ElementsAre(1, 2, 8));
  EXPECT_THAT(values_f32(run1("aten.pow.Tensor_Scalar", {tensor_f32({2}, {4, 9})}, {{"exponent", F(0.5)}})),
              ElementsAre(2, 3));
}

TEST(EwBinary, MaximumMinimumPropagateNaN) {
  Tensor a = tensor_f32({3}, {1, kNaN, 5});
  Tensor b = tensor_f32({3}, {2, 0, kNaN});
  auto mx = values_f32(run1("aten.maximum.default", {a, b}));
  EXPECT_EQ(mx[0], 2);
  EXPECT_TRUE(std::isnan(mx[1]) && std::isnan(mx[2]));
  EXPECT_EQ(values_f32(run1("aten.minimum.default", {a, b}))[0], 1);
}

TEST(EwBinary, ComparisonsAndLogical) {
  Tensor a = tensor_i64({2, 2}, {1, 2, 3, 4});
  Tensor c = run1("aten.eq.Scalar", {a}, {{"other", F(2.0)}});
  EXPECT_EQ(c.dtype, DType::Bool);
  EXPECT_THAT(values_i64(c), ElementsAre(0, 1, 0, 0));
  EXPECT_THAT(values_i64(run1("aten.lt.Tensor", {a, tensor_f32({2}, {2.5f, 2.5f})})), ElementsAre(1, 1, 0, 0));
  EXPECT_THAT(values_i64(run1("aten.ge.Scalar", {a}, {{"other", F(2.5)}})), ElementsAre(0, 0, 1, 1));
  Tensor x = tensor_b({4}, {1, 1, 0, 0}), y = tensor_b({4}, {1, 0, 1, 0});
  EXPECT_THAT(values_i64(run1("aten.logical_and.default", {x, y})), ElementsAre(1, 0, 0, 0));
  EXPECT_THAT(values_i64(run1("aten.logical_or.default", {x, y})), ElementsAre(1, 1, 1, 0));
  EXPECT_THAT(values_i64(run1("aten.logical_xor.default", {x, y})), ElementsAre(0, 1, 1, 0));
  Tensor ln = run1("aten.logical_not.default", {tensor_f32({2}, {3, 0})});
  EXPECT_EQ(ln.dtype, DType::Bool);
  EXPECT_THAT(values_i64(ln), ElementsAre(0, 1));
  EXPECT_THAT(values_i64(run1("aten.bitwise_not.default", {x})), ElementsAre(0, 0, 1, 1));
  EXPECT_THAT(values_i64(run1("aten.bitwise_not.default", {tensor_of(DType::U8, {1}, {3})})), ElementsAre(252));
  EXPECT_THAT(error_of([&] { run1("aten.bitwise_not.default", {tensor_f32({1}, {1})}); }), HasSubstr("bitwise_not"));
}

// ---------------- in place through views ----------------

TEST(EwInplace, WritesThroughTransposedView) {
  Tensor base = tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor view = transposed(base);  // [3, 2]
  Tensor out = run1("aten.add_.Tensor", {view, tensor_f32({3, 2}, {10, 20, 30, 40, 50, 60})});
  EXPECT_TRUE(out.same_storage(base));
  EXPECT_EQ(out.strides, view.strides);
  EXPECT_THAT(values_f32(base), ElementsAre(11, 32, 53, 24, 45, 66));
  // The other operand may be self itself.
  run1("aten.mul_.Tensor", {view, view});
  EXPECT_THAT(values_f32(base), ElementsAre(121, 1024, 2809, 576, 2025, 4356));
  // Scalar forms and broadcasting into a slice view (row 1 of a [2,3] base).
  Tensor b2 = tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor row1 = b2.view_as({3}, {1}, 3);
  run1("aten.sub_.Scalar", {row1}, {{"other", I(1)}, {"alpha", I(2)}});
  EXPECT_THAT(values_f32(b2), ElementsAre(1, 2, 3, 2, 3, 4));
  run1("aten.div_.Tensor", {row1, tensor_f32({1}, {2})});
  EXPECT_THAT(values_f32(b2), ElementsAre(1, 2, 3, 1, 1.5f, 2));
}

TEST(EwInplace, OverlappingOperandReadsOldValues) {
  // x[1:] += x[:-1] must read the original x (as computed out of place).
  Tensor x = tensor_f32({4}, {1, 2, 3, 4});
  run1("aten.add_.Tensor", {x.view_as({3}, {1}, 1), x.view_as({3}, {1}, 0)});
  EXPECT_THAT(values_f32(x), ElementsAre(1, 3, 5, 7));
}

TEST(EwInplace, CastsIntoSelfDtype) {
  Tensor i = tensor_i64({2}, {1, 2});
  EXPECT_THAT(error_of([&] { run1("aten.add_.Tensor", {i, tensor_f32({1}, {0.5f})}); }),
              HasSubstr("can't be cast to the desired output type int64"));
  EXPECT_THAT(error_of([&] { run1("aten.sigmoid_.default", {i}); }), HasSubstr("can't be cast"));
  Tensor f = tensor_f32({2}, {1, 2});
  run1("aten.add_.Tensor", {f, tensor_of(DType::F64, {2}, {0.25, 0.5})});
  EXPECT_EQ(f.dtype, DType::F32);
  EXPECT_THAT(values_f32(f), ElementsAre(1.25f, 2.5f));
  EXPECT_THAT(error_of([&] { run1("aten.add_.Tensor", {tensor_f32({1}, {1}), tensor_f32({3}, {1, 2, 3})}); }),
              HasSubstr("doesn't match the broadcast shape"));
}

// ---------------- where / masked_fill ----------------

TEST(EwWhere, PromotesAndBroadcasts) {
  Tensor cond = tensor_b({2, 1}, {1, 0});
  Tensor r = run1("aten.where.self", {cond, tensor_i64({3}, {1, 2, 3}), tensor_f32({1}, {0.5f})});
  EXPECT_EQ(r.dtype, DType::F32);
  EXPECT_EQ(r.shape, (Shape{2, 3}));
  EXPECT_THAT(values_f32(r), ElementsAre(1, 2, 3, 0.5f, 0.5f, 0.5f));
  Tensor so = run1("aten.where.ScalarOther", {cond, tensor_i64({1}, {7})}, {{"other", F(0.5)}});
  EXPECT_EQ(so.dtype, DType::F32);
  EXPECT_THAT(values_f32(so), ElementsAre(7, 0.5f));
  Tensor ss = run1("aten.where.ScalarSelf", {cond, tensor_i64({1}, {7})}, {{"self", I(-1)}});
  EXPECT_EQ(ss.dtype, DType::I64);
  EXPECT_THAT(values_i64(ss), ElementsAre(-1, 7));
}

TEST(EwWhere, MaskedFill) {
  Tensor i = tensor_i64({3}, {1, 2, 5});
  Tensor mask = tensor_b({3}, {0, 1, 1});
  Tensor r = run1("aten.masked_fill.Scalar", {i, mask}, {{"value", F(2.7)}});
  EXPECT_EQ(r.dtype, DType::I64);
  EXPECT_THAT(values_i64(r), ElementsAre(1, 2, 2));  // 2.7 cast to int64
  auto m = values_f32(run1("aten.masked_fill.Scalar", {tensor_f32({2, 2}, {1, 2, 3, 4}), tensor_b({2}, {1, 0})},
                           {{"value", F(-kInf)}}));
  EXPECT_THAT(m, ElementsAre(-kInf, 2, -kInf, 4));
  // In place through a transposed view; value as a 0-d tensor.
  Tensor base = tensor_f32({2, 2}, {1, 2, 3, 4});
  run1("aten.masked_fill_.Tensor", {transposed(base), tensor_b({2, 2}, {0, 1, 0, 0}), tensor_f32({}, {9})});
  EXPECT_THAT(values_f32(base), ElementsAre(1, 2, 9, 4));
  EXPECT_THAT(error_of([&] { run1("aten.masked_fill.Scalar", {i, tensor_f32({3}, {0, 1, 1})}, {{"value", I(1)}}); }),
              HasSubstr("mask must be a bool tensor"));
}

// ---------------- unary ----------------

TEST(EwUnary, ActivationValues) {
  Tensor x = tensor_f32({5}, {-4, -1, 0, 1, 4});
  EXPECT_THAT(values_f32(run1("aten.relu.default", {x})), ElementsAre(0, 0, 0, 1, 4));
  EXPECT_THAT(values_f32(run1("aten.hardtanh.default", {x})), ElementsAre(-1, -1, 0, 1, 1));
  EXPECT_THAT(values_f32(run1("aten.hardtanh.default", {x}, {{"min_val", F(0)}, {"max_val", F(6)}})),
              ElementsAre(0, 0, 0, 1, 4));
  EXPECT_THAT(values_f32(run1("aten.hardswish.default", {x})),
              ElementsAre(-0.0f, -1.0f / 3, 0, 4.0f / 6, 4));
  EXPECT_THAT(values_f32(run1("aten.hardsigmoid.default", {x})), ElementsAre(0, 2.0f / 6, 0.5f, 4.0f / 6, 1));
  auto g = values_f32(run1("aten.gelu.default", {x}));
  auto gt = values_f32(run1("aten.gelu.default", {x}, {{"approximate", S("tanh")}}));
  EXPECT_NEAR(g[3], 0.8413447f, 1e-6);
  EXPECT_NEAR(gt[3], 0.8411920f, 1e-6);
  EXPECT_NEAR(g[1], -0.1586553f, 1e-6);
  auto s = values_f32(run1("aten.silu.default", {x}));
  EXPECT_NEAR(s[3], 0.7310586f, 1e-6);
  EXPECT_THAT(values_f32(run1("aten.leaky_relu.default", {x})), ElementsAre(-0.04f, -0.01f, 0, 1, 4));
  auto e = values_f32(run1("aten.elu.default", {x}, {{"alpha", F(2.0)}}));
  EXPECT_NEAR(e[1], 2.0f * (std::exp(-1.0f) - 1.0f), 1e-6);
  auto sp = values_f32(run1("aten.softplus.default", {x}, {{"beta", I(2)}, {"threshold", I(1)}}));
  EXPECT_NEAR(sp[1], std::log1p(std::exp(-2.0f)) / 2, 1e-6);
  EXPECT_EQ(sp[4], 4.0f);  // linear above the threshold
  EXPECT_THAT(error_of([&] { run1("aten.gelu.default", {x}, {{"approximate", S("fast")}}); }),
              HasSubstr("approximate"));
}

TEST(EwUnary, IntInputsAndClamp) {
  Tensor i = tensor_i64({3}, {-2, 0, 3});
  Tensor sg = run1("aten.sigmoid.default", {i});
  EXPECT_EQ(sg.dtype, DType::F32);
  EXPECT_FLOAT_EQ(values_f32(sg)[1], 0.5f);
  EXPECT_THAT(values_f32(run1("aten.sqrt.default", {tensor_i64({2}, {4, 9})})), ElementsAre(2, 3));
  Tensor n = run1("aten.neg.default", {i});
  EXPECT_EQ(n.dtype, DType::I64);
  EXPECT_THAT(values_i64(n), ElementsAre(2, 0, -3));
  EXPECT_THAT(values_i64(run1("aten.abs.default", {i})), ElementsAre(2, 0, 3));
  // clamp with only max; int tensor with int bound stays int, float bound gives float.
  Tensor c = run1("aten.clamp.default", {i}, {{"max", I(1)}});
  EXPECT_EQ(c.dtype, DType::I64);
  EXPECT_THAT(values_i64(c), ElementsAre(-2, 0, 1));
  Tensor cf = run1("aten.clamp.default", {i}, {{"min", F(0.5)}, {"max", Attr::none()}});
  EXPECT_EQ(cf.dtype, DType::F32);
  EXPECT_THAT(values_f32(cf), ElementsAre(0.5f, 0.5f, 3));
  auto cn = values_f32(run1("aten.clamp.default", {tensor_f32({2}, {kNaN, 5})}, {{"min", I(0)}, {"max", I(1)}}));
  EXPECT_TRUE(std::isnan(cn[0]));
  EXPECT_EQ(cn[1], 1);
  EXPECT_THAT(values_f32(run1("aten.clamp_min.default", {tensor_f32({2}, {-1, 2})}, {{"min", I(0)}})), ElementsAre(0, 2));
  EXPECT_THAT(error_of([&] { run1("aten.clamp.default", {i}); }), HasSubstr("at least one of 'min' or 'max'"));
  // clamp.Tensor with one bound takes it as min.
  EXPECT_THAT(values_f32(run1("aten.clamp.Tensor", {tensor_f32({3}, {-1, 0.5f, 2}), tensor_f32({1}, {0})})),
              ElementsAre(0, 0.5f, 2));
  EXPECT_THAT(values_f32(run1("aten.clamp.Tensor", {tensor_f32({3}, {-1, 0.5f, 2}), tensor_f32({1}, {0}),
                                                   tensor_f32({3}, {1, 1, 1})})),
              ElementsAre(0, 0.5f, 1));
  EXPECT_THAT(error_of([&] { run1("aten.relu.default", {tensor_b({1}, {1})}); }), HasSubstr("boolean"));
}

TEST(EwUnary, InplaceThroughView) {
  Tensor base = tensor_f32({2, 2}, {-1, 2, -3, 4});
  Tensor col0 = base.view_as({2}, {2}, 0);
  Tensor out = run1("aten.relu_.default", {col0});
  EXPECT_TRUE(out.same_storage(base));
  EXPECT_THAT(values_f32(base), ElementsAre(0, 2, 0, 4));
  run1("aten.hardtanh_.default", {transposed(base)}, {{"min_val", F(0)}, {"max_val", F(3)}});
  EXPECT_THAT(values_f32(base), ElementsAre(0, 2, 0, 3));
  Tensor f = tensor_f32({2}, {0, 2});
  run1("aten.logical_not_.default", {f});  // keeps self's dtype
  EXPECT_THAT(values_f32(f), ElementsAre(1, 0));
}

// ---------------- conversions ----------------

TEST(EwConvert, ToAliasesWhenUnchanged) {
  Tensor x = tensor_f32({2}, {1.7f, -1.7f});
  Tensor same = run1("aten.to.dtype", {x}, {{"dtype", S("torch.float32")}});
  EXPECT_TRUE(same.same_storage(x));
  Tensor copied = run1("aten.to.dtype", {x}, {{"dtype", I(6)}, {"copy", B(true)}});
  EXPECT_FALSE(copied.same_storage(x));
  Tensor i = run1("aten.to.dtype", {x}, {{"dtype", S("torch.int64")}});
  EXPECT_EQ(i.dtype, DType::I64);
  EXPECT_THAT(values_i64(i), ElementsAre(1, -1));  // truncation toward zero
  EXPECT_TRUE(run1("aten.to.dtype_layout", {x}, {{"layout", S("torch.strided")}, {"device", S("meta")}}).same_storage(x));
  Tensor tc = run1("aten._to_copy.default", {x});
  EXPECT_FALSE(tc.same_storage(x));
  EXPECT_THAT(values_f32(tc), ElementsAre(1.7f, -1.7f));
  Tensor u8 = run1("aten._to_copy.default", {tensor_f32({1}, {300})}, {{"dtype", S("uint8")}});
  EXPECT_THAT(values_i64(u8), ElementsAre(44));  // wraps like torch
  Tensor ta = run1("aten.type_as.default", {x, tensor_b({1}, {1})});
  EXPECT_EQ(ta.dtype, DType::Bool);
  EXPECT_THAT(error_of([&] { run1("aten.to.dtype", {x}); }), HasSubstr("dtype"));
}

TEST(EwConvert, CloneCopyFill) {
  Tensor base = tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor cl = run1("aten.clone.default", {transposed(base)}, {{"memory_format", S("torch.contiguous_format")}});
  EXPECT_TRUE(cl.is_contiguous());
  EXPECT_THAT(values_f32(cl), ElementsAre(1, 4, 2, 5, 3, 6));
  EXPECT_THAT(values_f32(run1("aten.lift_fresh_copy.default", {base})), ElementsAre(1, 2, 3, 4, 5, 6));
  // copy_ broadcasts and casts into a transposed view of the destination.
  Tensor dst = tensor_f32({2, 3}, {0, 0, 0, 0, 0, 0});
  Tensor out = run1("aten.copy_.default", {transposed(dst), tensor_i64({2}, {7, 8})});
  EXPECT_TRUE(out.same_storage(dst));
  EXPECT_THAT(values_f32(dst), ElementsAre(7, 7, 7, 8, 8, 8));
  run1("aten.fill_.Scalar", {dst.view_as({2}, {3}, 1)}, {{"value", F(-1.5)}});
  EXPECT_THAT(values_f32(dst), ElementsAre(7, -1.5f, 7, 8, -1.5f, 8));
  run1("aten.fill_.Tensor", {dst.view_as({3}, {1}, 0), tensor_f32({}, {2})});
  EXPECT_THAT(values_f32(dst), ElementsAre(2, 2, 2, 8, -1.5f, 8));
  run1("aten.zero_.default", {dst.view_as({3}, {1}, 3)});
  EXPECT_THAT(values_f32(dst), ElementsAre(2, 2, 2, 0, 0, 0));
  Tensor it = tensor_i64({2}, {0, 0});
  run1("aten.fill_.Scalar", {it}, {{"value", F(2.9)}});
  EXPECT_THAT(values_i64(it), ElementsAre(2, 2));
  EXPECT_THAT(error_of([&] { run1("aten.copy_.default", {tensor_f32({1}, {0}), tensor_f32({3}, {1, 2, 3})}); }),
              HasSubstr("does not broadcast"));
}

// ---------------- reductions ----------------

TEST(EwReduce, SumMeanDtypesAndDims) {
  Tensor b = tensor_b({3}, {1, 1, 0});
  Tensor s = run1("aten.sum.default", {b});
  EXPECT_EQ(s.dtype, DType::I64);
  EXPECT_EQ(s.shape, Shape{});
  EXPECT_THAT(values_i64(s), ElementsAre(2));
  Tensor x = tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_THAT(values_f32(run1("aten.sum.dim_IntList", {x}, {{"dim", Attr::none()}})), ElementsAre(21));
  Tensor m = run1("aten.mean.dim", {x}, {{"dim", ints({-1})}, {"keepdim", B(true)}});
  EXPECT_EQ(m.shape, (Shape{2, 1}));
  EXPECT_THAT(values_f32(m), ElementsAre(2, 5));
  Tensor md = run1("aten.mean.dim", {tensor_i64({2}, {1, 2})}, {{"dim", ints({0})}, {"dtype", S("torch.float64")}});
  EXPECT_EQ(md.dtype, DType::F64);
  EXPECT_THAT(values_f32(md), ElementsAre(1.5f));
  EXPECT_THAT(error_of([&] { run1("aten.mean.dim", {tensor_i64({2}, {1, 2})}, {{"dim", ints({0})}}); }),
              HasSubstr("could not infer output dtype"));
  EXPECT_THAT(error_of([&] { run1("aten.sum.dim_IntList", {x}, {{"dim", ints({0, -2})}}); }),
              HasSubstr("appears multiple times"));
  EXPECT_THAT(error_of([&] { run1("aten.sum.dim_IntList", {x}, {{"dim", ints({2})}}); }), HasSubstr("out of range"));
  // Empty reductions: sum 0, mean NaN; zero-size output.
  Tensor e = tensor_f32({0, 3}, {});
  EXPECT_THAT(values_f32(run1("aten.sum.dim_IntList", {e}, {{"dim", ints({0})}})), ElementsAre(0, 0, 0));
  EXPECT_TRUE(std::isnan(values_f32(run1("aten.mean.dim", {e}, {{"dim", ints({0})}}))[0]));
  EXPECT_EQ(run1("aten.sum.dim_IntList", {e}, {{"dim", ints({1})}}).shape, Shape{0});
  Tensor p = run1("aten.prod.dim_int", {tensor_i64({2, 2}, {1, 2, 3, 4})}, {{"dim", I(1)}});
  EXPECT_EQ(p.dtype, DType::I64);
  EXPECT_THAT(values_i64(p), ElementsAre(2, 12));
}

TEST(EwReduce, LongRowSumStaysAccurate) {
  const int64_t n = 1 << 20;
  std::vector<float> v(static_cast<size_t>(n));
  double exact = 0;
  for (int64_t k = 0; k < n; ++k) {
    v[size_t(k)] = 0.1f + float(k % 7) * 1e-3f;
    exact += double(v[size_t(k)]);
  }
  Tensor x = tensor_f32({n}, v);
  EXPECT_NEAR(values_f32(run1("aten.sum.default", {x}))[0], exact, exact * 1e-6);
  EXPECT_NEAR(values_f32(run1("aten.mean.dim", {x}, {{"dim", ints({0})}}))[0], exact / double(n), 1e-7);
}

TEST(EwReduce, MaxArgmaxTiesAndNaN) {
  Tensor x = tensor_f32({2, 4}, {1, 3, 3, 0, 1, kNaN, 3, kNaN});
  auto r = run_op("aten.max.dim", {x}, {{"dim", I(1)}}, 2).out;
  EXPECT_EQ(r[1].dtype, DType::I64);
  EXPECT_THAT(values_i64(r[1]), ElementsAre(1, 1));  // first max, first NaN
  EXPECT_EQ(values_f32(r[0])[0], 3);
  EXPECT_TRUE(std::isnan(values_f32(r[0])[1]));
  EXPECT_THAT(values_i64(run1("aten.argmax.default", {x}, {{"dim", I(-1)}})), ElementsAre(1, 1));
  Tensor y = tensor_f32({2, 3}, {5, 1, 9, 9, 0, 2});
  Tensor flat = run1("aten.argmax.default", {y});
  EXPECT_EQ(flat.shape, Shape{});
  EXPECT_THAT(values_i64(flat), ElementsAre(2));  // flattened index, first of the ties
  EXPECT_EQ(run1("aten.argmax.default", {y}, {{"keepdim", B(true)}}).shape, (Shape{1, 1}));
  EXPECT_THAT(values_i64(run1("aten.argmin.default", {y}, {{"dim", I(0)}, {"keepdim", B(true)}})), ElementsAre(0, 1, 1));
  auto mn = run_op("aten.min.dim", {y}, {{"dim", I(0)}, {"keepdim", B(true)}}, 2).out;
  EXPECT_EQ(mn[0].shape, (Shape{1, 3}));
  EXPECT_THAT(values_f32(mn[0]), ElementsAre(5, 0, 2));
  EXPECT_THAT(values_f32(run1("aten.amax.default", {y}, {{"dim", ints({0, 1})}})), ElementsAre(9));
  EXPECT_THAT(values_f32(run1("aten.amin.default", {y})), ElementsAre(0));  // dim=[] is all dims
  EXPECT_THAT(error_of([&] { run1("aten.amax.default", {tensor_f32({0, 2}, {})}, {{"dim", ints({0})}}); }),
              HasSubstr("zero-size"));
  // Non-contiguous input.
  EXPECT_THAT(values_i64(run1("aten.argmax.default", {transposed(y)}, {{"dim", I(1)}})), ElementsAre(1, 0, 0));
}

TEST(EwReduce, AnyAll) {
  Tensor b = tensor_b({2, 3}, {0, 0, 1, 0, 0, 0});
  Tensor a = run1("aten.any.dim", {b}, {{"dim", I(1)}});
  EXPECT_EQ(a.dtype, DType::Bool);
  EXPECT_THAT(values_i64(a), ElementsAre(1, 0));
  EXPECT_THAT(values_i64(run1("aten.all.dim", {tensor_f32({2, 2}, {1, 2, 0, 3})}, {{"dim", I(0)}})), ElementsAre(0, 1));
  EXPECT_THAT(values_i64(run1("aten.any.default", {b})), ElementsAre(1));
  EXPECT_EQ(run1("aten.any.dim", {tensor_of(DType::U8, {2}, {0, 3})}, {{"dim", I(0)}}).dtype, DType::U8);
}

// ---------------- softmax ----------------

TEST(EwSoftmax, AnyDimAndSafeVariant) {
  Tensor x = tensor_f32({2, 2}, {1, 2, 3, 5});
  auto s0 = values_f32(run1("aten._softmax.default", {x}, {{"dim", I(0)}, {"half_to_float", B(false)}}));
  const float e2 = 1.0f / (1.0f + std::exp(2.0f)), e3 = 1.0f / (1.0f + std::exp(3.0f));
  EXPECT_NEAR(s0[0], e2, 1e-7);
  EXPECT_NEAR(s0[2], 1 - e2, 1e-7);
  EXPECT_NEAR(s0[1], e3, 1e-7);
  auto ls = values_f32(run1("aten.log_softmax.int", {x}, {{"dim", I(-1)}}));
  EXPECT_NEAR(ls[0], std::log(1.0f / (1.0f + std::exp(1.0f))), 1e-6);
  Tensor d = run1("aten.softmax.int", {x}, {{"dim", I(1)}, {"dtype", S("torch.float64")}});
  EXPECT_EQ(d.dtype, DType::F64);
  Tensor m = tensor_f32({2, 2}, {-kInf, -kInf, 0, -kInf});
  auto nan_rows = values_f32(run1("aten.softmax.int", {m}, {{"dim", I(1)}}));
  EXPECT_TRUE(std::isnan(nan_rows[0]));
  EXPECT_THAT(values_f32(run1("aten._safe_softmax.default", {m}, {{"dim", I(1)}})), ElementsAre(0, 0, 1, 0));
  EXPECT_THAT(error_of([&] { run1("aten.softmax.int", {tensor_i64({2}, {1, 2})}, {{"dim", I(0)}}); }),
              HasSubstr("not implemented for dtype int64"));
}

// ---------------- norms ----------------

TEST(EwNorm, LayerNorm) {
  Tensor x = tensor_f32({2, 2}, {1, 3, 2, 4});
  Tensor w = tensor_f32({2}, {2, 1});
  Tensor b = tensor_f32({2}, {0, 10});
  auto y = values_f32(run1("aten.layer_norm.default", {x, w, b}, {{"normalized_shape", ints({2})}, {"eps", F(0)}}));
  EXPECT_THAT(y, ElementsAre(-2, 11, -2, 11));
  auto r = run_op("aten.native_layer_norm.default", {x, w}, {{"normalized_shape", ints({2})}, {"eps", F(0)}}, 3).out;
  EXPECT_THAT(values_f32(r[0]), ElementsAre(-2, 1, -2, 1));
  EXPECT_EQ(r[1].shape, (Shape{2, 1}));
  EXPECT_THAT(values_f32(r[1]), ElementsAre(2, 3));
  EXPECT_THAT(values_f32(r[2]), ElementsAre(1, 1));
  // bias only (named *bias): weight slot empty.
  auto yb = values_f32(run_op("aten.layer_norm.default", {x, b}, {{"normalized_shape", ints({2})}, {"eps", F(0)}}, 1,
                              {"x", "p_ln_bias"}).out[0]);
  EXPECT_THAT(yb, ElementsAre(-1, 11, -1, 11));
  EXPECT_THAT(error_of([&] { run1("aten.layer_norm.default", {x}, {{"normalized_shape", ints({3})}}); }),
              HasSubstr("normalized_shape"));
  Tensor rms = run1("aten.rms_norm.default", {tensor_f32({1, 2}, {3, 4}), tensor_f32({2}, {1, 2})},
                    {{"normalized_shape", ints({2})}, {"eps", F(0)}});
  const float inv = 1.0f / std::sqrt(12.5f);
  EXPECT_NEAR(values_f32(rms)[0], 3 * inv, 1e-6);
  EXPECT_NEAR(values_f32(rms)[1], 8 * inv, 1e-6);
}

TEST(EwNorm, BatchNormSlotsAndModes) {
  Tensor x = tensor_f32({2, 2, 1}, {1, 10, 3, 20});
  Tensor rm = tensor_f32({2}, {1, 10});
  Tensor rv = tensor_f32({2}, {4, 25});
  AttrMap eval{{"training", B(false)}, {"momentum", F(0.1)}, {"eps", F(0)}, {"cudnn_enabled", B(true)}};
  // 3 inputs in eval: the running stats (BatchNorm(affine=False)).
  EXPECT_THAT(values_f32(run1("aten.batch_norm.default", {x, rm, rv}, eval)), ElementsAre(0, 0, 1, 2));
  // 5 inputs.
  Tensor w = tensor_f32({2}, {2, 1}), b = tensor_f32({2}, {1, 0});
  EXPECT_THAT(values_f32(run1("aten.batch_norm.default", {x, w, b, rm, rv}, eval)), ElementsAre(1, 0, 3, 2));
  // 3 inputs in training: weight and bias; batch statistics (biased variance).
  AttrMap train = eval;
  train["training"] = B(true);
  EXPECT_THAT(values_f32(run1("aten.batch_norm.default", {x, w, b}, train)), ElementsAre(-1, -1, 3, 1));
  // Placeholder names decide over the rule: here the extras are running stats.
  EXPECT_THAT(values_f32(run_op("aten.batch_norm.default", {x, rm, rv}, train, 1,
                                {"x", "b_bn_running_mean", "b_bn_running_var"}).out[0]),
              ElementsAre(-1, -1, 1, 1));
  EXPECT_THAT(error_of([&] { run1("aten.batch_norm.default", {x}, eval); }), HasSubstr("running_mean"));
  // _native_batch_norm_legit_no_training: extras take the IR's (empty) shapes.
  auto r = run_op("aten._native_batch_norm_legit_no_training.default", {x, rm, rv},
                  {{"momentum", F(0.1)}, {"eps", F(0)}}, 3, {}, {{2, 2, 1}, {0}, {0}}).out;
  EXPECT_THAT(values_f32(r[0]), ElementsAre(0, 0, 1, 2));
  EXPECT_EQ(r[1].shape, Shape{0});
  auto nt = run_op("aten.native_batch_norm.default", {x, w, b}, {{"training", B(true)}, {"momentum", F(0.1)}, {"eps", F(0)}},
                   3, {}, {{2, 2, 1}, {2}, {2}}).out;
  EXPECT_THAT(values_f32(nt[1]), ElementsAre(2, 15));
  EXPECT_THAT(values_f32(nt[2]), ElementsAre(1, 0.2f));
}

TEST(EwNorm, GroupAndInstanceNorm) {
  Tensor x = tensor_f32({1, 4, 1}, {1, 3, 10, 30});
  auto y = values_f32(run1("aten.group_norm.default", {x}, {{"num_groups", I(2)}, {"eps", F(0)}}));
  EXPECT_THAT(y, ElementsAre(-1, 1, -1, 1));
  auto r = run_op("aten.native_group_norm.default", {x, tensor_f32({4}, {1, 2, 3, 4})},
                  {{"N", I(1)}, {"C", I(4)}, {"HxW", I(1)}, {"group", I(2)}, {"eps", F(0)}}, 3).out;
  EXPECT_THAT(values_f32(r[0]), ElementsAre(-1, 2, -3, 4));
  EXPECT_EQ(r[1].shape, (Shape{1, 2}));
  EXPECT_THAT(values_f32(r[1]), ElementsAre(2, 20));
  EXPECT_THAT(error_of([&] { run1("aten.group_norm.default", {x}, {{"num_groups", I(3)}}); }), HasSubstr("divisible"));
  Tensor xi = tensor_f32({2, 1, 2}, {1, 3, 5, 9});
  auto yi = values_f32(run1("aten.instance_norm.default", {xi},
                            {{"use_input_stats", B(true)}, {"momentum", F(0.1)}, {"eps", F(0)}, {"cudnn_enabled", B(false)}}));
  EXPECT_THAT(yi, ElementsAre(-1, 1, -1, 1));
}

// ---------------- bitwise, remainder, fmod, floor_divide ----------------

TEST(EwBinary, BitwiseIntAndBool) {
  Tensor a = tensor_i64({4}, {12, -1, 5, 0});
  Tensor b = tensor_i64({4}, {10, 7, -2, 3});
  EXPECT_THAT(values_i64(run1("aten.bitwise_and.Tensor", {a, b})), ElementsAre(8, 7, 4, 0));
  EXPECT_THAT(values_i64(run1("aten.bitwise_or.Tensor", {a, b})), ElementsAre(14, -1, -1, 3));
  EXPECT_THAT(values_i64(run1("aten.bitwise_xor.Tensor", {a, b})), ElementsAre(6, -8, -5, 3));
  EXPECT_THAT(values_i64(run1("aten.bitwise_and.Scalar", {a}, {{"other", I(6)}})), ElementsAre(4, 6, 4, 0));
  Tensor p = tensor_b({4}, {1, 1, 0, 0}), q = tensor_b({4}, {1, 0, 1, 0});
  Tensor band = run1("aten.__and__.Tensor", {p, q});
  EXPECT_EQ(band.dtype, DType::Bool);
  EXPECT_THAT(values_i64(band), ElementsAre(1, 0, 0, 0));
  EXPECT_THAT(values_i64(run1("aten.__or__.Tensor", {p, q})), ElementsAre(1, 1, 1, 0));
  EXPECT_THAT(values_i64(run1("aten.bitwise_xor.Tensor", {p, q})), ElementsAre(0, 1, 1, 0));
  Tensor bs = run1("aten.bitwise_or.Scalar", {p}, {{"other", B(true)}});
  EXPECT_EQ(bs.dtype, DType::Bool);
  EXPECT_THAT(values_i64(bs), ElementsAre(1, 1, 1, 1));
  // bool & int -> int64
  EXPECT_EQ(run1("aten.bitwise_and.Tensor", {p, a}).dtype, DType::I64);
  EXPECT_THAT(error_of([&] { run1("aten.bitwise_and.Tensor", {tensor_f32({1}, {1}), a}); }),
              HasSubstr("integer and bool"));
  EXPECT_THAT(error_of([&] { run1("aten.bitwise_or.Scalar", {a}, {{"other", F(1.5)}}); }), HasSubstr("got float32"));
}

TEST(EwBinary, RemainderFmodSigns) {
  Tensor a = tensor_i64({4}, {-7, 7, -7, 7});
  Tensor b = tensor_i64({4}, {3, 3, -3, -3});
  Tensor r = run1("aten.remainder.Tensor", {a, b});
  EXPECT_EQ(r.dtype, DType::I64);
  EXPECT_THAT(values_i64(r), ElementsAre(2, 1, -1, -2));  // sign of the divisor
  EXPECT_THAT(values_i64(run1("aten.fmod.Tensor", {a, b})), ElementsAre(-1, 1, -1, 1));  // sign of the dividend
  EXPECT_THAT(values_i64(run1("aten.remainder.Scalar", {a}, {{"other", I(3)}})), ElementsAre(2, 1, 2, 1));
  EXPECT_THAT(values_i64(run1("aten.fmod.Scalar", {a}, {{"other", I(-3)}})), ElementsAre(-1, 1, -1, 1));
  // Scalar self: 5 % other
  EXPECT_THAT(values_i64(run1("aten.remainder.Scalar_Tensor", {b}, {{"self", I(5)}})), ElementsAre(2, 2, -1, -1));
  Tensor rf = run1("aten.remainder.Scalar_Tensor", {tensor_f32({2}, {2, -2})}, {{"self", F(5.5)}});
  EXPECT_THAT(values_f32(rf), ElementsAre(1.5f, -0.5f));
  // int % float scalar -> float32
  Tensor mixed = run1("aten.remainder.Scalar", {a}, {{"other", F(2.5)}});
  EXPECT_EQ(mixed.dtype, DType::F32);
  EXPECT_THAT(values_f32(mixed), ElementsAre(0.5f, 2.0f, 0.5f, 2.0f));
  Tensor f = tensor_f32({3}, {-7.5f, 7.5f, 1.0f});
  EXPECT_THAT(values_f32(run1("aten.remainder.Scalar", {f}, {{"other", I(2)}})), ElementsAre(0.5f, 1.5f, 1.0f));
  EXPECT_THAT(values_f32(run1("aten.fmod.Scalar", {f}, {{"other", I(2)}})), ElementsAre(-1.5f, 1.5f, 1.0f));
  // float by zero: NaN; int by zero: a clear error
  EXPECT_TRUE(std::isnan(values_f32(run1("aten.remainder.Scalar", {f}, {{"other", I(0)}}))[0]));
  for (const char* op : {"aten.remainder.Tensor", "aten.fmod.Tensor", "aten.floor_divide.default"})
    EXPECT_THAT(error_of([&] { run1(op, {a, tensor_i64({4}, {1, 0, 2, 3})}); }), HasSubstr("ZeroDivisionError")) << op;
  EXPECT_THAT(error_of([&] { run1("aten.remainder.Scalar", {a}, {{"other", I(0)}}); }), HasSubstr("ZeroDivisionError"));
  EXPECT_THAT(error_of([&] { run1("aten.remainder.Tensor", {tensor_b({1}, {1}), tensor_b({1}, {1})}); }),
              HasSubstr("bool"));
  // INT64_MIN % -1 must not trap
  Tensor big = tensor_i64({1}, {std::numeric_limits<int64_t>::min()});
  EXPECT_THAT(values_i64(run1("aten.remainder.Scalar", {big}, {{"other", I(-1)}})), ElementsAre(0));
  EXPECT_THAT(values_i64(run1("aten.fmod.Scalar", {big}, {{"other", I(-1)}})), ElementsAre(0));
}

TEST(EwBinary, FloorDivideForms) {
  Tensor a = tensor_i64({3}, {-7, 7, 8});
  EXPECT_THAT(values_i64(run1("aten.floor_divide.Scalar", {a}, {{"other", I(2)}})), ElementsAre(-4, 3, 4));
  Tensor fs = run1("aten.floor_divide.Scalar", {a}, {{"other", F(2.0)}});
  EXPECT_EQ(fs.dtype, DType::F32);
  EXPECT_THAT(values_f32(fs), ElementsAre(-4, 3, 4));
  // in place through a transposed view
  Tensor base = tensor_f32({2, 3}, {-7, 7, 8, 9, -1, 0});
  Tensor view = transposed(base);  // [3, 2]
  auto r = run_op("aten.floor_divide_.Tensor", {view, tensor_f32({2}, {2, -2})});
  EXPECT_TRUE(r.out[0].same_storage(base));
  EXPECT_THAT(values_f32(base), ElementsAre(-4, 3, 4, -5, 0, -0.0f));
  EXPECT_THAT(error_of([&] { run_op("aten.floor_divide_.Tensor", {a, tensor_f32({1}, {2})}); }),
              HasSubstr("can't be cast"));
}

// ---------------- rounding, sign, nan/inf ----------------

TEST(EwUnary, RoundingHalfToEven) {
  Tensor x = tensor_f32({8}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.7f, 2.2f, -0.2f});
  EXPECT_THAT(values_f32(run1("aten.round.default", {x})), ElementsAre(0, 2, 2, -0.0f, -2, -3, 2, -0.0f));
  EXPECT_THAT(values_f32(run1("aten.ceil.default", {x})), ElementsAre(1, 2, 3, -0.0f, -1, -2, 3, -0.0f));
  EXPECT_THAT(values_f32(run1("aten.floor.default", {x})), ElementsAre(0, 1, 2, -1, -2, -3, 2, -1));
  EXPECT_THAT(values_f32(run1("aten.trunc.default", {x})), ElementsAre(0, 1, 2, -0.0f, -1, -2, 2, -0.0f));
  Tensor d = tensor_f32({4}, {1.25f, 2.35f, -0.125f, 0.05f});
  // 2.35f*10 = 23.5 -> 24; 1.25*10 = 12.5 -> 12 (half to even)
  EXPECT_THAT(values_f32(run1("aten.round.decimals", {d}, {{"decimals", I(1)}})), ElementsAre(1.2f, 2.4f, -0.1f, 0.0f));
  Tensor h = tensor_f32({3}, {125, -135, 149});
  EXPECT_THAT(values_f32(run1("aten.round.decimals", {h}, {{"decimals", I(-1)}})), ElementsAre(120, -140, 150));
  EXPECT_THAT(values_f32(run1("aten.round.decimals", {d}, {{"decimals", I(0)}})), ElementsAre(1, 2, -0.0f, 0));
  // integers pass through unchanged (exact beyond 2^53)
  const int64_t big = (int64_t(1) << 60) + 3;
  for (const char* op : {"aten.round.default", "aten.ceil.default", "aten.floor.default", "aten.trunc.default"}) {
    Tensor r = run1(op, {tensor_i64({2}, {big, -5})});
    EXPECT_EQ(r.dtype, DType::I64);
    EXPECT_THAT(values_i64(r), ElementsAre(big, -5)) << op;
    EXPECT_THAT(error_of([&] { run1(op, {tensor_b({1}, {1})}); }), HasSubstr("boolean")) << op;
  }
  EXPECT_THAT(error_of([&] { run1("aten.round.decimals", {tensor_i64({1}, {5})}, {{"decimals", I(1)}}); }),
              HasSubstr("not implemented for int64"));
  EXPECT_THAT(error_of([&] { run1("aten.round.decimals", {d}); }), HasSubstr("decimals"));
}

TEST(EwUnary, SignSquareAndFloatFunctions) {
  Tensor x = tensor_f32({5}, {-2.5f, -0.0f, 0.0f, 3.0f, kNaN});
  EXPECT_THAT(values_f32(run1("aten.sign.default", {x})), ElementsAre(-1, 0, 0, 1, 0));
  Tensor si = run1("aten.sign.default", {tensor_i64({3}, {-9, 0, 4})});
  EXPECT_EQ(si.dtype, DType::I64);
  EXPECT_THAT(values_i64(si), ElementsAre(-1, 0, 1));
  Tensor sb = run1("aten.sign.default", {tensor_b({2}, {1, 0})});
  EXPECT_EQ(sb.dtype, DType::Bool);
  EXPECT_THAT(values_i64(sb), ElementsAre(1, 0));
  Tensor sq = run1("aten.square.default", {tensor_i64({2}, {-3, 3037000499})});
  EXPECT_EQ(sq.dtype, DType::I64);
  EXPECT_THAT(values_i64(sq), ElementsAre(9, int64_t(3037000499) * 3037000499));
  Tensor sqb = run1("aten.square.default", {tensor_b({2}, {1, 0})});
  EXPECT_EQ(sqb.dtype, DType::I64);
  EXPECT_THAT(values_i64(sqb), ElementsAre(1, 0));
  EXPECT_THAT(values_f32(run1("aten.square.default", {tensor_f32({2}, {-1.5f, 2})})), ElementsAre(2.25f, 4));
  Tensor e = run1("aten.expm1.default", {tensor_f32({2}, {1e-10f, 1})});
  EXPECT_FLOAT_EQ(values_f32(e)[0], 1e-10f);  // expm1 keeps tiny values exact
  EXPECT_FLOAT_EQ(values_f32(e)[1], float(std::expm1(1.0)));
  EXPECT_FLOAT_EQ(values_f32(run1("aten.log1p.default", {tensor_f32({1}, {1e-10f})}))[0], 1e-10f);
  Tensor l2 = run1("aten.log2.default", {tensor_i64({3}, {8, 1, 0})});
  EXPECT_EQ(l2.dtype, DType::F32);
  EXPECT_THAT(values_f32(l2), ElementsAre(3, 0, -kInf));
  Tensor d = run1("aten.expm1.default", {tensor_of(DType::F64, {1}, {1e-17})});
  EXPECT_EQ(d.dtype, DType::F64);
  EXPECT_DOUBLE_EQ(d.data<double>()[0], 1e-17);
}

TEST(EwUnary, NanInfTestsAndNanToNum) {
  Tensor x = tensor_f32({4}, {kNaN, kInf, -kInf, 1.5f});
  for (auto [op, want] : std::vector<std::pair<const char*, std::vector<int64_t>>>{
           {"aten.isnan.default", {1, 0, 0, 0}}, {"aten.isinf.default", {0, 1, 1, 0}},
           {"aten.isfinite.default", {0, 0, 0, 1}}}) {
    Tensor r = run1(op, {transposed(tensor_f32({2, 2}, {kNaN, -kInf, kInf, 1.5f}))});
    EXPECT_EQ(r.dtype, DType::Bool);
    EXPECT_EQ(values_i64(r), want) << op;
    Tensor ri = run1(op, {tensor_i64({1}, {7})});
    EXPECT_EQ(ri.dtype, DType::Bool);
    EXPECT_EQ(values_i64(ri)[0], std::string(op) == "aten.isfinite.default" ? 1 : 0);
  }
  auto d = values_f32(run1("aten.nan_to_num.default", {x}));
  EXPECT_THAT(d, ElementsAre(0, std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(), 1.5f));
  auto c = values_f32(run1("aten.nan_to_num.default", {x}, {{"nan", F(-1)}, {"posinf", F(9)}, {"neginf", F(-9)}}));
  EXPECT_THAT(c, ElementsAre(-1, 9, -9, 1.5f));
  Tensor x64 = tensor_of(DType::F64, {1}, {std::numeric_limits<double>::infinity()});
  EXPECT_EQ(run1("aten.nan_to_num.default", {x64}).data<double>()[0], std::numeric_limits<double>::max());
  Tensor xi = run1("aten.nan_to_num.default", {tensor_i64({1}, {-4})});
  EXPECT_EQ(xi.dtype, DType::I64);
  EXPECT_THAT(values_i64(xi), ElementsAre(-4));
  // A float16 output (stored as f32 here) clamps infinities to half's range.
  test::OpRun h = run_op("aten.nan_to_num.default", {x});
  h.node.outputs[0].dtype = DType::F16;
  OpCall call(h.node);
  call.in = {x};
  OpRegistry::instance().find("aten.nan_to_num.default")->plan(call);
  call.out[0] = make_owned(DType::F32, {4});
  OpRegistry::instance().find("aten.nan_to_num.default")->run(call);
  EXPECT_THAT(values_f32(call.out[0]), ElementsAre(0, 65504, -65504, 1.5f));
}

// ---------------- activations ----------------

TEST(EwUnary, CeluSeluRelu6MishLogSigmoid) {
  Tensor x = tensor_f32({4}, {-2, -0.5f, 0, 3});
  const double sa = 1.6732632423543772, ss = 1.0507009873554805;
  auto selu = values_f32(run1("aten.selu.default", {x}));
  EXPECT_NEAR(selu[0], ss * sa * std::expm1(-2.0), 1e-6);
  EXPECT_NEAR(selu[3], ss * 3, 1e-6);
  auto celu = values_f32(run1("aten.celu.default", {x}, {{"alpha", F(2.0)}}));
  EXPECT_NEAR(celu[0], 2 * std::expm1(-1.0), 1e-6);
  EXPECT_NEAR(celu[1], 2 * std::expm1(-0.25), 1e-6);
  EXPECT_EQ(celu[3], 3);
  EXPECT_NEAR(values_f32(run1("aten.celu.default", {x}))[0], std::expm1(-2.0), 1e-6);
  EXPECT_THAT(error_of([&] { run1("aten.celu.default", {x}, {{"alpha", F(0)}}); }), HasSubstr("alpha"));
  EXPECT_THAT(values_f32(run1("aten.relu6.default", {tensor_f32({3}, {-1, 4, 7})})), ElementsAre(0, 4, 6));
  Tensor r6 = run1("aten.relu6.default", {tensor_i64({3}, {-1, 4, 7})});
  EXPECT_EQ(r6.dtype, DType::I64);
  EXPECT_THAT(values_i64(r6), ElementsAre(0, 4, 6));
  auto mish = values_f32(run1("aten.mish.default", {tensor_f32({3}, {-1, 0, 100})}));
  EXPECT_NEAR(mish[0], -1 * std::tanh(std::log1p(std::exp(-1.0))), 1e-6);
  EXPECT_EQ(mish[1], 0);
  EXPECT_EQ(mish[2], 100);
  auto ls = values_f32(run1("aten.log_sigmoid.default", {tensor_f32({3}, {-200, 0, 200})}));
  EXPECT_FLOAT_EQ(ls[0], -200);  // no overflow for large |x|
  EXPECT_NEAR(ls[1], -std::log(2.0), 1e-7);
  EXPECT_EQ(ls[2], -0.0f);
  for (const char* op : {"aten.selu.default", "aten.celu.default", "aten.mish.default", "aten.log_sigmoid.default"})
    EXPECT_THAT(error_of([&] { run1(op, {tensor_i64({1}, {1})}); }), HasSubstr("not implemented for int64")) << op;
  EXPECT_THAT(error_of([&] { run1("aten.relu6.default", {tensor_b({1}, {1})}); }), HasSubstr("boolean"));
}

TEST(EwMisc, LogSigmoidForwardTwoOutputs) {
  Tensor x = tensor_f32({2, 2}, {-2, 0, 0.5f, 3});
  auto r = run_op("aten.log_sigmoid_forward.default", {transposed(x)}, {}, 2);
  ASSERT_EQ(r.out.size(), 2u);
  EXPECT_EQ(r.out[1].shape, (Shape{2, 2}));
  auto out = values_f32(r.out[0]), buf = values_f32(r.out[1]);
  const std::vector<double> xv{-2, 0.5, 0, 3};  // transposed order
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_NEAR(out[k], -std::log1p(std::exp(-xv[k])), 1e-6);
    EXPECT_NEAR(buf[k], std::exp(-std::abs(xv[k])), 1e-7);  // torch's CPU buffer
  }
}

TEST(EwMisc, Glu) {
  Tensor x = tensor_f32({2, 4}, {1, 2, 0, 100, 3, 4, -100, 0});
  auto last = values_f32(run1("aten.glu.default", {x}));
  EXPECT_NEAR(last[0], 1 * 0.5, 1e-7);
  EXPECT_NEAR(last[1], 2 * (1 / (1 + std::exp(-100.0))), 1e-6);
  EXPECT_NEAR(last[2], 0, 1e-7);
  EXPECT_NEAR(last[3], 4 * 0.5, 1e-7);
  Tensor d0 = run1("aten.glu.default", {x}, {{"dim", I(0)}});
  EXPECT_EQ(d0.shape, (Shape{1, 4}));
  EXPECT_NEAR(values_f32(d0)[0], 1 / (1 + std::exp(-3.0)), 1e-6);
  Tensor t = run1("aten.glu.default", {transposed(x)}, {{"dim", I(-1)}});  // [4, 2] -> [4, 1]
  EXPECT_EQ(t.shape, (Shape{4, 1}));
  EXPECT_NEAR(values_f32(t)[0], 1 / (1 + std::exp(-3.0)), 1e-6);
  EXPECT_THAT(error_of([&] { run1("aten.glu.default", {tensor_f32({3}, {1, 2, 3})}); }), HasSubstr("must be even"));
  EXPECT_THAT(error_of([&] { run1("aten.glu.default", {tensor_i64({2}, {1, 2})}); }), HasSubstr("floating point"));
}

TEST(EwMisc, Prelu) {
  Tensor x = tensor_f32({2, 3}, {-1, -2, 3, -4, 5, -6});
  EXPECT_THAT(values_f32(run1("aten.prelu.default", {x, tensor_f32({3}, {0.1f, 0.2f, 0.3f})})),
              ElementsAre(FloatEq(-0.1f), FloatEq(-0.4f), 3, FloatEq(-0.4f), 5, FloatEq(-1.8f)));
  EXPECT_THAT(values_f32(run1("aten.prelu.default", {x, tensor_f32({1}, {0.5f})})),
              ElementsAre(-0.5f, -1, 3, -2, 5, -3));
  Tensor x4 = tensor_f32({1, 2, 1, 2}, {-1, 1, -1, 1});
  EXPECT_THAT(values_f32(run1("aten.prelu.default", {x4, tensor_f32({2}, {0.5f, 2})})), ElementsAre(-0.5f, 1, -2, 1));
  // _prelu_kernel: weight already broadcastable (here along the last dim); result broadcasts
  EXPECT_THAT(values_f32(run1("aten._prelu_kernel.default", {x, tensor_f32({3}, {1, 2, 0.5f})})),
              ElementsAre(-1, -4, 3, -4, 5, -3));
  EXPECT_EQ(run1("aten._prelu_kernel.default", {tensor_f32({2, 1}, {-1, 1}), tensor_f32({3}, {1, 2, 3})}).shape,
            (Shape{2, 3}));
  EXPECT_THAT(error_of([&] { run1("aten.prelu.default", {x, tensor_f32({2}, {1, 2})}); }),
              HasSubstr("channel size = 3"));
  EXPECT_THAT(error_of([&] { run1("aten.prelu.default", {tensor_f32({3}, {1, 2, 3}), tensor_f32({3}, {1, 2, 3})}); }),
              HasSubstr("channel size = 1"));
  EXPECT_THAT(error_of([&] { run1("aten.prelu.default", {tensor_i64({1}, {1}), tensor_i64({1}, {1})}); }),
              HasSubstr("floating point"));
}

TEST(EwMisc, DropoutsAreIdentityInEval) {
  Tensor x = tensor_f32({3}, {1, 2, 3});
  for (const char* op : {"aten.alpha_dropout.default", "aten.feature_dropout_.default"}) {
    Tensor r = run1(op, {x}, {{"p", F(0.3)}, {"train", B(false)}});
    EXPECT_TRUE(r.same_storage(x)) << op;
    EXPECT_THAT(error_of([&] { run1(op, {x}, {{"p", F(0.3)}, {"train", B(true)}}); }), HasSubstr("train=True")) << op;
    EXPECT_THAT(error_of([&] { run1(op, {x}, {{"p", F(0.3)}}); }), HasSubstr("train")) << op;
  }
}

TEST(EwMisc, CosineSimilarity) {
  Tensor a = tensor_f32({2, 3}, {1, 0, 0, 1, 2, 2});
  Tensor b = tensor_f32({2, 3}, {0, 1, 0, 2, 4, 4});
  auto r = values_f32(run1("aten.cosine_similarity.default", {a, b}));
  EXPECT_NEAR(r[0], 0, 1e-7);
  EXPECT_NEAR(r[1], 1, 1e-6);
  // broadcast [3] against [2,3] over dim -1; zero vectors give 0 (norms clamped to eps)
  Tensor c = run1("aten.cosine_similarity.default", {a, tensor_f32({3}, {1, 0, 0})}, {{"dim", I(-1)}});
  EXPECT_EQ(c.shape, (Shape{2}));
  EXPECT_NEAR(values_f32(c)[1], 1.0 / 3.0, 1e-6);
  auto z = values_f32(run1("aten.cosine_similarity.default", {tensor_f32({1, 2}, {0, 0}), tensor_f32({1, 2}, {1, 1})}));
  EXPECT_EQ(z[0], 0);
  // dim 0 over a transposed view
  Tensor t = run1("aten.cosine_similarity.default", {transposed(a), transposed(b)}, {{"dim", I(0)}});
  EXPECT_NEAR(values_f32(t)[1], 1, 1e-6);
  // eps clamps each norm: (1e-5*1) / (1e-3 * 1) = 0.01
  auto e = values_f32(run1("aten.cosine_similarity.default", {tensor_f32({1}, {1e-5f}), tensor_f32({1}, {1})},
                           {{"dim", I(0)}, {"eps", F(1e-3)}}));
  EXPECT_NEAR(e[0], 0.01, 1e-7);
  Tensor f64 = run1("aten.cosine_similarity.default", {a, tensor_of(DType::F64, {3}, {1, 1, 1})}, {{"dim", I(1)}});
  EXPECT_EQ(f64.dtype, DType::F64);
  EXPECT_THAT(error_of([&] { run1("aten.cosine_similarity.default", {tensor_i64({2}, {1, 2}), tensor_i64({2}, {1, 2})},
                                  {{"dim", I(0)}}); }),
              HasSubstr("floating point"));
  EXPECT_THAT(error_of([&] { run1("aten.cosine_similarity.default", {a, tensor_f32({2}, {1, 2})}); }),
              HasSubstr("broadcast"));
}

// ---------------- kernels directly ----------------

TEST(EwKernels, CoalesceMergesContiguousDims) {
  Shape s{2, 1, 3, 4};
  Strides a{12, 12, 4, 1}, b{0, 0, 0, 1};
  coalesce_dims(s, {&a, &b});
  EXPECT_EQ(s, (Shape{6, 4}));
  EXPECT_EQ(a, (Strides{4, 1}));
  EXPECT_EQ(b, (Strides{0, 1}));
}

}  // namespace
}  // namespace tir
