// Unit tests for elementwise, conversion, reduction, softmax and norm ops:
// torch type promotion (docs/spec/OPS.md §3.1), hand-checked values, in-place writes
// through strided views, and error messages. No LibTorch. The newer
// elementwise ops are in ops_elementwise_misc_test.cpp.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>

#include "core/small_vec.h"
#include "kernels/elementwise.h"
#include "ops/op.h"
#include "op_test_util.h"
#include "test_util.h"

namespace tir {
namespace {

using namespace test;
using namespace ::testing;


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

// ---------------- kernels directly ----------------

TEST(EwKernels, CoalesceMergesContiguousDims) {
  Shape s{2, 1, 3, 4};
  Strides a{12, 12, 4, 1}, b{0, 0, 0, 1};
  coalesce_in_place<Shape, 2>(s, {&a, &b});
  EXPECT_EQ(s, (Shape{6, 4}));
  EXPECT_EQ(a, (Strides{4, 1}));
  EXPECT_EQ(b, (Strides{0, 1}));
}

// DimVec keeps 8 dims inline and spills to the heap past that; coalescing
// works the same on either side.
TEST(EwKernels, CoalesceOnDimVecPastItsInlineCapacity) {
  const Shape shape{2, 1, 2, 1, 2, 1, 2, 1, 2, 3};  // 10 dims
  const Strides st = contiguous_strides(shape);
  Strides bcast = st;
  bcast[0] = 0;  // a broadcast leading dim stays apart
  DimVec s = shape, a = st, b = bcast;
  EXPECT_EQ(s.size(), 10u);
  coalesce_in_place<DimVec, 2>(s, {&a, &b});
  EXPECT_EQ(Shape(s.begin(), s.end()), (Shape{2, 48}));
  EXPECT_EQ(Strides(a.begin(), a.end()), (Strides{48, 1}));
  EXPECT_EQ(Strides(b.begin(), b.end()), (Strides{0, 1}));
  DimVec grown;
  for (int64_t i = 0; i < 12; ++i) grown.push_back(i);
  DimVec copy = grown;
  EXPECT_EQ(copy.size(), 12u);
  EXPECT_EQ(copy[11], 11);
  EXPECT_EQ(copy[3], 3);
}

}  // namespace
}  // namespace tir
