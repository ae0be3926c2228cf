// Runtime dtype -> C++ type dispatch. The callback receives a value of the
// element type (a tag; its value is meaningless): f(float{}), f(int64_t{}), ...
#pragma once
#include <cstdint>
#include <string>

#include "core/dtype.h"
#include "core/errors.h"
#include "core/half.h"

namespace tir {

// Compute dtypes: everything the engine does arithmetic in.
template <typename F>
decltype(auto) dispatch_compute(DType d, F&& f) {
  switch (d) {
    case DType::F32: return f(float{});
    case DType::F64: return f(double{});
    case DType::I64: return f(int64_t{});
    case DType::I32: return f(int32_t{});
    case DType::I16: return f(int16_t{});
    case DType::I8: return f(int8_t{});
    case DType::U8: return f(uint8_t{});
    case DType::Bool: return f(bool{});
    default:
      throw ExecutionError(std::string("dtype ") + dtype_name(d) + " is not supported here");
  }
}

// Storage dtypes: compute dtypes plus f16/bf16.
template <typename F>
decltype(auto) dispatch_storage(DType d, F&& f) {
  switch (d) {
    case DType::F16: return f(Half{});
    case DType::BF16: return f(BFloat16{});
    default: return dispatch_compute(d, std::forward<F>(f));
  }
}

// Value conversions with torch's semantics (float->int truncates toward zero,
// out-of-range wraps through int64; anything->bool is != 0).
template <typename To, typename From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    // NaN and values past int64 give INT64_MIN, as x86's cvttsd2si (torch's
    // CPU result); the C++ cast would be undefined behavior.
    if (!(v >= From(-9.2233720368547758e18) && v < From(9.2233720368547758e18)))
      return static_cast<To>(INT64_MIN);
    return static_cast<To>(static_cast<int64_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

template <typename T> inline T load_as(const Half& h) { return convert<T>(half_to_float(h.bits)); }
template <typename T> inline T load_as(const BFloat16& h) { return convert<T>(bf16_to_float(h.bits)); }
template <typename T, typename S> inline T load_as(const S& v) { return convert<T>(v); }

template <typename S, typename T> inline S store_as(T v) {
  if constexpr (std::is_same_v<S, Half>) return Half{float_to_half(convert<float>(v))};
  else if constexpr (std::is_same_v<S, BFloat16>) return BFloat16{float_to_bf16(convert<float>(v))};
  else return convert<S>(v);
}

}  // namespace tir
