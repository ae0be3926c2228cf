// Session: compile, memory planning, aliasing, in-place writes through views,
// mutated buffers, and the run-time error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/errors.h"
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
  EXPECT_THAT([&] { s.run({}); }, ::testing::ThrowsMessage<ExecutionError>(HasSubstr("expected 1 input(s), got 0")));
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
