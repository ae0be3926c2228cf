// The executable graph (runtime/graph.h): value ids, producers, use lists and
// alias classes; fusion driven by op traits; constant folding at prepare.
#include <gtest/gtest.h>

#include <algorithm>

#include "ir/json_loader.h"
#include "runtime/graph.h"
#include "runtime/session.h"
#include "test_util.h"

using namespace tir;
using namespace tir::test;

namespace {

std::string meta_json(const std::string& name, const std::string& shape, const std::string& producer = "") {
  return R"({"name": ")" + name + R"(", "shape": )" + shape + R"(, "dtype": "float32")" +
         (producer.empty() ? "" : R"(, "producer_node": ")" + producer + "\"") + "}";
}

std::string node(const std::string& name, const std::string& op, const std::string& inputs, const std::string& outputs,
                 const std::string& attrs = "{}") {
  return R"({"name": ")" + name + R"(", "op_type": ")" + op + R"(", "inputs": [)" + inputs + R"(], "outputs": [)" +
         outputs + R"(], "attrs": )" + attrs + "}";
}

// x [2, 3] in; `nodes` and `outputs` JSON; weights w [4, 3] (p_w) and b [4] (p_b).
Model model_of(const std::string& nodes, const std::string& outputs) {
  return load_model_json(R"({"model_name": "g", "graph_inputs": [)" + meta_json("x", "[2, 3]") +
                         R"(], "graph_outputs": [)" + outputs + R"(], "weights": [)" + meta_json("w", "[4, 3]") + "," +
                         meta_json("b", "[4]") + R"(], "weight_name_mapping": {"p_w": "w", "p_b": "b"}, "nodes": [)" +
                         nodes + "]}");
}

const NodeTiming* timing_of(const std::vector<NodeTiming>& profile, const std::string& node) {
  auto it = std::find_if(profile.begin(), profile.end(), [&](const NodeTiming& t) { return t.node == node; });
  return it == profile.end() ? nullptr : &*it;
}

}  // namespace

TEST(Graph, IdsProducersUsesAndAliasClasses) {
  // t = x^T (a view); r = relu(x); a = r.add_(x) (writes r); l = linear(x, w, b); l2 = linear(a^T.., w) reads w again.
  const std::string x = meta_json("x", "[2, 3]", "x");
  const std::string nodes =
      node("t", "aten.transpose.int", x, meta_json("t", "[3, 2]"), R"({"dim0": 0, "dim1": 1})") + "," +
      node("r", "aten.relu.default", x, meta_json("r", "[2, 3]")) + "," +
      node("a", "aten.add_.Tensor", meta_json("r", "[2, 3]", "r") + "," + x, meta_json("a", "[2, 3]")) + "," +
      node("l", "aten.linear.default", x + "," + meta_json("p_w", "[4, 3]") + "," + meta_json("p_b", "[4]"),
           meta_json("l", "[2, 4]")) + "," +
      node("l2", "aten.linear.default", meta_json("a", "[2, 3]", "a") + "," + meta_json("p_w", "[4, 3]"),
           meta_json("l2", "[2, 4]"));
  SessionOptions o;
  o.fusion = false;  // keep every node's own memory apart from the passes' merges
  Session s(model_of(nodes, meta_json("t", "[3, 2]", "t") + "," + meta_json("l", "[2, 4]", "l") + "," +
                                meta_json("l2", "[2, 4]", "l2")),
            o);
  const Graph& g = s.graph();
  ASSERT_EQ(g.num_steps(), 5u);
  const ValueId vx = g.find("x"), vt = g.find("t"), vr = g.find("r"), va = g.find("a");
  ASSERT_NE(vx, kNoValue);
  EXPECT_EQ(g.graph_inputs(), std::vector<ValueId>{vx});
  EXPECT_EQ(g.value(vx).kind, GraphValue::Kind::GraphInput);
  EXPECT_EQ(g.value(vr).producer_step, 1);
  EXPECT_EQ(g.value(vr).producer_output, 0);
  EXPECT_EQ(g.outputs(2), std::vector<ValueId>{va});
  // Use lists: (step, input), in step order.
  const auto& ux = g.value(vx).uses;
  ASSERT_EQ(ux.size(), 4u);
  EXPECT_EQ(ux[0].step, 0);
  EXPECT_EQ(ux[1].step, 1);
  EXPECT_EQ(ux[2].step, 2);
  EXPECT_EQ(ux[2].input, 1);
  EXPECT_EQ(ux[3].step, 3);
  ASSERT_NE(g.sole_use(vr), nullptr);
  EXPECT_EQ(g.sole_use(vr)->step, 2);
  EXPECT_EQ(g.sole_use(vt), nullptr);  // a graph output: the caller reads it too
  EXPECT_TRUE(g.value(vt).graph_output);
  // One value per weight key, read by both linears.
  const ValueId vw = g.input(3, 1);
  EXPECT_EQ(g.value(vw).kind, GraphValue::Kind::Weight);
  EXPECT_EQ(g.value(vw).name, "w");
  EXPECT_EQ(g.input(4, 1), vw);
  EXPECT_EQ(g.value(vw).uses.size(), 2u);
  EXPECT_EQ(g.find("w"), kNoValue);  // weights are looked up by key, not as values
  // Alias classes: a view shares x's memory, an in-place write shares its self's.
  EXPECT_EQ(g.alias_class(vt), g.alias_class(vx));
  EXPECT_EQ(g.alias_class(va), g.alias_class(vr));
  EXPECT_NE(g.alias_class(vr), g.alias_class(vx));
  EXPECT_NE(g.alias_class(g.find("l")), g.alias_class(g.find("l2")));
}

namespace {

// The linear layer the fusion tests run: x [2, 3] (kLinearX) times w [4, 3] transposed plus b.
const std::vector<float> kLinearW = {1, 2, 3, -1, -2, -3, 0.5f, 0, -0.5f, 2, 2, 2};
const std::vector<float> kLinearB = {0, 1, -1, 0.25f};
const std::vector<float> kLinearX = {0, 1, 2, 3, -4, 5};

TensorMap linear_weights() {
  TensorMap weights;
  weights.set("w", tensor_f32({4, 3}, kLinearW));
  weights.set("b", tensor_f32({4}, kLinearB));
  return weights;
}

// Output (i, j) of that linear, in double.
double linear_ref(int i, int j) {
  double y = kLinearB[size_t(j)];
  for (int k = 0; k < 3; ++k) y += double(kLinearX[size_t(i * 3 + k)]) * kLinearW[size_t(j * 3 + k)];
  return y;
}

// Runs `nodes` on kLinearX with fusion on and off: the same `expect`ed output; with fusion,
// node "l" covers `covers` (which then have no profile entries of their own), without, nothing.
void expect_linear_covers(const std::string& nodes, const std::string& output, const TensorMap& weights,
                          const std::vector<float>& expect, const std::vector<std::string>& covers) {
  for (bool fusion : {true, false}) {
    SessionOptions o;
    o.fusion = fusion;
    Session s(model_of(nodes, output), o);
    s.bind(weights);
    s.set_profiling(true);
    const auto out = s.run({tensor_f32({2, 3}, kLinearX)});
    EXPECT_EQ(values_f32(out[0]), expect) << "fusion " << fusion;
    const NodeTiming* l = timing_of(s.last_profile(), "l");
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->covers, fusion ? covers : std::vector<std::string>{});
    for (const auto& c : covers) EXPECT_EQ(timing_of(s.last_profile(), c) == nullptr, fusion) << c;
  }
}

}  // namespace

TEST(Graph, FusionTakesAnyActivationItsOpDeclares) {
  // relu6 was never matched by name; its op file declares it an activation
  // with its own bounds (0, 6), so linear takes it as a clamp epilogue.
  const std::string nodes =
      node("l", "aten.linear.default",
           meta_json("x", "[2, 3]", "x") + "," + meta_json("p_w", "[4, 3]") + "," + meta_json("p_b", "[4]"),
           meta_json("l", "[2, 4]")) + "," +
      node("r6", "aten.relu6.default", meta_json("l", "[2, 4]", "l"), meta_json("r6", "[2, 4]"));
  const TensorMap weights = linear_weights();
  std::vector<float> expect;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) expect.push_back(float(std::min(6.0, std::max(0.0, linear_ref(i, j)))));
  expect_linear_covers(nodes, meta_json("r6", "[2, 4]", "r6"), weights, expect, {"r6"});
}

TEST(Graph, FusionTakesSmoothActivationsBitForBit) {
  // gelu (both forms), silu, sigmoid, tanh, hardswish, hardsigmoid after a linear run in its
  // epilogue, as the op's own elementwise kernel over the finished output: the fused bits are
  // the unfused ones. A gelu of another dtype would not be taken (the producer is float32 only).
  const std::vector<std::pair<std::string, std::string>> acts = {
      {"aten.gelu.default", "{}"}, {"aten.gelu.default", R"({"approximate": "tanh"})"},
      {"aten.silu.default", "{}"}, {"aten.sigmoid.default", "{}"}, {"aten.tanh.default", "{}"},
      {"aten.hardswish.default", "{}"}, {"aten.hardsigmoid.default", "{}"}, {"aten.gelu_.default", "{}"}};
  const std::string linear =
      node("l", "aten.linear.default",
           meta_json("x", "[2, 3]", "x") + "," + meta_json("p_w", "[4, 3]") + "," + meta_json("p_b", "[4]"),
           meta_json("l", "[2, 4]"));
  for (const auto& [op, attrs] : acts) {
    const std::string nodes = linear + "," + node("a", op, meta_json("l", "[2, 4]", "l"), meta_json("a", "[2, 4]"), attrs);
    SessionOptions unfused;
    unfused.fusion = false;
    Session ref(model_of(nodes, meta_json("a", "[2, 4]", "a")), unfused);
    ref.bind(linear_weights());
    const std::vector<float> expect = values_f32(ref.run({tensor_f32({2, 3}, kLinearX)})[0]);
    SCOPED_TRACE(op + " " + attrs);
    expect_linear_covers(nodes, meta_json("a", "[2, 4]", "a"), linear_weights(), expect, {"a"});
  }
}

TEST(Graph, FusionFollowsViewsThatKeepTheElementOrder) {
  // linear -> view -> transpose of a size-1 dim -> eval dropout -> add -> relu: the views show
  // the same elements in the same order, so the add (its residual another linear's output,
  // viewed) and the relu run in the linear's epilogue. A transpose that reorders stops it.
  const std::string x = meta_json("x", "[2, 3]", "x");
  const std::string wb = "," + meta_json("p_w", "[4, 3]") + "," + meta_json("p_b", "[4]");
  const std::string chain =
      node("l2", "aten.linear.default", x + wb, meta_json("l2", "[2, 4]")) + "," +
      node("l", "aten.linear.default", x + wb, meta_json("l", "[2, 4]")) + "," +
      node("v", "aten.view.default", meta_json("l", "[2, 4]", "l"), meta_json("v", "[2, 1, 4]"), R"({"size": [2, 1, 4]})") +
      "," +
      node("t", "aten.transpose.int", meta_json("v", "[2, 1, 4]", "v"), meta_json("t", "[1, 2, 4]"),
           R"({"dim0": 0, "dim1": 1})") + "," +
      node("d", "aten.dropout.default", meta_json("t", "[1, 2, 4]", "t"), meta_json("d", "[1, 2, 4]"),
           R"({"p": 0.0, "train": false})") + "," +
      node("r2", "aten.view.default", meta_json("l2", "[2, 4]", "l2"), meta_json("r2", "[1, 2, 4]"),
           R"({"size": [1, 2, 4]})") + "," +
      node("a", "aten.add.Tensor", meta_json("d", "[1, 2, 4]", "d") + "," + meta_json("r2", "[1, 2, 4]", "r2"),
           meta_json("a", "[1, 2, 4]")) + "," +
      node("r", "aten.relu.default", meta_json("a", "[1, 2, 4]", "a"), meta_json("r", "[1, 2, 4]"));
  const TensorMap weights = linear_weights();
  std::vector<float> expect;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) expect.push_back(float(std::max(0.0, 2 * double(float(linear_ref(i, j))))));
  expect_linear_covers(chain, meta_json("r", "[1, 2, 4]", "r"), weights, expect, {"a", "r"});
  const std::vector<float>& xv = kLinearX;
  const std::string reorder =
      node("l", "aten.linear.default", x + wb, meta_json("l", "[2, 4]")) + "," +
      node("t", "aten.transpose.int", meta_json("l", "[2, 4]", "l"), meta_json("t", "[4, 2]"), R"({"dim0": 0, "dim1": 1})") +
      "," + node("r", "aten.relu.default", meta_json("t", "[4, 2]", "t"), meta_json("r", "[4, 2]"));
  Session s(model_of(reorder, meta_json("r", "[4, 2]", "r")));
  s.bind(weights);
  s.set_profiling(true);
  s.run({tensor_f32({2, 3}, xv)});
  const NodeTiming* l = timing_of(s.last_profile(), "l");
  ASSERT_NE(l, nullptr);
  EXPECT_TRUE(l->covers.empty());
}

TEST(Graph, FusionLeavesAClampWithTensorBoundsAlone) {
  // clamp.Tensor is no activation trait (its bounds are tensors), though its name says clamp.
  const std::string nodes =
      node("l", "aten.linear.default",
           meta_json("x", "[2, 3]", "x") + "," + meta_json("p_w", "[4, 3]") + "," + meta_json("p_b", "[4]"),
           meta_json("l", "[2, 4]")) + "," +
      node("c", "aten.clamp.Tensor", meta_json("l", "[2, 4]", "l") + "," + meta_json("p_b", "[4]"),
           meta_json("c", "[2, 4]"));
  TensorMap weights;
  weights.set("w", iota_f32({4, 3}));
  weights.set("b", tensor_f32({4}, {100, -100, 20, 0}));
  Session s(model_of(nodes, meta_json("c", "[2, 4]", "c")));
  s.bind(weights);
  s.set_profiling(true);
  const auto out = s.run({iota_f32({2, 3})});
  const NodeTiming* l = timing_of(s.last_profile(), "l");
  ASSERT_NE(l, nullptr);
  EXPECT_TRUE(l->covers.empty());
  ASSERT_NE(timing_of(s.last_profile(), "c"), nullptr);
  // linear rows: x0 = [0, 1, 2] -> [5, 14, 23, 32] + b; x1 = [3, 4, 5] -> [14, 50, 86, 122] + b; then max(., b).
  EXPECT_EQ(values_f32(out[0]), (std::vector<float>{105, -86, 43, 32, 114, -50, 106, 122}));
}

TEST(Graph, ConstantSubgraphIsFoldedOnceAtPrepare) {
  // f = full([2, 3], 2.5); m = f * f; o = x + m: f and m are computed at
  // prepare, only the add runs.
  const std::string nodes =
      node("f", "aten.full.default", "", meta_json("f", "[2, 3]"), R"({"size": [2, 3], "fill_value": 2.5})") + "," +
      node("m", "aten.mul.Tensor", meta_json("f", "[2, 3]", "f") + "," + meta_json("f", "[2, 3]", "f"),
           meta_json("m", "[2, 3]")) + "," +
      node("o", "aten.add.Tensor", meta_json("x", "[2, 3]", "x") + "," + meta_json("m", "[2, 3]", "m"),
           meta_json("o", "[2, 3]"));
  for (bool fold : {true, false}) {
    SessionOptions o;
    o.fold_constants = fold;
    Session s(model_of(nodes, meta_json("o", "[2, 3]", "o")), o);
    s.set_profiling(true);
    for (int run = 0; run < 2; ++run) {
      const auto out = s.run({iota_f32({2, 3})});
      EXPECT_EQ(values_f32(out[0]), (std::vector<float>{6.25f, 7.25f, 8.25f, 9.25f, 10.25f, 11.25f}));
      for (const char* name : {"f", "m"}) {
        const NodeTiming* t = timing_of(s.last_profile(), name);
        ASSERT_NE(t, nullptr) << name;
        EXPECT_EQ(t->folded, fold) << name;
        if (fold) EXPECT_EQ(t->ms, 0.0) << name;
      }
      EXPECT_FALSE(timing_of(s.last_profile(), "o")->folded);
    }
  }
}

TEST(Graph, ConstantValueAndItsInPlaceWriterFoldTogether) {
  // z = full(1); k = full(2); z.add_(k); o = x + z: z and its writer depend only on constants,
  // so both are computed once at prepare (T5's relative-position buckets have this shape).
  // Each run must still see z = 3, never 3 + 2 per run.
  const std::string nodes =
      node("z", "aten.full.default", "", meta_json("z", "[2, 3]"), R"({"size": [2, 3], "fill_value": 1.0})") + "," +
      node("k", "aten.full.default", "", meta_json("k", "[2, 3]"), R"({"size": [2, 3], "fill_value": 2.0})") + "," +
      node("a", "aten.add_.Tensor", meta_json("z", "[2, 3]", "z") + "," + meta_json("k", "[2, 3]", "k"),
           meta_json("a", "[2, 3]")) + "," +
      node("o", "aten.add.Tensor", meta_json("x", "[2, 3]", "x") + "," + meta_json("a", "[2, 3]", "a"),
           meta_json("o", "[2, 3]"));
  Session s(model_of(nodes, meta_json("o", "[2, 3]", "o")));
  s.set_profiling(true);
  for (int run = 0; run < 3; ++run) {
    const auto out = s.run({iota_f32({2, 3})});
    EXPECT_EQ(values_f32(out[0]), (std::vector<float>{3, 4, 5, 6, 7, 8})) << "run " << run;
    for (const char* name : {"z", "k", "a"}) EXPECT_TRUE(timing_of(s.last_profile(), name)->folded) << name;
    EXPECT_FALSE(timing_of(s.last_profile(), "o")->folded);
  }
}

TEST(Graph, InPlaceWriteAfterAReaderIsNotFolded) {
  // r = x * z reads z before z.add_(k): folding z with its writer would show r the written value.
  const std::string nodes =
      node("z", "aten.full.default", "", meta_json("z", "[2, 3]"), R"({"size": [2, 3], "fill_value": 1.0})") + "," +
      node("k", "aten.full.default", "", meta_json("k", "[2, 3]"), R"({"size": [2, 3], "fill_value": 2.0})") + "," +
      node("r", "aten.mul.Tensor", meta_json("x", "[2, 3]", "x") + "," + meta_json("z", "[2, 3]", "z"),
           meta_json("r", "[2, 3]")) + "," +
      node("a", "aten.add_.Tensor", meta_json("z", "[2, 3]", "z") + "," + meta_json("k", "[2, 3]", "k"),
           meta_json("a", "[2, 3]")) + "," +
      node("o", "aten.add.Tensor", meta_json("r", "[2, 3]", "r") + "," + meta_json("a", "[2, 3]", "a"),
           meta_json("o", "[2, 3]"));
  Session s(model_of(nodes, meta_json("o", "[2, 3]", "o")));
  s.set_profiling(true);
  for (int run = 0; run < 3; ++run) {
    const auto out = s.run({iota_f32({2, 3})});
    EXPECT_EQ(values_f32(out[0]), (std::vector<float>{3, 4, 5, 6, 7, 8})) << "run " << run;
    EXPECT_FALSE(timing_of(s.last_profile(), "z")->folded);
    EXPECT_FALSE(timing_of(s.last_profile(), "a")->folded);
  }
}

TEST(Graph, ValueWrittenInPlaceIsNotFolded) {
  // z = zeros; z.add_(x) each run: folding z would make runs accumulate.
  const std::string nodes =
      node("z", "aten.zeros.default", "", meta_json("z", "[2, 3]"), R"({"size": [2, 3]})") + "," +
      node("a", "aten.add_.Tensor", meta_json("z", "[2, 3]", "z") + "," + meta_json("x", "[2, 3]", "x"),
           meta_json("a", "[2, 3]"));
  Session s(model_of(nodes, meta_json("a", "[2, 3]", "a")));
  s.set_profiling(true);
  for (int run = 0; run < 3; ++run) {
    const auto out = s.run({iota_f32({2, 3})});
    EXPECT_EQ(values_f32(out[0]), values_f32(iota_f32({2, 3}))) << "run " << run;
    EXPECT_FALSE(timing_of(s.last_profile(), "z")->folded);
  }
}
