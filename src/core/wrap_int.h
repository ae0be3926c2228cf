// Integer arithmetic that wraps like torch's (two's complement) without C++'s
// signed-overflow UB. Done in uint64_t: a narrower unsigned type (uint8_t,
// uint16_t) would promote to int, and int products overflow again.
#pragma once
#include <cstdint>

namespace tir {

template <typename T> inline T wrap_add(T a, T b) { return T(uint64_t(a) + uint64_t(b)); }
template <typename T> inline T wrap_mul(T a, T b) { return T(uint64_t(a) * uint64_t(b)); }

}  // namespace tir
