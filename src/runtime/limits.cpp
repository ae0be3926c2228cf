#include "runtime/limits.h"

#include <cstdio>
#include <limits>

#include "core/checked.h"
#include "core/errors.h"

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace tir {

namespace {

// Physical memory natively: nothing larger can be held, and a larger request
// would only end in the OOM killer. Unknown: the address space.
size_t native_memory_cap() {
#if defined(__EMSCRIPTEN__)
  return 0;
#elif defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && uint64_t(pages) <= std::numeric_limits<size_t>::max() / uint64_t(page))
    return size_t(pages) * size_t(page);
  return std::numeric_limits<size_t>::max();
#else
  return std::numeric_limits<size_t>::max();
#endif
}

size_t default_bytes_cap() {
  // wasm32 (and any 32-bit build): 2 GiB, the most a signed 32-bit offset reaches.
  if (sizeof(size_t) == 4) return size_t(1) << 31;
  return native_memory_cap();
}

}  // namespace

std::string bytes_text(uint64_t b) {
  std::string s = std::to_string(b) + " bytes";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = double(b);
  int u = -1;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  if (u >= 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " (%.1f %s)", v, units[u]);
    s += buf;
  }
  return s;
}

const char* const kRaiseLimitsHint =
    "raise it with SessionOptions::limits (C++), --max-tensor-bytes / --max-arena-bytes / --max-run-work "
    "(CLI) or loadIR(..., {limits: {maxTensorBytes, maxArenaBytes, maxRunWork}}) (JS)";

Limits default_limits() {
  Limits l;
  l.max_tensor_bytes = default_bytes_cap();
  l.max_arena_bytes = default_bytes_cap();
  l.max_run_work = kDefaultMaxRunWork;
  return l;
}

Limits resolve_limits(const Limits& limits) {
  Limits l = limits;
  const Limits d = default_limits();
  if (l.max_tensor_bytes == 0) l.max_tensor_bytes = d.max_tensor_bytes;
  if (l.max_arena_bytes == 0) l.max_arena_bytes = d.max_arena_bytes;
  if (l.max_run_work < 0)
    throw ExecutionError("SessionOptions::limits.max_run_work must not be negative, got " +
                         std::to_string(l.max_run_work));
  if (l.max_run_work == 0) l.max_run_work = d.max_run_work;
  return l;
}

int64_t check_value_limits(const Limits& limits, const std::string& what, const Shape& shape, DType dtype,
                           bool materialized) {
  const int64_t numel = checked_numel(shape, what);
  if (!materialized) return numel;
  // 64-bit product first: the message should give the real size even where
  // size_t is 32 bits.
  const uint64_t item = dtype_size(dtype);
  const bool wraps = item != 0 && uint64_t(numel) > std::numeric_limits<uint64_t>::max() / item;
  const uint64_t bytes = uint64_t(numel) * item;
  if (wraps || bytes > limits.max_tensor_bytes)
    throw ExecutionError(what + ": shape " + shape_to_string(shape) + " (" + dtype_name(dtype) + ") needs " +
                         (wraps ? std::string("more than 2^64 bytes") : bytes_text(bytes)) +
                         ", over the limit of " + bytes_text(limits.max_tensor_bytes) +
                         " for one tensor (max_tensor_bytes); " + kRaiseLimitsHint);
  return numel;
}

void add_run_work(const Limits& limits, int64_t* total, int64_t numel, const std::string& what) {
  int64_t sum;
  if (!add_ok(*total, numel, &sum) || sum > limits.max_run_work)
    throw ExecutionError(what + ": touches " + std::to_string(numel) + " elements, bringing the work of one run to " +
                         (add_ok(*total, numel, &sum) ? std::to_string(sum) : std::string("more than 2^63")) +
                         " elements, over the limit of " + std::to_string(limits.max_run_work) +
                         " (max_run_work); " + kRaiseLimitsHint);
  *total = sum;
}

void check_arena_bytes(const Limits& limits, uint64_t bytes, const std::string& what) {
  if (bytes > limits.max_arena_bytes)
    throw ExecutionError(what + " needs " + bytes_text(bytes) + ", over the limit of " +
                         bytes_text(limits.max_arena_bytes) + " (max_arena_bytes); " + kRaiseLimitsHint);
}

}  // namespace tir
