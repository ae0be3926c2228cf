// The KV mapping that pytorch-ir's LLM recipe writes beside its prefill and
// decode IRs: which prefill outputs, decode inputs and decode outputs carry
// each layer's key and value cache.
//   {"num_layers": L, "prefill_seq_len": P, "max_cache_len": C,
//    "layers": [{"layer": 0, "prefill_key_output": ..., "prefill_value_output": ...,
//                "decode_key_input": ..., "decode_value_input": ...,
//                "decode_key_output": ..., "decode_value_output": ...}, ...]}
// prefill_seq_len / max_cache_len are optional (older files): 0 when absent.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tir {

struct KvLayerNames {
  std::string prefill_key_output, prefill_value_output;
  std::string decode_key_input, decode_value_input;
  std::string decode_key_output, decode_value_output;
};

struct KvMapping {
  int64_t num_layers = 0;
  int64_t prefill_seq_len = 0;  // 0: not given
  int64_t max_cache_len = 0;    // 0: not given
  std::vector<KvLayerNames> layers;  // ordered by "layer"
};

// Parses the JSON text; `origin` names the file in errors (IRFormatError).
KvMapping parse_kv_mapping(const std::string& text, const std::string& origin);

}  // namespace tir
