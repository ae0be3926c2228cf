// Graph-level consistency checks the JSON loader cannot do field by field.
// Every problem is collected so one run shows the whole picture.
#include "ir/validator.h"

#include <unordered_map>
#include <unordered_set>

#include "core/errors.h"

namespace tir {

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// "" when shape and dtype agree, else what differs.
std::string meta_mismatch(const TensorMeta& got, const TensorMeta& want, const std::string& what) {
  std::string out;
  if (got.shape != want.shape)
    out = "shape " + shape_to_string(got.shape) + " does not match " + what + " shape " +
          shape_to_string(want.shape);
  if (got.dtype != want.dtype) {
    if (!out.empty()) out += "; ";
    out += std::string("dtype ") + dtype_name(got.dtype) + " does not match " + what + " dtype " +
           dtype_name(want.dtype);
  }
  return out;
}

}  // namespace

std::vector<std::string> validate_model(const Model& model) { return validate_model(model, ModelIndex(model)); }

std::vector<std::string> validate_model(const Model& model, const ModelIndex& index) {
  std::vector<std::string> problems;

  std::unordered_map<std::string, size_t> graph_input_index;
  for (size_t k = 0; k < model.graph_inputs.size(); ++k) {
    const auto& g = model.graph_inputs[k];
    if (!graph_input_index.emplace(g.name, k).second)
      problems.push_back("graph_inputs[" + std::to_string(k) + "] (" + quoted(g.name) +
                         "): duplicate graph input name");
  }

  // First occurrence of each node name.
  std::unordered_map<std::string, size_t> node_index;
  for (size_t k = 0; k < model.nodes.size(); ++k) {
    const OpNode& n = model.nodes[k];
    const std::string where = "nodes[" + std::to_string(k) + "]";
    if (n.name.empty()) {
      problems.push_back(where + ": empty node name");
      continue;
    }
    auto ins = node_index.emplace(n.name, k);
    if (!ins.second)
      problems.push_back("node " + quoted(n.name) + " (" + where + "): duplicate node name (first at nodes[" +
                         std::to_string(ins.first->second) + "])");
    if (graph_input_index.count(n.name))
      problems.push_back("node " + quoted(n.name) + " (" + where + "): name clashes with a graph input");
  }

  for (size_t k = 0; k < model.nodes.size(); ++k) {
    const OpNode& n = model.nodes[k];
    const std::string node_desc = n.name.empty() ? "nodes[" + std::to_string(k) + "]" : "node " + quoted(n.name);
    for (size_t j = 0; j < n.inputs.size(); ++j) {
      const TensorMeta& in = n.inputs[j];
      const std::string where = node_desc + " input " + std::to_string(j) + " (" + quoted(in.name) + ")";
      if (!in.has_producer()) {
        if (index.find_weight(in.name)) continue;
        if (const TensorMeta* g = index.find_graph_input(in.name)) {
          std::string diff = meta_mismatch(in, *g, "graph input " + quoted(g->name));
          if (!diff.empty()) problems.push_back(where + ": " + diff);
          continue;
        }
        problems.push_back(where + ": has no producer_node and names no weight or graph input");
        continue;
      }

      // An earlier node wins over a graph input of the same name (a clash already
      // reported above); a later node is only an error when nothing else matches.
      const TensorMeta* source = nullptr;
      std::string source_desc;
      auto it = node_index.find(in.producer_node);
      const TensorMeta* g = index.find_graph_input(in.producer_node);
      if (it != node_index.end() && it->second < k) {
        const OpNode& prod = model.nodes[it->second];
        if (in.producer_output_idx < 0 || in.producer_output_idx >= int64_t(prod.outputs.size())) {
          problems.push_back(where + ": producer_output_idx " + std::to_string(in.producer_output_idx) +
                             " out of range (node " + quoted(prod.name) + " has " +
                             std::to_string(prod.outputs.size()) + " output(s))");
          continue;
        }
        source = &prod.outputs[size_t(in.producer_output_idx)];
        source_desc = "node " + quoted(prod.name) + " output " + std::to_string(in.producer_output_idx);
      } else if (g) {
        // A graph input is its own producer, with a single output.
        if (in.producer_output_idx != 0) {
          problems.push_back(where + ": producer_output_idx " + std::to_string(in.producer_output_idx) +
                             " out of range (graph input " + quoted(g->name) + " has 1 output)");
          continue;
        }
        source = g;
        source_desc = "graph input " + quoted(g->name);
      } else if (it != node_index.end()) {
        problems.push_back(where + ": producer_node " + quoted(in.producer_node) +
                           (it->second == k ? std::string(" is the node itself")
                                            : " is a later node (nodes[" + std::to_string(it->second) +
                                                  "]): forward reference"));
        continue;
      } else {
        problems.push_back(where + ": producer_node " + quoted(in.producer_node) +
                           " is neither a node nor a graph input");
        continue;
      }
      // A weight read must come from the registry, not from a producer; tolerate
      // the (odd but harmless) case of a node output that shares the weight's name.
      if (index.find_weight(in.name) && in.name != source->name)
        problems.push_back(where + ": names a weight but has producer_node " + quoted(in.producer_node));
      std::string diff = meta_mismatch(in, *source, source_desc);
      if (!diff.empty()) problems.push_back(where + ": " + diff);
    }
  }

  std::unordered_set<std::string> produced;
  for (const auto& n : model.nodes)
    for (const auto& o : n.outputs) produced.insert(o.name);
  for (size_t k = 0; k < model.graph_outputs.size(); ++k) {
    const auto& o = model.graph_outputs[k];
    // An exported forward may also return an input or a buffer unchanged.
    if (produced.count(o.name) || graph_input_index.count(o.name) || index.find_weight(o.name)) continue;
    problems.push_back("graph_outputs[" + std::to_string(k) + "] (" + quoted(o.name) +
                       "): names no node output or graph input");
  }

  // Only checkable when `weights` lists original keys (older files list placeholders).
  std::unordered_set<std::string> weight_names;
  for (const auto& w : model.weights) weight_names.insert(w.name);
  bool lists_placeholders = false;
  for (const auto& kv : model.weight_name_mapping)
    if (weight_names.count(kv.first)) lists_placeholders = true;
  if (!lists_placeholders) {
    for (const auto& kv : model.weight_name_mapping)
      if (!weight_names.count(kv.second))
        problems.push_back("weight_name_mapping[" + quoted(kv.first) + "]: maps to " + quoted(kv.second) +
                           ", which is not in weights");
  }
  return problems;
}

void validate_model_or_throw(const Model& model) { validate_model_or_throw(model, ModelIndex(model)); }

void validate_model_or_throw(const Model& model, const ModelIndex& index) {
  const auto problems = validate_model(model, index);
  if (problems.empty()) return;
  // A broken generator can produce one problem per node: show the first ones, count the rest.
  constexpr size_t kShown = 50;
  std::string msg = "IR validation failed with " + std::to_string(problems.size()) + " problem(s):";
  for (size_t i = 0; i < problems.size() && i < kShown; ++i) msg += "\n  - " + problems[i];
  if (problems.size() > kShown) msg += "\n  ... and " + std::to_string(problems.size() - kShown) + " more";
  throw IRFormatError(msg);
}

}  // namespace tir
