// The WebGPU placement pass and plan (runtime/webgpu_plan.cpp), natively: no GPU needed to
// check what the compiler decides. The kernels themselves are tested on a real WebGPU
// implementation by tests/webgpu (lavapipe in CI).
#include <gtest/gtest.h>

#include <algorithm>
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

std::string plan_of(const std::string& fixture, WebGpuDevice device = {}) {
  const std::string dir = test::fixtures_dir() + "/models/" + fixture;
  std::string weights = dir + "/weights.safetensors";
  if (!test::file_exists(weights)) weights = test::generated_fixtures_dir() + "/models/" + fixture + "/weights.safetensors";
  if (!test::file_exists(weights)) weights = test::generated_fixtures_dir() + "/" + fixture + "/weights.safetensors";
  Session s(load_model_json(test::read_text(dir + "/model.json")), test::webgpu_session_options());
  s.bind(read_safetensors_file(weights));
  return s.webgpu_plan(device);
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
  // Fusion: each batch norm, residual add and relu runs in its convolution's store (the conv's
  // item lists them); the placement still counts every IR node.
  int64_t items = 0, dispatches = 0, covered = 0, fused_relus = 0;
  for (const json::Value item : doc.root()["program"]) {
    if (item["op"].str() != "gpu") continue;
    ++items;
    dispatches += int64_t(item["dispatches"].size());
    for (const json::Value c : item["covers"]) {
      ++covered;
      fused_relus += c.str().rfind("relu", 0) == 0;
    }
  }
  EXPECT_EQ(items + covered, 68);
  // All 20 batch norms; the relus after the stem's and every block's first bn (9); the add and
  // relu of the 5 blocks without a downsample. In the other 3 the downsample's output, the add's
  // second operand, is made after the block's second conv, and the add is an in-place add_ into
  // the main branch's buffer, which the downsample conv cannot write as its own output.
  EXPECT_EQ(covered, 20 + 9 + 5 + 5);
  // One dispatch per node, two where the convolution splits K (the next test).
  int64_t split = 0;
  for (const json::Value item : doc.root()["program"])
    split += item["op"].str() == "gpu" && item["dispatches"].size() == 2;
  EXPECT_EQ(dispatches, items + split);
  EXPECT_GT(fused_relus, 0);
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

// Split-K: a 3x3 convolution over few output tiles with a long K (cin * 9) sums K in chunks as
// more workgroups, into partial sums that only the GPU holds, and split_k_sum adds them up with
// the bias and the fused batch norm and relu. In this fixture's 64 x 64 ResNet-18 every 3x3
// convolution from layer1 on has K >= 576 over at most 4 tiles of 16 x 16 outputs.
TEST(WebGpuPlan, AConvolutionOverFewTilesWithALongKSplitsK) {
  const json::Document doc = json::Document::parse(plan_of("resnet18/torch2.14-training"));
  const json::Value values = doc.root()["values"];
  std::set<int64_t> partials;
  int64_t splits = 0;
  for (const json::Value item : doc.root()["program"]) {
    if (item["op"].str() == "upload") EXPECT_EQ(partials.count(item["value"].as_int64()), 0u);
    if (item["op"].str() != "gpu" || item["dispatches"].size() != 2) continue;
    const std::string node(item["node"].str());
    const json::Value part = item["dispatches"].at(0), sum = item["dispatches"].at(1);
    EXPECT_EQ(part["kernel"].str(), "conv2d_gemm") << node;
    EXPECT_EQ(sum["kernel"].str(), "split_k_sum") << node;
    const int64_t chunk = part["meta"]["k_chunk"].as_int64(), chunks = sum["meta"]["chunks"].as_int64();
    const int64_t K = part["meta"]["cin"].as_int64() * 9;
    EXPECT_EQ(chunk % 16, 0) << node;
    EXPECT_GE(chunk, 64) << node;
    EXPECT_TRUE(chunks >= 2 && chunks <= 8) << node;
    EXPECT_TRUE(chunk * (chunks - 1) < K && chunk * chunks >= K) << node << " K " << K;  // no empty chunk
    EXPECT_EQ(part["wg"].at(2).as_int64(), chunks) << node;  // one image
    EXPECT_EQ(part["meta"]["has_b"].as_int64(), 0) << node;
    // The partials: written by the first, read by the second; a GPU-only value.
    const int64_t p = part["bind"].at(0).as_int64();
    EXPECT_EQ(sum["bind"].at(1).as_int64(), p) << node;
    EXPECT_EQ(values.at(size_t(p))["label"].str(), "split-K partial sums") << node;
    EXPECT_EQ(values.at(size_t(p))["numel"].as_int64(), chunks * sum["meta"]["numel"].as_int64()) << node;
    partials.insert(p);
    // The batch norm (and relu) fused into the conv run in split_k_sum's store.
    EXPECT_GT(sum["meta"]["epi_bn"].as_int64(), 0) << node;
    EXPECT_FALSE(item["covers"].size() == 0) << node;
    ++splits;
  }
  EXPECT_GE(splits, 10);
  EXPECT_EQ(doc.root()["placement"]["uploads"].as_int64(), 1);  // the image: no partials go up
  check_invariants(doc.root());
}

// The U-Net's up-sampling conv_transpose2d runs on the direct kernel's transposed mode, so the
// whole U-Net is on the GPU.
TEST(WebGpuPlan, UNetConvTransposeRunsOnTheGpu) {
  const json::Document doc = json::Document::parse(plan_of("unet/torch2.14-training"));
  EXPECT_EQ(doc.root()["placement"]["wasm"].as_int64(), 0) << doc.root()["fallbacks"].to_json();
  int64_t transposed = 0;
  for (const json::Value item : doc.root()["program"]) {
    if (item["op"].str() != "gpu" || item["op_type"].str() != "aten.conv_transpose2d.input") continue;
    const json::Value d = item["dispatches"].at(0);
    EXPECT_EQ(d["kernel"].str(), "conv2d");
    EXPECT_EQ(d["meta"]["transposed"].as_int64(), 1);
    ++transposed;
  }
  EXPECT_EQ(transposed, 1);
  check_invariants(doc.root());
}

TEST(WebGpuPlan, TransformerEncoderPlacesEveryComputeNode) {
  const json::Document doc = json::Document::parse(plan_of("bert_encoder/torch2.14-training"));
  EXPECT_EQ(doc.root()["placement"]["wasm"].as_int64(), 0) << doc.root()["fallbacks"].to_json();
  check_invariants(doc.root());
}

// nn.MultiheadAttention's in_proj is a linear over x.transpose(0, 1), [S, 1, D]: its one batch
// dim folds into the GEMM's rows (one [S, D] GEMM), where a batch of S one-row GEMVs would read
// the whole weight S times (BERT-base on an H100 spent most of its time there).
TEST(WebGpuPlan, ALinearOverATransposedInputIsOneGemm) {
  const json::Document doc = json::Document::parse(plan_of("vit_tiny/torch2.14-training"));
  int64_t in_proj = 0;
  for (const json::Value item : doc.root()["program"]) {
    if (item["op"].str() != "gpu" || item["op_type"].str() != "aten.linear.default") continue;
    const std::string node(item["node"].str());
    ASSERT_EQ(item["dispatches"].size(), 1u) << node;
    const json::Value d = item["dispatches"].at(0);
    if (node == "linear" || node == "linear_4") {  // [17, 1, 32] inputs, transposed views
      ++in_proj;
      EXPECT_EQ(d["kernel"].str(), "matmul") << node;
      EXPECT_EQ(d["meta"]["m"].as_int64(), 17) << node;
      EXPECT_EQ(d["meta"]["batch_rank"].as_int64(), 0) << node;
      EXPECT_EQ(d["meta"]["a_rs"].as_int64(), 32) << node;
    }
  }
  EXPECT_EQ(in_proj, 2);
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

// A weight past the binding limit is held as parts of its rows, each a GPU buffer of its own:
// LLaMA's embedding, MLP and lm_head weights (64 x 32 and 32 x 64 floats, 8 KiB) under a
// 6000-byte limit. The embedding gathers from each part and each linear runs one GEMM per part
// into its window of the output's columns; no node leaves the GPU (its activations fit).
TEST(WebGpuPlan, AWeightPastTheBindingLimitIsSplitIntoPartsOfRows) {
  const json::Document doc = json::Document::parse(plan_of("llama_decoder/torch2.14-training", 6000));
  const json::Value plan = doc.root();
  EXPECT_EQ(plan["placement"]["wasm"].as_int64(), 0) << plan["fallbacks"].to_json();
  check_invariants(plan);
  const json::Value values = plan["values"];
  auto is_part = [&](int64_t id) { return id >= 0 && values.at(size_t(id))["label"].str().find('[') != std::string::npos; };
  std::map<std::string, std::vector<int64_t>> parts_read;  // node -> the part values it binds, in order
  for (const json::Value item : plan["program"]) {
    if (item["op"].str() != "gpu") continue;
    for (const json::Value d : item["dispatches"])
      for (const json::Value id : d["bind"])
        if (is_part(id.as_int64())) parts_read[std::string(item["node"].str())].push_back(id.as_int64());
  }
  // embedding, 2 x 2 MLP up/gate, 2 down_proj, lm_head: 2 parts each, one per dispatch.
  EXPECT_EQ(parts_read.size(), 8u);
  for (const auto& [node, ids] : parts_read) {
    ASSERT_EQ(ids.size(), 2u) << node;
    for (int64_t id : ids) {
      const json::Value v = values.at(size_t(id));
      EXPECT_EQ(v["numel"].as_int64(), 1024) << node << ": " << v.to_json();
      EXPECT_GE(v["slot"].as_int64(), 0) << node;
    }
  }
  const std::string first(values.at(size_t(parts_read["embedding"][0]))["label"].str());
  EXPECT_EQ(first.substr(first.find('[')), "[0:1024]");
  // Each part uploads once, at prepare; every slot fits the limit.
  std::set<int64_t> prepared;
  for (const json::Value id : plan["prepare"]) EXPECT_TRUE(prepared.insert(id.as_int64()).second);
  for (const auto& [node, ids] : parts_read)
    for (int64_t id : ids) EXPECT_TRUE(prepared.count(id)) << node;
  for (const json::Value slot : plan["slots"]) EXPECT_LE(slot.as_int64(), 6000);
  // lm_head's two GEMMs write the columns [0, 32) and [32, 64) of its [4, 64] output.
  for (const json::Value item : plan["program"]) {
    if (item["op"].str() != "gpu" || item["node"].str() != "linear_14") continue;
    ASSERT_EQ(item["dispatches"].size(), 2u);
    const json::Value d1 = item["dispatches"].at(1);
    EXPECT_EQ(item["dispatches"].at(0)["meta"]["y_off"].as_int64(), 0);
    EXPECT_EQ(d1["meta"]["y_off"].as_int64(), 32);
    EXPECT_EQ(d1["meta"]["y_rs"].as_int64(), 64);
    EXPECT_EQ(d1["meta"]["n"].as_int64(), 32);
  }
}

// The decomposed flavor of the same model reads its weights through mm(x, t(W)) and
// addmm(b, x, t(W)): those split the same way.
TEST(WebGpuPlan, DecomposedLinearsOverAWeightPastTheBindingLimitSplitToo) {
  const json::Document doc = json::Document::parse(plan_of("llama_decoder/torch1.13-decomposed", 6000));
  const json::Value plan = doc.root();
  EXPECT_EQ(plan["placement"]["wasm"].as_int64(), 0) << plan["fallbacks"].to_json();
  check_invariants(plan);
  std::map<std::string, int> split;  // op type -> nodes running over weight parts
  for (const json::Value item : plan["program"]) {
    if (item["op"].str() != "gpu") continue;
    bool parts = false;
    for (const json::Value d : item["dispatches"])
      for (const json::Value id : d["bind"])
        parts = parts || (id.as_int64() >= 0 &&
                          plan["values"].at(size_t(id.as_int64()))["label"].str().find('[') != std::string::npos);
    if (parts) ++split[std::string(item["op_type"].str())];
  }
  EXPECT_EQ(split["aten.embedding.default"], 1);
  EXPECT_GE(split["aten.mm.default"] + split["aten.addmm.default"], 7);  // MLP up/gate/down x 2 and lm_head
}

TEST(WebGpuPlan, AnInt64ConstantPastInt32KeepsItsReadersOnWasm) {
  // A where between an int64 buffer and a constant folded at prepare past int32 (the GPU holds
  // int64 as int32).
  Session s(load_model_json(test::int64_past_int32_ir()), test::webgpu_session_options());
  TensorMap tm;
  tm.set("table", make_owned(DType::I64, {5}));
  s.bind(tm);
  const json::Document doc = json::Document::parse(s.webgpu_plan());
  bool named = false;
  for (const json::Value f : doc.root()["fallbacks"])
    named = named || (f["node"].str() == "where" && f["why"].str().find("int64 constant outside") != std::string::npos);
  EXPECT_TRUE(named) << doc.root()["fallbacks"].to_json();
  check_invariants(doc.root());
}

TEST(WebGpuPlan, T5sRelativePositionBucketsFoldAndTheRestRunsOnTheGpu) {
  // Its int64 bucket arithmetic (add_1 = mul_3 + 0, then add_(add_1, where(...))) depends only on
  // constants: the value and its in-place writer fold together at prepare (runtime/constant_fold.cpp).
  for (const char* fx : {"t5/torch2.14-training", "flan_t5/torch2.14-training"}) {
    const json::Document doc = json::Document::parse(plan_of(fx));
    EXPECT_EQ(doc.root()["placement"]["wasm"].as_int64(), 0) << fx << ": " << doc.root()["fallbacks"].to_json();
    check_invariants(doc.root());
  }
}

TEST(WebGpuPlan, DecoderLlmsAndClipRunWhollyOnTheGpu) {
  // LLaMA and Qwen2: the rotary embedding's higher-order op (rope.wgsl); mixtral: its router's
  // topk and the scatter of the routing weights too; CLIP: its pooled token, index.Tensor with
  // two index tensors (index_multi.wgsl).
  for (const char* fx : {"llama_decoder/torch2.14-training", "qwen2_decoder/torch2.14-training",
                         "mixtral_moe/torch2.14-training", "clip/torch2.14-training"}) {
    const json::Document doc = json::Document::parse(plan_of(fx));
    EXPECT_EQ(doc.root()["placement"]["wasm"].as_int64(), 0) << fx << ": " << doc.root()["fallbacks"].to_json();
    check_invariants(doc.root());
  }
}

// Whisper's log-mel front end: reflect pad (pad.wgsl), stft (stft.wgsl) into a complex64 value
// held as float32 pairs (twice the elements), and abs over those pairs; then the encoder.
TEST(WebGpuPlan, WhispersAudioFrontEndRunsOnTheGpu) {
  const json::Document doc = json::Document::parse(plan_of("whisper_encoder/torch2.14-training"));
  const json::Value plan = doc.root();
  EXPECT_EQ(plan["placement"]["wasm"].as_int64(), 0) << plan["fallbacks"].to_json();
  check_invariants(plan);
  bool stft = false;
  for (const json::Value item : plan["program"]) {
    if (item["op"].str() != "gpu" || item["op_type"].str() != "aten.stft.default") continue;
    stft = true;
    const json::Value out = plan["values"].at(size_t(item["dispatches"].at(0)["bind"].at(0).as_int64()));
    EXPECT_EQ(out["dtype"].str(), "float32");
    EXPECT_EQ(out["numel"].as_int64(), 2 * 33 * 101);  // [1, 33, 101] complex64
  }
  EXPECT_TRUE(stft);
}

using test::ir_meta;
using test::ir_node;

// The values a plan holds as float16 on the GPU (gpu_dtype).
std::set<int64_t> half_values(const json::Value& plan) {
  std::set<int64_t> half;
  int64_t id = 0;
  for (const json::Value v : plan["values"]) {
    if (v["gpu_dtype"].str() == "float16") half.insert(id);
    ++id;
  }
  return half;
}

TEST(WebGpuPlan, Float16WeightsAreHeldAsF16OnlyOnADeviceWithShaderF16) {
  // convnext_half's weights are float16 in the IR (float32 in the engine's memory, exactly).
  const std::string fx = "convnext_half/torch2.14-training";
  const json::Document plain = json::Document::parse(plan_of(fx));
  const json::Document f16 = json::Document::parse(plan_of(fx, WebGpuDevice(uint64_t(128) << 20, true)));
  EXPECT_TRUE(half_values(plain.root()).empty());
  const std::set<int64_t> half = half_values(f16.root());
  // The conv, linear and layer_norm weights and biases, and the layer scales (an elementwise mul
  // with a float32 activation): every kernel reading them converts on load.
  EXPECT_GE(half.size(), 10u);
  // Placement and transfers do not change: only the weights' GPU storage.
  EXPECT_EQ(plain.root()["placement"].to_json(), f16.root()["placement"].to_json());
  EXPECT_EQ(plain.root()["placement"]["wasm"].as_int64(), 0);
  check_invariants(f16.root());
  const json::Value values = f16.root()["values"];
  size_t weights_f32 = 0;
  for (size_t id = 0; id < values.size(); ++id) {
    const json::Value v = values.at(id);
    if (!half.count(int64_t(id))) {
      weights_f32 += v["kind"].str() == "weight" && v["slot"].as_int64() >= 0;
      continue;
    }
    EXPECT_EQ(v["kind"].str(), "weight");
    EXPECT_EQ(v["dtype"].str(), "float32");  // the engine's copy; f16 on the GPU
    const int64_t bytes = f16.root()["slots"].at(size_t(v["slot"].as_int64())).as_int64();
    EXPECT_EQ(bytes, std::max<int64_t>(4, (v["numel"].as_int64() * 2 + 3) / 4 * 4)) << v["label"].str();
  }
  EXPECT_EQ(weights_f32, 0u);  // every weight of convnext_half is float16 in the IR
  // Each binding of an f16 value is typed f16 (elementwise: its input dtype is float16), in a
  // kernel that converts on load.
  const std::set<std::string> f16_kernels = {"matmul", "gemv", "conv2d", "conv2d_gemm", "rowwise",
                                             "pool2d", "batch_norm", "index_select", "elementwise"};
  size_t typed = 0;
  for (const json::Value item : f16.root()["program"]) {
    if (item["op"].str() != "gpu") continue;
    for (const json::Value d : item["dispatches"]) {
      size_t bound = 0, f16_types = 0;
      for (const json::Value id : d["bind"]) bound += half.count(id.as_int64());
      for (const json::Value t : d["types"]) f16_types += t.str() == "f16";
      json::Value ew;
      if (d.find("ew", &ew))
        for (const json::Value t : ew["in"]) f16_types += t.str() == "float16";
      EXPECT_EQ(bound, f16_types) << item["node"].str();
      if (bound) EXPECT_TRUE(f16_kernels.count(d["kernel"].string())) << d["kernel"].str();
      typed += f16_types;
    }
  }
  EXPECT_GE(typed, half.size());
  // A float32 model is unchanged by the option.
  EXPECT_TRUE(half_values(json::Document::parse(plan_of("small_cnn/torch2.14-training", WebGpuDevice(1 << 27, true))).root()).empty());
}

TEST(WebGpuPlan, AFloat16WeightStaysF32WhereAGpuReaderWouldNotConvertIt) {
  // x float32 [2, 3]; float16 weights w [4, 3], b [4] (linear), s [3] (mul by x: f32 compute),
  // u, v [3] (where(c, u, v): two float16 operands alone, so the kernel would compute in f16).
  auto meta = [](const std::string& name, const std::string& shape, const std::string& dtype,
                 const std::string& producer = "") { return ir_meta(name, shape, dtype, producer); };
  auto node = [](const std::string& name, const std::string& op, const std::string& in, const std::string& out) {
    return ir_node(name, op, in, out);
  };
  const std::string x = meta("x", "[2, 3]", "float32", "x"), c = meta("c", "[3]", "bool", "c");
  const std::string nodes =
      node("l", "aten.linear.default", x + "," + meta("p_w", "[4, 3]", "float16") + "," + meta("p_b", "[4]", "float16"),
           meta("l", "[2, 4]", "float32")) + "," +
      node("m", "aten.mul.Tensor", x + "," + meta("p_s", "[3]", "float16"), meta("m", "[2, 3]", "float32")) + "," +
      node("w", "aten.where.self", c + "," + meta("p_u", "[3]", "float16") + "," + meta("p_v", "[3]", "float16"),
           meta("w", "[3]", "float16"));
  std::string weights;
  for (const auto& [k, shape] : std::vector<std::pair<std::string, std::string>>{
           {"w", "[4, 3]"}, {"b", "[4]"}, {"s", "[3]"}, {"u", "[3]"}, {"v", "[3]"}})
    weights += (weights.empty() ? "" : ",") + meta(k, shape, "float16");
  const Model model = load_model_json(
      R"({"model_name": "h", "graph_inputs": [)" + meta("x", "[2, 3]", "float32") + "," + meta("c", "[3]", "bool") +
      R"(], "graph_outputs": [)" + meta("l", "[2, 4]", "float32", "l") + "," + meta("m", "[2, 3]", "float32", "m") +
      "," + meta("w", "[3]", "float16", "w") + R"(], "weights": [)" + weights +
      R"(], "weight_name_mapping": {"p_w": "w", "p_b": "b", "p_s": "s", "p_u": "u", "p_v": "v"}, "nodes": [)" + nodes +
      "]}");
  Session sess(model, test::webgpu_session_options());
  TensorMap tm;
  for (const auto& [k, shape] : std::vector<std::pair<std::string, Shape>>{
           {"w", {4, 3}}, {"b", {4}}, {"s", {3}}, {"u", {3}}, {"v", {3}}}) {
    Tensor t = make_owned(DType::F16, shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<uint16_t>()[i] = 0x3c00;  // 1.0
    tm.set(k, t);
  }
  sess.bind(tm);
  const json::Document doc = json::Document::parse(sess.webgpu_plan(WebGpuDevice(uint64_t(1) << 27, true)));
  EXPECT_EQ(doc.root()["placement"]["wasm"].as_int64(), 0) << doc.root()["fallbacks"].to_json();
  std::map<std::string, std::string> held;
  for (const json::Value v : doc.root()["values"])
    if (v["kind"].str() == "weight") held[v["label"].string()] = v["gpu_dtype"].string();
  EXPECT_EQ(held["w"], "float16");
  EXPECT_EQ(held["b"], "float16");
  EXPECT_EQ(held["s"], "float16");
  EXPECT_EQ(held["u"], "float32");
  EXPECT_EQ(held["v"], "float32");
  check_invariants(doc.root());
}

TEST(WebGpuPlan, WeightDtypeFloat16HoldsTheGemmWeightsAsF16) {
  // A float32 model at weight_dtype float16: the weights the CPU's GEMMs pack as halves
  // (linear's weight) are f16 on a device with shader-f16; a weight another kernel also reads
  // (a tied embedding) stays f32 for it, with an f16 twin for the GEMM, as the CPU packs a half
  // copy; the bias stays f32; nothing changes without shader-f16 or at float32.
  const std::string ids = ir_meta("ids", "[2]", "int64", "ids");
  const std::string nodes =
      ir_node("e", "aten.embedding.default", ir_meta("p_emb", "[5, 3]", "float32") + "," + ids, ir_meta("e", "[2, 3]", "float32")) +
      "," +
      ir_node("head", "aten.linear.default", ir_meta("e", "[2, 3]", "float32", "e") + "," + ir_meta("p_emb", "[5, 3]", "float32"),
              ir_meta("head", "[2, 5]", "float32")) + "," +
      ir_node("l", "aten.linear.default",
              ir_meta("e", "[2, 3]", "float32", "e") + "," + ir_meta("p_w", "[4, 3]", "float32") + "," +
                  ir_meta("p_b", "[4]", "float32"),
              ir_meta("l", "[2, 4]", "float32"));
  const Model model = load_model_json(
      R"({"model_name": "h", "graph_inputs": [)" + ir_meta("ids", "[2]", "int64") + R"(], "graph_outputs": [)" +
      ir_meta("head", "[2, 5]", "float32", "head") + "," + ir_meta("l", "[2, 4]", "float32", "l") + R"(], "weights": [)" +
      ir_meta("emb", "[5, 3]", "float32") + "," + ir_meta("w", "[4, 3]", "float32") + "," + ir_meta("b", "[4]", "float32") +
      R"(], "weight_name_mapping": {"p_emb": "emb", "p_w": "w", "p_b": "b"}, "nodes": [)" + nodes + "]}");
  TensorMap tm;
  tm.set("emb", make_owned(DType::F32, {5, 3}));
  tm.set("w", make_owned(DType::F32, {4, 3}));
  tm.set("b", make_owned(DType::F32, {4}));
  auto held = [&](DType weight_dtype, bool shader_f16) {
    SessionOptions o = test::webgpu_session_options();
    o.weight_dtype = weight_dtype;
    Session sess(model, o);
    sess.bind(tm);
    const json::Document doc = json::Document::parse(sess.webgpu_plan(WebGpuDevice(uint64_t(1) << 27, shader_f16)));
    EXPECT_EQ(doc.root()["placement"]["wasm"].as_int64(), 0) << doc.root()["fallbacks"].to_json();
    check_invariants(doc.root());
    std::map<std::string, std::string> m;
    for (const json::Value v : doc.root()["values"])
      if (v["kind"].str() == "weight") {
        std::string& held_as = m[v["label"].string()];
        held_as += (held_as.empty() ? "" : " ") + v["gpu_dtype"].string();
      }
    return m;
  };
  const std::map<std::string, std::string> all_f32 = {{"emb", "float32"}, {"w", "float32"}, {"b", "float32"}};
  // The tied weight: f32 for the embedding, and an f16 twin that the lm_head binds.
  EXPECT_EQ(held(DType::F16, true),
            (std::map<std::string, std::string>{{"emb", "float32 float16"}, {"w", "float16"}, {"b", "float32"}}));
  EXPECT_EQ(held(DType::F16, false), all_f32);
  EXPECT_EQ(held(DType::F32, true), all_f32);
  EXPECT_EQ(held(DType::BF16, true), all_f32);
}

TEST(WebGpuPlan, CastsToHalfPrecisionRoundOnTheGpu) {
  // _to_copy(x, float16) and to(x, bfloat16) round (float32 in the engine); clone copies.
  const std::string x = ir_meta("x", "[5]", "float32", "x");
  const std::string nodes =
      ir_node("h", "aten._to_copy.default", x, ir_meta("h", "[5]", "float16"), R"({"dtype": "float16"})") + "," +
      ir_node("b", "aten.to.dtype", x, ir_meta("b", "[5]", "bfloat16"), R"({"dtype": "bfloat16"})") + "," +
      ir_node("c", "aten.clone.default", ir_meta("h", "[5]", "float16", "h"), ir_meta("c", "[5]", "float16"));
  Session s(load_model_json(R"({"model_name": "c", "graph_inputs": [)" + ir_meta("x", "[5]", "float32") +
                            R"(], "graph_outputs": [)" + ir_meta("b", "[5]", "bfloat16", "b") + "," +
                            ir_meta("c", "[5]", "float16", "c") +
                            R"(], "weights": [], "weight_name_mapping": {}, "nodes": [)" + nodes + "]}"),
            test::webgpu_session_options());
  s.bind(TensorMap{});
  const json::Document doc = json::Document::parse(s.webgpu_plan());
  std::map<std::string, std::string> op_of;
  for (const json::Value item : doc.root()["program"])
    if (item["op"].str() == "gpu") op_of[item["node"].string()] = item["dispatches"].at(0)["ew"]["op"].string();
  EXPECT_EQ(op_of["h"], "round_f16");
  EXPECT_EQ(op_of["b"], "round_bf16");
  EXPECT_EQ(op_of["c"], "copy");
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

// The plan of quantized fixture `fx` (tests/fixtures/quantized), its weights bound.
std::string quantized_plan_of(const std::string& fx) {
  const std::string dir = test::fixtures_dir() + "/quantized/" + fx;
  Session s(load_model_json(test::read_text(dir + "/model.json")), test::webgpu_session_options());
  s.bind(read_safetensors_file(dir + "/weights.safetensors"));
  return s.webgpu_plan();
}

// The kernels a plan's GPU steps dispatch.
std::set<std::string> kernels_of(const json::Value& plan) {
  std::set<std::string> kernels;
  for (const json::Value item : plan["program"])
    if (item["op"].str() == "gpu")
      for (const json::Value d : item["dispatches"]) kernels.insert(d["kernel"].string());
  return kernels;
}

// torchao's 8da4w (tests/fixtures/quantized): the per-token choose_qparams_affine and
// quantize_affine and the lowered int4 linears run on the GPU (qlinear.wgsl), their int8 values
// held as bytes; the covered dequantize nodes run nowhere. Only PT2E's int8 forms stay on WASM.
TEST(WebGpuPlan, Torchao8da4wRunsOnTheGpuWithItsInt8ValuesAsBytes) {
  for (const char* fx : {"mlp_8da4w", "bert_8da4w", "llama_8da4w"}) {
    const json::Document doc = json::Document::parse(quantized_plan_of(fx));
    const json::Value plan = doc.root();
    for (const json::Value f : plan["fallbacks"]) {
      const std::string op = f["op_type"].string();
      EXPECT_TRUE(op.rfind("torchao.", 0) != 0 && op != "aten.linear.default") << fx << ": " << f.to_json();
    }
    const std::set<std::string> kernels = kernels_of(plan);
    EXPECT_TRUE(kernels.count("qlinear") && kernels.count("choose_qparams_rows") && kernels.count("quantize_blocks")) << fx;
    // int8 values: one byte an element on the GPU, in whole words (a weight's slot is its own;
    // others share slots at least that large); the 4-bit weights (K a multiple of 8 in these
    // fixtures) half a byte, the kernels reading them as nibbles (w_int4)
    int int4_weights = 0;
    for (const json::Value v : plan["values"]) {
      const std::string gdt(v["gpu_dtype"].str());
      if ((gdt != "int8" && gdt != "int4") || v["slot"].as_int64() < 0) continue;
      EXPECT_EQ(v["dtype"].str(), "int8");
      const int64_t slot = plan["slots"].at(size_t(v["slot"].as_int64())).as_int64();
      const int64_t numel = v["numel"].as_int64();
      const int64_t bytes = std::max<int64_t>(4, (gdt == "int4" ? (numel + 1) / 2 : numel) + 3) / 4 * 4;
      if (gdt == "int4") ++int4_weights;
      if (v["kind"].str() == "weight") EXPECT_EQ(slot, bytes) << fx << " " << v["label"].str();
      else EXPECT_GE(slot, bytes) << fx << " " << v["label"].str();
    }
    EXPECT_GT(int4_weights, 0) << fx;
    int nibble_reads = 0;
    for (const json::Value item : plan["program"])
      if (item["op"].str() == "gpu")
        for (const json::Value d : item["dispatches"])
          if (d["kernel"].str() == "qlinear") {
            const json::Value w = plan["values"].at(size_t(d["bind"].at(2).as_int64()));
            json::Value flag;
            const bool reads_nibbles = d["meta"].find("w_int4", &flag);
            EXPECT_EQ(reads_nibbles, w["gpu_dtype"].str() == "int4") << fx;
            nibble_reads += reads_nibbles;
          }
    EXPECT_GT(nibble_reads, 0) << fx;
    check_invariants(plan);
  }
}

// PT2E's int8 linear (static and dynamic): its input quantized on the GPU (choose_qparams_rows
// over the whole input when dynamic, quantize_blocks) into an int8 scratch that qlinear reads;
// PT2E's convolutions and the quantize / dequantize pairs it leaves around other ops stay on WASM.
TEST(WebGpuPlan, Pt2eInt8LinearsRunOnTheGpu) {
  for (const char* fx : {"mlp_pt2e_static", "mlp_pt2e_dynamic", "bert_pt2e_dynamic"}) {
    const json::Document doc = json::Document::parse(quantized_plan_of(fx));
    const json::Value plan = doc.root();
    for (const json::Value f : plan["fallbacks"]) EXPECT_NE(f["op_type"].string(), "aten.linear.default") << fx << ": " << f.to_json();
    const std::set<std::string> kernels = kernels_of(plan);
    EXPECT_TRUE(kernels.count("qlinear") && kernels.count("quantize_blocks")) << fx;
    EXPECT_EQ(kernels.count("choose_qparams_rows"), std::string(fx).find("dynamic") != std::string::npos ? 1u : 0u) << fx;
    check_invariants(plan);
  }
}

}  // namespace
}  // namespace tir
