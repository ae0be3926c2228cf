// The arguments of the relaxed-SIMD f32 GEMM block (gemm_f32_relaxed.c), shared by that freestanding
// C module and kernels/gemm.cpp, which fills them: one struct in linear memory, read in place by the
// kernel module (both are wasm32: pointers, int32 and float fields are 4 bytes each).
#pragma once
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// One cache block of kernels/gemm.cpp's run_block: rows [0, rows) x columns [0, cols) of C over
// one KC slice of k, with the packed layouts of the WASM target (4-row A panels, 8-column B panels).
typedef struct RelaxedGemmF32 {
  const float* a;        // A panel t (4 floats per k, zero padded) at a + t * a_stride, at the slice's first k
  int32_t a_stride;
  const float* b;        // B panel q (8 floats per k, zero padded) at b + q * b_stride, at the slice's first k
  int32_t b_stride;
  int32_t rows, cols, kc;
  int32_t ksub;          // k accumulates in runs of ksub from zero, each then added to C (gemm.cpp's kKSub)
  float* c;              // the block's first element; row stride ldc
  int32_t ldc;
  float alpha, beta;     // beta scales C on the first slice only (first != 0); beta == 0 does not read C
  int32_t first, last;   // first / last KC slice of K: the epilogue runs on the last
  const float* bias;     // at the block's first row (bias_per_row) or column, or null
  int32_t bias_per_row;
  const float* residual; // at the block's first element, row stride ldr, or null
  int32_t ldr;
  int32_t act;           // GemmAct: 0 none, 1 relu, 2 clamp to [lo, hi] (NaN stays NaN)
  float lo, hi;
  float* tile;           // 8 floats of the calling thread's scratch (a ragged tile's row)
} RelaxedGemmF32;

#ifdef __cplusplus
}
#endif
