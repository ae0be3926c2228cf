// Iteration over N operands that share a logical shape but have their own
// strides (broadcast dims have stride 0). The callback gets one innermost row
// at a time: f(offsets[N], count, inner_strides[N]).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "core/small_vec.h"

namespace tir {

template <size_t N, typename S, typename F>
void for_each_row(const S& shape,
                  const std::array<const int64_t*, N>& strides,
                  std::array<int64_t, N> base, F&& f) {
  const size_t nd = shape.size();
  for (int64_t s : shape)
    if (s == 0) return;
  if (nd == 0) {
    std::array<int64_t, N> zero{};
    f(base, int64_t(1), zero);
    return;
  }
  const int64_t inner = shape[nd - 1];
  std::array<int64_t, N> inner_strides;
  for (size_t k = 0; k < N; ++k) inner_strides[k] = strides[k][nd - 1];
  DimVec idx(nd, 0);
  std::array<int64_t, N> off = base;
  while (true) {
    f(off, inner, inner_strides);
    // advance the outer counter (dims nd-2 .. 0)
    int64_t d = int64_t(nd) - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < shape[d]) {
        for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * (shape[d] - 1);
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace tir
