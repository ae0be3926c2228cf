// Dtype discipline (issue 4 item 2): torch type promotion for tensor-tensor,
// tensor-scalar and 0-d operands; int64 stays exact beyond 2^53; float64
// computes in float64; predicates give bool; conversions to float16/bfloat16
// round to that precision although the values are stored as f32.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/half.h"
#include "ops/op.h"
#include "op_test_util.h"
#include "test_util.h"

namespace tir {
namespace {

using namespace test;
using namespace ::testing;

Tensor run1(const std::string& op, const std::vector<Tensor>& in, AttrMap attrs = {}) {
  return run_op(op, in, attrs).out[0];
}

// Runs one op whose IR input metas claim `meta` dtypes (f16/bf16 values live in f32 tensors).
Tensor run_meta(const std::string& op, const std::vector<Tensor>& in, const std::vector<DType>& meta, AttrMap attrs = {}) {
  OpNode node;
  node.name = "n1";
  node.op_type = op;
  node.attrs = std::move(attrs);
  for (size_t i = 0; i < in.size(); ++i) node.inputs.push_back({"x" + std::to_string(i), in[i].shape, meta[i]});
  node.outputs.push_back({"n1", {}, DType::F32});
  const OpDef* def = OpRegistry::instance().find(op);
  OpCall call(node);
  call.in = in;
  def->plan(call);
  if (!call.out[0].same_storage(in[0])) {
    Tensor owned = make_owned(call.out[0].dtype, call.out[0].shape);
    call.out[0] = owned;
  }
  call.own_unplanned_memory();  // the op's workspace
  if (def->run) def->run(call);
  return call.out[0];
}

const int64_t k2p60 = int64_t(1) << 60;
const int64_t k2p53 = int64_t(1) << 53;

// ---------------- promotion ----------------

struct Case {
  const char* what;
  std::vector<Tensor> in;
  AttrMap attrs;
  DType want;
};

TEST(DtypePromotion, TensorTensorScalarAndZeroDim) {
  const Tensor i64 = tensor_i64({2}, {3, -4}), i64_0d = tensor_i64({}, {2});
  const Tensor i32 = tensor_of(DType::I32, {2}, {3, -4}), f32 = tensor_f32({2}, {1.5f, -2});
  const Tensor f64 = tensor_of(DType::F64, {2}, {1.5, -2}), f64_0d = tensor_of(DType::F64, {}, {0.25});
  const Tensor b = tensor_of(DType::Bool, {2}, {1, 0}), u8 = tensor_of(DType::U8, {2}, {200, 1});
  const Tensor i8 = tensor_of(DType::I8, {2}, {-100, 1}), f32_0d = tensor_f32({}, {2});
  const std::vector<Case> cases = {
      // tensor-tensor: category, then width
      {"i32+i64", {i32, i64}, {}, DType::I64},
      {"u8+i8", {u8, i8}, {}, DType::I16},
      {"f32+f64", {f32, f64}, {}, DType::F64},
      {"bool+bool", {b, b}, {}, DType::Bool},
      {"bool+i32", {b, i32}, {}, DType::I32},
      {"i64+f32", {i64, f32}, {}, DType::F32},
      // dimensioned vs 0-d: a 0-d tensor counts only when its category is higher
      {"i32+i64_0d", {i32, i64_0d}, {}, DType::I32},
      {"f32+f64_0d", {f32, f64_0d}, {}, DType::F32},
      {"i64+f64_0d", {i64, f64_0d}, {}, DType::F64},
      {"b+i64_0d", {b, i64_0d}, {}, DType::I64},
      {"i64_0d+f64_0d", {i64_0d, f64_0d}, {}, DType::F64},
      {"f32_0d+f64_0d", {f32_0d, f64_0d}, {}, DType::F64},
      // tensor-Python scalar: a scalar counts only when its category is higher; floats give f32
      {"i64*0.5", {i64}, {{"other", F(0.5)}}, DType::F32},
      {"i32+2", {i32}, {{"other", I(2)}}, DType::I32},
      {"u8+300", {u8}, {{"other", I(300)}}, DType::U8},
      {"f64+2.5", {f64}, {{"other", F(2.5)}}, DType::F64},
      {"bool+2", {b}, {{"other", I(2)}}, DType::I64},
      {"bool+true", {b}, {{"other", B(true)}}, DType::Bool},
      {"bool*2.5", {b}, {{"other", F(2.5)}}, DType::F32},
      {"i64_0d*0.5", {i64_0d}, {{"other", F(0.5)}}, DType::F32},
      {"f64_0d+1", {f64_0d}, {{"other", I(1)}}, DType::F64},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(run1("aten.add.Tensor", c.in, c.attrs).dtype, c.want) << c.what;
    EXPECT_EQ(run1("aten.mul.Tensor", c.in, c.attrs).dtype, c.want) << c.what;
  }
  // Values follow the promoted type: u8 + 300 wraps in uint8 (300 -> 44), i64*0.5 is fractional.
  EXPECT_THAT(values_i64(run1("aten.add.Tensor", {u8}, {{"other", I(300)}})), ElementsAre(244, 45));
  EXPECT_THAT(values_f32(run1("aten.mul.Tensor", {i64}, {{"other", F(0.5)}})), ElementsAre(1.5f, -2));
  EXPECT_THAT(values_i64(run1("aten.add.Tensor", {b}, {{"other", B(true)}})), ElementsAre(1, 1));
  // f32 + f64 0-d: the 0-d value is cast to f32 and the math is f32.
  Tensor r = run1("aten.add.Tensor", {tensor_f32({1}, {1}), tensor_of(DType::F64, {}, {1e-12})});
  EXPECT_EQ(r.data<float>()[0], 1.0f);
  // Remainder/bitwise/where follow the same rules.
  EXPECT_EQ(run1("aten.remainder.Tensor", {i32, i64_0d}).dtype, DType::I32);
  EXPECT_EQ(run1("aten.remainder.Scalar", {i64}, {{"other", F(2.0)}}).dtype, DType::F32);
  EXPECT_EQ(run1("aten.bitwise_xor.Tensor", {u8, i8}).dtype, DType::I16);
  EXPECT_EQ(run1("aten.where.self", {b, i32, f64_0d}).dtype, DType::F64);
  EXPECT_EQ(run1("aten.where.self", {b, f32, f64_0d}).dtype, DType::F32);
}

TEST(DtypePromotion, PredicatesAreBool) {
  const Tensor f = tensor_f32({2}, {NAN, 1}), i = tensor_i64({2}, {1, 2});
  for (const char* op : {"aten.eq.Tensor", "aten.lt.Tensor", "aten.logical_and.default", "aten.logical_xor.default"})
    EXPECT_EQ(run1(op, {f, i}).dtype, DType::Bool) << op;
  for (const char* op : {"aten.isnan.default", "aten.isinf.default", "aten.isfinite.default", "aten.logical_not.default"}) {
    EXPECT_EQ(run1(op, {f}).dtype, DType::Bool) << op;
    EXPECT_EQ(run1(op, {i}).dtype, DType::Bool) << op;
  }
  const Tensor b = tensor_of(DType::Bool, {2}, {1, 0});
  for (const char* op : {"aten.bitwise_and.Tensor", "aten.__or__.Tensor", "aten.bitwise_xor.Tensor", "aten.maximum.default"})
    EXPECT_EQ(run1(op, {b, b}).dtype, DType::Bool) << op;
  EXPECT_EQ(run1("aten.gt.Scalar", {i}, {{"other", F(1.5)}}).dtype, DType::Bool);
  EXPECT_THAT(values_i64(run1("aten.gt.Scalar", {i}, {{"other", F(1.5)}})), ElementsAre(0, 1));
}

// ---------------- int64 exactness ----------------

TEST(DtypeInt64, ExactBeyondTwoPow53) {
  const Tensor a = tensor_i64({3}, {k2p60 + 1, -(k2p53 + 1), k2p53 + 1});
  EXPECT_THAT(values_i64(run1("aten.add.Tensor", {a}, {{"other", I(1)}})),
              ElementsAre(k2p60 + 2, -k2p53, k2p53 + 2));
  EXPECT_THAT(values_i64(run1("aten.add.Tensor", {a, a}, {{"alpha", I(3)}})),
              ElementsAre(4 * (k2p60 + 1), -4 * (k2p53 + 1), 4 * (k2p53 + 1)));
  EXPECT_THAT(values_i64(run1("aten.sub.Tensor", {a}, {{"other", I(k2p60)}})),
              ElementsAre(1, -(k2p53 + 1) - k2p60, k2p53 + 1 - k2p60));
  EXPECT_THAT(values_i64(run1("aten.mul.Tensor", {tensor_i64({1}, {3037000493}), tensor_i64({1}, {3037000453})})),
              ElementsAre(int64_t(3037000493) * 3037000453));
  // A Python int scalar beyond 2^53 stays exact too.
  EXPECT_THAT(values_i64(run1("aten.add.Tensor", {tensor_i64({1}, {0})}, {{"other", I(k2p60 + 7)}})),
              ElementsAre(k2p60 + 7));
  EXPECT_THAT(values_i64(run1("aten.remainder.Scalar", {a}, {{"other", I(7)}})),
              ElementsAre((k2p60 + 1) % 7, ((-(k2p53 + 1)) % 7 + 7) % 7, (k2p53 + 1) % 7));
  EXPECT_THAT(values_i64(run1("aten.remainder.Tensor", {a, tensor_i64({1}, {k2p53})})),
              ElementsAre(1, k2p53 - 1, 1));
  EXPECT_THAT(values_i64(run1("aten.fmod.Scalar", {a}, {{"other", I(k2p53)}})), ElementsAre(1, -1, 1));
  EXPECT_THAT(values_i64(run1("aten.floor_divide.default", {a, tensor_i64({1}, {3})})),
              ElementsAre((k2p60 + 1) / 3, -(k2p53 + 1) / 3, (k2p53 + 1) / 3));  // 2^53+1 = 3 * 3002399751580331
  EXPECT_THAT(values_i64(run1("aten.floor_divide.Scalar", {a}, {{"other", I(-2)}})),
              ElementsAre(-(k2p60 / 2) - 1, k2p53 / 2, -(k2p53 / 2) - 1));
  EXPECT_THAT(values_i64(run1("aten.div.Tensor_mode", {a}, {{"other", I(-2)}, {"rounding_mode", S("trunc")}})),
              ElementsAre(-(k2p60 + 1) / 2, (k2p53 + 1) / 2, -(k2p53 + 1) / 2));
  // Neighbours that a double cannot tell apart compare unequal.
  EXPECT_THAT(values_i64(run1("aten.eq.Tensor", {tensor_i64({1}, {k2p53}), tensor_i64({1}, {k2p53 + 1})})),
              ElementsAre(0));
  EXPECT_THAT(values_i64(run1("aten.lt.Scalar", {tensor_i64({1}, {k2p53})}, {{"other", I(k2p53 + 1)}})),
              ElementsAre(1));
  EXPECT_THAT(values_i64(run1("aten.maximum.default", {tensor_i64({1}, {k2p53 + 1}), tensor_i64({1}, {k2p53})})),
              ElementsAre(k2p53 + 1));
  EXPECT_THAT(values_i64(run1("aten.bitwise_and.Scalar", {a}, {{"other", I(k2p60 + 1)}})),
              ElementsAre(k2p60 + 1, (-(k2p53 + 1)) & (k2p60 + 1), 1));
  EXPECT_THAT(values_i64(run1("aten.abs.default", {a})), ElementsAre(k2p60 + 1, k2p53 + 1, k2p53 + 1));
  EXPECT_THAT(values_i64(run1("aten.clamp.default", {a}, {{"min", I(k2p53 + 1)}})),
              ElementsAre(k2p60 + 1, k2p53 + 1, k2p53 + 1));
  // int64 -> int64 conversions and int32 -> int64 keep the value.
  EXPECT_THAT(values_i64(run1("aten._to_copy.default", {a}, {{"dtype", S("torch.int64")}})),
              ElementsAre(k2p60 + 1, -(k2p53 + 1), k2p53 + 1));
  // masked_fill/where with an int64 fill value
  Tensor mf = run1("aten.masked_fill.Scalar", {a, tensor_of(DType::Bool, {3}, {0, 1, 0})}, {{"value", I(k2p60 + 9)}});
  EXPECT_THAT(values_i64(mf), ElementsAre(k2p60 + 1, k2p60 + 9, k2p53 + 1));
}

// ---------------- float64 ----------------

TEST(DtypeFloat64, ComputesInDouble) {
  const Tensor x = tensor_of(DType::F64, {2}, {1.0, 1.0 / 3.0});
  Tensor s = run1("aten.add.Tensor", {x}, {{"other", F(1e-12)}});
  EXPECT_EQ(s.dtype, DType::F64);
  EXPECT_EQ(s.data<double>()[0], 1.0 + 1e-12);  // lost in f32
  Tensor d = run1("aten.div.Tensor", {x, tensor_of(DType::F64, {1}, {7.0})});
  EXPECT_EQ(d.data<double>()[1], (1.0 / 3.0) / 7.0);
  for (auto [op, fn] : std::vector<std::pair<const char*, double (*)(double)>>{
           {"aten.exp.default", [](double v) { return std::exp(v); }},
           {"aten.log1p.default", [](double v) { return std::log1p(v); }},
           {"aten.expm1.default", [](double v) { return std::expm1(v); }},
           {"aten.log2.default", [](double v) { return std::log2(v); }},
           {"aten.sigmoid.default", [](double v) { return 1.0 / (1.0 + std::exp(-v)); }}}) {
    Tensor r = run1(op, {x});
    EXPECT_EQ(r.dtype, DType::F64) << op;
    EXPECT_DOUBLE_EQ(r.data<double>()[1], fn(1.0 / 3.0)) << op;
  }
  Tensor rm = run1("aten.remainder.Scalar", {tensor_of(DType::F64, {1}, {1e17 + 8})}, {{"other", F(3.0)}});
  EXPECT_EQ(rm.data<double>()[0], std::fmod(1e17 + 8, 3.0));
  // int64 with a float64 tensor operand computes in float64
  Tensor m = run1("aten.mul.Tensor", {tensor_i64({1}, {k2p53 + 2}), tensor_of(DType::F64, {1}, {0.5})});
  EXPECT_EQ(m.dtype, DType::F64);
  EXPECT_EQ(m.data<double>()[0], double(k2p53 / 2 + 1));
  Tensor c = run1("aten.cosine_similarity.default", {tensor_of(DType::F64, {2}, {1, 1e-9}), tensor_of(DType::F64, {2}, {1, 0})},
                  {{"dim", I(0)}});
  EXPECT_EQ(c.dtype, DType::F64);
  EXPECT_DOUBLE_EQ(c.data<double>()[0], 1.0 / std::sqrt(1.0 + 1e-18));
}

// ---------------- half / bfloat16 conversions round ----------------

float as_half(float v) { return half_to_float(float_to_half(v)); }
float as_bf16(float v) { return bf16_to_float(float_to_bf16(v)); }

TEST(DtypeHalf, ToHalfRoundsValues) {
  const std::vector<float> v{0.1f, 1.0f / 3, 2049, 2051, 65519, 65520, -1e-8f, 3e-5f, 1e-3f};
  const Tensor x = tensor_f32({9}, v);
  Tensor h = run1("aten.to.dtype", {x}, {{"dtype", S("torch.float16")}});
  EXPECT_EQ(h.dtype, DType::F32);  // stored as f32
  EXPECT_FALSE(h.same_storage(x));
  auto hv = values_f32(h);
  EXPECT_EQ(hv[0], 0.0999755859375f);
  EXPECT_EQ(hv[1], 0.333251953125f);
  EXPECT_EQ(hv[2], 2048);   // ties to even
  EXPECT_EQ(hv[3], 2052);
  EXPECT_EQ(hv[4], 65504);
  EXPECT_EQ(hv[5], std::numeric_limits<float>::infinity());  // overflow
  EXPECT_EQ(hv[6], -0.0f);
  EXPECT_EQ(hv[7], as_half(3e-5f));  // subnormal half
  EXPECT_NE(hv[7], 3e-5f);
  for (size_t k = 0; k < v.size(); ++k) EXPECT_EQ(hv[k], as_half(v[k])) << k;
  Tensor b = run1("aten._to_copy.default", {transposed(tensor_f32({3, 1}, {1.0f / 3, 257, -0.1f}))},
                  {{"dtype", S("torch.bfloat16")}});
  EXPECT_THAT(values_f32(b), ElementsAre(0.333984375f, 256, as_bf16(-0.1f)));
  // int64 and float64 sources round too
  EXPECT_THAT(values_f32(run1("aten.to.dtype", {tensor_i64({2}, {2049, 70000})}, {{"dtype", I(5)}})),
              ElementsAre(2048, std::numeric_limits<float>::infinity()));
  Tensor d = run1("aten._to_copy.default", {tensor_of(DType::F64, {1}, {0.1})}, {{"dtype", I(15)}});
  EXPECT_EQ(d.dtype, DType::F32);
  EXPECT_EQ(values_f32(d)[0], as_bf16(0.1f));
  // type_as a float16 tensor and to.other
  Tensor other = make_owned(DType::F16, {1});
  EXPECT_THAT(values_f32(run1("aten.type_as.default", {tensor_f32({1}, {0.1f}), other})), ElementsAre(0.0999755859375f));
  EXPECT_THAT(values_f32(run1("aten.to.other", {tensor_f32({1}, {0.1f}), other})), ElementsAre(0.0999755859375f));
}

TEST(DtypeHalf, MetasDecideAliasAndRounding) {
  const Tensor x = tensor_f32({2}, {0.1f, 3});
  // IR says x is float16 already: to(float16) is the input itself; to(float32) converts (a copy, exact).
  EXPECT_TRUE(run_meta("aten.to.dtype", {x}, {DType::F16}, {{"dtype", S("torch.float16")}}).same_storage(x));
  Tensor up = run_meta("aten.to.dtype", {x}, {DType::F16}, {{"dtype", S("torch.float32")}});
  EXPECT_FALSE(up.same_storage(x));
  EXPECT_THAT(values_f32(up), ElementsAre(0.1f, 3));
  // float16 -> bfloat16 rounds to bfloat16
  EXPECT_THAT(values_f32(run_meta("aten.to.dtype", {x}, {DType::F16}, {{"dtype", S("torch.bfloat16")}})),
              ElementsAre(as_bf16(0.1f), 3));
  // type_as an IR float16 tensor (stored f32) rounds
  EXPECT_THAT(values_f32(run_meta("aten.type_as.default", {x, tensor_f32({1}, {0})}, {DType::F32, DType::F16})),
              ElementsAre(as_half(0.1f), 3));
  // copy_ of f32 values into a float16 destination rounds them, through a view
  Tensor dst = tensor_f32({2}, {0, 0});
  run_meta("aten.copy_.default", {dst, x}, {DType::F16, DType::F32});
  EXPECT_THAT(values_f32(dst), ElementsAre(as_half(0.1f), 3));
  Tensor fill = tensor_f32({2}, {0, 0});
  run_meta("aten.fill_.Scalar", {fill}, {DType::BF16}, {{"value", F(0.1)}});
  EXPECT_THAT(values_f32(fill), ElementsAre(as_bf16(0.1f), as_bf16(0.1f)));
  // f32 destination: no rounding
  Tensor dst32 = tensor_f32({2}, {0, 0});
  run_meta("aten.copy_.default", {dst32, x}, {DType::F32, DType::F32});
  EXPECT_THAT(values_f32(dst32), ElementsAre(0.1f, 3));
}

}  // namespace
}  // namespace tir
