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

// The epilogue is gemm_s8's QGemmEpilogue with group arrays: col_scale, col_sum and col_zero
// hold groups x npad values (npad: N padded to whole panels of gemm_s8_nr(), read, never stored)
// panel by panel, at s4_param_index(g, n, groups, gemm_s8_nr()); row_sum is [M][groups] (read
// when col_zero is set), row_scale / row_zero / bias as there.
//
// Panel-major ([npad / nr][groups][nr]): a tile reads its panel's parameters for group after
// group as one forward run, as it reads the panel's weights. Group-major ([groups][npad]) made
// every group of a decode GEMV a jump of npad floats in three arrays (an lm_head's 50257 columns:
// 200 KB), which on WASM cost more than the multiply-adds. With one group it is plain [npad].
inline int64_t s4_param_index(int64_t g, int64_t n, int64_t groups, int64_t nr) {
  return (n / nr * groups + g) * nr + n % nr;
}
// Packed size in bytes, for K (a multiple of 4) and N.
int64_t packed_b_s4_size(int64_t K, int64_t N);
// Packs B[k, n] = W[n * ldw + k] (values in -8..7; K a multiple of 4).
void pack_b_s4(int64_t K, int64_t N, const int8_t* W, int64_t ldw, uint8_t* dst);
// A: M rows of K int16 values at A + m * lda; G (a multiple of 4) divides K.
void gemm_s8w4(int64_t M, int64_t N, int64_t K, int64_t G, const int16_t* A, int64_t lda, const uint8_t* packed_b,
               const QGemmEpilogue& e, float* C, int64_t ldc);
// The scalar reference on the unpacked W[n * ldw + k].
void gemm_s8w4_ref(int64_t M, int64_t N, int64_t K, int64_t G, const int16_t* A, int64_t lda, const int8_t* W,
                   int64_t ldw, const QGemmEpilogue& e, float* C, int64_t ldc);

}  // namespace tir
