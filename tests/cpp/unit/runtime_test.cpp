// Session: compile, memory planning, aliasing, in-place writes through views,
// mutated buffers, the run-time error messages, and half-precision packed
// weights (SessionOptions::weight_dtype).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.h"
#include "core/half.h"
#include "core/thread_pool.h"
#include "ir/json_loader.h"
#include "runtime/memory_plan.h"
#include "runtime/session.h"
#include "test_util.h"

using namespace tir;
using namespace tir::test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

// Builds an IR with one graph input x (shape/dtype given) from node JSON.
std::string ir_json(const std::string& x_shape, const std::string& nodes, const std::string& outputs,
                    const std::string& weights = "[]", const std::string& mapping = "{}") {
  return R"({"model_name": "t", "graph_inputs": [{"name": "x", "shape": )" + x_shape +
         R"(, "dtype": "float32"}], "graph_outputs": )" + outputs + R"(, "weights": )" + weights +
         R"(, "weight_name_mapping": )" + mapping + R"(, "nodes": )" + nodes + "}";
}

std::string in(const std::string& name, const std::string& shape, const std::string& producer) {
  return R"({"name": ")" + name + R"(", "shape": )" + shape + R"(, "dtype": "float32", "producer_node": ")" +
         producer + R"("})";
}

std::string out(const std::string& name, const std::string& shape) {
  return R"({"name": ")" + name + R"(", "shape": )" + shape + R"(, "dtype": "float32"})";
}

std::string node(const std::string& name, const std::string& op, const std::string& inputs,
                 const std::string& outputs, const std::string& attrs = "{}") {
  return R"({"name": ")" + name + R"(", "op_type": ")" + op + R"(", "inputs": [)" + inputs + R"(], "outputs": [)" +
         outputs + R"(], "attrs": )" + attrs + "}";
}

}  // namespace

TEST(MemoryPlan, ReusesOnlyWhenLifetimesDoNotOverlap) {
  // a: [0,1], b: [1,2], c: [2,3] -> a and c can share, b cannot share with either.
  MemoryPlan p = plan_memory({{100, 0, 1}, {100, 1, 2}, {100, 2, 3}});
  EXPECT_EQ(p.offsets[0], p.offsets[2]);
  EXPECT_NE(p.offsets[0], p.offsets[1]);
  EXPECT_EQ(p.total_bytes, 2 * 128u);
}

TEST(MemoryPlan, FillsGapsBetweenLiveBuffers) {
  MemoryPlan p = plan_memory({{256, 0, 10}, {64, 0, 1}, {256, 0, 10}, {64, 2, 3}});
  EXPECT_EQ(p.offsets[1], p.offsets[3]);  // small ones share the gap
  EXPECT_EQ(p.total_bytes, 256u * 2 + 64u);
}

TEST(Session, ChainOfViewsAndReshapeCopy) {
  // transpose makes x non-contiguous; view must then copy (reshape semantics).
  const std::string nodes = "[" +
      node("t", "aten.transpose.int", in("x", "[2, 3]", "x"), out("t", "[3, 2]"), R"({"dim0": 0, "dim1": 1})") + "," +
      node("v", "aten.view.default", in("t", "[3, 2]", "t"), out("v", "[6]"), R"({"size": [-1]})") + "]";
  Session s(load_model_json(ir_json("[2, 3]", nodes, "[" + out("v", "[6]") + "]")));
  s.bind({});
  auto y = s.run({tensor_f32({2, 3}, {0, 1, 2, 3, 4, 5})});
  EXPECT_THAT(values_f32(y[0]), ElementsAre(0, 3, 1, 4, 2, 5));
}

TEST(Session, SliceSelectAndSplitAreViews) {
  const std::string nodes = "[" +
      node("s", "aten.slice.Tensor", in("x", "[4, 3]", "x"), out("s", "[2, 3]"),
           R"({"dim": 0, "start": 1, "end": 9223372036854775807, "step": 2})") + "," +
      node("sel", "aten.select.int", in("s", "[2, 3]", "s"), out("sel", "[2]"), R"({"dim": 1, "index": -1})") + "," +
      node("sp", "aten.split.Tensor", in("x", "[4, 3]", "x"), out("sp_0", "[4, 2]") + "," + out("sp_1", "[4, 1]"),
           R"({"split_size": 2, "dim": 1})") + "," +
      node("g", "<built-in function getitem>", in("sp_0", "[4, 2]", "sp") + "," +
           R"({"name": "sp_1", "shape": [4, 1], "dtype": "float32", "producer_node": "sp", "producer_output_idx": 1})",
           out("g", "[4, 1]"), R"({"index": 1})") + "]";
  Session s(load_model_json(ir_json("[4, 3]", nodes, "[" + out("sel", "[2]") + "," + out("g", "[4, 1]") + "]")));
  s.bind({});
  auto y = s.run({tensor_f32({4, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11})});
  EXPECT_THAT(values_f32(y[0]), ElementsAre(5, 11));
  EXPECT_THAT(values_f32(y[1]), ElementsAre(2, 5, 8, 11));
}

TEST(Session, InPlaceWriteThroughViewReachesBase) {
  // c = clone(x); c[:, 0] = 5 (select + fill_); the graph returns c.
  const std::string nodes = "[" +
      node("c", "aten.clone.default", in("x", "[2, 3]", "x"), out("c", "[2, 3]")) + "," +
      node("sel", "aten.select.int", in("c", "[2, 3]", "c"), out("sel", "[2]"), R"({"dim": 1, "index": 0})") + "," +
      node("fill_", "aten.fill_.Scalar", in("sel", "[2]", "sel"), out("fill_", "[2]"), R"({"value": 5.0})") + "]";
  Session s(load_model_json(ir_json("[2, 3]", nodes, "[" + out("c", "[2, 3]") + "]")));
  s.bind({});
  auto y = s.run({tensor_f32({2, 3}, {0, 1, 2, 3, 4, 5})});
  EXPECT_THAT(values_f32(y[0]), ElementsAre(5, 1, 2, 5, 4, 5));
}

TEST(Session, MutatedBufferPersistsAcrossRunsAndResets) {
  const std::string weights = R"([{"name": "cache", "shape": [3], "dtype": "float32"}])";
  const std::string nodes = "[" +
      node("add_", "aten.add_.Tensor",
           R"({"name": "b_cache", "shape": [3], "dtype": "float32"},)" + in("x", "[3]", "x"), out("add_", "[3]")) +
      "]";
  Session s(load_model_json(ir_json("[3]", nodes, "[" + out("add_", "[3]") + "]", weights, R"({"b_cache": "cache"})")));
  TensorMap w;
  w.set("cache", tensor_f32({3}, {1, 2, 3}));
  s.bind(w);
  EXPECT_THAT(s.mutated_buffers(), ElementsAre("cache"));
  s.run({tensor_f32({3}, {1, 1, 1})});
  auto y = s.run({tensor_f32({3}, {1, 1, 1})});
  EXPECT_THAT(values_f32(y[0]), ElementsAre(3, 4, 5));
  EXPECT_THAT(values_f32(s.buffer_value("cache")), ElementsAre(3, 4, 5));
  s.reset_buffers();
  EXPECT_THAT(values_f32(s.buffer_value("cache")), ElementsAre(1, 2, 3));
  // The caller's tensor was never written.
  EXPECT_THAT(values_f32(*w.find("cache")), ElementsAre(1, 2, 3));
}

TEST(Session, ArenaReusesMemoryAlongAChain) {
  std::string nodes = "[";
  std::string prev = "x";
  for (int i = 0; i < 6; ++i) {
    const std::string name = "r" + std::to_string(i);
    nodes += (i ? "," : "") + node(name, "aten.relu.default", in(prev, "[256]", prev), out(name, "[256]"));
    prev = name;
  }
  nodes += "]";
  Session s(load_model_json(ir_json("[256]", nodes, "[" + out(prev, "[256]") + "]")));
  EXPECT_LE(s.arena_bytes(), 3u * 1024);  // 7 values of 1 KiB live at most 2 at a time
}

TEST(SessionErrors, AllUnsupportedOpsListedAtOnce) {
  const std::string nodes = "[" +
      node("a", "aten.no_such_op.default", in("x", "[2]", "x"), out("a", "[2]")) + "," +
      node("b", "aten.other_missing.Tensor", in("a", "[2]", "a"), out("b", "[2]")) + "," +
      node("c", "aten.no_such_op.default", in("b", "[2]", "b"), out("c", "[2]")) + "]";
  try {
    Session s(load_model_json(ir_json("[2]", nodes, "[" + out("c", "[2]") + "]")));
    FAIL() << "expected an error";
  } catch (const ExecutionError& e) {
    EXPECT_THAT(e.what(), HasSubstr("Unsupported op type(s) (2)"));
    EXPECT_THAT(e.what(), HasSubstr("aten.no_such_op.default (nodes 'a', 'c')"));
    EXPECT_THAT(e.what(), HasSubstr("aten.other_missing.Tensor (node 'b')"));
  }
}

TEST(SessionErrors, MissingWeightNamesPlaceholderAndNode) {
  const std::string weights = R"([{"name": "mask", "shape": [2], "dtype": "float32"}])";
  const std::string nodes = "[" +
      node("mul", "aten.mul.Tensor", in("x", "[2]", "x") + R"(, {"name": "c_mask", "shape": [2], "dtype": "float32"})",
           out("mul", "[2]")) + "]";
  Session s(load_model_json(ir_json("[2]", nodes, "[" + out("mul", "[2]") + "]", weights, R"({"c_mask": "mask"})")));
  try {
    s.bind({});
    FAIL() << "expected an error";
  } catch (const WeightLoadError& e) {
    EXPECT_STREQ(e.what(), "Weight/input 'c_mask' not found in registry for node 'mul'.");
  }
  TensorMap wrong;
  wrong.set("mask", tensor_f32({3}, {1, 2, 3}));
  try {
    s.bind(wrong);
    FAIL() << "expected an error";
  } catch (const WeightLoadError& e) {
    EXPECT_THAT(e.what(), HasSubstr("Weight 'mask' (placeholder 'c_mask'): got [3] float32 but the IR declares [2] float32"));
  }
  TensorMap constants;  // caller constants satisfy c_ placeholders
  constants.set("mask", tensor_f32({2}, {2, 3}));
  s.bind({}, constants);
  EXPECT_THAT(values_f32(s.run({tensor_f32({2}, {1, 1})})[0]), ElementsAre(2, 3));
}

TEST(SessionErrors, WrongInputCountShapeDtype) {
  const std::string nodes = "[" + node("r", "aten.relu.default", in("x", "[2]", "x"), out("r", "[2]")) + "]";
  Session s(load_model_json(ir_json("[2]", nodes, "[" + out("r", "[2]") + "]")));
  s.bind({});
  EXPECT_THAT([&] { s.run({}); }, ::testing::ThrowsMessage<ExecutionError>(HasSubstr("expected 1 input(s) ('x'), got 0")));
  EXPECT_THAT([&] { s.run({tensor_f32({3}, {1, 2, 3})}); },
              ::testing::ThrowsMessage<ExecutionError>(
                  HasSubstr("input 0 ('x'): expected [2] (float32), got [3] (float32)")));
  EXPECT_THAT([&] { s.run({tensor_i64({2}, {1, 2})}); },
              ::testing::ThrowsMessage<ExecutionError>(HasSubstr("got [2] (int64)")));
}

TEST(SessionErrors, OutputShapeDisagreeingWithIR) {
  const std::string nodes = "[" +
      node("v", "aten.view.default", in("x", "[2, 3]", "x"), out("v", "[3, 3]"), R"({"size": [3, 2]})") + "]";
  EXPECT_THAT([&] { Session s(load_model_json(ir_json("[2, 3]", nodes, "[" + out("v", "[3, 3]") + "]"))); },
              ::testing::ThrowsMessage<ExecutionError>(
                  HasSubstr("node 'v' (aten.view.default): output 0 is [3, 2] (float32) but the IR says [3, 3]")));
}

namespace {

// x [M, K] (x_t: given as [K, M], transposed in the graph) -> lin = linear(x,
// W [N, K], b [N]); mm = matmul(lin, W2 [N, P]); am = addmm(b2 [P], lin, W2):
// W2 tied between the two.
std::string half_weights_ir(int64_t M, int64_t K, int64_t N, int64_t P, bool x_t) {
  auto sh = [](int64_t a, int64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(b) + "]"; };
  auto w = [](const std::string& name, const std::string& shape) {
    return R"({"name": ")" + name + R"(", "shape": )" + shape + R"(, "dtype": "float32"})";
  };
  std::string nodes = "[";
  std::string x = in("x", sh(M, K), "x");
  if (x_t) {
    nodes += node("t", "aten.transpose.int", in("x", sh(K, M), "x"), out("t", sh(M, K)),
                  R"({"dim0": 0, "dim1": 1})") + ",";
    x = in("t", sh(M, K), "t");
  }
  const std::string lin = in("lin", sh(M, N), "lin");
  nodes += node("lin", "aten.linear.default",
                x + "," + w("p_w", sh(N, K)) + "," + w("p_b", "[" + std::to_string(N) + "]"), out("lin", sh(M, N))) +
           "," + node("mm", "aten.matmul.default", lin + "," + w("p_w2", sh(N, P)), out("mm", sh(M, P))) + "," +
           node("am", "aten.addmm.default",
                w("p_b2", "[" + std::to_string(P) + "]") + "," + lin + "," + w("p_w2", sh(N, P)),
                out("am", sh(M, P))) + "]";
  const std::string weights = "[" + w("w", sh(N, K)) + "," + w("b", "[" + std::to_string(N) + "]") + "," +
                              w("w2", sh(N, P)) + "," + w("b2", "[" + std::to_string(P) + "]") + "]";
  return ir_json(x_t ? sh(K, M) : sh(M, K), nodes,
                 "[" + out("lin", sh(M, N)) + "," + out("mm", sh(M, P)) + "," + out("am", sh(M, P)) + "]", weights,
                 R"({"p_w": "w", "p_b": "b", "p_w2": "w2", "p_b2": "b2"})");
}

std::vector<std::vector<float>> run_values(const std::string& ir, const TensorMap& weights, const Tensor& x,
                                           DType weight_dtype) {
  SessionOptions o;
  o.weight_dtype = weight_dtype;
  Session s(load_model_json(ir), o);
  s.bind(weights);
  std::vector<std::vector<float>> out;
  for (const Tensor& t : s.run({x})) out.push_back(values_f32(t));
  return out;
}

}  // namespace

// SessionOptions::weight_dtype: linear / matmul / addmm pack their constant
// weights as halves. The result equals an f32 session on the weights rounded
// to halves beforehand, bit for bit (the kernel is bit-identical to the f32
// gemm on the widened weights), at 1 and 2 threads, for the GEMV (M = 1) and
// the blocked path, whatever A's layout (a transposed x is copied). Against
// the f32 session, |lin_h - lin_f| <= sum_k |x_k| |w_k - round(w_k)| + the two
// f32 accumulation errors <= (u + 2 (K + 2) 2^-24) sum_k |x_k w_k| +
// 2^-25 sum_k |x_k| (f16 subnormals), u = 2^-11 (f16) or 2^-8 (bf16), the
// unit roundoff of rounding to nearest.
TEST(Session, HalfWeightsEqualF32OnPreRoundedWeights) {
  const int64_t K = 300, N = 37, P = 19;
  TensorMap weights, rounded[2];
  const auto w = random_vec(size_t(N * K), 1), b = random_vec(size_t(N), 2), w2 = random_vec(size_t(N * P), 3),
             b2 = random_vec(size_t(P), 4);
  weights.set("w", tensor_f32({N, K}, w));
  weights.set("b", tensor_f32({N}, b));
  weights.set("w2", tensor_f32({N, P}, w2));
  weights.set("b2", tensor_f32({P}, b2));
  for (int f = 0; f < 2; ++f) {
    auto round = [&](std::vector<float> v) {
      for (auto& x : v) x = f == 0 ? half_to_float(float_to_half(x)) : bf16_to_float(float_to_bf16(x));
      return v;
    };
    rounded[f].set("w", tensor_f32({N, K}, round(w)));
    rounded[f].set("b", tensor_f32({N}, b));
    rounded[f].set("w2", tensor_f32({N, P}, round(w2)));
    rounded[f].set("b2", tensor_f32({P}, b2));
  }
  for (int64_t M : {1, 5}) {
    const std::string ir = half_weights_ir(M, K, N, P, false);
    const auto xv = random_vec(size_t(M * K), 5);
    const Tensor x = tensor_f32({M, K}, xv);
    const auto ref = run_values(ir, weights, x, DType::F32);
    for (int f = 0; f < 2; ++f) {
      const DType dt = f == 0 ? DType::F16 : DType::BF16;
      const auto want = run_values(ir, rounded[f], x, DType::F32);
      const auto got = run_values(ir, weights, x, dt);
      EXPECT_EQ(got, want) << dtype_name(dt) << " M=" << M;
      EXPECT_NE(got[0], ref[0]) << dtype_name(dt) << " M=" << M << ": the f32 weights were used";
      set_num_threads(2);
      EXPECT_EQ(run_values(ir, weights, x, dt), want) << dtype_name(dt) << " M=" << M << " 2 threads";
      set_num_threads(1);
      std::vector<float> xt(xv.size());  // x given transposed: the gemm reads a copy
      for (int64_t i = 0; i < M; ++i)
        for (int64_t k = 0; k < K; ++k) xt[size_t(k * M + i)] = xv[size_t(i * K + k)];
      EXPECT_EQ(run_values(half_weights_ir(M, K, N, P, true), weights, tensor_f32({K, M}, xt), dt), want)
          << dtype_name(dt) << " M=" << M << " transposed x";
      const double u = f == 0 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          double mag = 0, xs = 0;
          for (int64_t k = 0; k < K; ++k) {
            mag += std::fabs(double(xv[size_t(i * K + k)]) * w[size_t(j * K + k)]);
            xs += std::fabs(xv[size_t(i * K + k)]);
          }
          const double tol = (u + 2.0 * double(K + 2) * std::ldexp(1.0, -24)) * mag + std::ldexp(xs, -25);
          EXPECT_NEAR(got[0][size_t(i * N + j)], ref[0][size_t(i * N + j)], tol)
              << dtype_name(dt) << " (" << i << "," << j << ")";
        }
    }
  }
}

TEST(SessionErrors, WeightDtypeMustBeFloat32Float16OrBFloat16) {
  const std::string nodes = "[" + node("r", "aten.relu.default", in("x", "[2]", "x"), out("r", "[2]")) + "]";
  SessionOptions o;
  o.weight_dtype = DType::F64;
  EXPECT_THAT([&] { Session s(load_model_json(ir_json("[2]", nodes, "[" + out("r", "[2]") + "]")), o); },
              ::testing::ThrowsMessage<ExecutionError>(
                  HasSubstr("SessionOptions::weight_dtype must be float32, float16 or bfloat16, got float64")));
}
