// Unit tests for the newer elementwise ops: bitwise, remainder/fmod/
// floor_divide, rounding/sign, nan/inf tests, extra activations (celu, selu,
// relu6, mish, glu, log_sigmoid, prelu), dropouts and cosine_similarity:
// hand-checked values, dtypes, in-place writes through views, and error
// messages. No LibTorch.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>

#include "ops/op.h"
#include "op_test_util.h"
#include "test_util.h"

namespace tir {
namespace {

using namespace test;
using namespace ::testing;


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

}  // namespace
}  // namespace tir
