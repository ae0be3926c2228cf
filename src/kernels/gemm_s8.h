// Integer GEMM of 8-bit quantized operands (the lowered quantized linear,
// ops/linear_int8.cpp): int32 sums of int8 x int8 products, then each output
// dequantized in the tile store. XNNPACK's qd8/qs8 idea on Highway: B (the
// weights) packed once into panels of NR columns whose k run in pairs of int16,
// so one pairwise multiply-add (WASM's i32x4.dot_i16x8_s, x86's pmaddwd) adds 2
// products per int32 lane; A (the activations, quantized per run) as int16 rows
// with pairs adjacent, broadcast two k at a time.
//
// C[m, n] = (acc - rz[m] * col_sum[n] - cz[n] * row_sum[m] + K * rz[m] * cz[n])
//           * (row_scale[m] * col_scale[n]) + bias[n]
// with acc = sum_k A[m, k] * B[k, n] exact in int32 (|A|, |B| <= 255: K up to 32768).
#pragma once
#include <cstdint>

#include "kernels/gemm.h"

namespace tir {

// The column arrays (col_scale, col_sum, col_zero, bias) hold whole panels: padded to a multiple
// of gemm_s8_nr() (the padding is read, never stored).
struct QGemmEpilogue {
  const float* row_scale = nullptr;   // [M] activation scales
  const int32_t* row_zero = nullptr;  // [M] activation zero points
  const int32_t* row_sum = nullptr;   // [M] sum_k A[m, k] (read only when col_zero is set)
  const float* col_scale = nullptr;   // [N] weight scales
  const int32_t* col_sum = nullptr;   // [N] sum_k B[k, n]
  const int32_t* col_zero = nullptr;  // [N] weight zero points, or null (symmetric weights)
  const float* bias = nullptr;        // [N] or null
  // After the dequantizing store, when set: the residual, relu/clamp and act_row of a fused float
  // epilogue (its bias unused), over each finished block of columns while it is in cache.
  const GemmEpilogue* post = nullptr;
};

// post's residual, activation and act_row over rows [m0, m1) x columns [n0, n1) of C.
void apply_gemm_s8_post(const GemmEpilogue& post, int64_t m0, int64_t m1, int64_t n0, int64_t n1, float* C,
                        int64_t ldc);

// Columns per packed panel (the target's tile width) and the packed size in int16.
int64_t gemm_s8_nr();
int64_t packed_b_s8_size(int64_t K, int64_t N);
// Packs B[k, n] = W[n * ldw + k] (a linear's [N, K] weight, int8 values in int16 range).
void pack_b_s8(int64_t K, int64_t N, const int8_t* W, int64_t ldw, int16_t* dst);
// A: M rows of K int16 values at A + m * lda, lda even, A[m, K] = 0 when K is odd (the pair's
// second half). Threads over column panels (and rows when M is large).
void gemm_s8(int64_t M, int64_t N, int64_t K, const int16_t* A, int64_t lda, const int16_t* packed_b,
             const QGemmEpilogue& e, float* C, int64_t ldc);
// The scalar reference: W[n * ldw + k] unpacked.
void gemm_s8_ref(int64_t M, int64_t N, int64_t K, const int16_t* A, int64_t lda, const int8_t* W, int64_t ldw,
                 const QGemmEpilogue& e, float* C, int64_t ldc);

}  // namespace tir
