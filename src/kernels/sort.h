// Sorting along one dim: sort/argsort and topk. Scalar reference code.
// Order: NaN counts as the largest value (torch). Ties keep the lower index
// first (a stable sort); torch's CPU sort/topk leave tie order unspecified,
// so any tie order it returns is one of the valid ones and ours is this one.
#pragma once
#include <cstdint>

#include "core/tensor.h"

namespace tir {

// values (optional; in's dtype) and indices (I64) have in's shape; any strides.
void sort_kernel(const Tensor& in, int64_t dim, bool descending, const Tensor* values, const Tensor& indices);

// The k largest (largest) or smallest values of each line along `dim`, best
// first. values/indices have in's shape with size k at `dim`.
void topk_kernel(const Tensor& in, int64_t dim, int64_t k, bool largest, const Tensor& values,
                 const Tensor& indices);

}  // namespace tir
