// Column bounds for sliding-window kernels (depthwise conv, pooling): the
// output columns whose every tap lies inside the input run the SIMD interior
// loop; the rest take the scalar border path.
#pragma once
#include <algorithm>
#include <cstdint>

namespace tir {

// First output column ow (<= OW) with tap column ow*S - P + off >= lo.
inline int64_t sliding_first(int64_t lo, int64_t S, int64_t P, int64_t off, int64_t OW) {
  const int64_t num = lo + P - off;  // need ow*S >= num
  return std::min(num <= 0 ? 0 : (num + S - 1) / S, OW);
}
// One past the last output column with tap column ow*S - P + off <= hi.
inline int64_t sliding_end(int64_t hi, int64_t S, int64_t P, int64_t off, int64_t OW) {
  const int64_t num = hi + P - off;  // need ow*S <= num
  return num < 0 ? 0 : std::min(num / S + 1, OW);
}

// The interior [*a, *z) of output columns for taps off = kw*DW, kw < KW, on an
// input row of W elements: with stride 2 the kernels load pairs, so the tap's
// neighbour must be inside too. Empty for strides above 2.
inline void sliding_interior(int64_t W, int64_t OW, int64_t KW, int64_t S, int64_t P, int64_t DW, int64_t* a,
                             int64_t* z) {
  *a = 0;
  *z = OW;
  for (int64_t kw = 0; kw < KW; ++kw) {
    *a = std::max(*a, sliding_first(0, S, P, kw * DW, OW));
    *z = std::min(*z, sliding_end(W - (S == 2 ? 2 : 1), S, P, kw * DW, OW));
  }
  if (S > 2 || *a >= *z) *a = *z = 0;
}

}  // namespace tir
