// Port of pytorch-ir's torch_ir/visualize.py. Output must stay byte-identical,
// so quirks are kept on purpose (Python slice semantics for negative limits,
// lookups by tensor name rather than producer_node).
#include "ir/mermaid.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace tir {

namespace {

std::string format_shape(const Shape& shape) {
  std::string out;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (k) out += "x";
    out += std::to_string(shape[k]);
  }
  return out;
}

std::string sanitize_label(std::string text) {
  std::replace(text.begin(), text.end(), '"', '\'');
  return text;
}

// Python's seq[:stop] length for a possibly negative stop.
size_t slice_stop(int64_t stop, size_t len) {
  if (stop < 0) stop += int64_t(len);
  if (stop < 0) return 0;
  return std::min(size_t(stop), len);
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t k = 0; k < lines.size(); ++k) {
    if (k) out += "\n";
    out += lines[k];
  }
  return out;
}

}  // namespace

std::string short_op_name(const std::string& op_type) {
  std::string name = op_type;
  if (name.rfind("aten.", 0) == 0) name = name.substr(5);
  const std::string suffix = ".default";
  if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
    name.resize(name.size() - suffix.size());
  return name;
}

std::string ir_to_mermaid(const Model& model, int max_nodes, bool include_weights) {
  std::vector<std::string> lines{"flowchart TD"};
  std::map<std::string, std::string> tensor_to_producer;
  for (const auto& in : model.graph_inputs) tensor_to_producer[in.name] = "input_" + in.name;

  std::set<std::string> weight_names;
  for (const auto& w : model.weights) weight_names.insert(w.name);
  for (const auto& kv : model.weight_name_mapping) weight_names.insert(kv.first);

  for (const auto& in : model.graph_inputs) {
    const std::string label = sanitize_label("Input: " + in.name + "<br/>" + format_shape(in.shape));
    lines.push_back("    input_" + in.name + "[/\"" + label + "\"/]");
  }

  const size_t total = model.nodes.size();
  const bool truncated = int64_t(total) > int64_t(max_nodes);
  const size_t shown = truncated ? slice_stop(max_nodes, total) : total;

  for (size_t k = 0; k < shown; ++k)
    for (const auto& out : model.nodes[k].outputs) tensor_to_producer[out.name] = "op_" + model.nodes[k].name;

  for (size_t k = 0; k < shown; ++k) {
    const OpNode& node = model.nodes[k];
    const std::string op_name = short_op_name(node.op_type);
    const std::string label = node.outputs.empty()
                                  ? sanitize_label(op_name)
                                  : sanitize_label(op_name + "<br/>" + format_shape(node.outputs[0].shape));
    lines.push_back("    op_" + node.name + "[\"" + label + "\"]");

    for (const auto& in : node.inputs) {
      const bool is_weight = weight_names.count(in.name) > 0;
      if (is_weight) {
        if (!include_weights) continue;
        const std::string w_id = "w_" + in.name;
        const std::string shape = format_shape(in.shape);
        lines.push_back("    " + w_id + "[/\"" + sanitize_label(in.name + "<br/>" + shape) + "\"/]");
        lines.push_back("    " + w_id + " -.->|\"" + shape + "\"| op_" + node.name);
      } else {
        auto it = tensor_to_producer.find(in.name);
        if (it != tensor_to_producer.end() && !it->second.empty())
          lines.push_back("    " + it->second + " -->|\"" + format_shape(in.shape) + "\"| op_" + node.name);
      }
    }
  }

  for (size_t k = 0; k < model.graph_outputs.size(); ++k) {
    const auto& out = model.graph_outputs[k];
    const std::string label = sanitize_label("Output<br/>" + format_shape(out.shape));
    lines.push_back("    output_" + std::to_string(k) + "[\\\"" + label + "\"/]");
    auto it = tensor_to_producer.find(out.name);
    if (it != tensor_to_producer.end() && !it->second.empty())
      lines.push_back("    " + it->second + " --> output_" + std::to_string(k));
  }

  if (truncated)
    lines.push_back("    note[\"... " + std::to_string(int64_t(total) - int64_t(max_nodes)) + " more nodes ...\"]");
  return join_lines(lines);
}

std::string op_distribution_pie(const Model& model, int top_n) {
  // Counts in first-seen order; stable sort keeps ties that way, like Python's sorted().
  std::vector<std::pair<std::string, int64_t>> counts;
  std::map<std::string, size_t> slot;
  for (const auto& node : model.nodes) {
    const std::string name = short_op_name(node.op_type);
    auto ins = slot.emplace(name, counts.size());
    if (ins.second) counts.emplace_back(name, 0);
    ++counts[ins.first->second].second;
  }
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });

  std::vector<std::string> lines{"pie showData", "    title \"Operator Distribution\""};
  const size_t top = slice_stop(top_n, counts.size());
  for (size_t k = 0; k < top; ++k)
    lines.push_back("    \"" + counts[k].first + "\" : " + std::to_string(counts[k].second));
  if (int64_t(counts.size()) > int64_t(top_n)) {
    // sorted_ops[top_n:] starts where sorted_ops[:top_n] stopped.
    int64_t others = 0;
    for (size_t k = top; k < counts.size(); ++k) others += counts[k].second;
    lines.push_back("    \"Others\" : " + std::to_string(others));
  }
  return join_lines(lines);
}

}  // namespace tir
