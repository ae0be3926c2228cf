// Softmax family along one axis of a contiguous tensor viewed as
// [outer, n, inner] (the axis is the middle one). The scalar code is the
// reference; float32 rows along a contiguous axis use the SIMD exp row.
#pragma once
#include <cstdint>

#include "kernels/elementwise.h"  // EwPath

namespace tir {

enum class SoftmaxKind {
  Softmax,
  LogSoftmax,
  SafeSoftmax,  // rows that are entirely -inf give 0 instead of NaN
};

// x and y contiguous [outer, n, inner]; y may equal x. Subtracts the row max
// before exp; a NaN anywhere in a row makes the whole row NaN.
void softmax_f32(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, SoftmaxKind kind,
                 EwPath path = EwPath::Auto);
void softmax_f64(const double* x, double* y, int64_t outer, int64_t n, int64_t inner, SoftmaxKind kind);

}  // namespace tir
