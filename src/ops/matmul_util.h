// The batched gemm driver of the matmul-like ops (matmul.cpp: all but outer;
// linear/addmm/mm/matmul use it when their packed-weight path does not
// apply), shared with einsum.
#pragma once
#include <optional>

#include "ir/attr.h"
#include "ops/op.h"
#include "core/tensor.h"

namespace tir {

// out[batch] = alpha * a[batch] @ b[batch] + beta * out[batch].
// a: batch+[M,K], b: batch+[K,N] (any strides, broadcast views allowed),
// out: contiguous batch+[M,N], all one dtype. beta == 0 never reads out.
void batched_matmul(const OpCall& call, const Tensor& a, const Tensor& b, const Tensor& out, const Scalar& alpha,
                    const Scalar& beta);

// How gemm reads a rows x cols matrix with strides (sr, sc), if it can: leading dim and whether
// it reads the matrix transposed.
struct MatArg {
  int64_t ld;
  bool trans;
};
std::optional<MatArg> gemm_operand(int64_t rows, int64_t cols, int64_t sr, int64_t sc);

// True when dims [0, nd-1) of `t` (batch dims then M) stack into one row
// dimension of stride `ld`, so a batch of gemms becomes one tall gemm.
bool rows_collapse(const Tensor& t, int64_t ld);

// True when the n dims `sizes` (outermost first, with strides `strides`) walk one evenly spaced
// run, as one dim would: then *stride is the run's step (left as it is when every size is 1,
// since any step walks those). Size-1 dims do not matter. How a batch of matrix products folds
// its batch into the rows of one product (CPU and WebGPU matmul).
inline bool even_stride(const int64_t* sizes, const int64_t* strides, size_t n, int64_t* stride) {
  int64_t inner = 0, span = 1;  // the innermost kept dim's stride; elements walked so far
  bool any = false;
  for (size_t i = n; i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (!any) {
      inner = strides[i];
      any = true;
    } else if (strides[i] != inner * span) {
      return false;
    }
    span *= sizes[i];
  }
  if (any) *stride = inner;
  return true;
}

}  // namespace tir
