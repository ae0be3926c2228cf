// Every whole-model fixture (and every seed IR) run by the native engine and by
// LibTorch's dispatcher on the same inputs and weights.
#include <gtest/gtest.h>

#include "ir/json_loader.h"
#include "model_fixtures.h"
#include "parity_util.h"
#include "test_util.h"
#include "torch_backend/reference.h"
#include "weights/torch_save.h"

using namespace tir;
using namespace tir::test;

namespace {

class ModelParityTest : public ::testing::TestWithParam<ModelFixture> {};

// The first op this LibTorch lacks (SDPA on 1.13), or "".
std::string op_missing_in_reference(const Model& model) {
  for (const auto& n : model.nodes)
    if (!reference_supports(n.op_type)) return n.op_type;
  return "";
}

std::vector<Tensor> fixture_inputs(const Model& model, const TensorMap& io) {
  std::vector<Tensor> v;
  for (const auto& gi : model.graph_inputs) {
    const Tensor* t = io.find("input." + gi.name);
    EXPECT_NE(t, nullptr) << "io file lacks input." << gi.name;
    if (t) v.push_back(*t);
  }
  return v;
}

}  // namespace

TEST_P(ModelParityTest, NativeMatchesLibTorch) {
  const ModelFixture& f = GetParam();
  if (f.weights.empty() || f.io.empty()) GTEST_SKIP() << f.id << ": weights/io not generated";
  Model model = load_model_file(f.ir);
  const std::string missing = op_missing_in_reference(model);
  if (!missing.empty())
    GTEST_SKIP() << "LibTorch " << libtorch_version() << " has no " << missing
                 << " (checked against torch 2.x by tools/check_libtorch2.sh)";
  const TensorMap io = read_weights_file(f.io);
  std::vector<Tensor> truth;  // float64 outputs (tools/fixture_truth.py), when generated
  if (file_exists(f.truth)) {
    const TensorMap tm = read_weights_file(f.truth);
    for (size_t i = 0; i < model.graph_outputs.size(); ++i)
      if (const Tensor* t = tm.find("output." + std::to_string(i))) truth.push_back(*t);
  }
  const ::testing::AssertionResult r = model_parity(model, read_weights_file(f.weights), {}, fixture_inputs(model, io),
                                                    1e-5, 1e-5, truth.empty() ? nullptr : &truth);
  // float16 models (convnext_half, swin_half): LibTorch 1.13's CPU has no half conv / addmm /
  // layer_norm; their recorded outputs are torch 2.14's own half run, checked by the model tests.
  if (!r && std::string(r.message()).find("not implemented for 'Half'") != std::string::npos)
    GTEST_SKIP() << "LibTorch " << libtorch_version() << " CPU lacks a float16 kernel: " << r.message();
  EXPECT_TRUE(r);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ModelParityTest, ::testing::ValuesIn(model_fixtures()),
                         [](const auto& info) { return fixture_test_name(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ModelParityTest);

// The four seed IRs from pytorch-ir, with the weights/io of the same modules
// exported by tools/export_fixture.py (same state_dict keys).
class SeedParityTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SeedParityTest, SeedIRMatchesLibTorchAndRecordedOutputs) {
  const std::string name = GetParam();
  const std::string dir = fixtures_dir() + "/models/" + name + "/torch2.14-training/";
  Model model = load_model_file(fixtures_dir() + "/seeds/" + name + ".json");
  const TensorMap io = read_weights_file(dir + "io.safetensors");
  EXPECT_TRUE(model_parity(model, read_weights_file(dir + "weights.safetensors"), {}, fixture_inputs(model, io)));
}

INSTANTIATE_TEST_SUITE_P(Seeds, SeedParityTest,
                         ::testing::Values("SimpleMLP", "MaskedLinear", "GatherWithIndex", "BufferVsConstant"));
