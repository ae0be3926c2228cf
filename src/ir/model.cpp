#include "ir/model.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace tir {

int64_t TensorMeta::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::string Model::original_name(const std::string& placeholder) const {
  for (const auto& kv : weight_name_mapping)
    if (kv.first == placeholder) return kv.second;
  return placeholder;
}

std::vector<std::string> Model::placeholders_of(const std::string& original) const {
  std::vector<std::string> out;
  for (const auto& kv : weight_name_mapping)
    if (kv.second == original) out.push_back(kv.first);
  return out;
}

const TensorMeta* Model::find_weight(const std::string& name) const {
  const std::string original = original_name(name);
  for (const auto& w : weights)
    if (w.name == original || w.name == name) return &w;
  // Older files list weights under their placeholder names.
  for (const auto& p : placeholders_of(name))
    for (const auto& w : weights)
      if (w.name == p) return &w;
  return nullptr;
}

const TensorMeta* Model::find_graph_input(const std::string& name) const {
  for (const auto& g : graph_inputs)
    if (g.name == name) return &g;
  return nullptr;
}

std::string Attr::to_string() const {
  switch (kind) {
    case Kind::None: return "null";
    case Kind::Bool: return b ? "true" : "false";
    case Kind::Int: return std::to_string(i);
    case Kind::Float: {
      if (std::isnan(f)) return "NaN";
      if (std::isinf(f)) return f > 0 ? "Infinity" : "-Infinity";
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", f);
      return buf;
    }
    case Kind::String: return "\"" + s + "\"";
    case Kind::List: {
      std::string out = "[";
      for (size_t k = 0; k < list.size(); ++k) {
        if (k) out += ", ";
        out += list[k].to_string();
      }
      return out + "]";
    }
  }
  return "";
}

}  // namespace tir
