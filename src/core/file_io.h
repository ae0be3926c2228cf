// Whole-file reads and writes through <cstdio> (works natively and on
// Emscripten's virtual file systems).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tir {

// Reads all of `path`; on failure returns false and sets *error to
// "cannot open 'path': No such file or directory" (or similar).
bool try_read_file(const std::string& path, std::vector<uint8_t>* out, std::string* error);
// Reads all of `path` into shared, immutable bytes (tensors may point into them).
// Throws WeightLoadError naming the file when it cannot be read.
std::shared_ptr<const std::vector<uint8_t>> read_file_bytes(const std::string& path);
// Writes (replaces) `path`. Throws tir::Error naming the file on failure.
void write_file_bytes(const std::string& path, const uint8_t* data, size_t n);
inline void write_file_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  write_file_bytes(path, bytes.data(), bytes.size());
}

}  // namespace tir
