#pragma once
#include <string>

#include "ir/model.h"

namespace tir {

// Byte-identical to pytorch-ir's ir_to_mermaid / generate_op_distribution_pie
// (no trailing newline).
std::string ir_to_mermaid(const Model& model, int max_nodes = 30, bool include_weights = true);
std::string op_distribution_pie(const Model& model, int top_n = 10);
// "linear" for aten.linear.default, "mul.Tensor" for aten.mul.Tensor.
std::string short_op_name(const std::string& op_type);

}  // namespace tir
