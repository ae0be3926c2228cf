// The LLM demo's model in int4: tests/fixtures/llm/tiny_llama_8da4w, the tiny LLaMA quantized
// with torchao's 8da4w (Int8DynamicActivationIntxWeightConfig, int4 weights in groups of 16;
// tools/export_llm.py --quantize 8da4w), its quantized weights committed beside the IR.
//
// Greedy tokens follow PyTorch's generation of the quantized module up to the first step whose
// top-1 / top-2 logit margin (expected.json's top1_top2_margins) is below kPinnedMargin. Dynamic
// per-token activation quantization is chaotic: a value within an ulp of a rounding boundary
// lands one quantum over when an earlier float op sums in another order, moving logits by a
// few hundredths (0.034 on a pad row of the prefill below), so where PyTorch's own margin is
// that thin another engine may pick the runner-up and continue differently: the integer
// kernels do so at step 28 of the 32-token prompt (margin 0.0006), the reference ops, whose
// float GEMM sums the dequantized products in another order than PyTorch's, at step 3
// (margin 0.018). The prefill and one decode step are compared value by value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/json.h"
#include "ir/json_loader.h"
#include "ir/kv_mapping.h"
#include "runtime/language_model.h"
#include "runtime/session.h"
#include "test_util.h"
#include "weights/torch_save.h"

using namespace tir;

namespace {

constexpr double kPinnedMargin = 0.05;

std::string text_of(const std::string& path) {
  auto b = read_file_bytes(path);
  return std::string(b->begin(), b->end());
}

struct Prompt {
  std::vector<int64_t> input, generated;
  std::vector<double> margins;
};

// The tiny LLaMA in int4, or (the greedy test) the demo's model trained on Debian's package
// descriptions, also torchao 8da4w (tests/fixtures/llm/debian_lm).
std::string dir(const std::string& name = "tiny_llama_8da4w") { return test::fixtures_dir() + "/llm/" + name + "/"; }

std::vector<Prompt> prompts(const std::string& name) {
  std::vector<Prompt> out;
  const json::Document d = json::Document::parse(text_of(dir(name) + "expected.json"));
  for (json::Value p : d.root()["prompts"]) {
    Prompt q;
    for (json::Value v : p["input_ids"]) q.input.push_back(v.as_int64());
    for (json::Value v : p["generated_ids"]) q.generated.push_back(v.as_int64());
    for (json::Value v : p["top1_top2_margins"]) q.margins.push_back(v.as_double());
    out.push_back(std::move(q));
  }
  return out;
}

// Tokens [0, n) are pinned: n is the first step whose margin is below kPinnedMargin (that
// step's own token may differ), or all of them.
size_t pinned_steps(const Prompt& p) {
  size_t n = 0;
  while (n < p.margins.size() && p.margins[n] >= kPinnedMargin) ++n;
  return n;
}

std::unique_ptr<LanguageModel> open(const std::string& name, const TensorMap& weights, bool lower) {
  SessionOptions o;
  o.lower_quantized = lower;
  const std::string d = dir(name);
  return std::make_unique<LanguageModel>(load_model_file(d + "prefill.json"), load_model_file(d + "decode.json"),
                                         parse_kv_mapping(text_of(d + "kv_mapping.json"), "kv_mapping.json"),
                                         weights, TensorMap{}, o);
}

// Greedy tokens of each expected.json prompt equal PyTorch's generation of the quantized module
// up to the first thin margin, on the integer kernels and on the reference ops; the comparison
// must pin at least min_pinned tokens over the prompts.
void expect_greedy_follows_pytorch(const std::string& name, size_t min_pinned) {
  const TensorMap weights = read_weights_file(dir(name) + "weights.safetensors");
  const std::vector<Prompt> ps = prompts(name);
  ASSERT_EQ(ps.size(), 3u);
  size_t pinned_total = 0;
  for (bool lower : {true, false}) {
    SCOPED_TRACE(lower ? "integer kernels" : "reference ops");
    auto lm = open(name, weights, lower);
    for (const Prompt& p : ps) {
      ASSERT_EQ(p.margins.size(), p.generated.size());
      const std::vector<int64_t> got = generate(*lm, p.input, static_cast<int64_t>(p.generated.size()), {});
      ASSERT_EQ(got.size(), p.generated.size());
      const size_t n = pinned_steps(p);
      EXPECT_EQ(std::vector<int64_t>(got.begin(), got.begin() + n),
                std::vector<int64_t>(p.generated.begin(), p.generated.begin() + n))
          << "prompt of " << p.input.size() << " tokens, first " << n << " steps";
      if (lower) pinned_total += n;
    }
  }
  EXPECT_GE(pinned_total, min_pinned);
}

}  // namespace

// 14 of 96 tokens pinned with the tiny LLaMA (random weights: thin margins).
TEST(QuantizedLanguageModel, Int4GreedyTokensFollowPyTorchsQuantizedGeneration) {
  expect_greedy_follows_pytorch("tiny_llama_8da4w", 12);
}

// The demo's model trained on Debian's descriptions: 106 of 144 pinned.
TEST(QuantizedLanguageModel, TrainedModelGreedyTokensFollowPyTorchsQuantizedGeneration) {
  expect_greedy_follows_pytorch("debian_lm", 100);
}

namespace {

// PyTorch's quantized module on prompt 1 (7 tokens padded to 32: prefill_io.safetensors) and on
// its 5th decode step (decode_io.safetensors): the logits and the keys/values of the real tokens
// within 1e-4 of PyTorch's, on the integer kernels. (The pad rows are left out: row 30 lands
// one activation quantum away, as described above.)
void check_io(const std::string& graph, int64_t real_rows) {
  SCOPED_TRACE(graph);
  const TensorMap weights = read_weights_file(dir() + "weights.safetensors");
  SessionOptions o;
  o.lower_quantized = true;
  Session s(load_model_file(dir() + graph + ".json"), o);
  s.bind(weights);
  const TensorMap io = read_weights_file(dir() + graph + "_io.safetensors");
  auto io_tensor = [&](const std::string& key) -> const Tensor& {
    const Tensor* t = io.find(key);
    if (!t) throw std::runtime_error(graph + "_io.safetensors has no " + key);
    return *t;
  };
  std::vector<Tensor> inputs;
  for (const auto& in : s.model().graph_inputs) inputs.push_back(io_tensor("input." + in.name));
  const std::vector<Tensor> outs = s.run(inputs);
  ASSERT_EQ(outs.size(), 9u);
  for (size_t i = 0; i < outs.size(); ++i) {
    const Tensor& want = io_tensor("output." + std::to_string(i));
    ASSERT_EQ(outs[i].shape, want.shape);
    // logits [1, rows, V]; keys / values [1, heads, rows, head_dim]: the row is dim 1 / dim 2
    const int row_dim = i == 0 ? 1 : 2;
    const int64_t rows = want.shape[row_dim];
    int64_t inner = 1;
    for (size_t d = row_dim + 1; d < want.shape.size(); ++d) inner *= want.shape[d];
    double m = 0;
    int64_t compared = 0;
    for (int64_t k = 0; k < want.numel(); ++k) {
      if ((k / inner) % rows >= real_rows) continue;
      m = std::max(m, std::fabs(double(outs[i].data<float>()[k]) - double(want.data<float>()[k])));
      ++compared;
    }
    EXPECT_GT(compared, 0) << "output " << i;
    EXPECT_LE(m, 1e-4) << "output " << i;
  }
}

}  // namespace

TEST(QuantizedLanguageModel, Int4PrefillAndDecodeStepMatchPyTorch) {
  check_io("prefill", 7);
  check_io("decode", 1 << 30);  // one query row; the caches' slots all compared
}
