// torchir generate: text generation over a prefill/decode IR pair
// (runtime/language_model.h). Prints timing to stderr and the new token ids,
// space-separated, as the last line of stdout.
#include "cli/generate.h"

#include <cstdio>
#include <iostream>
#include <sstream>

#include "core/errors.h"
#include "core/file_io.h"
#include "core/thread_pool.h"
#include "ir/json_loader.h"
#include "ir/kv_mapping.h"
#include "runtime/language_model.h"
#include "weights/torch_save.h"

namespace tir::cli {

const char* kGenerateUsage =
    "  generate PREFILL DECODE --kv-mapping K --weights W [--constants C] --prompt-ids 1,2,3\n"
    "      [--max-new-tokens N] [--temperature T] [--top-k K] [--top-p P] [--seed S] [--stop 2,3]\n"
    "      [--threads N] [--weight-dtype D] [--no-donate] [--strict-weights] [LIMITS]\n"
    "      (new ids on the last stdout line; timing on stderr)\n";

namespace {

std::vector<int64_t> parse_ids(const std::string& text, const char* opt) {
  std::vector<int64_t> ids;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size())
      throw UsageError(std::string(opt) + ": '" + item + "' is not an integer token id (expected e.g. 1,2,3)");
    ids.push_back(v);
  }
  return ids;
}

std::string read_text(const std::string& path) {
  auto bytes = read_file_bytes(path);
  return std::string(bytes->begin(), bytes->end());
}

}  // namespace

int cmd_generate(const Args& a) {
  if (a.positional.size() != 2) throw UsageError("generate needs two IR files: PREFILL DECODE");
  const std::string mapping_path = required(a, "--kv-mapping"), weights_path = required(a, "--weights");
  required(a, "--prompt-ids");
  const int64_t threads = int64_t(a.num("--threads", 0));
  if (threads < 0) throw UsageError("--threads must be positive");
  if (threads > 0) set_num_threads(int(threads));
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
  sampling.temperature = a.num("--temperature", 0);
  sampling.top_k = int64_t(a.num("--top-k", 0));
  sampling.top_p = a.num("--top-p", 1);
  sampling.seed = uint64_t(a.num("--seed", 0));
  const int64_t max_new = int64_t(a.num("--max-new-tokens", 32));
  const std::vector<int64_t> stop = a.has("--stop") ? parse_ids(a.get("--stop"), "--stop") : std::vector<int64_t>{};
  const auto ids = generate(lm, parse_ids(a.get("--prompt-ids"), "--prompt-ids"), max_new, sampling, stop);
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
