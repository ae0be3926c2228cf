// Weights streamed to the GPU (docs/webgpu.md): a safetensors header read without its
// data, placement before bind (Session::place_for_webgpu), and a session bound with
// weights that have no data here. The executor's upload of them is tested on lavapipe
// (tests/webgpu/streaming.test.mjs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/json.h"
#include "ir/json_loader.h"
#include "runtime/language_model.h"
#include "runtime/session.h"
#include "test_util.h"
#include "webgpu_test_util.h"
#include "weights/safetensors.h"

namespace tir {
using test::expect_throws_with;
namespace {

Tensor filled(Shape shape, float start) {
  Tensor t = make_owned(DType::F32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + float(i);
  return t;
}

// The first 8 + header-length bytes of a safetensors file.
std::shared_ptr<const std::vector<uint8_t>> head_of(const std::vector<uint8_t>& file) {
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t(file[size_t(i)]) << (8 * i);
  return std::make_shared<std::vector<uint8_t>>(file.begin(), file.begin() + ptrdiff_t(8 + n));
}

TEST(SafetensorsHeader, GivesEachTensorsFileOffsetAndNoData) {
  TensorMap m;
  m.set("a", filled({2, 3}, 1));
  m.set("b", filled({5}, 100));
  m.set("empty", filled({0, 4}, 0));
  const std::vector<uint8_t> file = write_safetensors(m);
  std::vector<uint64_t> offsets;
  const TensorMap h = read_safetensors_header(head_of(file), file.size(), "w.safetensors", &offsets);
  ASSERT_EQ(h.items.size(), 3u);
  ASSERT_EQ(offsets.size(), 3u);
  for (size_t i = 0; i < h.items.size(); ++i) {
    const Tensor& t = h.items[i].second;
    const Tensor& want = *m.find(h.items[i].first);
    EXPECT_EQ(t.buffer->data, nullptr);
    EXPECT_EQ(t.shape, want.shape);
    ASSERT_EQ(t.buffer->nbytes, want.nbytes());
    ASSERT_LE(offsets[i] + t.buffer->nbytes, file.size());
    EXPECT_EQ(std::memcmp(file.data() + offsets[i], want.raw(), want.nbytes()), 0) << h.items[i].first;
  }
}

TEST(SafetensorsHeader, RefusesAPartialHeaderAndOffsetsPastTheFile) {
  TensorMap m;
  m.set("a", filled({4}, 0));
  const std::vector<uint8_t> file = write_safetensors(m);
  auto head = head_of(file);
  auto cut = std::make_shared<std::vector<uint8_t>>(head->begin(), head->end() - 3);
  expect_throws_with<WeightLoadError>([&] { read_safetensors_header(cut, file.size(), "w", nullptr); },
                                               "was not given whole");
  // The file is shorter than the header says its data is: truncated.
  expect_throws_with<WeightLoadError>(
      [&] { read_safetensors_header(head, file.size() - 1, "w", nullptr); }, "extend past the end");
}

struct Fixture {
  std::string dir;
  std::string weights;
};

Fixture fixture(const std::string& name) {
  Fixture f{test::fixtures_dir() + "/models/" + name, ""};
  f.weights = f.dir + "/weights.safetensors";
  if (!test::file_exists(f.weights))
    f.weights = test::generated_fixtures_dir() + "/models/" + name + "/weights.safetensors";
  if (!test::file_exists(f.weights)) f.weights = test::generated_fixtures_dir() + "/" + name + "/weights.safetensors";
  return f;
}

// The weights of `f` as streamed (no data), but for `keep`, which get theirs.
TensorMap streamed_weights(const Fixture& f, const std::vector<std::string>& keep) {
  const auto file = read_file_bytes(f.weights);
  TensorMap header = read_safetensors_header(head_of(*file), file->size(), f.weights, nullptr);
  const TensorMap full = read_safetensors(file, f.weights);
  const std::set<std::string> kept(keep.begin(), keep.end());
  TensorMap out;
  for (auto& kv : header.items) out.set(kv.first, kept.count(kv.first) ? *full.find(kv.first) : kv.second);
  return out;
}

TEST(WebGpuStreaming, AllGpuModelKeepsOnlyFusedBatchNormParamsInMemory) {
  const Fixture f = fixture("resnet18/torch2.14-training");
  Session s(load_model_json(test::read_text(f.dir + "/model.json")), test::webgpu_session_options());
  const std::vector<std::string> cpu = s.place_for_webgpu(uint64_t(128) << 20);
  // Every batch norm is fused into its convolution; prepare makes its scale and shift from the
  // params in memory (a few KB), every other weight streams.
  ASSERT_FALSE(cpu.empty());
  for (const std::string& key : cpu)
    EXPECT_TRUE(key.find("bn") != std::string::npos || key.find("downsample.1") != std::string::npos ||
                key.find("downsample_1") != std::string::npos)  // a state_dict key or a placeholder
        << key;
  s.bind(streamed_weights(f, cpu));
  EXPECT_GT(s.weight_bytes(false), 0u);
  EXPECT_LT(s.weight_bytes(false), 100u << 10);
  EXPECT_GT(s.weight_bytes(true), 40u << 20);  // ResNet-18's 11.7M float32 parameters
  const json::Document doc = json::Document::parse(s.webgpu_plan(uint64_t(128) << 20));
  EXPECT_EQ(doc.root()["placement"]["wasm"].as_int64(), 0);
  size_t streamed = 0, affines = 0;
  for (const json::Value v : doc.root()["values"])
    if (v["kind"].str() == "weight") {
      const std::string label(v["label"].str());
      if (label.size() > 10 && label.compare(label.size() - 10, 10, ".bn_affine") == 0) {
        ++affines;  // made at prepare, uploaded from memory
        continue;
      }
      EXPECT_EQ(v["streamed"].str(), label);  // the source tensor's name: its state_dict key
      ++streamed;
    }
  EXPECT_GT(streamed, 0u);
  EXPECT_EQ(affines, 20u);  // ResNet-18's batch norms
  // The GPU nodes were not prepared for WASM: a CPU run names the first one.
  expect_throws_with<ExecutionError>([&] { s.run_slots(); }, "placed on the GPU");
}

TEST(WebGpuStreaming, WeightsOfWasmNodesStayInMemory) {
  // A 1 KiB binding limit keeps most of small_cnn on WASM: their weights must have data.
  const Fixture f = fixture("small_cnn/torch2.14-training");
  Session s(load_model_json(test::read_text(f.dir + "/model.json")), test::webgpu_session_options());
  const std::vector<std::string> cpu = s.place_for_webgpu(1024);
  ASSERT_FALSE(cpu.empty());
  // Binding without their data is refused, naming the weight.
  expect_throws_with<WeightLoadError>([&] { s.bind(streamed_weights(f, {})); }, "has no data");
  Session t(load_model_json(test::read_text(f.dir + "/model.json")), test::webgpu_session_options());
  t.place_for_webgpu(1024);
  t.bind(streamed_weights(f, cpu));
  EXPECT_GT(t.weight_bytes(false), 0u);
  const json::Document doc = json::Document::parse(t.webgpu_plan(1024));
  EXPECT_GT(doc.root()["placement"]["wasm"].as_int64(), 0);
  EXPECT_GT(doc.root()["placement"]["webgpu"].as_int64(), 0);
  // The WASM parts run (their weights are here); the GPU-only ones refuse.
  bool ran_wasm = false;
  for (const json::Value item : doc.root()["program"])
    if (item["op"].str() == "wasm") {
      t.run_steps(size_t(item["first"].as_int64()), size_t(item["last"].as_int64()));
      ran_wasm = true;
    }
  EXPECT_TRUE(ran_wasm);
}

TEST(WebGpuStreaming, ANodeThatAnInt64ConstantMovesToWasmKeepsItsWeights) {
  // The where reads an int64 constant folded at prepare, past int32: before bind the placement
  // cannot see its values and puts it on the GPU, the plan then puts it on WASM. Its weight
  // (table) was kept in memory for that, and it is prepared then.
  Session s(load_model_json(test::int64_past_int32_ir()), test::webgpu_session_options());
  const std::vector<std::string> cpu = s.place_for_webgpu(uint64_t(128) << 20);
  EXPECT_NE(std::find(cpu.begin(), cpu.end(), "table"), cpu.end());
  TensorMap tm;
  tm.set("table", make_owned(DType::I64, {5}));
  s.bind(tm);
  EXPECT_EQ(s.weight_bytes(false), 5 * sizeof(int64_t));  // held here, not streamed
  const json::Document doc = json::Document::parse(s.webgpu_plan(uint64_t(128) << 20));
  bool named = false;
  for (const json::Value fb : doc.root()["fallbacks"])
    named = named || fb["why"].str().find("int64 constant outside") != std::string::npos;
  EXPECT_TRUE(named) << doc.root()["fallbacks"].to_json();
}

TEST(WebGpuStreaming, LanguageModelPlacesBothGraphsBeforeBind) {
  const std::string dir = test::fixtures_dir() + "/llm/tiny_llama/";
  Fixture f{dir, test::generated_fixtures_dir() + "/llm/tiny_llama/weights.safetensors"};
  if (!test::file_exists(f.weights)) GTEST_SKIP() << "no generated LLM weights (tools/make_fixtures.sh)";
  SessionOptions o = test::webgpu_session_options();
  o.update_in_place = true;  // loadLM donates the caches
  LanguageModel lm(load_model_json(test::read_text(dir + "prefill.json")),
                   load_model_json(test::read_text(dir + "decode.json")),
                   parse_kv_mapping(test::read_text(dir + "kv_mapping.json"), "kv_mapping.json"), o);
  const std::vector<std::string> cpu = lm.place_for_webgpu(uint64_t(128) << 20);
  lm.bind(streamed_weights(f, cpu));
  EXPECT_GT(lm.prefill_session().weight_bytes(true), 0u);
  const json::Document doc = json::Document::parse(lm.webgpu_plan(uint64_t(128) << 20));
  EXPECT_GT(doc.root()["decode"]["placement"]["webgpu"].as_int64(), 0);
  // Generation on the CPU alone would read streamed weights: refused, naming a node.
  expect_throws_with<ExecutionError>([&] { lm.start({1, 2, 3}, SamplingOptions{}, 2); }, "placed on the GPU");
}

TEST(WebGpuStreaming, PlacementComesBeforeBind) {
  const Fixture f = fixture("small_cnn/torch2.14-training");
  Session s(load_model_json(test::read_text(f.dir + "/model.json")), test::webgpu_session_options());
  s.bind(read_safetensors_file(f.weights));
  expect_throws_with<ExecutionError>([&] { s.place_for_webgpu(1024); }, "after bind()");
  // Without a placement, a weight with no data is refused at bind.
  Session t(load_model_json(test::read_text(f.dir + "/model.json")), test::webgpu_session_options());
  expect_throws_with<WeightLoadError>([&] { t.bind(streamed_weights(f, {})); }, "has no data");
}

}  // namespace
}  // namespace tir
