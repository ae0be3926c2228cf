// Reductions over an arbitrary set of dims of a strided tensor. Scalar
// reference code; float sums accumulate in double so long rows stay close to
// torch's (pairwise) result.
#pragma once
#include <vector>

#include "runtime/tensor.h"

namespace tir {

enum class ReduceOp { Sum, Prod, Mean, Max, Min, Any, All, ArgMax, ArgMin };

// Reduces `in` (compute dtype, any strides) over the dims d with reduce_dims[d].
// `out` is contiguous and holds the kept dims in order (keepdim 1s allowed).
// Sum/Prod/Mean/Max/Min: out.dtype == in.dtype. Any/All: out Bool or U8.
// ArgMax/ArgMin: out I64, the row-major index within the reduced dims.
// Max/Min: when `indices` (I64, contiguous, out's numel) is given it receives
// the arg index too. Max/Min/Arg* propagate NaN (first NaN wins) and return
// the first index on ties. An empty reduction is the caller's to reject for
// Max/Min/Arg*; Sum 0, Prod 1, Mean NaN, Any false, All true.
void reduce_kernel(ReduceOp op, const Tensor& in, const std::vector<bool>& reduce_dims, const Tensor& out,
                   const Tensor* indices = nullptr);

}  // namespace tir
