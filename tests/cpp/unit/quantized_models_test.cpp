// PyTorch's own quantized models (tests/fixtures/quantized, tools/export_quantized.py:
// PT2E static/dynamic int8, torchao int4 weight-only and 8da4w) against PyTorch's
// run of the quantized module. The criterion is the issue's: per output, our max
// difference from PyTorch's quantized output is at most a quarter of the
// quantization error, max |PyTorch quantized - PyTorch float32|.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "ir/json_loader.h"
#include "runtime/session.h"
#include "test_util.h"
#include "weights/torch_save.h"

using namespace tir;
using namespace tir::test;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> quantized_fixtures() {
  std::vector<std::string> dirs;
  const fs::path root = fs::path(fixtures_dir()) / "quantized";
  if (!fs::exists(root)) return dirs;
  for (const auto& e : fs::directory_iterator(root))
    if (fs::exists(e.path() / "model.json")) dirs.push_back(e.path().filename().string());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  const Tensor x = to_dtype_owned(a, DType::F64), y = to_dtype_owned(b, DType::F64);
  double m = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double d = std::fabs(x.data<double>()[i] - y.data<double>()[i]);
    m = std::isnan(d) ? INFINITY : std::max(m, d);
  }
  return m;
}

void check_quantized_fixture(const std::string& name, const SessionOptions& options);

class QuantizedModelTest : public ::testing::TestWithParam<std::string> {};

// Runs the fixture with the quantization lowering on (integer kernels) and off (reference ops
// only): both must meet the criterion. With it on, the PT2E models must run no quantization
// node of their linears and convolutions: the profile lists what ran.
TEST_P(QuantizedModelTest, WithinAQuarterOfTheQuantizationError) {
  for (bool lower : {true, false}) {
    SCOPED_TRACE(lower ? "integer kernels" : "reference ops");
    SessionOptions options;
    options.lower_quantized = lower;
    check_quantized_fixture(GetParam(), options);
  }
}

TEST(QuantizedModels, PT2ELinearsAndConvsRunOnIntegerKernels) {
  // node op types run per fixture, with the lowering on
  auto ran = [](const std::string& name) {
    const fs::path dir = fs::path(fixtures_dir()) / "quantized" / name;
    Model model = load_model_file((dir / "model.json").string());
    const TensorMap io = read_weights_file((dir / "io.safetensors").string());
    std::vector<Tensor> inputs;
    for (const auto& gi : model.graph_inputs) inputs.push_back(*io.find("input." + gi.name));
    Session session(model);
    session.bind(read_weights_file((dir / "weights.safetensors").string()));
    session.set_profiling(true);
    session.run(inputs);
    std::vector<std::string> ops;
    for (const auto& t : session.last_profile())
      if (!t.folded) ops.push_back(t.op_type);
    return ops;
  };
  auto count = [](const std::vector<std::string>& ops, const std::string& prefix) {
    return std::count_if(ops.begin(), ops.end(), [&](const std::string& o) { return o.rfind(prefix, 0) == 0; });
  };
  // dynamic: choose_qparams, quantize and dequantize all taken over by the integer linears
  EXPECT_EQ(count(ran("mlp_pt2e_dynamic"), "quantized_decomposed."), 0);
  EXPECT_EQ(count(ran("bert_pt2e_dynamic"), "quantized_decomposed."), 0);
  // static: only the output's quantize/dequantize pair is left
  const auto st = ran("mlp_pt2e_static");
  EXPECT_EQ(count(st, "quantized_decomposed.quantize_per_tensor"), 1);
  EXPECT_EQ(count(st, "quantized_decomposed.dequantize_per_tensor"), 1);
  EXPECT_EQ(count(st, "quantized_decomposed.dequantize_per_channel"), 0);
  // convolutions: no weight is dequantized (every conv runs in integers); the quantize /
  // dequantize pairs around pooling and the residual adds stay
  EXPECT_EQ(count(ran("cnn_pt2e_static"), "quantized_decomposed.dequantize_per_channel"), 0);
  EXPECT_EQ(count(ran("resnet_pt2e_static"), "quantized_decomposed.dequantize_per_channel"), 0);
  // 8da4w: every linear on the int4 kernel, no dequantize_affine left; torchao's per-token
  // choose / quantize of the activations still run (the kernel reads what they write)
  for (const char* name : {"mlp_8da4w", "bert_8da4w", "llama_8da4w"}) {
    const auto ops = ran(name);
    EXPECT_EQ(count(ops, "torchao.dequantize_affine"), 0) << name;
    EXPECT_GT(count(ops, "torchao.quantize_affine"), 0) << name;
    EXPECT_EQ(count(ops, "torchao.quantize_affine"), count(ops, "aten.linear")) << name;
  }
}

// The weights a lowered step reads in integers are never dequantized: no folded float copy, and
// no arena space for the dequantize nodes' outputs (the 128 x 64 and 10 x 128 float weights).
TEST(QuantizedModels, LoweredWeightsHaveNoFloatCopy) {
  const fs::path dir = fs::path(fixtures_dir()) / "quantized" / "mlp_pt2e_dynamic";
  Model model = load_model_file((dir / "model.json").string());
  auto bytes = [&](bool lower) {
    SessionOptions o;
    o.lower_quantized = lower;
    Session s(model, o);
    s.bind(read_weights_file((dir / "weights.safetensors").string()));
    return std::make_pair(s.arena_bytes(), s.prepared_bytes());
  };
  const auto on = bytes(true), off = bytes(false);
  const size_t float_weights = (128 * 64 + 10 * 128) * sizeof(float);
  EXPECT_LT(on.first, float_weights) << "arena " << on.first;
  EXPECT_LT(on.second, off.second) << "prepared/folded bytes " << on.second << " vs " << off.second;
}

void check_quantized_fixture(const std::string& name, const SessionOptions& options) {
  const fs::path dir = fs::path(fixtures_dir()) / "quantized" / name;
  Model model = load_model_file((dir / "model.json").string());
  const TensorMap io = read_weights_file((dir / "io.safetensors").string());
  std::vector<Tensor> inputs;
  for (const auto& gi : model.graph_inputs) {
    const Tensor* t = io.find("input." + gi.name);
    ASSERT_NE(t, nullptr) << "io lacks input." << gi.name;
    inputs.push_back(*t);
  }
  Session session(model, options);
  session.bind(read_weights_file((dir / "weights.safetensors").string()));
  const std::vector<Tensor> ours = session.run(inputs);
  ASSERT_EQ(ours.size(), model.graph_outputs.size());
  for (size_t i = 0; i < ours.size(); ++i) {
    const Tensor* q = io.find("output." + std::to_string(i));
    const Tensor* f = io.find("float_output." + std::to_string(i));
    ASSERT_TRUE(q && f) << "io lacks output." << i << " or float_output." << i;
    if (!is_floating(q->dtype)) {
      EXPECT_EQ(max_abs_diff(ours[i], *q), 0) << name << " output " << i;
      continue;
    }
    const double quant_error = max_abs_diff(*q, *f);
    const double diff = max_abs_diff(ours[i], *q);
    std::printf("[quantized] %s output %zu: ours vs PyTorch quantized %.3e, quantization error %.3e\n",
                name.c_str(), i, diff, quant_error);
    EXPECT_LE(diff, 0.25 * quant_error) << name << " output " << i;
  }
  // The session runs again to the same result (folded weights and workspaces are reused).
  const std::vector<Tensor> again = session.run(inputs);
  for (size_t i = 0; i < ours.size(); ++i) EXPECT_EQ(max_abs_diff(again[i], ours[i]), 0);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, QuantizedModelTest, ::testing::ValuesIn(quantized_fixtures()),
                         [](const auto& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(QuantizedModelTest);

}  // namespace
