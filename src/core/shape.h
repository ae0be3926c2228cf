// Shapes and strides (in elements), shared by the IR, kernels and runtime.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tir {

using Shape = std::vector<int64_t>;
using Strides = std::vector<int64_t>;

Strides contiguous_strides(const Shape& shape);
int64_t shape_numel(const Shape& shape);
std::string shape_to_string(const Shape& s);  // "[1, 3, 224, 224]"

}  // namespace tir
