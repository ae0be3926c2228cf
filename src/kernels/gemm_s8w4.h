// Integer GEMM of int8 activations and 4-bit group-wise weights (torchao's 8da4w: the lowered
// linear of ops/linear_8da4w.cpp). The weights stay 4-bit from prepare on: B is packed once into
// panels of NR columns (gemm_s8_nr(), as the int8 GEMM), two k pairs per int16 lane, four signed
// nibbles each, so one vector load gives four int16 vectors of (k, k+1) pairs after two shifts
// each; the pairwise multiply-add (i32x4.dot_i16x8_s / pmaddwd) sums each group of G k exactly in
// int32, and every group's sum is scaled by its own weight scale into a float32 accumulator:
//
// C[m, n] = row_scale[m] * sum_g col_scale[g, n] * (acc_g - rz[m] * col_sum[g, n]
//                                                   - cz[g, n] * row_sum[m, g] + G * rz[m] * cz[g, n])
//           + bias[n],   acc_g = sum_{k in group g} A[m, k] * B[k, n]
//
// summed over g in order, multiply then add (no FMA), so every target and the reference give
// the same bits. Weights are signed 4-bit values (-8..7); an unsigned 4-bit range is stored
// shifted by 8 with its zero points (the caller's choice).
#pragma once
#include <cstdint>

#include "kernels/gemm_s8.h"

namespace tir {

// The column arrays hold whole panels (padded to a multiple of gemm_s8_nr(), read, never
// stored); the group arrays are [groups][npad] for columns and [M][groups] for rows.
struct QGemm4Epilogue {
  const float* row_scale = nullptr;    // [M]
  const int32_t* row_zero = nullptr;   // [M] activation zero points
  const int32_t* row_sum = nullptr;    // [M][groups] sum of A over each group (read when col_zero is set)
  const float* col_scale = nullptr;    // [groups][npad]
  const int32_t* col_sum = nullptr;    // [groups][npad] sum of B over each group
  const int32_t* col_zero = nullptr;   // [groups][npad] weight zero points, or null (symmetric)
  const float* bias = nullptr;         // [npad] or null
  const GemmEpilogue* post = nullptr;  // as QGemmEpilogue::post
};

// Packed size in bytes, for K (a multiple of 4) and N.
int64_t packed_b_s4_size(int64_t K, int64_t N);
// Packs B[k, n] = W[n * ldw + k] (values in -8..7; K a multiple of 4).
void pack_b_s4(int64_t K, int64_t N, const int8_t* W, int64_t ldw, uint8_t* dst);
// A: M rows of K int16 values at A + m * lda; G (a multiple of 4) divides K.
void gemm_s8w4(int64_t M, int64_t N, int64_t K, int64_t G, const int16_t* A, int64_t lda, const uint8_t* packed_b,
               const QGemm4Epilogue& e, float* C, int64_t ldc);
// The scalar reference on the unpacked W[n * ldw + k].
void gemm_s8w4_ref(int64_t M, int64_t N, int64_t K, int64_t G, const int16_t* A, int64_t lda, const int8_t* W,
                   int64_t ldw, const QGemm4Epilogue& e, float* C, int64_t ldc);

}  // namespace tir
