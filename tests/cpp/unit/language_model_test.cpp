// LanguageModel on the tiny LLaMA fixture (tests/fixtures/llm/tiny_llama:
// transformers' LlamaForCausalLM exported as pytorch-ir's prefill/decode pair;
// weights from tools/llm_weights.py under $TIR_GENERATED_FIXTURES): greedy
// tokens equal Hugging Face generate()'s, the donated (in-place) cache path is
// bit-identical to the copying one, sampling is reproducible, and files that
// do not fit together fail with messages naming the tensor.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <set>

#include "core/json.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "ir/json_loader.h"
#include "ir/kv_mapping.h"
#include "runtime/language_model.h"
#include "test_util.h"
#include "weights/torch_save.h"

using namespace tir;
using ::testing::HasSubstr;

namespace {

std::string text_of(const std::string& path) {
  auto b = read_file_bytes(path);
  return std::string(b->begin(), b->end());
}

struct Fixture {
  std::string dir;
  TensorMap weights;
  KvMapping mapping;
  std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> prompts;  // prompt -> HF generate ids
};

const Fixture* fixture() {
  static const Fixture* f = [] {
    const std::string weights = test::generated_fixtures_dir() + "/llm/tiny_llama/weights.safetensors";
    std::vector<uint8_t> probe;
    std::string err;
    if (!try_read_file(weights, &probe, &err)) return static_cast<Fixture*>(nullptr);
    auto* fx = new Fixture;
    fx->dir = test::fixtures_dir() + "/llm/tiny_llama/";
    fx->weights = read_weights_file(weights);
    fx->mapping = parse_kv_mapping(text_of(fx->dir + "kv_mapping.json"), "kv_mapping.json");
    const json::Document d = json::Document::parse(text_of(fx->dir + "expected.json"));
    for (json::Value p : d.root()["prompts"]) {
      std::vector<int64_t> in, out;
      for (json::Value v : p["input_ids"]) in.push_back(v.as_int64());
      for (json::Value v : p["generated_ids"]) out.push_back(v.as_int64());
      fx->prompts.emplace_back(in, out);
    }
    return static_cast<Fixture*>(fx);
  }();
  return f;
}

std::unique_ptr<LanguageModel> open(const Fixture& f, bool in_place = true, std::string prefill = "",
                                    std::string decode = "", const KvMapping* mapping = nullptr,
                                    DType weight_dtype = DType::F32) {
  SessionOptions o;
  o.update_in_place = in_place;
  o.weight_dtype = weight_dtype;
  return std::make_unique<LanguageModel>(
      prefill.empty() ? load_model_file(f.dir + "prefill.json") : load_model_json(prefill, "prefill"),
      decode.empty() ? load_model_file(f.dir + "decode.json") : load_model_json(decode, "decode"),
      mapping ? *mapping : f.mapping, f.weights, TensorMap{}, o);
}

#define NEED_FIXTURE()                                                                       \
  const Fixture* fx = fixture();                                                             \
  if (!fx) GTEST_SKIP() << "no generated LLM weights (run tools/make_fixtures.sh build/fixtures)"

}  // namespace

TEST(LanguageModel, GreedyTokensMatchHuggingFaceGenerate) {
  NEED_FIXTURE();
  auto lm = open(*fx);
  EXPECT_EQ(lm->prefill_len(), 32);
  EXPECT_EQ(lm->max_cache_len(), 128);
  EXPECT_EQ(lm->vocab_size(), 1024);
  EXPECT_EQ(lm->num_layers(), 4);
  ASSERT_EQ(fx->prompts.size(), 3u);
  for (const auto& [prompt, expected] : fx->prompts) {
    EXPECT_EQ(generate(*lm, prompt, 32, {}), expected) << "prompt of " << prompt.size() << " tokens";
    EXPECT_EQ(lm->stats().cache_bytes_copied_per_step, 0u);  // donated: updated in place
    EXPECT_EQ(lm->stats().decode_steps, 31);
  }
}

TEST(LanguageModel, DonatedCachesAreBitIdenticalToCopiedOnes) {
  NEED_FIXTURE();
  auto donated = open(*fx, true), copied = open(*fx, false);
  const auto& prompt = fx->prompts[1].first;
  ASSERT_EQ(donated->start(prompt, {}, 40), copied->start(prompt, {}, 40));
  for (int step = 0; step < 39; ++step) {
    ASSERT_EQ(donated->step(), copied->step()) << "step " << step;
    const Tensor &a = donated->decode_session().output_views()[0], &b = copied->decode_session().output_views()[0];
    ASSERT_EQ(std::memcmp(a.raw(), b.raw(), a.nbytes()), 0) << "logits differ at step " << step;
  }
  EXPECT_EQ(donated->stats().cache_bytes_copied_per_step, 0u);
  EXPECT_EQ(copied->stats().cache_bytes_copied_per_step, 2 * copied->stats().cache_bytes);
}

TEST(LanguageModel, PrefillAndDecodeShareOnePackedCopyOfTheWeights) {
  NEED_FIXTURE();
  for (DType wd : {DType::F32, DType::F16}) {
    auto lm = open(*fx, true, "", "", nullptr, wd);
    SessionOptions alone;
    alone.weight_dtype = wd;
    Session decode(load_model_file(fx->dir + "decode.json"), alone);
    decode.bind(fx->weights);
    // Every linear of the decode graph is packed once, and prefill adds nothing.
    EXPECT_GT(decode.prepared_bytes(), 0u);
    EXPECT_EQ(lm->decode_session().prepared_bytes(), decode.prepared_bytes()) << dtype_name(wd);
    EXPECT_EQ(lm->prefill_session().prepared_bytes(), decode.prepared_bytes()) << dtype_name(wd);
  }
}

TEST(LanguageModel, SamplingIsReproducibleWithASeed) {
  NEED_FIXTURE();
  auto lm = open(*fx);
  SamplingOptions s;
  s.temperature = 0.8;
  s.top_k = 50;
  s.top_p = 0.95;
  s.seed = 7;
  const auto& prompt = fx->prompts[0].first;
  const auto a = generate(*lm, prompt, 20, s), b = generate(*lm, prompt, 20, s);
  EXPECT_EQ(a, b);
  s.seed = 8;
  EXPECT_NE(generate(*lm, prompt, 20, s), a);
  // Stop tokens end generation (included), on_token can stop too.
  const auto& greedy = fx->prompts[0].second;
  EXPECT_EQ(generate(*lm, prompt, 32, {}, {greedy[3]}), std::vector<int64_t>(greedy.begin(), greedy.begin() + 4));
  EXPECT_EQ(generate(*lm, prompt, 32, {}, {}, [](int64_t, int64_t i) { return i < 1; }).size(), 2u);
}

TEST(LanguageModel, PromptAndLengthErrors) {
  NEED_FIXTURE();
  auto lm = open(*fx);
  auto fails = [&](std::vector<int64_t> prompt, int64_t n, const char* what) {
    try {
      lm->start(prompt, {}, n);
      ADD_FAILURE() << "no error for " << what;
    } catch (const ExecutionError& e) {
      EXPECT_THAT(e.what(), HasSubstr(what));
    }
  };
  fails({}, 4, "the prompt is empty");
  fails(std::vector<int64_t>(33, 1), 4, "the prompt has 33 tokens but the prefill IR takes at most 32");
  fails({1, 2, 1024}, 4, "prompt token 2 is 1024, outside the vocabulary [0, 1024)");
  fails({1, 2, 3}, 127, "need 129 cache slots; the decode IR has 128 (max_cache_len), so at most 126 new tokens");
  lm->start({1, 2, 3}, {}, 2);
  lm->step();
  EXPECT_THROW(lm->step(), ExecutionError);  // maxNewTokens reached
}

TEST(LanguageModel, FilesThatDoNotFitTogether) {
  NEED_FIXTURE();
  auto fails = [&](const std::function<void()>& f, const char* what) {
    try {
      f();
      ADD_FAILURE() << "no error for " << what;
    } catch (const IRFormatError& e) {
      EXPECT_THAT(e.what(), HasSubstr(what));
    }
  };
  KvMapping m = fx->mapping;
  m.layers[2].decode_value_input = "nope";
  fails([&] { open(*fx, true, "", "", &m); }, "KV mapping layer 2: decode value input 'nope' is not a graph input of the decode IR");
  m = fx->mapping;
  m.max_cache_len = 64;
  fails([&] { open(*fx, true, "", "", &m); }, "KV mapping says max_cache_len 64 but the decode IR's attention_mask has 128 key slots");
  m = fx->mapping;
  std::swap(m.layers[0].prefill_key_output, m.layers[0].decode_key_output);
  fails([&] { open(*fx, true, "", "", &m); }, "KV mapping layer 0: prefill key output");
  // Prefill and decode swapped.
  fails([&] { open(*fx, true, text_of(fx->dir + "decode.json"), text_of(fx->dir + "prefill.json")); },
        "IR");
  fails([&] { parse_kv_mapping(R"({"num_layers": 2, "layers": []})", "k.json"); },
        "k.json: KV mapping: num_layers is 2 but \"layers\" has 0 entries");
  fails([&] { parse_kv_mapping("{", "k.json"); }, "k.json: KV mapping: invalid JSON");
}

// Half-precision weights (SessionOptions::weight_dtype): each weight is rounded
// with relative error u (2^-11 for float16, 2^-8 for bfloat16), so the logits
// move by about u times their scale. The stated tolerance: every decode
// logit within 2 u max|logit| of the float32-weight run (measured: 0.97 u for
// both kinds on these prompts). With float16 the greedy tokens still equal
// Hugging Face's on all three prompts; bfloat16 may pick another token once
// two candidates are closer than its error (the 7-token prompt diverges at
// token 15), so only its logits are checked.
TEST(LanguageModel, HalfWeightsStayWithinTheirRoundingTolerance) {
  NEED_FIXTURE();
  auto f32 = open(*fx);
  for (DType wd : {DType::F16, DType::BF16}) {
    auto half = open(*fx, true, "", "", nullptr, wd);
    const double u = wd == DType::F16 ? 0x1p-11 : 0x1p-8;
    for (const auto& [prompt, expected] : fx->prompts) {
      if (wd == DType::F16) EXPECT_EQ(generate(*half, prompt, 32, {}), expected);
      // Logits compared over the first 8 decode steps, where both still pick
      // the same tokens (checked), so both runs see the same inputs.
      ASSERT_EQ(f32->start(prompt, {}, 9), half->start(prompt, {}, 9));
      for (int step = 0; step < 8; ++step) {
        const Tensor &a = f32->decode_session().output_views()[0], &b = half->decode_session().output_views()[0];
        if (step > 0) {
          double scale = 0, diff = 0;
          for (int64_t i = 0; i < a.numel(); ++i) {
            scale = std::max(scale, double(std::fabs(a.data<float>()[i])));
            diff = std::max(diff, double(std::fabs(a.data<float>()[i] - b.data<float>()[i])));
          }
          EXPECT_LE(diff, 2 * u * scale) << dtype_name(wd) << " step " << step;
        }
        ASSERT_EQ(f32->step(), half->step()) << dtype_name(wd) << " step " << step;
      }
    }
  }
}

// The WebGPU plan of both graphs (LanguageModel::webgpu_plan, replayed by npm/lib/webgpu/lm.js):
// the decode caches are resident GPU inputs that never cross to the CPU in a step, the prefill's
// keys/values stay on the GPU for the copies into the caches, and with donation index_copy
// writes the resident caches in place (nothing to carry); without it, a whole-cache carry copy.
TEST(LanguageModel, WebGpuPlanKeepsTheCachesOnTheGpu) {
  NEED_FIXTURE();
  for (const bool donate : {true, false}) {
    SessionOptions o;  // what loadLM compiles for WebGPU: fusion on
    o.update_in_place = donate;
    LanguageModel lm(load_model_file(fx->dir + "prefill.json"), load_model_file(fx->dir + "decode.json"), fx->mapping,
                     fx->weights, TensorMap{}, o);
    const json::Document d = json::Document::parse(lm.webgpu_plan(uint64_t(128) << 20));
    const json::Value pre = d.root()["prefill"], dec = d.root()["decode"], caches = d.root()["caches"];
    ASSERT_EQ(caches.size(), size_t(2 * lm.num_layers()));
    std::set<int64_t> resident, kept;
    for (const json::Value c : caches) {
      const int64_t in = dec["inputs"].at(size_t(c["decode_in"].as_int64())).as_int64();
      const int64_t out = dec["outputs"].at(size_t(c["decode_out"].as_int64())).as_int64();
      EXPECT_TRUE(dec["values"].at(size_t(in))["resident"].as_bool());
      resident.insert(in);
      kept.insert(pre["outputs"].at(size_t(c["prefill_out"].as_int64())).as_int64());
      const int64_t bytes = 4 * 2 * lm.max_cache_len() * 32;  // [1, 2, C, 32] float32
      EXPECT_EQ(c["clear"].at(1).as_int64(), bytes);
      EXPECT_EQ(c["fill"].size(), 2u);  // one copy per head
      if (donate) {
        EXPECT_EQ(out, in) << "the donated output is the resident input";
        EXPECT_EQ(c["carry"].size(), 0u);
      } else {
        EXPECT_NE(out, in);
        ASSERT_EQ(c["carry"].size(), 1u);
        EXPECT_EQ(c["carry"].at(0).at(2).as_int64(), bytes);
      }
    }
    for (const json::Value item : dec["program"]) {
      const std::string op(item["op"].str());
      if (op == "upload" || op == "download") EXPECT_FALSE(resident.count(item["value"].as_int64())) << op;
    }
    for (const json::Value item : pre["program"])
      if (item["op"].str() == "download") EXPECT_FALSE(kept.count(item["value"].as_int64()));
    EXPECT_GT(dec["placement"]["webgpu"].as_int64(), 100);
  }
}
