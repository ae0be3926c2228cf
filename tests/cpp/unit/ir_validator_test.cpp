// Graph validation: each problem kind, with its location, and all reported at once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "core/errors.h"
#include "ir/json_loader.h"
#include "ir/validator.h"
#include "test_util.h"

namespace tir {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

Model load_seed(const std::string& name) {
  return load_model_file(test::fixtures_dir() + "/seeds/" + name + ".json");
}

const std::vector<std::string> kNone;  // no problems

// SimpleMLP: x -> linear(x, p_fc1_weight, p_fc1_bias) -> relu -> linear_1(relu, p_fc2_*) -> output.
Model mlp() { return load_seed("SimpleMLP"); }

// The single problem of a model expected to have exactly one.
std::string only_problem(const Model& m) {
  auto problems = validate_model(m);
  EXPECT_THAT(problems, SizeIs(1));
  return problems.empty() ? "" : problems[0];
}

TEST(IrValidator, SeedsAreValid) {
  for (const char* name : {"SimpleMLP", "BufferVsConstant", "GatherWithIndex", "MaskedLinear"}) {
    Model m = load_seed(name);
    EXPECT_EQ(validate_model(m), kNone) << name;
    EXPECT_NO_THROW(validate_model_or_throw(m)) << name;
  }
}

TEST(IrValidator, LenientCasesAreValid) {
  // Placeholder-listed weights, multi-output producers, graph input passthrough
  // output, nodes without outputs, repeated graph outputs.
  Model m = load_model_file(test::fixtures_dir() + "/seeds/expected/Tricky.json");
  EXPECT_EQ(validate_model(m), kNone);

  // Hand-written: graph input read without producer_node.
  Model h = mlp();
  h.nodes[0].inputs[0].producer_node.clear();
  EXPECT_EQ(validate_model(h), kNone);

  // A graph output may return a weight unchanged.
  Model w = mlp();
  w.graph_outputs[0].name = "p_fc1_bias";
  EXPECT_EQ(validate_model(w), kNone);
}

TEST(IrValidator, DuplicateNodeName) {
  Model m = mlp();
  m.nodes[2].name = "relu";
  m.nodes[2].outputs[0].name = "relu_x";
  m.graph_outputs[0].name = "relu_x";
  EXPECT_EQ(only_problem(m), "node 'relu' (nodes[2]): duplicate node name (first at nodes[1])");
}

TEST(IrValidator, EmptyNodeName) {
  Model m = mlp();
  m.nodes[2].name = "";
  EXPECT_EQ(only_problem(m), "nodes[2]: empty node name");
}

TEST(IrValidator, NodeNamedLikeGraphInput) {
  Model m = mlp();
  OpNode extra = m.nodes[1];  // relu(linear_1), named like the graph input
  extra.name = "x";
  extra.inputs[0].name = extra.inputs[0].producer_node = "linear_1";
  extra.inputs[0].shape = {1, 2};
  extra.outputs[0].name = "x_out";
  extra.outputs[0].shape = {1, 2};
  m.nodes.push_back(extra);
  // linear still reads graph input x (the later node x is not a candidate).
  EXPECT_EQ(only_problem(m), "node 'x' (nodes[3]): name clashes with a graph input");
}

TEST(IrValidator, UnknownProducer) {
  Model m = mlp();
  m.nodes[1].inputs[0].producer_node = "lnear";
  EXPECT_EQ(only_problem(m), "node 'relu' input 0 ('linear'): producer_node 'lnear' is neither a node nor a graph input");
}

TEST(IrValidator, ForwardAndSelfReference) {
  Model m = mlp();
  m.nodes[0].inputs[0].producer_node = "linear_1";
  EXPECT_EQ(only_problem(m),
            "node 'linear' input 0 ('x'): producer_node 'linear_1' is a later node (nodes[2]): forward reference");
  Model s = mlp();
  s.nodes[1].inputs[0].producer_node = "relu";
  EXPECT_EQ(only_problem(s), "node 'relu' input 0 ('linear'): producer_node 'relu' is the node itself");
}

TEST(IrValidator, ProducerOutputIdxOutOfRange) {
  Model m = mlp();
  m.nodes[1].inputs[0].producer_output_idx = 1;
  EXPECT_EQ(only_problem(m),
            "node 'relu' input 0 ('linear'): producer_output_idx 1 out of range (node 'linear' has 1 output(s))");
  Model g = mlp();
  g.nodes[0].inputs[0].producer_output_idx = 2;
  EXPECT_THAT(only_problem(g), HasSubstr("producer_output_idx 2 out of range (graph input 'x' has 1 output)"));
}

TEST(IrValidator, MetaDisagreesWithProducer) {
  Model m = mlp();
  m.nodes[2].inputs[0].shape = {1, 9};
  EXPECT_EQ(only_problem(m),
            "node 'linear_1' input 0 ('relu'): shape [1, 9] does not match node 'relu' output 0 shape [1, 8]");
  Model d = mlp();
  d.nodes[1].inputs[0].dtype = DType::I64;
  EXPECT_EQ(only_problem(d),
            "node 'relu' input 0 ('linear'): dtype int64 does not match node 'linear' output 0 dtype float32");
}

TEST(IrValidator, MetaDisagreesWithGraphInput) {
  Model m = mlp();
  m.nodes[0].inputs[0].shape = {4};
  EXPECT_EQ(only_problem(m), "node 'linear' input 0 ('x'): shape [4] does not match graph input 'x' shape [1, 4]");
  // Same check when the hand-written file omits producer_node.
  Model h = mlp();
  h.nodes[0].inputs[0].producer_node.clear();
  h.nodes[0].inputs[0].dtype = DType::F16;
  EXPECT_EQ(only_problem(h),
            "node 'linear' input 0 ('x'): dtype float16 does not match graph input 'x' dtype float32");
}

TEST(IrValidator, InputNamesNothing) {
  Model m = mlp();
  m.nodes[0].inputs[1].name = "p_fc9_weight";
  EXPECT_EQ(only_problem(m),
            "node 'linear' input 1 ('p_fc9_weight'): has no producer_node and names no weight or graph input");
  // Original keys are accepted too.
  Model o = mlp();
  o.nodes[0].inputs[1].name = "fc1.weight";
  EXPECT_EQ(validate_model(o), kNone);
}

TEST(IrValidator, WeightWithProducer) {
  Model m = mlp();
  m.nodes[2].inputs[1].producer_node = "relu";
  m.nodes[2].inputs[1].shape = {1, 8};
  EXPECT_EQ(only_problem(m), "node 'linear_1' input 1 ('p_fc2_weight'): names a weight but has producer_node 'relu'");
}

TEST(IrValidator, GraphOutputNamesNothing) {
  Model m = mlp();
  m.graph_outputs[0].name = "linear_2";
  EXPECT_EQ(only_problem(m), "graph_outputs[0] ('linear_2'): names no node output or graph input");
}

TEST(IrValidator, MappingToMissingWeight) {
  Model m = mlp();
  m.weight_name_mapping[1].second = "fc1.bias_typo";
  // The node input p_fc1_bias now resolves to nothing as well.
  auto problems = validate_model(m);
  ASSERT_THAT(problems, SizeIs(2));
  EXPECT_THAT(problems[0], HasSubstr("node 'linear' input 2 ('p_fc1_bias'): has no producer_node"));
  EXPECT_EQ(problems[1], "weight_name_mapping['p_fc1_bias']: maps to 'fc1.bias_typo', which is not in weights");

  // Files listing placeholders in `weights` are not checked against the mapping.
  Model p = mlp();
  const ModelIndex index(p);
  std::vector<std::string> placeholder_names;
  for (const auto& w : p.weights) placeholder_names.push_back(index.placeholders_of(w.name).at(0));
  for (size_t k = 0; k < p.weights.size(); ++k) p.weights[k].name = placeholder_names[k];
  p.weight_name_mapping.emplace_back("p_extra", "extra.weight");
  EXPECT_EQ(validate_model(p), kNone);
}

TEST(IrValidator, DuplicateGraphInput) {
  Model m = mlp();
  m.graph_inputs.push_back(m.graph_inputs[0]);
  EXPECT_EQ(only_problem(m), "graph_inputs[1] ('x'): duplicate graph input name");
}

TEST(IrValidator, AllProblemsReportedAtOnce) {
  Model m = load_model_file(test::fixtures_dir() + "/ir_bad/three_problems.json");
  auto problems = validate_model(m);
  EXPECT_THAT(problems,
              ElementsAre(HasSubstr("node 'relu' input 0 ('linear'): producer_node 'linear' is a later node"),
                          HasSubstr("node 'linear' input 1 ('p_w'): has no producer_node and names no weight"),
                          HasSubstr("graph_outputs[0] ('out'): names no node output or graph input")));
  try {
    validate_model_or_throw(m);
    FAIL() << "expected IRFormatError";
  } catch (const IRFormatError& e) {
    const std::string msg = e.what();
    EXPECT_THAT(msg, ::testing::StartsWith("IR validation failed with 3 problem(s):\n  - node 'relu' input 0"));
    EXPECT_EQ(std::count(msg.begin(), msg.end(), '\n'), 3);
    EXPECT_THAT(msg, HasSubstr("\n  - graph_outputs[0] ('out'): names no node output or graph input"));
  }
}

}  // namespace
TEST(IrValidator, LongProblemListsAreCappedWithACount) {
  Model m = mlp();
  // Every node loses its producer: one problem per node input, more than the message shows.
  while (m.nodes.size() < 60) m.nodes.push_back(m.nodes.back()), m.nodes.back().name += "_x";
  for (auto& n : m.nodes)
    for (auto& in : n.inputs) in.producer_node.clear(), in.name = "nowhere";
  const auto problems = validate_model(m);
  ASSERT_GT(problems.size(), 50u);
  try {
    validate_model_or_throw(m);
    FAIL() << "expected IRFormatError";
  } catch (const IRFormatError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(std::count(msg.begin(), msg.end(), '\n'), 51);
    EXPECT_THAT(msg, HasSubstr("\n  ... and " + std::to_string(problems.size() - 50) + " more"));
  }
}

}  // namespace tir
