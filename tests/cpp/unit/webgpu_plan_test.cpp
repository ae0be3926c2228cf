// The WebGPU placement pass and plan (runtime/webgpu_plan.cpp), natively: no GPU needed to
// check what the compiler decides. The kernels themselves are tested on a real WebGPU
// implementation by tests/webgpu (lavapipe in CI).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/errors.h"
#include "core/json.h"
#include "ir/json_loader.h"
#include "model_fixtures.h"
#include "runtime/session.h"
#include "test_util.h"
#include "webgpu_test_util.h"
#include "weights/safetensors.h"

namespace tir {
namespace {

std::string plan_of(const std::string& fixture, uint64_t max_binding = uint64_t(128) << 20) {
  const std::string dir = test::fixtures_dir() + "/models/" + fixture;
  std::string weights = dir + "/weights.safetensors";
  if (!test::file_exists(weights)) weights = test::generated_fixtures_dir() + "/models/" + fixture + "/weights.safetensors";
  if (!test::file_exists(weights)) weights = test::generated_fixtures_dir() + "/" + fixture + "/weights.safetensors";
  Session s(load_model_json(test::read_text(dir + "/model.json")), test::webgpu_session_options());
  s.bind(read_safetensors_file(weights));
  return s.webgpu_plan(max_binding);
}

// Whether dispatch d writes its binding b (the plan's "written" list).
bool written(const json::Value& d, int64_t b) {
  for (const json::Value w : d["written"])
    if (w.as_int64() == b) return true;
  return false;
}

// The invariants the executor relies on: every bound value has a GPU slot; no dispatch binds
// one slot twice when one of the two bindings is written (WebGPU forbids that aliasing); values
// that share a slot are never bound by the same dispatch; a WASM step only reads values the
// plan made valid on the CPU.
void check_invariants(const json::Value& plan) {
  const json::Value values = plan["values"];
  for (const json::Value item : plan["program"]) {
    if (item["op"].str() != "gpu") continue;
    for (const json::Value d : item["dispatches"]) {
      std::map<int64_t, std::set<int64_t>> slot_values;  // slot -> values bound
      std::set<int64_t> written_slots;
      int64_t b = 0;
      for (const json::Value id : d["bind"]) {
        const int64_t v = id.as_int64();
        if (v >= 0) {
          const int64_t slot = values.at(size_t(v))["slot"].as_int64();
          ASSERT_GE(slot, 0) << item["node"].str();
          slot_values[slot].insert(v);
          const bool writes = written(d, b);
          if (writes) {
            EXPECT_TRUE(written_slots.insert(slot).second) << item["node"].str();
          }
        }
        ++b;
      }
      for (const auto& [slot, vs] : slot_values) EXPECT_EQ(vs.size(), 1u) << item["node"].str() << " slot " << slot;
      b = 0;
      std::map<int64_t, int> uses;
      for (const json::Value id : d["bind"]) {
        if (id.as_int64() >= 0) ++uses[values.at(size_t(id.as_int64()))["slot"].as_int64()];
      }
      for (const json::Value id : d["bind"]) {
        const int64_t v = id.as_int64();
        const bool writes = written(d, b);
        if (v >= 0 && writes) EXPECT_EQ(uses[values.at(size_t(v))["slot"].as_int64()], 1) << item["node"].str();
        ++b;
      }
    }
  }
}

TEST(WebGpuPlan, ResNet18TrainingIrRunsEntirelyOnTheGpu) {
  const std::string text = plan_of("resnet18/torch2.14-training");
  const json::Document doc = json::Document::parse(text);
  const json::Value p = doc.root()["placement"];
  EXPECT_EQ(p["wasm"].as_int64(), 0) << doc.root()["fallbacks"].to_json();
  EXPECT_EQ(p["webgpu"].as_int64(), 68);  // 20 conv + 20 bn + 17 relu + 8 add + pools + linear + flatten copy
  EXPECT_EQ(p["uploads"].as_int64(), 1);    // the image
  EXPECT_EQ(p["downloads"].as_int64(), 1);  // the logits
  check_invariants(doc.root());
  // Slots are shared: fewer GPU buffers than values.
  size_t weights = 0, slots_for_values = 0;
  std::set<int64_t> value_slots;
  for (const json::Value v : doc.root()["values"]) {
    if (v["kind"].str() == "weight") ++weights;
    else if (v["slot"].as_int64() >= 0) value_slots.insert(v["slot"].as_int64()), ++slots_for_values;
  }
  EXPECT_GT(weights, 0u);
  EXPECT_LT(value_slots.size(), slots_for_values);
}

TEST(WebGpuPlan, TransformerEncoderPlacesEveryComputeNode) {
  const json::Document doc = json::Document::parse(plan_of("bert_encoder/torch2.14-training"));
  EXPECT_EQ(doc.root()["placement"]["wasm"].as_int64(), 0) << doc.root()["fallbacks"].to_json();
  check_invariants(doc.root());
}

TEST(WebGpuPlan, AValuePastTheBindingLimitKeepsItsReadersOnWasm) {
  // With a 1 KiB binding limit, the first convolution's weight (and most activations) cannot be
  // bound: those nodes stay on WASM, each with the reason, and the plan stays consistent.
  const json::Document doc = json::Document::parse(plan_of("small_cnn/torch2.14-training", 1024));
  EXPECT_GT(doc.root()["placement"]["wasm"].as_int64(), 0);
  bool named = false;
  for (const json::Value f : doc.root()["fallbacks"])
    named = named || f["why"].str().find("largest storage binding") != std::string::npos;
  EXPECT_TRUE(named) << doc.root()["fallbacks"].to_json();
  check_invariants(doc.root());
}

TEST(WebGpuPlan, AnInt64ConstantPastInt32KeepsItsReadersOnWasm) {
  // T5's relative-position buckets select (where) between int64 tensors, one of them a folded
  // constant holding values past int32 (log(0) cast to int64) that the GPU cannot hold.
  const json::Document doc = json::Document::parse(plan_of("t5/torch2.14-training"));
  bool named = false;
  for (const json::Value f : doc.root()["fallbacks"])
    named = named || f["why"].str().find("int64 constant outside") != std::string::npos;
  EXPECT_TRUE(named) << doc.root()["fallbacks"].to_json();
  check_invariants(doc.root());
}

TEST(WebGpuPlan, DataDependentGraphsStayOnWasmWithTheReason) {
  const json::Document doc = json::Document::parse(plan_of("datadep_probe/torch2.14-training"));
  EXPECT_EQ(doc.root()["placement"]["webgpu"].as_int64(), 0);
  EXPECT_NE(doc.root()["fallbacks"].at(0)["why"].str().find("data-dependent"), std::string::npos);
}

TEST(WebGpuPlan, RunStepsRefusesBadRangesAndDataDependentGraphs) {
  const std::string dir = test::fixtures_dir() + "/models/small_cnn/torch2.14-training";
  Session s(load_model_json(test::read_text(dir + "/model.json")), test::webgpu_session_options());
  s.bind(read_safetensors_file(dir + "/weights.safetensors"));
  EXPECT_THROW(s.run_steps(3, 2), ExecutionError);
  EXPECT_THROW(s.run_steps(0, 1000), ExecutionError);
  const std::string dd = test::fixtures_dir() + "/models/datadep_probe/torch2.14-training";
  Session d(load_model_json(test::read_text(dd + "/model.json")), test::webgpu_session_options());
  d.bind(read_safetensors_file(dd + "/weights.safetensors"));
  EXPECT_THROW(d.run_steps(0, 0), ExecutionError);
}

}  // namespace
}  // namespace tir
