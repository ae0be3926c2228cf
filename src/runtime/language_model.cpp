#include "runtime/language_model.h"

#include <chrono>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>

#include "core/errors.h"

namespace tir {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string meta_text(const TensorMeta& m) { return shape_to_string(m.shape) + " " + dtype_name(m.dtype); }

// Index of the graph input/output named `name`, or -1.
int64_t find_meta(const std::vector<TensorMeta>& list, const std::string& name) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name) return int64_t(i);
  return -1;
}

void write_int(const Tensor& t, int64_t index, int64_t v) {
  if (t.dtype == DType::I64) t.data<int64_t>()[index] = v;
  else t.data<int32_t>()[index] = int32_t(v);
}

const float kMasked = std::numeric_limits<float>::lowest();  // torch.finfo(torch.float32).min

}  // namespace

struct LanguageModel::Impl {
  std::unique_ptr<Session> prefill, decode;
  int64_t P = 0, C = 0, V = 0;
  // Graph input/output indices.
  size_t p_ids = 0, p_mask = 0, p_pos = 0;
  size_t d_ids = 0, d_mask = 0, d_pos = 0, d_cache_pos = 0;
  struct CachePair {
    size_t prefill_out, decode_in, decode_out;
  };
  std::vector<CachePair> caches;  // per layer: key then value
  int64_t layers = 0;
  // Generation state.
  std::unique_ptr<Sampler> sampler;
  int64_t slot = 0, last_slot = 0, last_token = 0, prompt_len = 0;
  bool gpu_caches = false;  // the executor holds the caches (set_gpu_caches)
  bool logits_hook = false;      // set_logits_hook
  bool token_pending = false;    // the hook's row awaits choose()
  std::vector<float> hook_row;  // the processed logits for the hook
  // The next token from a logits row, or -1 with the processed row left for the hook.
  int64_t take(const float* row) {
    if (!logits_hook) return last_token = sampler->next(row, V);
    hook_row.resize(size_t(V));
    sampler->process(row, V, hook_row.data());
    token_pending = true;
    return last_token = -1;
  }
  Clock::time_point t0;     // of the prefill or step in flight
  GenerationStats stats;

  size_t input(const Model& m, const char* name, const Shape& shape, bool integer, const char* file) {
    const int64_t i = find_meta(m.graph_inputs, name);
    if (i < 0) throw IRFormatError(std::string(file) + " IR has no graph input '" + name + "'");
    const TensorMeta& meta = m.graph_inputs[size_t(i)];
    const bool dtype_ok = integer ? (meta.dtype == DType::I64 || meta.dtype == DType::I32) : is_floating(meta.dtype);
    if (meta.shape != shape || !dtype_ok)
      throw IRFormatError(std::string(file) + " IR input '" + name + "' is " + meta_text(meta) + "; expected " +
                          shape_to_string(shape) + (integer ? " int64" : " float"));
    return size_t(i);
  }

  void check_models(const Model& pm, const Model& dm, const KvMapping& map) {
    layers = map.num_layers;
    // P from prefill's input_ids, C from decode's attention_mask.
    const int64_t pi = find_meta(pm.graph_inputs, "input_ids");
    if (pi < 0 || pm.graph_inputs[size_t(pi)].shape.size() != 2 || pm.graph_inputs[size_t(pi)].shape[0] != 1)
      throw IRFormatError("prefill IR must have a graph input 'input_ids' of shape [1, P]");
    P = pm.graph_inputs[size_t(pi)].shape[1];
    const int64_t mi = find_meta(dm.graph_inputs, "attention_mask");
    if (mi < 0 || dm.graph_inputs[size_t(mi)].shape.size() != 4)
      throw IRFormatError("decode IR must have a graph input 'attention_mask' of shape [1, 1, 1, C]");
    C = dm.graph_inputs[size_t(mi)].shape[3];
    if (P < 1 || C < P)
      throw IRFormatError("prefill length P = " + std::to_string(P) + " and cache length C = " + std::to_string(C) +
                          ": need 1 <= P <= C");
    if (map.prefill_seq_len && map.prefill_seq_len != P)
      throw IRFormatError("KV mapping says prefill_seq_len " + std::to_string(map.prefill_seq_len) +
                          " but the prefill IR's input_ids is [1, " + std::to_string(P) + "]");
    if (map.max_cache_len && map.max_cache_len != C)
      throw IRFormatError("KV mapping says max_cache_len " + std::to_string(map.max_cache_len) +
                          " but the decode IR's attention_mask has " + std::to_string(C) + " key slots");
    p_ids = input(pm, "input_ids", {1, P}, true, "prefill");
    p_mask = input(pm, "attention_mask", {1, 1, P, P}, false, "prefill");
    p_pos = input(pm, "position_ids", {1, P}, true, "prefill");
    d_ids = input(dm, "input_ids", {1, 1}, true, "decode");
    d_mask = input(dm, "attention_mask", {1, 1, 1, C}, false, "decode");
    d_pos = input(dm, "position_ids", {1, 1}, true, "decode");
    d_cache_pos = input(dm, "cache_position", {1}, true, "decode");
    if (pm.graph_inputs.size() != 3)
      throw IRFormatError("prefill IR has " + std::to_string(pm.graph_inputs.size()) +
                          " graph inputs; the LLM ABI has 3 (input_ids, attention_mask, position_ids)");
    if (int64_t(dm.graph_inputs.size()) != 4 + 2 * layers)
      throw IRFormatError("decode IR has " + std::to_string(dm.graph_inputs.size()) + " graph inputs; " +
                          std::to_string(layers) + " layers need 4 + 2 x " + std::to_string(layers) + " = " +
                          std::to_string(4 + 2 * layers));
    if (int64_t(pm.graph_outputs.size()) != 1 + 2 * layers || int64_t(dm.graph_outputs.size()) != 1 + 2 * layers)
      throw IRFormatError("prefill and decode IRs have " + std::to_string(pm.graph_outputs.size()) + " and " +
                          std::to_string(dm.graph_outputs.size()) + " outputs; " + std::to_string(layers) +
                          " layers need logits + 2 x " + std::to_string(layers));
    // Logits first in both, [1, P, V] and [1, 1, V].
    const TensorMeta &pl = pm.graph_outputs[0], &dl = dm.graph_outputs[0];
    if (pl.shape.size() != 3 || pl.shape[0] != 1 || pl.shape[1] != P || !is_floating(pl.dtype))
      throw IRFormatError("prefill IR output 0 ('" + pl.name + "') must be logits [1, " + std::to_string(P) +
                          ", V]; it is " + meta_text(pl));
    V = pl.shape[2];
    if (dl.shape != Shape{1, 1, V} || !is_floating(dl.dtype))
      throw IRFormatError("decode IR output 0 ('" + dl.name + "') must be logits [1, 1, " + std::to_string(V) +
                          "]; it is " + meta_text(dl));
    if (V < 1) throw IRFormatError("the vocabulary is empty (logits " + meta_text(pl) + ")");
    std::vector<bool> used_in(dm.graph_inputs.size(), false);
    used_in[d_ids] = used_in[d_mask] = used_in[d_pos] = used_in[d_cache_pos] = true;
    for (int64_t l = 0; l < layers; ++l) {
      const KvLayerNames& n = map.layers[size_t(l)];
      const std::string where = "KV mapping layer " + std::to_string(l);
      for (int kv = 0; kv < 2; ++kv) {
        const std::string& po = kv ? n.prefill_value_output : n.prefill_key_output;
        const std::string& di = kv ? n.decode_value_input : n.decode_key_input;
        const std::string& dout = kv ? n.decode_value_output : n.decode_key_output;
        const char* what = kv ? "value" : "key";
        const int64_t a = find_meta(pm.graph_outputs, po), b = find_meta(dm.graph_inputs, di),
                      c = find_meta(dm.graph_outputs, dout);
        if (a < 1) throw IRFormatError(where + ": prefill " + what + " output '" + po + "' is not a graph output of the prefill IR (after the logits)");
        if (b < 0) throw IRFormatError(where + ": decode " + what + " input '" + di + "' is not a graph input of the decode IR");
        if (c < 1) throw IRFormatError(where + ": decode " + what + " output '" + dout + "' is not a graph output of the decode IR (after the logits)");
        if (used_in[size_t(b)]) throw IRFormatError(where + ": decode input '" + di + "' is used twice");
        used_in[size_t(b)] = true;
        const TensorMeta &pmeta = pm.graph_outputs[size_t(a)], &imeta = dm.graph_inputs[size_t(b)],
                         &ometa = dm.graph_outputs[size_t(c)];
        if (imeta.shape.size() != 4 || imeta.shape[0] != 1 || imeta.shape[2] != C)
          throw IRFormatError(where + ": decode " + what + " input '" + di + "' is " + meta_text(imeta) +
                              "; expected [1, heads, " + std::to_string(C) + ", head_dim]");
        const Shape want_prefill{1, imeta.shape[1], P, imeta.shape[3]};
        if (pmeta.shape != want_prefill || pmeta.dtype != imeta.dtype)
          throw IRFormatError(where + ": prefill " + what + " output '" + po + "' is " + meta_text(pmeta) +
                              " but the decode cache '" + di + "' is " + meta_text(imeta) + " (expected " +
                              shape_to_string(want_prefill) + " " + dtype_name(imeta.dtype) + ")");
        if (ometa.shape != imeta.shape || ometa.dtype != imeta.dtype)
          throw IRFormatError(where + ": decode " + what + " output '" + dout + "' is " + meta_text(ometa) +
                              " but its input '" + di + "' is " + meta_text(imeta));
        caches.push_back({size_t(a), size_t(b), size_t(c)});
      }
    }
  }

  // The caches as the WebGPU plans keep them on the GPU: prefill's outputs, decode's inputs and outputs.
  struct ResidentCaches {
    std::vector<size_t> prefill_kv, decode_in, decode_out;
  };
  ResidentCaches resident_caches() const {
    ResidentCaches r;
    for (const auto& c : caches) {
      r.prefill_kv.push_back(c.prefill_out);
      r.decode_in.push_back(c.decode_in);
      r.decode_out.push_back(c.decode_out);
    }
    return r;
  }

  void write_mask_row(const Tensor& t, int64_t offset, int64_t n, int64_t allowed) {
    float* m = t.data<float>() + offset;
    for (int64_t k = 0; k < n; ++k) m[k] = k < allowed ? 0.0f : kMasked;
  }
};

LanguageModel::LanguageModel(Model prefill, Model decode, const KvMapping& mapping, const TensorMap& weights,
                             const TensorMap& constants, SessionOptions options)
    : LanguageModel(std::move(prefill), std::move(decode), mapping, std::move(options)) {
  bind(weights, constants);
}

void LanguageModel::bind(const TensorMap& weights, const TensorMap& constants) {
  impl_->prefill->bind(weights, constants);
  impl_->decode->bind(weights, constants);
}

std::vector<std::string> LanguageModel::place_for_webgpu(uint64_t max_binding_bytes) {
  Impl& s = *impl_;
  const Impl::ResidentCaches r = s.resident_caches();
  std::vector<std::string> names = s.prefill->place_for_webgpu(max_binding_bytes, {}, r.prefill_kv);
  for (auto& n : s.decode->place_for_webgpu(max_binding_bytes, r.decode_in, r.decode_out)) names.push_back(std::move(n));
  return names;
}

LanguageModel::LanguageModel(Model prefill, Model decode, const KvMapping& mapping, SessionOptions options)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.check_models(prefill, decode, mapping);
  // Both graphs read the same weights: pack them once.
  if (!options.shared_prepare) options.shared_prepare = make_shared_prepare_cache(options.weight_dtype);
  s.prefill = std::make_unique<Session>(std::move(prefill), options);
  s.decode = std::make_unique<Session>(std::move(decode), options);
  // The masks are written as float32 (float16/bfloat16 inputs compute in float32).
  if (s.prefill->input_slot(s.p_mask).dtype != DType::F32 || s.decode->input_slot(s.d_mask).dtype != DType::F32)
    throw IRFormatError("attention_mask must be a float32 (or float16/bfloat16) input in both IRs");
  for (const auto& c : s.caches) s.stats.cache_bytes += s.decode->input_slot(c.decode_in).nbytes();
}

LanguageModel::~LanguageModel() = default;

int64_t LanguageModel::prefill_len() const { return impl_->P; }
int64_t LanguageModel::max_cache_len() const { return impl_->C; }
int64_t LanguageModel::vocab_size() const { return impl_->V; }
int64_t LanguageModel::num_layers() const { return impl_->layers; }
const GenerationStats& LanguageModel::stats() const { return impl_->stats; }
Session& LanguageModel::prefill_session() { return *impl_->prefill; }
Session& LanguageModel::decode_session() { return *impl_->decode; }

int64_t LanguageModel::start(const std::vector<int64_t>& prompt, const SamplingOptions& sampling,
                             int64_t max_new_tokens) {
  begin_start(prompt, sampling, max_new_tokens);
  impl_->prefill->run_slots();
  return finish_start();
}

int64_t LanguageModel::step() {
  begin_step();
  impl_->decode->run_slots();
  return finish_step();
}

void LanguageModel::set_gpu_caches(bool on) { impl_->gpu_caches = on; }

void LanguageModel::set_logits_hook(bool on) { impl_->logits_hook = on; }

float* LanguageModel::pending_logits() {
  if (!impl_->token_pending) throw ExecutionError("generate: no logits are pending (the logits hook is off, or choose() ran)");
  return impl_->hook_row.data();
}

int64_t LanguageModel::choose() {
  Impl& s = *impl_;
  if (!s.token_pending) throw ExecutionError("generate: choose() without pending logits");
  s.last_token = s.sampler->pick(s.hook_row.data(), s.V);
  s.sampler->accept(s.last_token);
  s.token_pending = false;
  return s.last_token;
}

void LanguageModel::begin_start(const std::vector<int64_t>& prompt, const SamplingOptions& sampling,
                                int64_t max_new_tokens) {
  Impl& s = *impl_;
  const int64_t L = int64_t(prompt.size());
  if (L < 1) throw ExecutionError("generate: the prompt is empty (give at least one token id)");
  if (L > s.P)
    throw ExecutionError("generate: the prompt has " + std::to_string(L) + " tokens but the prefill IR takes at most " +
                         std::to_string(s.P) + " (prefill_seq_len)");
  for (int64_t i = 0; i < L; ++i)
    if (prompt[size_t(i)] < 0 || prompt[size_t(i)] >= s.V)
      throw ExecutionError("generate: prompt token " + std::to_string(i) + " is " + std::to_string(prompt[size_t(i)]) +
                           ", outside the vocabulary [0, " + std::to_string(s.V) + ")");
  if (max_new_tokens < 1) throw ExecutionError("generate: maxNewTokens must be at least 1");
  if (L + max_new_tokens - 1 > s.C)
    throw ExecutionError("generate: a " + std::to_string(L) + "-token prompt and " + std::to_string(max_new_tokens) +
                         " new tokens need " + std::to_string(L + max_new_tokens - 1) + " cache slots; the decode IR has " +
                         std::to_string(s.C) + " (max_cache_len), so at most " + std::to_string(s.C - L + 1) +
                         " new tokens");
  s.sampler = std::make_unique<Sampler>(sampling);
  s.sampler->observe_prompt(prompt);
  s.token_pending = false;
  const size_t cache_bytes = s.stats.cache_bytes;
  s.stats = GenerationStats{};
  s.stats.cache_bytes = cache_bytes;
  s.stats.prompt_tokens = L;
  s.t0 = Clock::now();
  s.prompt_len = L;
  Session& pre = *s.prefill;
  const Tensor &ids = pre.input_slot(s.p_ids), &mask = pre.input_slot(s.p_mask), &pos = pre.input_slot(s.p_pos);
  for (int64_t q = 0; q < s.P; ++q) {
    write_int(ids, q, q < L ? prompt[size_t(q)] : 0);
    write_int(pos, q, q);
    // Causal, and pad keys (>= L) masked; pad query rows still see the real keys.
    s.write_mask_row(mask, q * s.P, s.P, std::min(q + 1, L));
  }
  s.last_slot = L + max_new_tokens - 2;
  s.slot = 0;  // no step until finish_start()
}

int64_t LanguageModel::finish_start() {
  Impl& s = *impl_;
  if (!s.sampler || s.slot != 0) throw ExecutionError("generate: finish_start() without begin_start()");
  const int64_t L = s.prompt_len;
  Session& pre = *s.prefill;
  const Tensor& logits = pre.output_views()[0];
  const Tensor last_row = logits.view_as({s.V}, {logits.strides[2]}, logits.offset + (L - 1) * logits.strides[1]);
  const Tensor row = contiguous_or_self(last_row);
  s.take(row.data<float>());
  // Caches: the P prefill slots, then zeros.
  Session& dec = *s.decode;
  for (const auto& c : s.caches) {
    if (s.gpu_caches) break;  // the executor's GPU copies do this
    const Tensor& slot = dec.input_slot(c.decode_in);
    std::memset(slot.raw(), 0, slot.nbytes());
    const Tensor& from = pre.output_views()[c.prefill_out];
    copy_into(slot.view_as(from.shape, slot.strides, slot.offset), from);
  }
  s.write_mask_row(dec.input_slot(s.d_mask), 0, s.C, L);
  s.slot = L;
  s.stats.prefill_ms = ms_since(s.t0);
  return s.last_token;
}

void LanguageModel::begin_step() {
  Impl& s = *impl_;
  if (!s.sampler || s.slot == 0) throw ExecutionError("generate: step() before start()");
  if (s.token_pending) throw ExecutionError("generate: step() before choose() (the logits hook is on)");
  if (s.slot > s.last_slot || s.slot >= s.C)
    throw ExecutionError("generate: no cache slot left (" + std::to_string(s.C) + " slots; maxNewTokens reached)");
  s.t0 = Clock::now();
  Session& dec = *s.decode;
  write_int(dec.input_slot(s.d_ids), 0, s.last_token);
  write_int(dec.input_slot(s.d_pos), 0, s.slot);
  write_int(dec.input_slot(s.d_cache_pos), 0, s.slot);
  dec.input_slot(s.d_mask).data<float>()[s.slot] = 0.0f;  // the new key becomes visible
}

int64_t LanguageModel::finish_step() {
  Impl& s = *impl_;
  Session& dec = *s.decode;
  size_t copied = 0;
  for (const auto& c : s.caches) {
    if (s.gpu_caches) break;  // the executor copies out -> in on the GPU
    const size_t n = dec.carry(c.decode_out, c.decode_in);
    copied += n ? 2 * n : 0;  // index_copy copied self too when it could not run in place
  }
  const Tensor& logits = dec.output_views()[0];
  const Tensor row = contiguous_or_self(logits.view_as({s.V}, {logits.strides[2]}, logits.offset));
  s.take(row.data<float>());
  ++s.slot;
  ++s.stats.decode_steps;
  s.stats.decode_ms += ms_since(s.t0);
  s.stats.cache_bytes_copied_per_step = copied;
  return s.last_token;
}

std::string LanguageModel::webgpu_plan(WebGpuDevice device) const {
  const Impl& s = *impl_;
  const Impl::ResidentCaches r = s.resident_caches();
  const std::string pre = s.prefill->webgpu_plan(device, {}, r.prefill_kv);
  const std::string dec = s.decode->webgpu_plan(device, r.decode_in, r.decode_out);
  // GPU buffers hold 4 bytes per element; copies are byte ranges of the
  // values' buffers (offsets from the views the sessions planned).
  auto range = [](int64_t src, int64_t dst, int64_t n) {
    return "[" + std::to_string(4 * src) + ", " + std::to_string(4 * dst) + ", " + std::to_string(4 * n) + "]";
  };
  std::string caches;
  for (const auto& c : s.caches) {
    const Tensor& from = s.prefill->output_views()[c.prefill_out];
    const Tensor& to = s.decode->input_slot(c.decode_in);
    const Tensor& out = s.decode->output_views()[c.decode_out];
    const std::string name = "'" + s.decode->model().graph_inputs[c.decode_in].name + "'";
    if (from.dtype != DType::F32 || to.dtype != DType::F32)
      throw ExecutionError("WebGPU generation: the cache " + name + " is " + dtype_name(to.dtype) + "; the GPU caches are float32");
    // [1, H, P, D] rows -> slots 0..P-1 of [1, H, C, D]: one copy per head.
    if (!to.is_contiguous() || from.strides[3] != 1 || from.strides[2] != from.shape[3] || !out.is_contiguous())
      throw ExecutionError("WebGPU generation: the prefill output or decode cache for " + name + " is not row-contiguous");
    std::string fill;
    const int64_t H = to.shape[1], D = to.shape[3];
    for (int64_t h = 0; h < H; ++h)
      fill += (h ? ", " : "") + range(from.offset + h * from.strides[1], to.offset + h * s.C * D, s.P * D);
    // Donated (update_in_place): index_copy wrote the resident cache itself, nothing to carry.
    const bool same = out.raw() == to.raw();
    caches += std::string(caches.empty() ? "" : ",\n    ") + "{\"prefill_out\": " + std::to_string(c.prefill_out) +
              ", \"decode_in\": " + std::to_string(c.decode_in) + ", \"decode_out\": " + std::to_string(c.decode_out) +
              ", \"clear\": [" + std::to_string(4 * to.offset) + ", " + std::to_string(4 * to.numel()) + "], \"fill\": [" + fill + "], \"carry\": [" +
              (same ? "" : range(out.offset, to.offset, to.numel())) + "]}";
  }
  return "{\"prefill\": " + pre + ", \"decode\": " + dec + ", \"caches\": [\n    " + caches + "]}\n";
}

std::vector<int64_t> generate(LanguageModel& lm, const std::vector<int64_t>& prompt, int64_t max_new_tokens,
                              const SamplingOptions& sampling, const std::vector<int64_t>& stop,
                              const std::function<bool(int64_t, int64_t)>& on_token) {
  std::vector<int64_t> out;
  auto emit = [&](int64_t tok) {
    out.push_back(tok);
    const bool more = !on_token || on_token(tok, int64_t(out.size()) - 1);
    for (int64_t s : stop)
      if (s == tok) return false;
    return more && int64_t(out.size()) < max_new_tokens;
  };
  if (!emit(lm.start(prompt, sampling, max_new_tokens))) return out;
  while (emit(lm.step())) {
  }
  return out;
}

}  // namespace tir
