// Port of pytorch-ir's `info` command (torch_ir/cli.py cmd_info): the same
// summary as text or as Python's json.dumps(info, indent=2).
#include "ir/info.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

namespace tir {

namespace {

// Python dict semantics: a repeated key keeps its first position, takes the last value.
template <typename V>
struct OrderedDict {
  std::vector<std::pair<std::string, V>> items;
  std::map<std::string, size_t> index;
  V& operator[](const std::string& key) {
    auto ins = index.emplace(key, items.size());
    if (ins.second) items.emplace_back(key, V{});
    return items[ins.first->second].second;
  }
};

struct Info {
  std::string model_name;
  size_t num_nodes = 0, num_inputs = 0, num_outputs = 0, num_weights = 0;
  int64_t total_parameters = 0;
  OrderedDict<Shape> input_shapes, output_shapes;
  std::vector<std::pair<std::string, int64_t>> op_distribution;
};

Info collect(const Model& model) {
  Info info;
  info.model_name = model.model_name;
  info.num_nodes = model.nodes.size();
  info.num_inputs = model.graph_inputs.size();
  info.num_outputs = model.graph_outputs.size();
  info.num_weights = model.weights.size();
  for (const auto& w : model.weights) info.total_parameters += w.numel();
  for (const auto& in : model.graph_inputs) info.input_shapes[in.name] = in.shape;
  for (const auto& out : model.graph_outputs) info.output_shapes[out.name] = out.shape;
  OrderedDict<int64_t> counts;
  for (const auto& n : model.nodes) ++counts[n.op_type];
  info.op_distribution = counts.items;
  std::stable_sort(info.op_distribution.begin(), info.op_distribution.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return info;
}

// Python's f"{n:,}".
std::string thousands(int64_t n) {
  std::string digits = std::to_string(n);
  const bool negative = digits[0] == '-';
  if (negative) digits.erase(0, 1);
  std::string out = negative ? "-" : "";
  for (size_t k = 0; k < digits.size(); ++k) {
    if (k && (digits.size() - k) % 3 == 0) out += ',';
    out += digits[k];
  }
  return out;
}

// Decodes one UTF-8 sequence at s[k]; invalid bytes read as U+FFFD, one at a time.
uint32_t next_code_point(const std::string& s, size_t& k) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = byte(k);
  int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || k + len > s.size()) { ++k; return 0xFFFD; }
  uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (int i = 1; i < len; ++i) {
    if ((byte(k + i) & 0xC0) != 0x80) { ++k; return 0xFFFD; }
    cp = (cp << 6) | (byte(k + i) & 0x3F);
  }
  k += len;
  return cp;
}

// Python's json string encoding with ensure_ascii=True.
std::string json_string(const std::string& s) {
  std::string out = "\"";
  char buf[16];
  for (size_t k = 0; k < s.size();) {
    const uint32_t cp = next_code_point(s, k);
    switch (cp) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    if (cp >= 0x20 && cp <= 0x7E) {
      out += char(cp);
    } else if (cp < 0x10000) {
      std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(cp));
      out += buf;
    } else {
      const uint32_t v = cp - 0x10000;
      std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", unsigned(0xD800 + (v >> 10)), unsigned(0xDC00 + (v & 0x3FF)));
      out += buf;
    }
  }
  return out + "\"";
}

// json.dumps(list_of_ints, indent=2) nested at `level`.
std::string json_int_list(const Shape& s, int level) {
  if (s.empty()) return "[]";
  const std::string pad(size_t(2 * (level + 1)), ' ');
  std::string out = "[";
  for (size_t k = 0; k < s.size(); ++k) out += (k ? ",\n" : "\n") + pad + std::to_string(s[k]);
  return out + "\n" + std::string(size_t(2 * level), ' ') + "]";
}

template <typename V, typename F>
std::string json_object(const std::vector<std::pair<std::string, V>>& items, int level, F value_text) {
  if (items.empty()) return "{}";
  const std::string pad(size_t(2 * (level + 1)), ' ');
  std::string out = "{";
  for (size_t k = 0; k < items.size(); ++k)
    out += (k ? ",\n" : "\n") + pad + json_string(items[k].first) + ": " + value_text(items[k].second, level + 1);
  return out + "\n" + std::string(size_t(2 * level), ' ') + "}";
}

}  // namespace

std::string model_info_text(const Model& model) {
  const Info info = collect(model);
  std::string out;
  out += "Model: " + info.model_name + "\n";
  out += "Nodes: " + std::to_string(info.num_nodes) + "\n";
  out += "Inputs: " + std::to_string(info.num_inputs) + "\n";
  out += "Outputs: " + std::to_string(info.num_outputs) + "\n";
  out += "Weights: " + std::to_string(info.num_weights) + "\n";
  out += "Total parameters: " + thousands(info.total_parameters) + "\n";
  out += "\nInput shapes:";
  for (const auto& kv : info.input_shapes.items) out += "\n  " + kv.first + ": " + shape_to_string(kv.second);
  out += "\n\nOutput shapes:";
  for (const auto& kv : info.output_shapes.items) out += "\n  " + kv.first + ": " + shape_to_string(kv.second);
  out += "\n\nOp distribution:";
  for (const auto& kv : info.op_distribution) out += "\n  " + kv.first + ": " + std::to_string(kv.second);
  return out;
}

std::string model_info_json(const Model& model) {
  const Info info = collect(model);
  const auto shape_text = [](const Shape& s, int level) { return json_int_list(s, level); };
  const auto count_text = [](int64_t n, int) { return std::to_string(n); };
  std::string out = "{\n";
  out += "  \"model_name\": " + json_string(info.model_name) + ",\n";
  out += "  \"num_nodes\": " + std::to_string(info.num_nodes) + ",\n";
  out += "  \"num_inputs\": " + std::to_string(info.num_inputs) + ",\n";
  out += "  \"num_outputs\": " + std::to_string(info.num_outputs) + ",\n";
  out += "  \"num_weights\": " + std::to_string(info.num_weights) + ",\n";
  out += "  \"total_parameters\": " + std::to_string(info.total_parameters) + ",\n";
  out += "  \"input_shapes\": " + json_object(info.input_shapes.items, 1, shape_text) + ",\n";
  out += "  \"output_shapes\": " + json_object(info.output_shapes.items, 1, shape_text) + ",\n";
  out += "  \"op_distribution\": " + json_object(info.op_distribution, 1, count_text) + "\n";
  return out + "}";
}

}  // namespace tir
