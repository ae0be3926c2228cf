// Byte-identity with pytorch-ir's visualize.py (ir_to_mermaid, op distribution pie)
// and cli.py `info`. The seed .mmd/.pie files are the CLI's stdout (print adds a
// newline); files under seeds/expected/ hold the functions' return values as-is,
// produced by running the original Python logic.
#include <gtest/gtest.h>

#include "ir/info.h"
#include "ir/json_loader.h"
#include "ir/mermaid.h"
#include "test_util.h"

namespace tir {
namespace {

const char* const kSeeds[] = {"SimpleMLP", "BufferVsConstant", "GatherWithIndex", "MaskedLinear"};

std::string seeds_dir() { return test::fixtures_dir() + "/seeds/"; }
std::string expected_dir() { return seeds_dir() + "expected/"; }

Model load_seed(const std::string& name) { return load_model_file(seeds_dir() + name + ".json"); }
Model tricky() { return load_model_file(expected_dir() + "Tricky.json"); }

std::string expected(const std::string& file) {
  const std::string path = expected_dir() + file;
  EXPECT_TRUE(test::file_exists(path)) << path;
  return test::read_text(path);
}

TEST(Mermaid, ShortOpName) {
  EXPECT_EQ(short_op_name("aten.linear.default"), "linear");
  EXPECT_EQ(short_op_name("aten.mul.Tensor"), "mul.Tensor");
  EXPECT_EQ(short_op_name("<built-in function getitem>"), "<built-in function getitem>");
  EXPECT_EQ(short_op_name("aten.default"), "default");  // prefix first, as in Python
  EXPECT_EQ(short_op_name("foo.default"), "foo");
  EXPECT_EQ(short_op_name("aten."), "");
}

TEST(Mermaid, SeedsMatchCliOutput) {
  for (const char* name : kSeeds) {
    const std::string path = seeds_dir() + name + ".mmd";
    ASSERT_TRUE(test::file_exists(path)) << path;
    EXPECT_EQ(ir_to_mermaid(load_seed(name)) + "\n", test::read_text(path)) << name;
  }
}

TEST(Mermaid, SeedPieMatchesCliOutput) {
  EXPECT_EQ(op_distribution_pie(load_seed("SimpleMLP")) + "\n", test::read_text(seeds_dir() + "SimpleMLP.pie"));
}

TEST(Mermaid, SeedsWithoutWeightsAndPies) {
  for (const char* name : kSeeds) {
    const Model m = load_seed(name);
    EXPECT_EQ(ir_to_mermaid(m, 30, false), expected(std::string(name) + ".noweights.mmd")) << name;
    EXPECT_EQ(op_distribution_pie(m), expected(std::string(name) + ".pie")) << name;
  }
}

TEST(Mermaid, Truncation) {
  const Model m = load_seed("SimpleMLP");
  for (int n : {1, 0, -1, 3}) EXPECT_EQ(ir_to_mermaid(m, n), expected("SimpleMLP.max" + std::to_string(n) + ".mmd")) << n;
  EXPECT_EQ(ir_to_mermaid(m, 1, false), expected("SimpleMLP.max1.noweights.mmd"));
  // Spot-check the Python-derived expectations themselves.
  EXPECT_NE(ir_to_mermaid(m, 1).find("    note[\"... 2 more nodes ...\"]"), std::string::npos);
  EXPECT_NE(ir_to_mermaid(m, -1).find("    note[\"... 4 more nodes ...\"]"), std::string::npos);
  EXPECT_EQ(ir_to_mermaid(m, 3), ir_to_mermaid(m));
}

TEST(Mermaid, EdgeCasesMatchPython) {
  // Quotes in labels, 0-d shapes, nodes without outputs, multi-output producers,
  // weights listed by placeholder, outputs repeated or naming a graph input.
  const Model m = tricky();
  EXPECT_EQ(ir_to_mermaid(m), expected("Tricky.mmd"));
  EXPECT_EQ(ir_to_mermaid(m, 30, false), expected("Tricky.noweights.mmd"));
  EXPECT_EQ(ir_to_mermaid(m, 4), expected("Tricky.max4.mmd"));
  const std::string mmd = ir_to_mermaid(m);
  EXPECT_NE(mmd.find("    op_quoted[\"custom.'op'<br/>1000x1234\"]"), std::string::npos);
  EXPECT_NE(mmd.find("    op__assert_tensor_metadata[\"_assert_tensor_metadata\"]\n"), std::string::npos);
  EXPECT_NE(mmd.find("    input_s -->|\"\"| op_neg"), std::string::npos);
}

TEST(Mermaid, PieTiesTopNAndOthers) {
  const Model m = tricky();
  EXPECT_EQ(op_distribution_pie(m), expected("Tricky.pie"));
  EXPECT_EQ(op_distribution_pie(m, 3), expected("Tricky.pie.top3"));
  EXPECT_EQ(op_distribution_pie(m, 0), expected("Tricky.pie.top0"));
  EXPECT_EQ(op_distribution_pie(m, -2), expected("Tricky.pie.top-2"));
  EXPECT_EQ(op_distribution_pie(load_seed("SimpleMLP"), 1), expected("SimpleMLP.pie.top1"));
  EXPECT_EQ(op_distribution_pie(m, 3),
            "pie showData\n    title \"Operator Distribution\"\n    \"relu\" : 2\n    \"mul.Tensor\" : 1\n"
            "    \"split_with_sizes\" : 1\n    \"Others\" : 6");
}

TEST(Info, SimpleMlpText) {
  const Model m = load_seed("SimpleMLP");
  EXPECT_EQ(model_info_text(m), expected("SimpleMLP.info.txt"));
  EXPECT_EQ(model_info_text(m),
            "Model: SimpleMLP\nNodes: 3\nInputs: 1\nOutputs: 1\nWeights: 4\nTotal parameters: 58\n\n"
            "Input shapes:\n  x: [1, 4]\n\nOutput shapes:\n  linear_1: [1, 2]\n\n"
            "Op distribution:\n  aten.linear.default: 2\n  aten.relu.default: 1");
}

TEST(Info, SimpleMlpJson) {
  EXPECT_EQ(model_info_json(load_seed("SimpleMLP")), expected("SimpleMLP.info.json"));
}

TEST(Info, EdgeCasesMatchPython) {
  // Thousands separators, [] shapes, repeated output names (dict semantics),
  // non-ASCII and control characters escaped like json.dumps(ensure_ascii=True).
  const Model m = tricky();
  EXPECT_EQ(model_info_text(m), expected("Tricky.info.txt"));
  EXPECT_EQ(model_info_json(m), expected("Tricky.info.json"));
  EXPECT_NE(model_info_text(m).find("Total parameters: 1,234,003\n"), std::string::npos);
  EXPECT_NE(model_info_json(m).find(R"("model_name": "Tricky \u00e9\ud83d\ude00 \"q\"\t",)"), std::string::npos);
}

TEST(Info, EmptyModel) {
  Model m;
  EXPECT_EQ(model_info_json(m),
            "{\n  \"model_name\": \"\",\n  \"num_nodes\": 0,\n  \"num_inputs\": 0,\n  \"num_outputs\": 0,\n"
            "  \"num_weights\": 0,\n  \"total_parameters\": 0,\n  \"input_shapes\": {},\n"
            "  \"output_shapes\": {},\n  \"op_distribution\": {}\n}");
  EXPECT_EQ(model_info_text(m),
            "Model: \nNodes: 0\nInputs: 0\nOutputs: 0\nWeights: 0\nTotal parameters: 0\n\nInput shapes:\n\n"
            "Output shapes:\n\nOp distribution:");
}

}  // namespace
}  // namespace tir
