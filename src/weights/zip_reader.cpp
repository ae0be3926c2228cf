#include "weights/zip_reader.h"

#include <array>
#include <cstring>

#include "core/errors.h"
#include "weights/byte_util.h"

namespace tir {
namespace weights_internal {

namespace {
constexpr uint32_t kLocalSig = 0x04034b50;     // "PK\3\4"
constexpr uint32_t kCentralSig = 0x02014b50;   // "PK\1\2"
constexpr uint32_t kEocdSig = 0x06054b50;      // "PK\5\6"
constexpr uint32_t kZip64EocdSig = 0x06064b50; // "PK\6\6"
constexpr uint32_t kZip64LocSig = 0x07064b50;  // "PK\6\7"
constexpr size_t kEocdSize = 22, kZip64LocSize = 20, kZip64EocdSize = 56;
constexpr size_t kCentralSize = 46, kLocalSize = 30;

const char* method_name(uint16_t m) {
  switch (m) {
    case 8: return "deflate";
    case 9: return "deflate64";
    case 12: return "bzip2";
    case 14: return "lzma";
    case 93: return "zstd";
    case 95: return "xz";
    default: return "unknown";
  }
}
// Absolute names and '..' components: torch.save never writes them, and a
// tool that ever extracted the archive would escape its folder.
bool unsafe_entry_name(const std::string& name) {
  if (name.empty() || name[0] == '/' || name[0] == '\\') return true;
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find_first_of("/\\", start);
    if (end == std::string::npos) end = name.size();
    if (name.compare(start, end - start, "..") == 0 && end - start == 2) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

uint32_t crc32(const uint8_t* p, size_t n) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

ZipArchive::ZipArchive(const uint8_t* data, size_t size, std::string origin)
    : data_(data), size_(size), origin_(std::move(origin)) {
  parse();
}

void ZipArchive::fail(const std::string& msg) const { throw WeightLoadError(origin_ + ": " + msg); }

void ZipArchive::parse() {
  // The end-of-central-directory record sits at the end, before an optional
  // comment of up to 65535 bytes.
  size_t eocd = SIZE_MAX;
  if (size_ >= kEocdSize) {
    const size_t lowest = size_ - kEocdSize > 65535 ? size_ - kEocdSize - 65535 : 0;
    for (size_t p = size_ - kEocdSize + 1; p-- > lowest;) {
      if (load_le32(data_ + p) == kEocdSig && p + kEocdSize + load_le16(data_ + p + 20) <= size_) {
        eocd = p;
        break;
      }
    }
  }
  if (eocd == SIZE_MAX)
    fail("truncated or not a zip archive: end of central directory record not found");

  uint64_t count = load_le16(data_ + eocd + 10);
  uint64_t cd_size = load_le32(data_ + eocd + 12);
  uint64_t cd_off = load_le32(data_ + eocd + 16);
  if (eocd >= kZip64LocSize && load_le32(data_ + eocd - kZip64LocSize) == kZip64LocSig) {
    const uint64_t z = load_le64(data_ + eocd - kZip64LocSize + 8);
    if (z > size_ || size_ - z < kZip64EocdSize || load_le32(data_ + z) != kZip64EocdSig)
      fail("corrupt zip archive: bad ZIP64 end of central directory record");
    count = load_le64(data_ + z + 32);
    cd_size = load_le64(data_ + z + 40);
    cd_off = load_le64(data_ + z + 48);
  }
  if (cd_off > size_ || cd_size > size_ - cd_off)
    fail("truncated or corrupt zip archive: central directory [" + std::to_string(cd_off) + ", +" +
         std::to_string(cd_size) + ") lies outside the " + std::to_string(size_) + "-byte file");
  if (count > cd_size / kCentralSize)
    fail("corrupt zip archive: " + std::to_string(count) + " entries cannot fit in a " +
         std::to_string(cd_size) + "-byte central directory");

  if (count > kMaxZipEntries)
    fail("zip archive has " + std::to_string(count) + " entries, more than the limit of " +
         std::to_string(kMaxZipEntries));
  entries_.reserve(size_t(count));
  const uint8_t* p = data_ + cd_off;
  const uint8_t* end = p + cd_size;
  for (uint64_t i = 0; i < count; ++i) {
    if (size_t(end - p) < kCentralSize || load_le32(p) != kCentralSig)
      fail("corrupt zip archive: bad central directory entry " + std::to_string(i));
    ZipEntry e;
    e.flags = load_le16(p + 8);
    e.method = load_le16(p + 10);
    e.crc32 = load_le32(p + 16);
    e.compressed_size = load_le32(p + 20);
    e.size = load_le32(p + 24);
    const size_t nlen = load_le16(p + 28), xlen = load_le16(p + 30), clen = load_le16(p + 32);
    e.local_header_offset = load_le32(p + 42);
    if (kCentralSize + nlen + xlen + clen > size_t(end - p))
      fail("corrupt zip archive: central directory entry " + std::to_string(i) + " overruns it");
    e.name.assign(reinterpret_cast<const char*>(p + kCentralSize), nlen);
    if (unsafe_entry_name(e.name))
      fail("zip entry name " + quote(e.name) + " is empty, absolute or has a '..' component: refused");

    // ZIP64 extended information (id 1) replaces the fields saturated at 0xFFFFFFFF, in order.
    const uint8_t* x = p + kCentralSize + nlen;
    for (size_t q = 0; q + 4 <= xlen;) {
      const uint16_t id = load_le16(x + q);
      const size_t len = load_le16(x + q + 2);
      if (q + 4 + len > xlen) break;  // malformed trailing field: ignore like other readers
      if (id == 1) {
        size_t r = q + 4;
        auto take = [&](uint64_t* v) {
          if (r + 8 > q + 4 + len) fail("corrupt zip archive: short ZIP64 field for " + quote(e.name));
          *v = load_le64(x + r);
          r += 8;
        };
        if (e.size == 0xFFFFFFFFu) take(&e.size);
        if (e.compressed_size == 0xFFFFFFFFu) take(&e.compressed_size);
        if (e.local_header_offset == 0xFFFFFFFFu) take(&e.local_header_offset);
      }
      q += 4 + len;
    }
    entries_.push_back(std::move(e));
    p += kCentralSize + nlen + xlen + clen;
  }
  // Indexed once parsing is done (entries_ no longer moves); a repeated name
  // would make which entry is read depend on the reader, so it is refused.
  by_name_.reserve(entries_.size());
  for (size_t k = 0; k < entries_.size(); ++k)
    if (!by_name_.emplace(std::string_view(entries_[k].name), k).second)
      fail("corrupt zip archive: entry name " + quote(entries_[k].name) + " appears twice");
}

const ZipEntry* ZipArchive::find(const std::string& name) const {
  auto it = by_name_.find(std::string_view(name));
  return it == by_name_.end() ? nullptr : &entries_[it->second];
}

const uint8_t* ZipArchive::stored_data(const ZipEntry& e) const {
  const std::string who = "entry " + quote(e.name);
  if (e.flags & 1) fail(who + " is encrypted");
  if (e.method != 0)
    fail(who + " is compressed (method " + std::to_string(e.method) + ", " + method_name(e.method) +
         "); only stored (uncompressed) entries are supported. torch.save never compresses: "
         "was the file re-zipped?");
  if (e.compressed_size != e.size)
    fail(who + ": stored sizes disagree (" + std::to_string(e.compressed_size) + " vs " +
         std::to_string(e.size) + ")");
  const uint64_t lo = e.local_header_offset;
  if (lo > size_ || size_ - lo < kLocalSize || load_le32(data_ + lo) != kLocalSig)
    fail(who + ": local header at offset " + std::to_string(lo) + " is missing (truncated?)");
  const size_t local_nlen = load_le16(data_ + lo + 26);
  if (local_nlen != e.name.size() || size_ - lo - kLocalSize < local_nlen ||
      std::memcmp(data_ + lo + kLocalSize, e.name.data(), local_nlen) != 0)
    fail(who + ": the local header at offset " + std::to_string(lo) +
         " names a different entry than the central directory");
  const uint64_t start = lo + kLocalSize + local_nlen + load_le16(data_ + lo + 28);
  if (start > size_ || e.size > size_ - start)
    fail(who + ": its " + std::to_string(e.size) + " bytes at offset " + std::to_string(start) +
         " extend past the end of the " + std::to_string(size_) + "-byte file (truncated?)");
  return data_ + start;
}

void ZipArchive::check_crc(const ZipEntry& e) const {
  const uint8_t* p = stored_data(e);
  if (crc32(p, size_t(e.size)) != e.crc32) fail("entry " + quote(e.name) + " is corrupt (CRC-32 mismatch)");
}

}  // namespace weights_internal
}  // namespace tir
