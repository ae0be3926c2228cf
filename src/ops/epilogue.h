// Helpers for ops that take a fused epilogue (OpTraits::epilogue == Producer): the
// batch-norm fold, the kernel-level epilogue, and a generic fallback that
// applies the epilogue to a finished output.
#pragma once
#include <vector>

#include "kernels/gemm.h"
#include "ops/op.h"

namespace tir {

// e.bn_affine's values into dst (2 * channels floats: scale, then shift), once
// the batch-norm params hold their values: the per-channel y * scale + shift of
// a fused eval batch norm in ATen's own form (alpha = weight * invstd,
// beta = bias - mean * alpha), computed in double.
void fill_batch_norm_affine(const FusedEpilogue& e, int64_t channels, float* dst);

// The residual and activation part as the gemm kernels take it; bias is the
// caller's (set epi.bias / bias_per_row). residual_offset: elements into the
// residual tensor where this gemm's C starts; ldr its row stride.
GemmEpilogue gemm_epilogue(const FusedEpilogue& e, int64_t residual_offset = 0, int64_t ldr = 0);

// The smooth activations an epilogue takes (FusedEpilogue::Act::Unary), by the name of their
// expression in the GPU's elementwise table (src/kernels/wgsl/elementwise_ops.json); nullptr for
// any other op. The one list: the fusion trait (activation_part) and the GPU lowering read it.
const char* epilogue_unary_name(UnaryOp op);

// Act::Unary's activation over y in place (the rest of the epilogue applied): for producers
// whose kernels took gemm_epilogue(), which leaves it out.
void apply_unary_activation(const FusedEpilogue& e, const Tensor& y);

// Act::Unary's float32 row kernel where the op has one on this SIMD target (else nullptr): a gemm
// takes it as GemmEpilogue::act_row and runs it over each block it finishes, while the block is
// in cache, instead of apply_unary_activation's second pass over the output. It is the kernel
// that pass runs (unary_kernel on a contiguous float32 tensor), so the bits are the same.
UnaryRowF32 unary_activation_row(const FusedEpilogue& e);

// Applies the whole epilogue (batch norm over dim 1, residual, activation) to
// y in place: the path for kernels that do not apply it themselves.
void apply_epilogue(const FusedEpilogue& e, const Tensor& y);

}  // namespace tir
