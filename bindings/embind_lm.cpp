// Embind glue for text generation (runtime/language_model.h); contract in
// bindings/API.md. JS drives the loop (start, then step per token) so it can
// stream tokens and yield to the event loop between steps.
#include <cmath>
#include <cstdio>

#include "glue.h"
#include "ir/json_loader.h"
#include "ir/kv_mapping.h"
#include "runtime/language_model.h"

using namespace tir_glue;

namespace {

class WasmLM : public TensorSources {
 public:
  std::string load(const std::string& prefill, const std::string& decode, const std::string& mapping) {
    return guarded([&] {
      lm_.reset();
      prefill_ = tir::load_model_json(prefill, "prefill IR");
      decode_ = tir::load_model_json(decode, "decode IR");
      mapping_ = tir::parse_kv_mapping(mapping, "kvMapping");
    });
  }
  std::string compile(bool donate, const std::string& weight_dtype) {
    return guarded([&] {
      if (!prefill_ || !decode_) throw tir::ExecutionError("the language model is not loaded: load() first");
      tir::SessionOptions options = session_options(weight_dtype, limits_);
      options.update_in_place = donate;
      // For WebGPU too: fused epilogues run in the GPU producer's store, and
      // donation stays (the plan keeps the caches resident and index_copy
      // writes them in place on the GPU).
      lm_.reset();
      pending_ = false;
      lm_ = std::make_unique<tir::LanguageModel>(std::move(*prefill_), std::move(*decode_), mapping_, options);
      prefill_.reset();
      decode_.reset();
      // Streamed weights: place first; the ones the CPU reads are given their bytes
      // (streamedToRead, setStreamedBytes) before finishCompile binds.
      pending_ = true;
      bind_or_wait(webgpu_ && has_streamed() ? std::optional(lm_->place_for_webgpu(uint64_t(max_binding_)))
                                             : std::nullopt);
    });
  }
  // Caps for the next compile, for both sessions (0 = the build's default).
  std::string setLimits(double max_tensor_bytes, double max_arena_bytes, double max_run_work) {
    return guarded([&] { limits_ = limits_from_js(max_tensor_bytes, max_arena_bytes, max_run_work); });
  }

  // Keys of the weights or constants given that bind to nothing in either IR (both graphs bind
  // from the one source): the message, or "". Before compile(), which consumes the IRs.
  std::string unknownKeysMessage(const std::string& kind) const {
    return or_throw<std::string>([&] {
      if (!prefill_ || !decode_) throw tir::ExecutionError("the language model is not loaded: load() first");
      return unknown_keys_message({&*prefill_, &*decode_}, kind);
    });
  }

  std::string info() const {
    return or_throw<std::string>([&] {
      const auto& lm = need();
      return "{\"prefillLen\": " + std::to_string(lm.prefill_len()) + ", \"maxCacheLen\": " +
             std::to_string(lm.max_cache_len()) + ", \"vocabSize\": " + std::to_string(lm.vocab_size()) +
             ", \"numLayers\": " + std::to_string(lm.num_layers()) + "}";
    });
  }
  // The next compile() plans for WebGPU (webgpuPlan()).
  void setWebGpu(bool on) { webgpu_ = on; }  // next compile: placed for WebGPU
  // As WasmModel's: the device's largest binding, for compile's placement.
  void setMaxBinding(double bytes) { max_binding_ = bytes; }
  // As WasmModel's: whether the device has shader-f16, for webgpuPlan().
  void setShaderF16(bool on) { shader_f16_ = on; }
  // Bytes of the prefill graph's weights (the decode graph reads the same ones) in WASM memory
  // and streamed to the GPU: {wasm, streamed}.
  val weightBytes() const {
    return or_throw<val>([&] {
      const tir::Session& prefill = need().prefill_session();
      val o = val::object();
      o.set("wasm", double(prefill.weight_bytes(false)));
      o.set("streamed", double(prefill.weight_bytes(true)));
      return o;
    });
  }
  // Both sessions' plans and the cache copies (LanguageModel::webgpu_plan), or an error JSON.
  std::string webgpuPlan(double max_binding_bytes) {
    std::string plan;
    std::string err = guarded([&] { plan = need().webgpu_plan(tir::WebGpuDevice(uint64_t(max_binding_bytes), shader_f16_)); });
    return err.empty() ? plan : err;
  }
  // After the executors exist: the caches live on the GPU from now on.
  std::string useGpuCaches(bool on) {
    return guarded([&] { need().set_gpu_caches(on); });
  }
  // The executor's WASM parts of session 0 (prefill) or 1 (decode).
  std::string runSteps(int session, int first, int last) {
    return guarded([&] {
      if (first < 0 || last < first) throw tir::ExecutionError("runSteps: bad step range");
      (session ? need().decode_session() : need().prefill_session()).run_steps(size_t(first), size_t(last));
    });
  }
  // start()/step() split around the executor's run of the session (language_model.h).
  std::string beginStart(const val& ids, int max_new_tokens, const val& sampling) {
    return begin(ids, max_new_tokens, sampling, false);
  }
  std::string finishStart() {
    return guarded([&] { last_ = need().finish_start(); });
  }
  std::string beginStep() {
    return guarded([&] { need().begin_step(); });
  }
  std::string finishStep() {
    return guarded([&] { last_ = need().finish_step(); });
  }
  std::string start(const val& ids, int max_new_tokens, const val& sampling) {
    return begin(ids, max_new_tokens, sampling, true);
  }
  std::string step() {
    return guarded([&] { last_ = need().step(); });
  }
  // The logits processor hook (language_model.h): with it on, lastToken() is
  // -1 after a start/step; JS edits pendingLogits() (a view of the vocabulary
  // row in WASM memory) and calls choose().
  std::string setLogitsHook(bool on) {
    return guarded([&] { need().set_logits_hook(on); });
  }
  val pendingLogits() {
    return or_throw<val>([&] {
      auto& lm = need();
      return val(emscripten::typed_memory_view(size_t(lm.vocab_size()), lm.pending_logits()));
    });
  }
  std::string choose() {
    return guarded([&] { last_ = need().choose(); });
  }
  double lastToken() const { return double(last_); }
  std::string stats() const {
    return or_throw<std::string>([&] {
      const auto& st = need().stats();
      char buf[320];
      std::snprintf(buf, sizeof buf,
                    "{\"promptTokens\": %lld, \"prefillMs\": %.6f, \"decodeSteps\": %lld, \"decodeMs\": %.6f, "
                    "\"cacheBytes\": %zu, \"cacheBytesCopiedPerStep\": %zu}",
                    (long long)st.prompt_tokens, st.prefill_ms, (long long)st.decode_steps, st.decode_ms,
                    st.cache_bytes, st.cache_bytes_copied_per_step);
      return std::string(buf);
    });
  }

 private:
  // ids: a JS array of token ids. sampling: {temperature, topK, topP, seed (an
  // integer below 2^53), repetitionPenalty, frequencyPenalty, presencePenalty,
  // minNewTokens, endIds}, checked by the package (lm.ts) and again by the
  // Sampler. run: the prefill too (start()).
  std::string begin(const val& ids, int max_new_tokens, const val& sampling, bool run) {
    return guarded([&] {
      auto& lm = need();
      const std::vector<int64_t> prompt = token_ids(ids, "prompt token");
      auto num = [&](const char* key, double def) {
        const val v = sampling[key];
        return v.isUndefined() ? def : v.as<double>();
      };
      auto whole = [&](const char* key, double def, const char* what) {
        const double v = num(key, def);
        if (!(v >= 0) || v != std::floor(v) || v > 9.007199254740992e15)
          throw tir::ExecutionError(std::string("generate: ") + what + " must be a non-negative integer below 2^53");
        return v;
      };
      tir::SamplingOptions s;
      s.temperature = num("temperature", 0);
      s.top_k = int64_t(whole("topK", 0, "topK"));
      s.top_p = num("topP", 1);
      s.seed = uint64_t(whole("seed", 0, "seed"));
      s.repetition_penalty = num("repetitionPenalty", 1);
      s.frequency_penalty = num("frequencyPenalty", 0);
      s.presence_penalty = num("presencePenalty", 0);
      s.min_new_tokens = int64_t(whole("minNewTokens", 0, "minNewTokens"));
      if (!sampling["endIds"].isUndefined()) s.end_ids = token_ids(sampling["endIds"], "end id");
      if (run) last_ = lm.start(prompt, s, max_new_tokens);
      else lm.begin_start(prompt, s, max_new_tokens);
    });
  }
  static std::vector<int64_t> token_ids(const val& ids, const char* what) {
    std::vector<int64_t> out;
    const unsigned n = ids["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) {
      const double v = ids[i].as<double>();
      if (!(v >= 0) || v != std::floor(v) || v > 9.007199254740992e15)
        throw tir::ExecutionError(std::string("generate: ") + what + " " + std::to_string(i) + " (" + std::to_string(v) +
                                  ") is not a non-negative integer");
      out.push_back(int64_t(v));
    }
    return out;
  }
  tir::LanguageModel& need() const {
    if (!lm_ || pending_) throw tir::ExecutionError("the language model is not compiled");
    return *lm_;
  }
  bool compile_pending() const override { return pending_; }
  void bind_pending() override {
    lm_->bind(weights_, constants_);
    pending_ = false;
    weights_ = {};
    constants_ = {};
  }
  bool pending_ = false;  // compiled and placed, waiting for streamed bytes
  std::optional<tir::Model> prefill_, decode_;
  tir::KvMapping mapping_;
  std::unique_ptr<tir::LanguageModel> lm_;
  tir::Limits limits_;  // setLimits, applied by compile
  int64_t last_ = 0;
  bool webgpu_ = false;  // setWebGpu, applied by compile
  bool shader_f16_ = false;  // setShaderF16
  double max_binding_ = double(uint64_t(128) << 20);
};

}  // namespace

EMSCRIPTEN_BINDINGS(torch_ir_wasm_lm) {
  emscripten::class_<WasmLM, emscripten::base<TensorSources>>("WasmLM")
      .constructor<>()
      .function("load", &WasmLM::load)
      .function("compile", &WasmLM::compile)
      .function("setLimits", &WasmLM::setLimits)
      .function("info", &WasmLM::info)
      .function("unknownKeysMessage", &WasmLM::unknownKeysMessage)
      .function("start", &WasmLM::start)
      .function("step", &WasmLM::step)
      .function("lastToken", &WasmLM::lastToken)
      .function("setLogitsHook", &WasmLM::setLogitsHook)
      .function("pendingLogits", &WasmLM::pendingLogits)
      .function("choose", &WasmLM::choose)
      .function("stats", &WasmLM::stats)
      .function("setWebGpu", &WasmLM::setWebGpu)
      .function("setShaderF16", &WasmLM::setShaderF16)
      .function("setMaxBinding", &WasmLM::setMaxBinding)
      .function("weightBytes", &WasmLM::weightBytes)
      .function("webgpuPlan", &WasmLM::webgpuPlan)
      .function("useGpuCaches", &WasmLM::useGpuCaches)
      .function("runSteps", &WasmLM::runSteps)
      .function("beginStart", &WasmLM::beginStart)
      .function("finishStart", &WasmLM::finishStart)
      .function("beginStep", &WasmLM::beginStep)
      .function("finishStep", &WasmLM::finishStep);
}
