// Minimal read-only zip archive parser for torch.save files: end of central
// directory (with ZIP64), central directory, local headers. Only STORED
// (uncompressed) entries can be read, which is all torch.save writes. Every
// offset and size is bounds-checked against the buffer.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tir {
namespace weights_internal {

struct ZipEntry {
  std::string name;
  uint16_t flags = 0;
  uint16_t method = 0;           // 0 = stored, 8 = deflate, ...
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t size = 0;             // uncompressed
  uint64_t local_header_offset = 0;
};

class ZipArchive {
 public:
  // Parses the central directory of `data` (which must outlive this object).
  // Throws WeightLoadError prefixed with `origin`.
  ZipArchive(const uint8_t* data, size_t size, std::string origin);
  ZipArchive(const ZipArchive&) = delete;  // by_name_ points into entries_
  ZipArchive& operator=(const ZipArchive&) = delete;

  const std::vector<ZipEntry>& entries() const { return entries_; }
  const ZipEntry* find(const std::string& name) const;  // O(1)
  // Pointer to the entry's bytes (entry.size of them). Refuses compressed or
  // encrypted entries and ranges outside the buffer.
  const uint8_t* stored_data(const ZipEntry& e) const;
  // Throws when the entry's bytes do not match its CRC-32.
  void check_crc(const ZipEntry& e) const;

 private:
  [[noreturn]] void fail(const std::string& msg) const;
  void parse();

  const uint8_t* data_;
  size_t size_;
  std::string origin_;
  std::vector<ZipEntry> entries_;
  std::unordered_map<std::string_view, size_t> by_name_;  // views into entries_[k].name
};

// More entries than any torch.save archive has (one per tensor storage).
constexpr uint64_t kMaxZipEntries = uint64_t(1) << 20;

uint32_t crc32(const uint8_t* p, size_t n);

}  // namespace weights_internal
}  // namespace tir
