// The packed-weight path of the matrix products (ops/matmul.cpp): linear(x, W, b) with B = W^T
// and the bias per column, addmm(b, x, B) with beta = alpha = 1, and mm / matmul whose right
// operand is a constant 2-D float32 matrix pack B once at prepare (as f16/bf16 halves with
// SessionOptions::weight_dtype) and run gemm_f32_ex with the node's fused epilogue: bias,
// residual, relu/clamp in the tile stores, a smooth activation block by block.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/gemm.h"
#include "ops/op.h"

namespace tir {

struct PackedGemmState {
  std::shared_ptr<const std::vector<float>> packed_b;
  std::shared_ptr<const std::vector<uint16_t>> packed_half;  // instead of packed_b
  PackedHalf half = PackedHalf::None;
  bool half_finite = false;
  int64_t K = 0, N = 0;
  bool bias_per_column = false;  // input `bias_input` is a contiguous [N] (or [1, N]) vector
  size_t a_input = 0, bias_input = 0;
};

// Packs B (a K x N view of a constant) once into st; tied weights share the copy. Leaves st
// without a pack when a bias is not a row vector (the caller's general path runs instead).
void prepare_packed_gemm(OpCall& call, PackedGemmState& st, const Tensor& b_view, size_t a_input,
                         size_t bias_input, bool has_bias);

// Runs the packed gemm when st holds a pack and A's rows stack with unit column stride (f32;
// packed halves copy any other A, as they are the weights to use); false: the caller takes its
// general path.
bool run_packed_gemm(OpCall& call, const PackedGemmState& st, const Tensor& a_in, bool has_bias);

}  // namespace tir
