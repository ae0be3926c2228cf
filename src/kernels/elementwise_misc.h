// Elementwise-family kernels that reduce along one dim (cosine similarity).
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace tir {

// out[...] = sum_k x1[k]*x2[k] / (max(|x1|, eps) * max(|x2|, eps)) along `dim`
// (torch >= 2.0's formula: each vector divided by its clamped L2 norm).
// x1, x2: the same floating compute dtype and shape (broadcast views, any
// strides); out: contiguous, that shape without `dim`, same dtype.
void cosine_similarity_kernel(const Tensor& out, const Tensor& x1, const Tensor& x2, int64_t dim, double eps);

}  // namespace tir
