// Iteration over the 1-D lines of a strided shape along one dim (scans, sorts):
// f(offsets[N]) gets each line's start offset in every operand; the caller
// walks the line itself with the operand's stride along `dim`.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "core/strided.h"

namespace tir {

template <size_t N, typename F>
void for_each_line(std::vector<int64_t> shape, int64_t dim, std::array<std::vector<int64_t>, N> strides,
                   std::array<int64_t, N> base, F&& f) {
  if (shape.empty()) {  // a 0-d tensor is one line of length 1
    f(base);
    return;
  }
  if (shape[size_t(dim)] == 0) return;
  shape.erase(shape.begin() + dim);
  std::array<const int64_t*, N> sp;
  for (size_t k = 0; k < N; ++k) {
    strides[k].erase(strides[k].begin() + dim);
    sp[k] = strides[k].data();
  }
  for_each_row<N>(shape, sp, base, [&](std::array<int64_t, N> off, int64_t n, std::array<int64_t, N> st) {
    for (int64_t i = 0; i < n; ++i) {
      f(off);
      for (size_t k = 0; k < N; ++k) off[k] += st[k];
    }
  });
}

}  // namespace tir
