#include "ir/kv_mapping.h"

#include "core/errors.h"
#include "core/json.h"

namespace tir {

namespace {

constexpr int64_t kMaxLayers = 1 << 16;

[[noreturn]] void fail(const std::string& origin, const std::string& msg) {
  throw IRFormatError(origin + ": KV mapping: " + msg);
}

int64_t count_field(json::Value v, const char* key, const std::string& origin, bool required) {
  json::Value f;
  if (!v.find(key, &f) || f.is_null()) {
    if (required) fail(origin, std::string("missing \"") + key + "\"");
    return 0;
  }
  if (!f.is_int64() || f.as_int64() < 1 || f.as_int64() > (int64_t(1) << 31))
    fail(origin, std::string("\"") + key + "\" must be a positive integer");
  return f.as_int64();
}

std::string name_field(json::Value layer, const char* key, size_t index, const std::string& origin) {
  json::Value f;
  if (!layer.find(key, &f) || !f.is_string() || f.str().empty())
    fail(origin, "layers[" + std::to_string(index) + "]: \"" + key + "\" must be a tensor name (string)");
  return f.string();
}

}  // namespace

KvMapping parse_kv_mapping(const std::string& text, const std::string& origin) {
  json::Document parsed;
  try {
    parsed = json::Document::parse(text);
  } catch (const json::ParseError& e) {
    fail(origin, "invalid JSON: " + e.message());
  }
  const json::Value doc = parsed.root();
  if (!doc.is_object()) fail(origin, "the top level must be an object");
  KvMapping m;
  m.num_layers = count_field(doc, "num_layers", origin, true);
  m.prefill_seq_len = count_field(doc, "prefill_seq_len", origin, false);
  m.max_cache_len = count_field(doc, "max_cache_len", origin, false);
  if (m.num_layers > kMaxLayers) fail(origin, "num_layers " + std::to_string(m.num_layers) + " is too large");
  json::Value arr;
  if (!doc.find("layers", &arr) || !arr.is_array()) fail(origin, "missing \"layers\" array");
  if (int64_t(arr.size()) != m.num_layers)
    fail(origin, "num_layers is " + std::to_string(m.num_layers) + " but \"layers\" has " +
                     std::to_string(arr.size()) + " entries");
  m.layers.resize(size_t(m.num_layers));
  std::vector<bool> seen(size_t(m.num_layers), false);
  size_t i = 0;
  for (json::Value l : arr) {
    if (!l.is_object()) fail(origin, "layers[" + std::to_string(i) + "] must be an object");
    int64_t idx = int64_t(i);
    json::Value li;
    if (l.find("layer", &li)) {
      if (!li.is_int64()) fail(origin, "layers[" + std::to_string(i) + "].layer must be an integer");
      idx = li.as_int64();
    }
    if (idx < 0 || idx >= m.num_layers || seen[size_t(idx)])
      fail(origin, "layers[" + std::to_string(i) + "].layer " + std::to_string(idx) +
                       (idx >= 0 && idx < m.num_layers ? " appears twice" : " is out of range"));
    seen[size_t(idx)] = true;
    KvLayerNames& n = m.layers[size_t(idx)];
    n.prefill_key_output = name_field(l, "prefill_key_output", i, origin);
    n.prefill_value_output = name_field(l, "prefill_value_output", i, origin);
    n.decode_key_input = name_field(l, "decode_key_input", i, origin);
    n.decode_value_input = name_field(l, "decode_value_input", i, origin);
    n.decode_key_output = name_field(l, "decode_key_output", i, origin);
    n.decode_value_output = name_field(l, "decode_value_output", i, origin);
    ++i;
  }
  return m;
}

}  // namespace tir
