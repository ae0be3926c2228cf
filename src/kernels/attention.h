// Scaled dot-product attention for one (batch, head) slice:
//   scores = q·kᵀ·scale (+ mask), P = softmax(scores) per row, out = P·v.
// Built on the SIMD gemm and softmax with query rows in blocks, so no call
// holds more than a block of scores (~64K elements) however long the
// sequence; a fused flash-style kernel could replace it behind this signature.
#pragma once
#include <cstdint>
#include <vector>

namespace tir {

// A read-only 2-D strided matrix (strides in elements; any strides, 0 included).
template <typename T>
struct AttnMat {
  const T* data = nullptr;
  int64_t row_stride = 0, col_stride = 0;
};

// The [L, S] mask of one head (strided, broadcast dims have stride 0):
// `add` is added to the scores; `keep` false means -inf. At most one is set.
template <typename T>
struct AttnMask {
  const T* add = nullptr;
  const bool* keep = nullptr;
  int64_t row_stride = 0, col_stride = 0;
};

template <typename T>
struct AttnHead {
  int64_t L = 0, S = 0, E = 0, Ev = 0;
  AttnMat<T> q, k, v;  // [L, E], [S, E], [S, Ev]
  AttnMask<T> mask;
  bool causal = false;  // keep j <= i (top-left aligned, also when L != S)
  T scale = 1;
  T* out = nullptr;     // [L, Ev], row stride ldo
  int64_t ldo = 0;
  T* lse = nullptr;     // optional [L]: log of each row's softmax denominator
};

// Rows whose scores are all -inf (fully masked) give 0 output and 0 lse, as
// torch >= 2.5 does. `work` is scratch reused across calls (grown as needed).
void attention_head_f32(const AttnHead<float>& h, std::vector<float>& work);
void attention_head_f64(const AttnHead<double>& h, std::vector<double>& work);

}  // namespace tir
