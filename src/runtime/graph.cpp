#include "runtime/graph.h"

#include "ops/op.h"

namespace tir {

void AliasClasses::merge(Buffer* b, Buffer* into) {
  Buffer* rb = root(b);
  Buffer* ri = root(into);
  if (rb == ri) return;
  parent_[rb] = ri;
  merged_.push_back(b);
}

Buffer* AliasClasses::root(Buffer* b) const {
  for (auto it = parent_.find(b); it != parent_.end(); it = parent_.find(b)) b = it->second;
  return b;
}

namespace {

// The input a tuple-access node (OpTraits::reads_selected_input: getitem)
// reads, or -1 when it reads all of them (no such trait, or no int index).
int64_t selected_input(const OpNode& node) {
  const OpDef* def = OpRegistry::instance().find(node.op_type);
  if (!def || !def->traits.reads_selected_input) return -1;
  auto it = node.attrs.find("index");
  if (it == node.attrs.end() || it->second.kind != Attr::Kind::Int) return -1;
  return it->second.i;
}

}  // namespace

Graph::Graph(const Model& model, const ModelIndex& index) {
  std::unordered_map<std::string, size_t> node_by_name;  // the last node of a name, as the IR resolves it
  for (size_t s = 0; s < model.nodes.size(); ++s) node_by_name[model.nodes[s].name] = s;
  std::unordered_map<std::string, ValueId> weight_by_key;
  auto add_value = [&](GraphValue v) {
    values_.push_back(std::move(v));
    return ValueId(values_.size() - 1);
  };
  for (const auto& gi : model.graph_inputs) {
    GraphValue v;
    v.kind = GraphValue::Kind::GraphInput;
    v.name = gi.name;
    const ValueId id = add_value(std::move(v));
    graph_inputs_.push_back(id);
    by_name_[gi.name] = id;
  }
  const size_t n = model.nodes.size();
  step_inputs_.resize(n);
  step_outputs_.resize(n);
  for (size_t s = 0; s < n; ++s) {
    const OpNode& node = model.nodes[s];
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      const TensorMeta& meta = node.inputs[i];
      ValueId id = kNoValue;
      std::string name = meta.name;
      if (meta.has_producer()) {
        // A graph input is its own producer; a later node (or this one) is not yet a value.
        auto p = node_by_name.find(meta.producer_node);
        if (p == node_by_name.end()) name = meta.producer_node;
        else if (meta.producer_output_idx >= 0 &&
                 size_t(meta.producer_output_idx) < model.nodes[p->second].outputs.size())
          name = model.nodes[p->second].outputs[size_t(meta.producer_output_idx)].name;
        else name = meta.producer_node;
        auto v = by_name_.find(name);
        if (v != by_name_.end()) id = v->second;
      } else if (index.find_weight(meta.name)) {
        const std::string key = index.original_name(meta.name);
        auto w = weight_by_key.find(key);
        if (w != weight_by_key.end()) {
          id = w->second;
        } else {
          GraphValue v;
          v.kind = GraphValue::Kind::Weight;
          v.name = key;
          id = add_value(std::move(v));
          weight_by_key.emplace(key, id);
        }
      } else {
        auto v = by_name_.find(meta.name);  // hand-written files: a graph input without producer_node
        if (v != by_name_.end()) id = v->second;
      }
      if (id == kNoValue) unresolved_[uint64_t(s) << 32 | i] = name;
      step_inputs_[s].push_back(id);
    }
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      GraphValue v;
      v.name = node.outputs[k].name;
      v.producer_step = int32_t(s);
      v.producer_output = int32_t(k);
      const ValueId id = add_value(std::move(v));
      step_outputs_[s].push_back(id);
      by_name_[node.outputs[k].name] = id;
    }
  }
  // Use lists: a tuple access reads only the element it selects.
  for (size_t s = 0; s < n; ++s) {
    const int64_t only = selected_input(model.nodes[s]);
    for (size_t i = 0; i < step_inputs_[s].size(); ++i) {
      const ValueId id = step_inputs_[s][i];
      if (id == kNoValue || (only >= 0 && int64_t(i) != only)) continue;
      values_[size_t(id)].uses.push_back({int32_t(s), int32_t(i)});
    }
  }
  for (const auto& go : model.graph_outputs) {
    const ValueId id = find(go.name);
    graph_outputs_.push_back(id);
    if (id != kNoValue) values_[size_t(id)].graph_output = true;
  }
  tensors_.resize(values_.size());
}

ValueId Graph::find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? kNoValue : it->second;
}

std::string Graph::unresolved_name(size_t step, size_t i) const {
  auto it = unresolved_.find(uint64_t(step) << 32 | i);
  return it == unresolved_.end() ? std::string() : it->second;
}

const Use* Graph::sole_use(ValueId id) const {
  const GraphValue& v = value(id);
  return v.graph_output || v.uses.size() != 1 ? nullptr : &v.uses[0];
}

const Buffer* Graph::alias_class(ValueId id) const {
  const Tensor& t = tensor(id);
  return t.defined() ? aliases_.root(t.buffer.get()) : nullptr;
}

}  // namespace tir
