// The executable graph's structure, compiled once from the IR: an integer id
// for every value (graph input, weight/buffer/constant, node output), each
// value's producer (step, output index) and use list (step, input index), the
// name lookups, and the alias classes (values sharing memory). Steps are the
// IR nodes in order (step i is model.nodes[i]). Every compile pass (constant
// folding, fusion, in-place, dynamic region, memory plan) reads the graph from
// here instead of matching names.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tensor.h"
#include "ir/model.h"

namespace tir {

using ValueId = int32_t;
constexpr ValueId kNoValue = -1;

struct Use {
  int32_t step;
  int32_t input;
};

struct GraphValue {
  enum class Kind : uint8_t { GraphInput, Weight, NodeOutput };
  Kind kind = Kind::NodeOutput;
  std::string name;             // graph input or node output name; a weight's original key
  int32_t producer_step = -1;   // NodeOutput: the step writing it ...
  int32_t producer_output = -1;  // ... and which of its outputs it is
  std::vector<Use> uses;        // the step inputs reading it, in step order
  bool graph_output = false;
};

// Union-find over buffers. Views already share their base's Buffer; the
// passes that plan one value in another's memory (fusion, in-place) merge the
// two buffers here, and the memory plan places each class once.
class AliasClasses {
 public:
  // b's class joins into's class; into's root stays the root.
  void merge(Buffer* b, Buffer* into);
  Buffer* root(Buffer* b) const;
  // Every buffer merged into another, in merge order.
  const std::vector<Buffer*>& merged() const { return merged_; }

 private:
  std::unordered_map<Buffer*, Buffer*> parent_;
  std::vector<Buffer*> merged_;
};

class Graph {
 public:
  Graph() = default;
  // Resolves every node input as the IR says (producer_node and output index;
  // without a producer, a weight placeholder or a graph input). A reference to
  // nothing before the node gets kNoValue: compile reports it at that node.
  // Holds no pointers into `model`.
  Graph(const Model& model, const ModelIndex& index);

  size_t num_values() const { return values_.size(); }
  size_t num_steps() const { return step_inputs_.size(); }
  const GraphValue& value(ValueId id) const { return values_[size_t(id)]; }
  ValueId input(size_t step, size_t i) const { return step_inputs_[step][i]; }
  const std::vector<ValueId>& inputs(size_t step) const { return step_inputs_[step]; }
  const std::vector<ValueId>& outputs(size_t step) const { return step_outputs_[step]; }
  const std::vector<ValueId>& graph_inputs() const { return graph_inputs_; }
  const std::vector<ValueId>& graph_outputs() const { return graph_outputs_; }  // kNoValue: produced by no node
  // A graph input or node output by name (the last node writing a name); kNoValue when none.
  ValueId find(const std::string& name) const;
  // The name an unresolved node input (kNoValue) refers to, for its error message.
  std::string unresolved_name(size_t step, size_t i) const;
  // The step's only reader of `id` (a graph output has another reader: the caller), or null.
  const Use* sole_use(ValueId id) const;

  // Planned values, by id (set by compile as each step is planned).
  Tensor& tensor(ValueId id) { return tensors_[size_t(id)]; }
  const Tensor& tensor(ValueId id) const { return tensors_[size_t(id)]; }
  AliasClasses& aliases() { return aliases_; }
  const AliasClasses& aliases() const { return aliases_; }
  // The memory a value lives in: equal for views of one another, in-place
  // writes and their self, and values the passes merged. Null before planning.
  const Buffer* alias_class(ValueId id) const;

 private:
  std::vector<GraphValue> values_;
  std::vector<Tensor> tensors_;
  std::vector<std::vector<ValueId>> step_inputs_, step_outputs_;
  std::unordered_map<uint64_t, std::string> unresolved_;  // (step << 32 | input) -> name
  std::vector<ValueId> graph_inputs_, graph_outputs_;
  std::unordered_map<std::string, ValueId> by_name_;  // graph inputs and node outputs
  AliasClasses aliases_;
};

}  // namespace tir
