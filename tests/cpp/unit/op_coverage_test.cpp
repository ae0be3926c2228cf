// Coverage of the ATen op list (tests/fixtures/spec/aten_schemas.tsv, a copy of the spec):
// every tier-1 and tier-2 op type must be registered, every tier-3 one too unless
// tests/fixtures/spec/tier3_left_out.tsv says why not (docs/ops.md's op table shows that list),
// and an IR that uses an op we lack must fail at load time naming every missing op.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
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

// op_type -> why, from tier3_left_out.tsv (header: op_type why).
std::map<std::string, std::string> read_left_out() {
  const std::string path = test::fixtures_dir() + "/spec/tier3_left_out.tsv";
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::map<std::string, std::string> out;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    const size_t tab = line.find('\t');
    if (tab != std::string::npos) out[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return out;
}

TEST(OpCoverage, EveryTier3SpecOpIsRegisteredOrLeftOutWithAReason) {
  const auto spec = read_spec();
  const auto left_out = read_left_out();
  ASSERT_GT(left_out.size(), 0u);
  std::string missing, stale, unknown;
  for (const auto& op : spec) {
    if (op.tier != 3) continue;
    const bool registered = OpRegistry::instance().find(op.op_type) != nullptr;
    const bool excused = left_out.count(op.op_type) > 0;
    if (!registered && !excused) missing += "  " + op.op_type + "\n";
    if (registered && excused) stale += "  " + op.op_type + "\n";
  }
  for (const auto& row : left_out) {  // not a structured binding: the lambda captures it (clang 14)
    const bool in_spec = std::any_of(spec.begin(), spec.end(), [&](const SpecOp& s) { return s.op_type == row.first; });
    if (!in_spec || row.second.empty()) unknown += "  " + row.first + "\n";
  }
  EXPECT_TRUE(missing.empty()) << "tier-3 ops neither registered nor in tier3_left_out.tsv:\n" << missing;
  EXPECT_TRUE(stale.empty()) << "registered ops still listed in tier3_left_out.tsv:\n" << stale;
  EXPECT_TRUE(unknown.empty()) << "tier3_left_out.tsv rows not in the spec or without a reason:\n" << unknown;
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
