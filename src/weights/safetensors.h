// .safetensors reader (zero-copy: tensors point into the file bytes) and writer.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weights/tensor_map.h"

namespace tir {

// `bytes` is kept alive by the returned tensors. `origin` names the file in errors.
TensorMap read_safetensors(std::shared_ptr<const std::vector<uint8_t>> bytes,
                           const std::string& origin);
TensorMap read_safetensors_file(const std::string& path);
// Serializes tensors (any strides; written contiguous) in safetensors format.
std::vector<uint8_t> write_safetensors(const TensorMap& tensors);
void write_safetensors_file(const std::string& path, const TensorMap& tensors);

}  // namespace tir
