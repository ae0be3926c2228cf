// In-memory form of the JSON IR written by pytorch-ir (see docs/spec/IR_FORMAT.md).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "ir/attr.h"

namespace tir {

struct TensorMeta {
  std::string name;
  Shape shape;
  DType dtype = DType::F32;
  std::string producer_node;   // empty: a weight/buffer/constant (or a hand-written graph input)
  int64_t producer_output_idx = 0;
  bool has_producer() const { return !producer_node.empty(); }
  int64_t numel() const;
};

struct OpNode {
  std::string name;
  std::string op_type;         // "aten.add.Tensor", "<built-in function getitem>", ...
  std::vector<TensorMeta> inputs;
  std::vector<TensorMeta> outputs;
  AttrMap attrs;
};

// A lifted constant's value from the IR's `constants` section.
struct ConstantValue {
  DType dtype = DType::F32;
  Shape shape;                  // from the nesting of `data`
  std::vector<double> values;   // floats/bools, row-major
  std::vector<int64_t> ints;    // exact values for integer/bool dtypes
};

struct Model {
  std::string model_name;
  std::string pytorch_version;
  std::vector<TensorMeta> graph_inputs;
  std::vector<TensorMeta> graph_outputs;
  std::vector<TensorMeta> weights;
  // placeholder -> original key, in file order.
  std::vector<std::pair<std::string, std::string>> weight_name_mapping;
  std::vector<OpNode> nodes;
  std::vector<std::pair<std::string, ConstantValue>> constants;  // by original name, file order
};

// A model's name lookups (hash maps, built once: O(1) per node input, so 100k
// weight_name_mapping entries or 40k graph inputs stay linear).
// Holds pointers into `model`: rebuild it after the model moves or changes.
class ModelIndex {
 public:
  ModelIndex() = default;
  explicit ModelIndex(const Model& model);
  // Original state_dict key for a placeholder (or the name itself if unmapped; the first mapping wins).
  std::string original_name(const std::string& placeholder) const;
  // Every placeholder mapped to `original`, in file order.
  const std::vector<std::string>& placeholders_of(const std::string& original) const;
  // The first weight (file order) named `name` or its original key; for older
  // files that list weights under placeholders, the first placeholder of `name` that names one.
  const TensorMeta* find_weight(const std::string& name_or_placeholder) const;
  const TensorMeta* find_graph_input(const std::string& name) const;

 private:
  std::unordered_map<std::string, std::string> original_;               // first mapping wins
  std::unordered_map<std::string, std::vector<std::string>> placeholders_;  // file order
  std::unordered_map<std::string, const TensorMeta*> weights_;          // first listed wins
  std::unordered_map<std::string, const TensorMeta*> by_placeholder_;    // original -> weight
  std::unordered_map<std::string, const TensorMeta*> graph_inputs_;
};

}  // namespace tir
