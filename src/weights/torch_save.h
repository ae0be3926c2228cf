// Reader for torch.save(state_dict) files (.pt/.pth/.bin): a zip archive holding
// <name>/data.pkl and raw storages <name>/data/<key>. Only the pickle subset that
// torch.load(weights_only=True) accepts is understood; anything else is refused
// with a WeightLoadError. Nothing is ever executed.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "weights/tensor_map.h"

namespace tir {

TensorMap read_torch_save(std::shared_ptr<const std::vector<uint8_t>> bytes,
                          const std::string& origin);
TensorMap read_torch_save_file(const std::string& path);

// Picks the reader by content (zip magic vs safetensors header).
TensorMap read_weights_file(const std::string& path);
TensorMap read_weights_bytes(std::shared_ptr<const std::vector<uint8_t>> bytes,
                             const std::string& origin);

}  // namespace tir
