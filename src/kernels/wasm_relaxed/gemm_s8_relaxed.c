// The int8 GEMM tile on relaxed SIMD's i32x4.relaxed_dot_i8x16_i7x16_add_s: 16 int8 products per
// instruction where SIMD128's i32x4.dot_i16x8_s makes 8 (kernels/gemm_s8.cpp). A module of its
// own, built by scripts/build_relaxed_kernels.sh with a newer clang than the engine's Emscripten
// (whose relaxed opcodes are pre-standard), and called from the engine through
// bindings/relaxed_simd.js on the engine's own memory. Freestanding: no stack, no data, no
// imports but the memory (the build checks it).
//
// The instruction's second operand is "7-bit": past 127 its lanes are implementation-defined.
// The engine uses this module only where rx_probe() finds them read as unsigned bytes with no
// intermediate saturation (x86 with AVX-VNNI: vpdpbusd), so the activations go there as
// a + a_offset in [0, 255] and the int32 sums are exact: the results equal gemm_s8's bit for bit.
#include <wasm_simd128.h>

#include "gemm_s8_args.h"

#define EXPORT(name) __attribute__((export_name(#name))) name

// 1 when the second operand's bytes are read as unsigned and the sums are exact (no pairwise
// int16 saturation): 4 * (127 * 255) and 4 * (-128 * 255) in every lane. The caller passes
// (127, -128, 255): arguments, so that nothing is folded at compile time (and no stack is used).
int EXPORT(rx_probe)(int32_t p, int32_t n, int32_t u) {
  const v128_t ones = wasm_i8x16_splat((int8_t)u);
  const v128_t hi = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(wasm_i8x16_splat((int8_t)p), ones, wasm_i32x4_splat(0));
  const v128_t lo = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(wasm_i8x16_splat((int8_t)n), ones, wasm_i32x4_splat(1));
  return wasm_i32x4_all_true(wasm_i32x4_eq(hi, wasm_i32x4_splat(4 * 127 * 255))) &&
         wasm_i32x4_all_true(wasm_i32x4_eq(lo, wasm_i32x4_splat(1 - 4 * 128 * 255)));
}

// Rows [m0, m0 + rows) of a as unsigned bytes (a + a_offset) into the scratch, kq * 4 per row.
static void rows_to_u8(const RelaxedGemmS8* g, int32_t m0, int32_t rows, int32_t k4) {
  const v128_t off = wasm_i16x8_splat((int16_t)g->a_offset);
  for (int32_t r = 0; r < rows; ++r) {
    const int16_t* a = g->a + (m0 + r) * g->lda;
    uint8_t* o = g->scratch + r * k4;
    int32_t k = 0;
    for (; k + 16 <= g->K; k += 16) {
      const v128_t x0 = wasm_i16x8_add(wasm_v128_load(a + k), off);
      const v128_t x1 = wasm_i16x8_add(wasm_v128_load(a + k + 8), off);
      wasm_v128_store(o + k, wasm_u8x16_narrow_i16x8(x0, x1));
    }
    for (; k < g->K; ++k) o[k] = (uint8_t)(a[k] + g->a_offset);
    for (; k < k4; ++k) o[k] = 0;
  }
}

// Columns [n0, n0 + cols) of row m: (sum - (rz + offset) * col_sum [+ cz * (K * rz - row_sum)])
// * (rs * col_scale) + bias, in gemm_s8.cpp's order (multiply, then add: no fused multiply-add).
static void store_row(const RelaxedGemmS8* g, int32_t m, int32_t n0, int32_t cols, v128_t s0, v128_t s1) {
  const int32_t rz = g->row_zero ? g->row_zero[m] : 0;
  const v128_t rzo = wasm_i32x4_splat(rz + g->a_offset);
  s0 = wasm_i32x4_sub(s0, wasm_i32x4_mul(rzo, wasm_v128_load(g->col_sum + n0)));
  s1 = wasm_i32x4_sub(s1, wasm_i32x4_mul(rzo, wasm_v128_load(g->col_sum + n0 + 4)));
  if (g->col_zero) {
    const v128_t t = wasm_i32x4_splat(g->K * rz - g->row_sum[m]);
    s0 = wasm_i32x4_add(s0, wasm_i32x4_mul(wasm_v128_load(g->col_zero + n0), t));
    s1 = wasm_i32x4_add(s1, wasm_i32x4_mul(wasm_v128_load(g->col_zero + n0 + 4), t));
  }
  const v128_t rs = wasm_f32x4_splat(g->row_scale[m]);
  v128_t y0 = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(s0), wasm_f32x4_mul(rs, wasm_v128_load(g->col_scale + n0)));
  v128_t y1 = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(s1), wasm_f32x4_mul(rs, wasm_v128_load(g->col_scale + n0 + 4)));
  if (g->bias) {
    y0 = wasm_f32x4_add(y0, wasm_v128_load(g->bias + n0));
    y1 = wasm_f32x4_add(y1, wasm_v128_load(g->bias + n0 + 4));
  }
  float* c = g->c + m * g->ldc + n0;
  if (cols == 8) {
    wasm_v128_store(c, y0);
    wasm_v128_store(c + 4, y1);
    return;
  }
  // lane by lane: a short panel's row must not write past column N
  if (cols > 0) c[0] = wasm_f32x4_extract_lane(y0, 0);
  if (cols > 1) c[1] = wasm_f32x4_extract_lane(y0, 1);
  if (cols > 2) c[2] = wasm_f32x4_extract_lane(y0, 2);
  if (cols > 3) c[3] = wasm_f32x4_extract_lane(y0, 3);
  if (cols > 4) c[4] = wasm_f32x4_extract_lane(y1, 0);
  if (cols > 5) c[5] = wasm_f32x4_extract_lane(y1, 1);
  if (cols > 6) c[6] = wasm_f32x4_extract_lane(y1, 2);
}

// Row tiles [t0, t1) (4 rows each) x panels [p0, p1) (8 columns each).
void EXPORT(rx_gemm_s8)(const RelaxedGemmS8* g, int32_t p0, int32_t p1, int32_t t0, int32_t t1) {
  const int32_t k4 = (g->K + 3) / 4 * 4, kq_count = k4 / 4;
  for (int32_t t = t0; t < t1; ++t) {
    const int32_t m0 = t * 4, rows = g->M - m0 < 4 ? g->M - m0 : 4;
    rows_to_u8(g, m0, rows, k4);
    // rows past M read the scratch's stale rows: computed, never stored
    const uint8_t *a0 = g->scratch, *a1 = a0 + k4, *a2 = a1 + k4, *a3 = a2 + k4;
    for (int32_t p = p0; p < p1; ++p) {
      const int8_t* b = g->b + p * kq_count * 32;
      v128_t c00 = wasm_i32x4_splat(0), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
      for (int32_t kq = 0; kq < kq_count; ++kq, b += 32) {
        const v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 16);
        const v128_t x0 = wasm_v128_load32_splat(a0 + 4 * kq), x1 = wasm_v128_load32_splat(a1 + 4 * kq);
        const v128_t x2 = wasm_v128_load32_splat(a2 + 4 * kq), x3 = wasm_v128_load32_splat(a3 + 4 * kq);
        c00 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(b0, x0, c00);
        c01 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(b1, x0, c01);
        c10 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(b0, x1, c10);
        c11 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(b1, x1, c11);
        c20 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(b0, x2, c20);
        c21 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(b1, x2, c21);
        c30 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(b0, x3, c30);
        c31 = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(b1, x3, c31);
      }
      const int32_t n0 = p * 8, cols = g->N - n0 < 8 ? g->N - n0 : 8;
      store_row(g, m0, n0, cols, c00, c01);
      if (rows > 1) store_row(g, m0 + 1, n0, cols, c10, c11);
      if (rows > 2) store_row(g, m0 + 2, n0, cols, c20, c21);
      if (rows > 3) store_row(g, m0 + 3, n0, cols, c30, c31);
    }
  }
}
