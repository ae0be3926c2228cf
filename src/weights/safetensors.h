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
// The header alone: `head` holds the file's first bytes (the 8-byte length and
// the whole JSON header, at least), `file_size` the file's length. Checked as
// read_safetensors checks a whole file; the tensors have no data (Buffer::data
// null, nbytes set) and `file_offsets` gets each one's byte offset in the file,
// in the map's order: for callers that stream the data elsewhere (WebGPU).
TensorMap read_safetensors_header(std::shared_ptr<const std::vector<uint8_t>> head, uint64_t file_size,
                                  const std::string& origin, std::vector<uint64_t>* file_offsets);
// Serializes tensors (any strides; written contiguous) in safetensors format.
std::vector<uint8_t> write_safetensors(const TensorMap& tensors);
void write_safetensors_file(const std::string& path, const TensorMap& tensors);

}  // namespace tir
