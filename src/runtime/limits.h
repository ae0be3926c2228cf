// Resource caps a Session enforces while compiling (SessionOptions::limits),
// before any memory is allocated or any loop runs. Defaults: what the build can
// address (2 GiB per tensor and for the arena in wasm32; the machine's physical
// memory natively) and 2^40 elements of work per run.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/dtype.h"
#include "core/shape.h"
#include "runtime/session.h"

namespace tir {

constexpr int64_t kDefaultMaxRunWork = int64_t(1) << 40;

// `limits` with every 0 replaced by the build's default.
Limits resolve_limits(const Limits& limits);
// The defaults alone (resolve_limits({})).
Limits default_limits();

// "25276502016 bytes (23.5 GiB)": how limit messages write a byte count.
std::string bytes_text(uint64_t bytes);

// How a caller raises the caps, for error messages.
extern const char* const kRaiseLimitsHint;

// Checks one value: its element count (overflow, negative dims) and, when
// `materialized`, its bytes against max_tensor_bytes. `what` names it, e.g.
// "node 'n' (aten.zeros.default) output 'zeros'". Returns the element count.
int64_t check_value_limits(const Limits& limits, const std::string& what, const Shape& shape, DType dtype,
                           bool materialized);

// Adds `numel` to the running work total; throws past max_run_work.
void add_run_work(const Limits& limits, int64_t* total, int64_t numel, const std::string& what);

// Throws when `bytes` exceed max_arena_bytes; `what` says which total it is.
void check_arena_bytes(const Limits& limits, uint64_t bytes, const std::string& what);

}  // namespace tir
