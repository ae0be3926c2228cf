// Little-endian field readers and overflow-checked size arithmetic shared by
// the weight-file parsers (callers bounds-check before reading).
#pragma once
#include <cstdint>
#include <cstring>
#include <string>

#include "core/checked.h"
#include "core/tensor.h"

namespace tir {
namespace weights_internal {

inline uint16_t load_le16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
inline uint32_t load_le32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}
inline uint64_t load_le64(const uint8_t* p) {
  return uint64_t(load_le32(p)) | (uint64_t(load_le32(p + 4)) << 32);
}

// a * b and a + b, false on uint64 overflow.
inline bool mul_u64(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_mul_overflow(a, b, out); }
inline bool add_u64(uint64_t a, uint64_t b, uint64_t* out) { return !__builtin_add_overflow(a, b, out); }

// Byte size of a contiguous tensor of `shape` (dims >= 0); false when it
// overflows int64 (core/checked.h's mul_ok) or exceeds what a size_t can
// address on this platform. The weight readers turn false into a
// WeightLoadError naming the tensor.
inline bool checked_nbytes(const Shape& shape, size_t itemsize, uint64_t* out) {
  int64_t n = int64_t(itemsize);
  for (int64_t d : shape) {
    if (d < 0 || !mul_ok(n, d, &n)) return false;
  }
  if (uint64_t(n) > uint64_t(SIZE_MAX)) return false;
  *out = uint64_t(n);
  return true;
}

// A Weight buffer over `n` bytes at `p` that `keepalive` owns. Zero-copy unless
// `p` is misaligned for `itemsize`; then the bytes are copied (kernels may
// assume natural alignment).
inline std::shared_ptr<Buffer> make_weight_buffer(const uint8_t* p, size_t n, size_t itemsize,
                                                  std::shared_ptr<const void> keepalive,
                                                  std::string label) {
  auto buf = std::make_shared<Buffer>();
  buf->kind = Buffer::Kind::Weight;
  buf->nbytes = n;
  buf->label = std::move(label);
  if (n > 0 && itemsize > 1 && reinterpret_cast<uintptr_t>(p) % itemsize != 0) {
    buf->owned.assign(p, p + n);
    buf->data = buf->owned.data();
  } else {
    buf->data = const_cast<uint8_t*>(p);  // weights are never written through
    buf->keepalive = std::move(keepalive);
  }
  return buf;
}

inline std::string quote(const std::string& s) { return "'" + s + "'"; }

}  // namespace weights_internal
}  // namespace tir
