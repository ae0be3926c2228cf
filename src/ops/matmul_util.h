// The batched gemm driver of the matmul-like ops (matmul.cpp: all but outer;
// linear/addmm/mm/matmul use it when their packed-weight path does not
// apply), shared with einsum.
#pragma once
#include "ir/attr.h"
#include "ops/op.h"
#include "core/tensor.h"

namespace tir {

// out[batch] = alpha * a[batch] @ b[batch] + beta * out[batch].
// a: batch+[M,K], b: batch+[K,N] (any strides, broadcast views allowed),
// out: contiguous batch+[M,N], all one dtype. beta == 0 never reads out.
void batched_matmul(const OpCall& call, const Tensor& a, const Tensor& b, const Tensor& out, const Scalar& alpha,
                    const Scalar& beta);

}  // namespace tir
