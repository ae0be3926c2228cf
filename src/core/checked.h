// Overflow-checked size arithmetic. Every product or sum of dims, strides,
// element counts, byte sizes and offsets that can come from a file (IR shapes,
// attrs, weight headers) goes through these, so a hostile size fails with a
// clear error instead of wrapping (size_t is 32 bits in wasm32).
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "core/errors.h"
#include "core/shape.h"

namespace tir {

// False on overflow (then *out is unspecified).
inline bool mul_ok(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }
inline bool add_ok(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }

// Throws ExecutionError("<what>: <a> * <b> overflows int64") on overflow.
int64_t checked_mul(int64_t a, int64_t b, const std::string& what);
int64_t checked_add(int64_t a, int64_t b, const std::string& what);

// Element count of a shape; negative dims and products past int64 throw
// ExecutionError naming `what` and the shape. shape_numel(s) == checked_numel(s, "tensor").
int64_t checked_numel(const Shape& shape, const std::string& what);

// numel * itemsize as size_t; throws when negative or past what size_t holds
// (4 GiB in wasm32), naming `what`.
size_t checked_nbytes(int64_t numel, size_t itemsize, const std::string& what);

}  // namespace tir
