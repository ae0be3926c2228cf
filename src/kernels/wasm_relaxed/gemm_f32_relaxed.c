// The f32 GEMM's 4 x 8 micro-kernel on relaxed SIMD's f32x4.relaxed_madd: one instruction per
// multiply-add where SIMD128 has a multiply and an add that share the same ports (on x86 with FMA,
// V8 emits vfmadd). Called per cache block (kernels/gemm.cpp's run_block) through
// bindings/relaxed_simd.js, so a call's cost is spread over kc x rows x cols multiply-adds.
//
// Same loops, tile, order and blocked accumulation as gemm.cpp's SIMD128 micro-kernel and store:
// per element, k runs in order in runs of ksub from zero, each run then added to C. Only the
// rounding of each multiply-add differs where relaxed_madd is fused (one rounding instead of two);
// the thread split still does not change a bit. Freestanding: no stack, no data, no imports but the
// memory (scripts/build_relaxed_kernels.sh checks it).
#include <wasm_simd128.h>

#include "gemm_f32_args.h"

#define EXPORT(name) __attribute__((export_name(#name))) name

// 1 when relaxed_madd is fused: (1 + 2^-12)^2 - (1 + 2^-11) is 2^-24 with one rounding, 0 with
// two. Arguments, so that nothing is folded at compile time.
int EXPORT(rx_probe_fma)(float x, float y) {
  const v128_t v = wasm_f32x4_relaxed_madd(wasm_f32x4_splat(x), wasm_f32x4_splat(x), wasm_f32x4_splat(y));
  return wasm_f32x4_extract_lane(v, 0) != 0.0f;
}

// gemm.cpp's store epilogue on a finished vector: + bias, + residual, then relu or clamp with
// SIMD128's NaN-propagating min and max (as max_keep_nan / min_keep_nan there).
static v128_t epilogue(const RelaxedGemmF32* g, v128_t v, int32_t row, int32_t col) {
  if (g->bias) v = wasm_f32x4_add(v, g->bias_per_row ? wasm_f32x4_splat(g->bias[row]) : wasm_v128_load(g->bias + col));
  if (g->residual) v = wasm_f32x4_add(v, wasm_v128_load(g->residual + row * g->ldr + col));
  if (g->act == 1) v = wasm_f32x4_max(wasm_f32x4_splat(0.0f), v);
  if (g->act == 2) v = wasm_f32x4_min(wasm_f32x4_splat(g->hi), wasm_f32x4_max(wasm_f32x4_splat(g->lo), v));
  return v;
}

// The scalar epilogue of a ragged tile's element (gemm.h's apply_gemm_epilogue_ref, same order).
static float epilogue_scalar(const RelaxedGemmF32* g, float v, int32_t row, int32_t col) {
  if (g->bias) v += g->bias_per_row ? g->bias[row] : g->bias[col];
  if (g->residual) v += g->residual[row * g->ldr + col];
  if (g->act == 1) v = v < 0.0f ? 0.0f : v;
  if (g->act == 2) v = v < g->lo ? g->lo : (v > g->hi ? g->hi : v);
  return v;
}

// One row of a finished run: C = v (+ cs * C), then the epilogue on the last run of the last slice.
// cs is beta on the slice's first run of the first slice, else 1.
static void store_row(const RelaxedGemmF32* g, int32_t row, int32_t col, int32_t nr, v128_t v0, v128_t v1,
                      float cs, int32_t last) {
  float* c = g->c + row * g->ldc + col;
  if (g->alpha != 1.0f) {
    v0 = wasm_f32x4_mul(v0, wasm_f32x4_splat(g->alpha));
    v1 = wasm_f32x4_mul(v1, wasm_f32x4_splat(g->alpha));
  }
  if (nr == 8) {
    if (cs != 0.0f) {
      v0 = wasm_f32x4_relaxed_madd(wasm_f32x4_splat(cs), wasm_v128_load(c), v0);
      v1 = wasm_f32x4_relaxed_madd(wasm_f32x4_splat(cs), wasm_v128_load(c + 4), v1);
    }
    if (last) {
      v0 = epilogue(g, v0, row, col);
      v1 = epilogue(g, v1, row, col + 4);
    }
    wasm_v128_store(c, v0);
    wasm_v128_store(c + 4, v1);
    return;
  }
  // a ragged right edge: through the scratch row, then element by element (never past column cols)
  wasm_v128_store(g->tile, v0);
  wasm_v128_store(g->tile + 4, v1);
  for (int32_t j = 0; j < nr; ++j) {
    float v = cs != 0.0f ? g->tile[j] + cs * c[j] : g->tile[j];
    c[j] = last ? epilogue_scalar(g, v, row, col + j) : v;
  }
}

// Rows [row, row + mr) (mr <= 4; a short panel's missing rows are zero padding, computed and not
// stored) x columns [col, col + nr) of the block.
static void tile(const RelaxedGemmF32* g, const float* a, const float* b, int32_t row, int32_t col, int32_t mr,
                 int32_t nr) {
  for (int32_t k0 = 0; k0 < g->kc; k0 += g->ksub) {
    const int32_t k1 = g->kc - k0 < g->ksub ? g->kc : k0 + g->ksub;
    v128_t c00 = wasm_f32x4_splat(0.0f), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
    const float* ak = a + 4 * k0;
    const float* bk = b + 8 * k0;
    for (int32_t k = k0; k < k1; ++k, ak += 4, bk += 8) {
      const v128_t b0 = wasm_v128_load(bk), b1 = wasm_v128_load(bk + 4);
      const v128_t x0 = wasm_v128_load32_splat(ak), x1 = wasm_v128_load32_splat(ak + 1);
      c00 = wasm_f32x4_relaxed_madd(x0, b0, c00);
      c01 = wasm_f32x4_relaxed_madd(x0, b1, c01);
      c10 = wasm_f32x4_relaxed_madd(x1, b0, c10);
      c11 = wasm_f32x4_relaxed_madd(x1, b1, c11);
      const v128_t x2 = wasm_v128_load32_splat(ak + 2), x3 = wasm_v128_load32_splat(ak + 3);
      c20 = wasm_f32x4_relaxed_madd(x2, b0, c20);
      c21 = wasm_f32x4_relaxed_madd(x2, b1, c21);
      c30 = wasm_f32x4_relaxed_madd(x3, b0, c30);
      c31 = wasm_f32x4_relaxed_madd(x3, b1, c31);
    }
    const float cs = g->first && k0 == 0 ? g->beta : 1.0f;
    const int32_t last = g->last && k1 == g->kc;
    store_row(g, row, col, nr, c00, c01, cs, last);
    if (mr > 1) store_row(g, row + 1, col, nr, c10, c11, cs, last);
    if (mr > 2) store_row(g, row + 2, col, nr, c20, c21, cs, last);
    if (mr > 3) store_row(g, row + 3, col, nr, c30, c31, cs, last);
  }
}

// The block: for each 8-column panel, every 4-row panel (the panel's kc x 8 floats stay in L1
// while A streams), as run_block's jr / ir loops.
void EXPORT(rx_gemm_f32)(const RelaxedGemmF32* g) {
  for (int32_t col = 0; col < g->cols; col += 8) {
    const float* b = g->b + (col / 8) * g->b_stride;
    const int32_t nr = g->cols - col < 8 ? g->cols - col : 8;
    for (int32_t row = 0; row < g->rows; row += 4)
      tile(g, g->a + (row / 4) * g->a_stride, b, row, col, g->rows - row < 4 ? g->rows - row : 4, nr);
  }
}
