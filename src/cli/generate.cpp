// torchir generate: text generation over a prefill/decode IR pair
// (runtime/language_model.h). Prints timing to stderr and the new token ids,
// space-separated, as the last line of stdout.
#include "cli/generate.h"

#include <cstdio>
#include <iostream>

#include "command_line/command_line.h"
#include "core/errors.h"
#include "core/file_io.h"
#include "core/thread_pool.h"
#include "ir/json_loader.h"
#include "ir/kv_mapping.h"
#include "runtime/language_model.h"
#include "weights/torch_save.h"

namespace tir::cli {

namespace {

std::string read_text(const std::string& path) {
  auto bytes = read_file_bytes(path);
  return std::string(bytes->begin(), bytes->end());
}

}  // namespace

int cmd_generate(const Args& a) {
  // The arguments were checked against the command table (command_line/command_line.cpp).
  if (a.has("--prompt") || a.has("--tokenizer"))
    throw UsageError("generate: --prompt and --tokenizer are torch-ir-wasm's (npx torch-ir-wasm generate ... --tokenizer "
                     "tokenizer.json --prompt TEXT tokenizes in JavaScript); this CLI takes --prompt-ids");
  if (!a.has("--prompt-ids")) throw UsageError("generate needs --prompt-ids 1,2,3 (the prompt's token ids)");
  const std::string mapping_path = a.get("--kv-mapping"), weights_path = a.get("--weights");
  if (const int64_t threads = int64_t(a.num("--threads", 0)); threads > 0) set_num_threads(int(threads));
  SessionOptions options = session_options(a);
  options.update_in_place = !a.has("--no-donate");
  Model prefill = load_model_file(a.positional[0]), decode = load_model_file(a.positional[1]);
  KvMapping mapping = parse_kv_mapping(read_text(mapping_path), mapping_path);
  TensorMap weights = read_weights_file(weights_path), constants = load_optional_tensors(a.get("--constants"));
  // Both graphs bind from the one weights file: a key either uses is known.
  check_weight_keys({&prefill, &decode}, weights, "weights", a.has("--strict-weights"));
  check_weight_keys({&prefill, &decode}, constants, "constants", a.has("--strict-weights"));
  LanguageModel lm(std::move(prefill), std::move(decode), mapping, weights, constants, options);
  SamplingOptions sampling;
  sampling.temperature = a.num("--temperature");
  sampling.top_k = int64_t(a.num("--top-k"));
  sampling.top_p = a.num("--top-p");
  sampling.seed = uint64_t(a.num("--seed"));
  sampling.repetition_penalty = a.num("--repetition-penalty");
  sampling.frequency_penalty = a.num("--frequency-penalty");
  sampling.presence_penalty = a.num("--presence-penalty");
  // No stop id before --min-new-tokens.
  sampling.min_new_tokens = int64_t(a.num("--min-new-tokens"));
  sampling.end_ids = a.ids("--stop");
  const auto ids = generate(lm, a.ids("--prompt-ids"), int64_t(a.num("--max-new-tokens")), sampling, sampling.end_ids);
  const GenerationStats& st = lm.stats();
  std::fprintf(stderr,
               "prefill: %lld tokens (padded to %lld) in %.2f ms; decode: %lld steps in %.2f ms (%.1f tokens/s); "
               "cache %zu bytes, %zu copied per step\n",
               (long long)st.prompt_tokens, (long long)lm.prefill_len(), st.prefill_ms, (long long)st.decode_steps,
               st.decode_ms, st.decode_steps ? 1000.0 * double(st.decode_steps) / st.decode_ms : 0.0, st.cache_bytes,
               st.cache_bytes_copied_per_step);
  std::string line;
  for (int64_t id : ids) line += (line.empty() ? "" : " ") + std::to_string(id);
  std::cout << line << "\n";
  return 0;
}

}  // namespace tir::cli
