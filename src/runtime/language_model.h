// Text generation over pytorch-ir's LLM export: a prefill IR (fixed prompt
// length P: logits and every layer's key/value), a decode IR (one token in,
// static key/value caches of C slots in and out, updated with index_copy at
// cache_position) and the KV mapping that pairs their tensors (ir/kv_mapping.h).
//
// ABI (pytorch-ir's advanced example):
//   prefill inputs  input_ids [1,P], attention_mask [1,1,P,P] additive (0 where
//                   key <= query, the float32 minimum elsewhere), position_ids [1,P];
//           outputs logits [1,P,V], then each layer's key and value.
//   decode  inputs  input_ids [1,1], attention_mask [1,1,1,C] (0 for key slots <=
//                   the current slot), position_ids [[slot]], cache_position [slot],
//                   then the past keys/values of C slots;
//           outputs logits [1,1,V], then the updated caches.
// Generation: prefill on the prompt right-padded to P (pad keys masked), copy
// each layer's P prefill slots into zeroed C-slot caches, take the first token
// from the last real prompt row, then decode with slot = prompt length + step - 1.
// The decode session runs index_copy in the cache input's own memory
// (SessionOptions::update_in_place), so a step moves one token's keys/values,
// not C slots; with it off, every step copies the caches (same results).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "ir/kv_mapping.h"
#include "ir/model.h"
#include "runtime/sampler.h"
#include "runtime/session.h"
#include "weights/tensor_map.h"

namespace tir {

struct GenerationStats {
  int64_t prompt_tokens = 0;
  double prefill_ms = 0;
  int64_t decode_steps = 0;
  double decode_ms = 0;
  // Bytes of key/value cache copied per decode step: 0 when the caches are
  // updated in place; twice the cache size otherwise (index_copy's copy of
  // self, then feeding the output back as the next input).
  size_t cache_bytes_copied_per_step = 0;
  size_t cache_bytes = 0;  // all layers' key + value caches
};

class LanguageModel {
 public:
  // Compiles both graphs and binds both from the same weights/constants.
  // Throws IRFormatError when the three files do not fit together (names,
  // shapes, dtypes, layer count), naming the tensor and file.
  LanguageModel(Model prefill, Model decode, const KvMapping& mapping, const TensorMap& weights,
                const TensorMap& constants = {}, SessionOptions options = {});
  // Compiles both graphs without binding them, for weights streamed to the GPU:
  // place_for_webgpu(), then bind().
  LanguageModel(Model prefill, Model decode, const KvMapping& mapping, SessionOptions options);
  ~LanguageModel();
  // Session::place_for_webgpu of both graphs, with the caches resident as
  // webgpu_plan() has them: every name of a weight the CPU reads in either.
  std::vector<std::string> place_for_webgpu(uint64_t max_binding_bytes);
  void bind(const TensorMap& weights, const TensorMap& constants = {});

  int64_t prefill_len() const;    // P
  int64_t max_cache_len() const;  // C
  int64_t vocab_size() const;     // V
  int64_t num_layers() const;

  // Runs prefill on `prompt` (1..P token ids) and returns the first new token.
  // `max_new_tokens` is checked against the cache: prompt + new - 1 <= C.
  int64_t start(const std::vector<int64_t>& prompt, const SamplingOptions& sampling, int64_t max_new_tokens);
  // One decode step from the last token; returns the next token.
  int64_t step();

  // The same loop for an external executor of the sessions (the npm package's
  // WebGPU one): start() is begin_start(), the prefill session's run,
  // finish_start(); step() is begin_step(), the decode run, finish_step().
  // The engine keeps the loop state (inputs, masks, positions, sampler).
  void begin_start(const std::vector<int64_t>& prompt, const SamplingOptions& sampling, int64_t max_new_tokens);
  int64_t finish_start();
  void begin_step();
  int64_t finish_step();
  // The caches live in the executor's GPU buffers: finish_start()/finish_step()
  // skip the engine's cache copies, which the plan's GPU copies replace.
  void set_gpu_caches(bool on);
  // A logits processor outside the engine (the npm package's logitsProcessor):
  // with the hook on, finish_start()/finish_step() (and start()/step()) stop
  // after the sampler's own processors and return -1; the caller edits
  // pending_logits() (vocab_size() floats) and calls choose() for the token.
  void set_logits_hook(bool on);
  float* pending_logits();
  int64_t choose();
  // Both sessions' WebGPU plans (Session::webgpu_plan) with the decode caches
  // resident on the GPU and the prefill's key/value outputs and decode's
  // updated caches kept there, plus the buffer copies that stand for the
  // engine's: prefill -> decode caches after prefill, decode out -> in after a
  // step (none when update_in_place donated the caches: index_copy then writes
  // the resident buffers themselves). JSON; docs/webgpu.md.
  std::string webgpu_plan(WebGpuDevice device) const;
  const GenerationStats& stats() const;

  Session& prefill_session();
  Session& decode_session();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// start() then step() until max_new_tokens tokens or a stop token (which is
// included). on_token(id, index) returning false stops early. Returns the new ids.
std::vector<int64_t> generate(LanguageModel& lm, const std::vector<int64_t>& prompt, int64_t max_new_tokens,
                              const SamplingOptions& sampling, const std::vector<int64_t>& stop = {},
                              const std::function<bool(int64_t, int64_t)>& on_token = {});

}  // namespace tir
