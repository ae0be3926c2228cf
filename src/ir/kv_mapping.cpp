#include "ir/kv_mapping.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include "core/errors.h"

namespace tir {

namespace {

constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag;
constexpr int64_t kMaxLayers = 1 << 16;

[[noreturn]] void fail(const std::string& origin, const std::string& msg) {
  throw IRFormatError(origin + ": KV mapping: " + msg);
}

int64_t count_field(const rapidjson::Value& v, const char* key, const std::string& origin, bool required) {
  auto it = v.FindMember(key);
  if (it == v.MemberEnd() || it->value.IsNull()) {
    if (required) fail(origin, std::string("missing \"") + key + "\"");
    return 0;
  }
  if (!it->value.IsInt64() || it->value.GetInt64() < 1 || it->value.GetInt64() > (int64_t(1) << 31))
    fail(origin, std::string("\"") + key + "\" must be a positive integer");
  return it->value.GetInt64();
}

std::string name_field(const rapidjson::Value& layer, const char* key, size_t index, const std::string& origin) {
  auto it = layer.FindMember(key);
  if (it == layer.MemberEnd() || !it->value.IsString() || it->value.GetStringLength() == 0)
    fail(origin, "layers[" + std::to_string(index) + "]: \"" + key + "\" must be a tensor name (string)");
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace

KvMapping parse_kv_mapping(const std::string& text, const std::string& origin) {
  rapidjson::Document doc;
  doc.Parse<kFlags>(text.data(), text.size());
  if (doc.HasParseError())
    fail(origin, std::string("invalid JSON at offset ") + std::to_string(doc.GetErrorOffset()) + ": " +
                     rapidjson::GetParseError_En(doc.GetParseError()));
  if (!doc.IsObject()) fail(origin, "the top level must be an object");
  KvMapping m;
  m.num_layers = count_field(doc, "num_layers", origin, true);
  m.prefill_seq_len = count_field(doc, "prefill_seq_len", origin, false);
  m.max_cache_len = count_field(doc, "max_cache_len", origin, false);
  if (m.num_layers > kMaxLayers) fail(origin, "num_layers " + std::to_string(m.num_layers) + " is too large");
  auto layers = doc.FindMember("layers");
  if (layers == doc.MemberEnd() || !layers->value.IsArray()) fail(origin, "missing \"layers\" array");
  const auto& arr = layers->value;
  if (int64_t(arr.Size()) != m.num_layers)
    fail(origin, "num_layers is " + std::to_string(m.num_layers) + " but \"layers\" has " +
                     std::to_string(arr.Size()) + " entries");
  m.layers.resize(size_t(m.num_layers));
  std::vector<bool> seen(size_t(m.num_layers), false);
  for (rapidjson::SizeType i = 0; i < arr.Size(); ++i) {
    const auto& l = arr[i];
    if (!l.IsObject()) fail(origin, "layers[" + std::to_string(i) + "] must be an object");
    int64_t idx = int64_t(i);
    auto li = l.FindMember("layer");
    if (li != l.MemberEnd()) {
      if (!li->value.IsInt64()) fail(origin, "layers[" + std::to_string(i) + "].layer must be an integer");
      idx = li->value.GetInt64();
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
  }
  return m;
}

}  // namespace tir
