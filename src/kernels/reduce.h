// Reductions over an arbitrary set of dims of a strided tensor. Scalar
// reference code; float sums accumulate in double so long rows stay close to
// torch's (pairwise) result.
#pragma once
#include <vector>

#include "core/tensor.h"

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

// Variance over reduce_dims (F32/F64 in, out the same dtype, contiguous) with
// divisor max(0, n - correction), two-pass in double: n == 0 gives NaN, a
// divisor of 0 inf/NaN, as torch. take_sqrt gives std. `mean` (optional)
// receives the mean.
void var_kernel(const Tensor& in, const std::vector<bool>& reduce_dims, double correction, bool take_sqrt,
                const Tensor& out, const Tensor* mean = nullptr);

// Vector p-norm over reduce_dims (F32/F64 in and out): ord 0 counts nonzeros,
// +-inf is max/min |x|, else (sum |x|^ord)^(1/ord). NaN propagates. An empty
// group with ord < 0 or inf is the caller's to reject.
void vector_norm_kernel(const Tensor& in, const std::vector<bool>& reduce_dims, double ord, const Tensor& out);

// Inclusive prefix sum (product) along `dim`; in.dtype == out.dtype, out
// contiguous. Floats accumulate in double (as torch's CPU kernel); ints wrap
// as int64.
void cumsum_kernel(const Tensor& in, int64_t dim, const Tensor& out);
void cumprod_kernel(const Tensor& in, int64_t dim, const Tensor& out);

// log(sum(exp(x))) over reduce_dims (F32/F64), shifted by the group max
// unless it is infinite (torch): all -inf gives -inf, an empty group -inf.
void logsumexp_kernel(const Tensor& in, const std::vector<bool>& reduce_dims, const Tensor& out);

}  // namespace tir
