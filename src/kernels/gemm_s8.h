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
#include <algorithm>
#include <cstdint>

#include "kernels/gemm.h"
#include "kernels/parallel.h"

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
  // A's values plus a_offset lie in [0, 255]: 128 for int8 activations, 0 for uint8 ones (the
  // relaxed-SIMD kernel takes them as unsigned bytes; gemm_s8_a_offset).
  int32_t a_offset = 128;
};

// QGemmEpilogue::a_offset for activations quantized to [qmin, qmax] (int8 or uint8 ranges).
inline int32_t gemm_s8_a_offset(int64_t qmin) { return qmin >= 0 ? 0 : 128; }


// post's residual, activation and act_row over rows [m0, m1) x columns [n0, n1) of C.
void apply_gemm_s8_post(const GemmEpilogue& post, int64_t m0, int64_t m1, int64_t n0, int64_t n1, float* C,
                        int64_t ldc);

// The integer GEMMs' loop (gemm_s8, gemm_s8w4): block(p0, p1, t0, t1) computes row tiles
// [t0, t1) of mr rows x panels [p0, p1) of nr columns, over blocks of panels of about 64
// columns, after each of which `post` (when set) runs on the finished block while it is in cache;
// threads split the panels (or the row tiles, when there are more of those). cost_per_tile:
// multiply-adds of one tile.
template <class Block>
void for_each_s8_block(int64_t M, int64_t N, int64_t mr, int64_t nr, int64_t cost_per_tile, const GemmEpilogue* post,
                       float* C, int64_t ldc, Block&& block) {
  if (M <= 0 || N <= 0) return;
  const int64_t panels = (N + nr - 1) / nr, row_tiles = (M + mr - 1) / mr;
  const int64_t per_block = nr >= 64 ? 1 : 64 / nr;
  auto run = [&](int64_t p0, int64_t p1, int64_t t0, int64_t t1) {
    for (int64_t g = p0; g < p1; g += per_block) {
      const int64_t g1 = std::min(p1, g + per_block);
      block(g, g1, t0, t1);
      if (post) apply_gemm_s8_post(*post, t0 * mr, std::min(M, t1 * mr), g * nr, std::min(N, g1 * nr), C, ldc);
    }
  };
  const int64_t chunks = chunks_for(panels * row_tiles, cost_per_tile);
  if (chunks <= 1) {
    run(0, panels, 0, row_tiles);
  } else if (panels >= row_tiles) {
    parallel_for_chunks(panels, std::min(chunks, panels), [&](int64_t p0, int64_t p1) { run(p0, p1, 0, row_tiles); });
  } else {
    parallel_for_chunks(row_tiles, std::min(chunks, row_tiles), [&](int64_t t0, int64_t t1) { run(0, panels, t0, t1); });
  }
}

// for_each_s8_block with one tile(m0, rows, panel) call per tile.
template <class Tile>
void for_each_s8_tile(int64_t M, int64_t N, int64_t mr, int64_t nr, int64_t cost_per_tile, const GemmEpilogue* post,
                      float* C, int64_t ldc, Tile&& tile) {
  for_each_s8_block(M, N, mr, nr, cost_per_tile, post, C, ldc, [&](int64_t p0, int64_t p1, int64_t t0, int64_t t1) {
    for (int64_t p = p0; p < p1; ++p)
      for (int64_t t = t0; t < t1; ++t) tile(t * mr, std::min(mr, M - t * mr), p);
  });
}

// Columns per packed panel (the target's tile width) and the packed size in int16.
int64_t gemm_s8_nr();
// Whether gemm_s8 runs on the relaxed-SIMD kernel (WASM where the engine's JS found relaxed SIMD's
// int8 dot product exact on unsigned bytes: kernels/wasm_relaxed/); decided once per process, it
// also picks pack_b_s8's layout (int8 in fours instead of int16 pairs).
bool gemm_s8_relaxed();
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
