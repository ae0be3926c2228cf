// Coverage of the ATen op list (tests/fixtures/spec/aten_schemas.tsv, a copy of the spec):
// every tier-1 and tier-2 op type must be registered, and an IR that uses an op we lack must
// fail at load time naming every missing op.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "ir/json_loader.h"
#include "ops/op.h"
#include "runtime/session.h"
#include "test_util.h"

namespace tir {
namespace {

using ::testing::HasSubstr;

struct SpecOp {
  std::string op_type;  // as the IR writes it, e.g. "aten.add.Tensor"
  int tier = 0;
};

std::vector<SpecOp> read_spec() {
  const std::string path = test::fixtures_dir() + "/spec/aten_schemas.tsv";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::vector<SpecOp> ops;
  std::string line;
  std::getline(in, line);  // header: op_type schema since flavor tier
  while (std::getline(in, line)) {
    std::vector<std::string> cols;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    if (cols.size() < 5) continue;
    ops.push_back({cols[0], std::stoi(cols[4])});
  }
  return ops;
}

TEST(OpCoverage, EveryTier1And2SpecOpIsRegistered) {
  const auto spec = read_spec();
  ASSERT_GT(spec.size(), 300u);
  std::vector<std::string> missing;
  for (const auto& op : spec)
    if (op.tier <= 2 && !OpRegistry::instance().find(op.op_type))
      missing.push_back(op.op_type);
  std::string list;
  for (const auto& m : missing) list += "  " + m + "\n";
  EXPECT_TRUE(missing.empty()) << missing.size() << " tier-1/2 ops not registered:\n" << list;
}

TEST(OpCoverage, UnsupportedOpsFailAtLoadWithTheFullList) {
  const std::string json = R"({
    "model_name": "uses_unknown_ops", "pytorch_version": "2.14.1",
    "graph_inputs": [{"name": "x", "shape": [2], "dtype": "float32"}],
    "graph_outputs": [{"name": "b", "shape": [2], "dtype": "float32"}],
    "weights": [], "weight_name_mapping": {},
    "nodes": [
      {"name": "a", "op_type": "aten.frobnicate.default", "inputs": [{"name": "x", "shape": [2], "dtype": "float32"}],
       "outputs": [{"name": "a", "shape": [2], "dtype": "float32"}], "attrs": {}},
      {"name": "r", "op_type": "aten.relu.default", "inputs": [{"name": "a", "shape": [2], "dtype": "float32", "producer_node": "a", "producer_output_idx": 0}],
       "outputs": [{"name": "r", "shape": [2], "dtype": "float32"}], "attrs": {}},
      {"name": "b", "op_type": "aten.unheard_of.Tensor", "inputs": [{"name": "r", "shape": [2], "dtype": "float32", "producer_node": "r", "producer_output_idx": 0}],
       "outputs": [{"name": "b", "shape": [2], "dtype": "float32"}], "attrs": {}}
    ]})";
  const Model model = load_model_json(json);
  try {
    Session s(model);
    FAIL() << "compiling a model with unknown ops must fail";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_THAT(msg, HasSubstr("aten.frobnicate.default"));
    EXPECT_THAT(msg, HasSubstr("aten.unheard_of.Tensor"));
    EXPECT_THAT(msg, ::testing::Not(HasSubstr("relu")));
  }
}

}  // namespace
}  // namespace tir
