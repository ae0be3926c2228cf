// The arguments of the relaxed-SIMD int8 GEMM (gemm_s8_relaxed.c), shared by that freestanding C
// module and kernels/gemm_s8.cpp, which fills them: one struct in linear memory, read in place by
// the kernel module (both are wasm32: pointers and int32 fields are 4 bytes each).
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct RelaxedGemmS8 {
  const int16_t* a;        // M rows of K quantized activations at a + m * lda (int16 holding 8-bit values)
  int32_t lda, M, N, K;
  int32_t a_offset;        // added to every activation: 128 for int8 ones, 0 for uint8 (then 0..255)
  const int8_t* b;         // panels of 8 columns; per 4 k, 32 bytes: column j's 4 k at j * 4 (zero padded)
  const float* row_scale;  // the QGemmEpilogue's arrays (kernels/gemm_s8.h)
  const int32_t* row_zero;
  const int32_t* row_sum;
  const float* col_scale;
  const int32_t* col_sum;
  const int32_t* col_zero;
  const float* bias;
  float* c;
  int32_t ldc;
  uint8_t* scratch;        // 4 rows of the activations as unsigned bytes: 4 * ((K + 3) / 4 * 4) bytes
} RelaxedGemmS8;

#ifdef __cplusplus
}
#endif
