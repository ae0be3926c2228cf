#include "ir/model.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace tir {

int64_t TensorMeta::numel() const { return shape_numel(shape); }

ModelIndex::ModelIndex(const Model& model) {
  for (const auto& kv : model.weight_name_mapping) {
    original_.emplace(kv.first, kv.second);
    placeholders_[kv.second].push_back(kv.first);
  }
  for (const auto& w : model.weights) weights_.emplace(w.name, &w);
  // Older files list weights under a placeholder: the first placeholder (file
  // order) that names a weight, per original key.
  for (const auto& kv : placeholders_)
    for (const auto& p : kv.second) {
      auto it = weights_.find(p);
      if (it == weights_.end()) continue;
      by_placeholder_.emplace(kv.first, it->second);
      break;
    }
  for (const auto& g : model.graph_inputs) graph_inputs_.emplace(g.name, &g);
}

std::string ModelIndex::original_name(const std::string& placeholder) const {
  auto it = original_.find(placeholder);
  return it == original_.end() ? placeholder : it->second;
}

const std::vector<std::string>& ModelIndex::placeholders_of(const std::string& original) const {
  static const std::vector<std::string> none;
  auto it = placeholders_.find(original);
  return it == placeholders_.end() ? none : it->second;
}

const TensorMeta* ModelIndex::find_weight(const std::string& name) const {
  // The first weight (file order) named either the original or `name`; then,
  // for older files, the first placeholder match.
  const TensorMeta* best = nullptr;
  for (const std::string& n : {name, original_name(name)}) {
    auto it = weights_.find(n);
    if (it != weights_.end() && (!best || it->second < best)) best = it->second;
  }
  if (best) return best;
  auto it = by_placeholder_.find(name);
  return it == by_placeholder_.end() ? nullptr : it->second;
}

const TensorMeta* ModelIndex::find_graph_input(const std::string& name) const {
  auto it = graph_inputs_.find(name);
  return it == graph_inputs_.end() ? nullptr : it->second;
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
