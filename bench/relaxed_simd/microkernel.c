// The 4 x 8 f32 tile of src/kernels/gemm.cpp's WASM micro-kernel (C[4][8] += A[k][4] * B[k][8] over K),
// once with SIMD128 multiply then add and once with relaxed SIMD's relaxed_madd (bench/relaxed_simd/run.sh).
#include <wasm_simd128.h>
#include <emscripten.h>
#define K 256
static float A[K * 4] __attribute__((aligned(16))), B[K * 8] __attribute__((aligned(16))), C[32];
EMSCRIPTEN_KEEPALIVE void init(void) { for (int i = 0; i < K * 4; ++i) A[i] = (i % 7) * 0.01f; for (int i = 0; i < K * 8; ++i) B[i] = (i % 5) * 0.01f; }
#define KERNEL(NAME, FMA)                                                              \
  EMSCRIPTEN_KEEPALIVE float NAME(int reps) {                                         \
    v128_t c[8];                                                                      \
    for (int i = 0; i < 8; ++i) c[i] = wasm_f32x4_splat(0);                           \
    for (int r = 0; r < reps; ++r) {                                                  \
      const float* a = A; const float* b = B;                                         \
      for (int k = 0; k < K; ++k, a += 4, b += 8) {                                   \
        v128_t b0 = wasm_v128_load(b), b1 = wasm_v128_load(b + 4);                    \
        for (int i = 0; i < 4; ++i) {                                                 \
          v128_t ai = wasm_v128_load32_splat(a + i);                                  \
          c[2 * i] = FMA(ai, b0, c[2 * i]);                                           \
          c[2 * i + 1] = FMA(ai, b1, c[2 * i + 1]);                                   \
        }                                                                             \
      }                                                                               \
    }                                                                                 \
    float s = 0; for (int i = 0; i < 8; ++i) s += wasm_f32x4_extract_lane(c[i], 0);  \
    return s;                                                                         \
  }
#define MULADD(a, b, c) wasm_f32x4_add(wasm_f32x4_mul(a, b), c)
#define RMADD(a, b, c) wasm_f32x4_relaxed_madd(a, b, c)
KERNEL(k_muladd, MULADD)
KERNEL(k_fma, RMADD)
