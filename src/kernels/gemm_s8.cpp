// Integer GEMM of 8-bit quantized operands (see gemm_s8.h). Highway, compiled per
// target (kernels/simd_dispatch.h): on WASM the k-pair multiply-add is
// i32x4.dot_i16x8_s, natively pmaddwd (SSE4/AVX2/AVX-512). An MR x NR tile keeps
// MR x 2 int32 vectors; every element's sum is exact, so the result does not
// depend on the target or the thread split.
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/gemm_s8.h"

#include "core/errors.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemm_s8.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using D32 = hn::ScalableTag<int32_t>;
#if HWY_TARGET != HWY_SCALAR
using D16 = hn::Repartition<int16_t, D32>;
using DF = hn::Repartition<float, D32>;
using V32 = hn::Vec<D32>;
#endif

constexpr int64_t kL = int64_t(hn::MaxLanes(D32()));
constexpr int64_t kNR = 2 * kL;  // columns per panel: two int32 vectors
constexpr int64_t kMR = 4;       // rows per tile: 8 accumulators (V8 keeps 4 x 8 in registers)

int64_t nr_s8() { return kNR; }

// Panel p holds columns [p * NR, p * NR + NR); for each k pair, NR pairs (B[2kp, n], B[2kp+1, n]).
void pack_b_s8_impl(int64_t K, int64_t N, const int8_t* W, int64_t ldw, int16_t* dst) {
  const int64_t kp_count = (K + 1) / 2;
  const int64_t panels = (N + kNR - 1) / kNR;
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t kp = 0; kp < kp_count; ++kp) {
      int16_t* o = dst + (p * kp_count + kp) * kNR * 2;
      for (int64_t j = 0; j < kNR; ++j) {
        const int64_t n = p * kNR + j;
        const int64_t k = 2 * kp;
        o[2 * j] = n < N ? int16_t(W[n * ldw + k]) : int16_t(0);
        o[2 * j + 1] = n < N && k + 1 < K ? int16_t(W[n * ldw + k + 1]) : int16_t(0);
      }
    }
}

inline int32_t load_pair(const int16_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Rows [m0, m0 + rows) (rows <= MR) x the NR columns of panel `bp`: int32 sums, then the
// dequantizing store of the columns below N.
#if HWY_TARGET == HWY_SCALAR
// One-lane vectors cannot hold an int16 pair: plain C++ on the same packed layout.
void tile(int64_t m0, int64_t rows, int64_t n0, int64_t N, int64_t K, const int16_t* A, int64_t lda,
          const int16_t* bp, const QGemmEpilogue& e, float* C, int64_t ldc) {
  const int64_t kp_count = (K + 1) / 2;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t m = m0 + r;
    for (int64_t j = 0; j < kNR && n0 + j < N; ++j) {
      const int64_t n = n0 + j;
      int32_t acc = 0;
      for (int64_t kp = 0; kp < kp_count; ++kp) {
        const int16_t* b = bp + (kp * kNR + j) * 2;
        acc += int32_t(A[m * lda + 2 * kp]) * b[0] + int32_t(A[m * lda + 2 * kp + 1]) * b[1];
      }
      const int32_t rz = e.row_zero ? e.row_zero[m] : 0;
      int32_t s = acc - rz * e.col_sum[n];
      if (e.col_zero) s += e.col_zero[n] * (int32_t(K) * rz - e.row_sum[m]);
      const float y = float(s) * (e.row_scale[m] * e.col_scale[n]);
      C[m * ldc + n] = e.bias ? y + e.bias[n] : y;
    }
  }
}
#else
// ROWS (1..MR) rows: a short last tile (and a GEMV) computes only its own rows.
template <int ROWS>
void tile_rows(int64_t m0, int64_t n0, int64_t N, int64_t K, const int16_t* A, int64_t lda,
               const int16_t* bp, const QGemmEpilogue& e, float* C, int64_t ldc) {
  const D32 d32;
  const D16 d16;
  const DF df;
  const int64_t rows = ROWS;
  const int64_t kp_count = (K + 1) / 2;
  const int16_t* a[ROWS];
  for (int64_t r = 0; r < ROWS; ++r) a[r] = A + (m0 + r) * lda;
  V32 acc[ROWS][2], acc1[ROWS][2];
  for (int64_t r = 0; r < ROWS; ++r)
    for (int v = 0; v < 2; ++v) acc[r][v] = acc1[r][v] = hn::Zero(d32);
  for (int64_t kp = 0; kp < kp_count; ++kp) {
    const auto b0 = hn::LoadU(d16, bp + kp * kNR * 2);
    const auto b1 = hn::LoadU(d16, bp + kp * kNR * 2 + kL * 2);
    for (int64_t r = 0; r < ROWS; ++r) {
      const auto av = hn::BitCast(d16, hn::Set(d32, load_pair(a[r] + 2 * kp)));
      acc[r][0] = hn::ReorderWidenMulAccumulate(d32, av, b0, acc[r][0], acc1[r][0]);
      acc[r][1] = hn::ReorderWidenMulAccumulate(d32, av, b1, acc[r][1], acc1[r][1]);
    }
  }
  // The store: (sum - rz * col_sum [- cz * row_sum + K * rz * cz]) * (rs * col_scale) + bias, by
  // vectors; the column arrays are padded to whole panels.
  const int64_t cols = std::min(kNR, N - n0);
  const V32 cs[2] = {hn::LoadU(d32, e.col_sum + n0), hn::LoadU(d32, e.col_sum + n0 + kL)};
  const auto csc0 = hn::LoadU(df, e.col_scale + n0), csc1 = hn::LoadU(df, e.col_scale + n0 + kL);
  const auto zero_f = hn::Zero(df);
  const auto bias0 = e.bias ? hn::LoadU(df, e.bias + n0) : zero_f;
  const auto bias1 = e.bias ? hn::LoadU(df, e.bias + n0 + kL) : zero_f;
  alignas(64) float out[kNR];
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t m = m0 + r;
    const V32 rz = hn::Set(d32, e.row_zero ? e.row_zero[m] : 0);
    V32 s0 = hn::Sub(hn::RearrangeToOddPlusEven(acc[r][0], acc1[r][0]), hn::Mul(rz, cs[0]));
    V32 s1 = hn::Sub(hn::RearrangeToOddPlusEven(acc[r][1], acc1[r][1]), hn::Mul(rz, cs[1]));
    if (e.col_zero) {  // asymmetric weights: - cz * row_sum + K * rz * cz
      const V32 cz0 = hn::LoadU(d32, e.col_zero + n0), cz1 = hn::LoadU(d32, e.col_zero + n0 + kL);
      const V32 t = hn::Sub(hn::Mul(hn::Set(d32, int32_t(K)), rz), hn::Set(d32, e.row_sum[m]));
      s0 = hn::Add(s0, hn::Mul(cz0, t));
      s1 = hn::Add(s1, hn::Mul(cz1, t));
    }
    const auto rs = hn::Set(df, e.row_scale[m]);
    // multiply, then add: no FMA, so every target rounds as the reference does
    const auto y0 = hn::Add(hn::Mul(hn::ConvertTo(df, s0), hn::Mul(rs, csc0)), bias0);
    const auto y1 = hn::Add(hn::Mul(hn::ConvertTo(df, s1), hn::Mul(rs, csc1)), bias1);
    float* c = C + m * ldc + n0;
    if (cols == kNR) {
      hn::StoreU(y0, df, c);
      hn::StoreU(y1, df, c + kL);
    } else {
      hn::Store(y0, df, out);
      hn::Store(y1, df, out + kL);
      std::memcpy(c, out, size_t(cols) * sizeof(float));
    }
  }
}

void tile(int64_t m0, int64_t rows, int64_t n0, int64_t N, int64_t K, const int16_t* A, int64_t lda,
          const int16_t* bp, const QGemmEpilogue& e, float* C, int64_t ldc) {
  static_assert(kMR == 4, "tile() dispatches 1..4 rows");
  switch (rows) {
    case 1: return tile_rows<1>(m0, n0, N, K, A, lda, bp, e, C, ldc);
    case 2: return tile_rows<2>(m0, n0, N, K, A, lda, bp, e, C, ldc);
    case 3: return tile_rows<3>(m0, n0, N, K, A, lda, bp, e, C, ldc);
    default: return tile_rows<4>(m0, n0, N, K, A, lda, bp, e, C, ldc);
  }
}
#endif  // HWY_TARGET == HWY_SCALAR

void gemm_s8_impl(int64_t M, int64_t N, int64_t K, const int16_t* A, int64_t lda, const int16_t* packed_b,
                  const QGemmEpilogue& e, float* C, int64_t ldc) {
  const int64_t kp_count = (K + 1) / 2;
  for_each_s8_tile(M, N, kMR, kNR, kMR * K * kNR, e.post, C, ldc, [&](int64_t m0, int64_t rows, int64_t p) {
    tile(m0, rows, p * kNR, N, K, A, lda, packed_b + p * kp_count * kNR * 2, e, C, ldc);
  });
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#ifdef __EMSCRIPTEN__
#include "kernels/wasm_relaxed/gemm_s8_args.h"
// bindings/relaxed_simd.js: the relaxed-SIMD kernel module, instantiated on the engine's memory in
// each thread that calls it.
extern "C" int tir_relaxed_s8_available(void);
extern "C" void tir_relaxed_gemm_s8(const RelaxedGemmS8* args, int32_t p0, int32_t p1, int32_t t0, int32_t t1);
#endif

namespace tir {

HWY_EXPORT(nr_s8);
HWY_EXPORT(pack_b_s8_impl);
HWY_EXPORT(gemm_s8_impl);

int64_t gemm_s8_nr() { return HWY_DYNAMIC_DISPATCH(nr_s8)(); }

void apply_gemm_s8_post(const GemmEpilogue& post, int64_t m0, int64_t m1, int64_t n0, int64_t n1, float* C,
                        int64_t ldc) {
  for (int64_t m = m0; m < m1; ++m) {
    float* c = C + m * ldc;
    if (post.residual) {
      const float* r = post.residual + m * post.ldr;
      for (int64_t n = n0; n < n1; ++n) c[n] += r[n];
    }
    if (post.act != GemmAct::None)
      for (int64_t n = n0; n < n1; ++n) c[n] = apply_gemm_act(c[n], post);
  }
  if (post.act_row) apply_gemm_act_rows(m1 - m0, n1 - n0, C + m0 * ldc + n0, ldc, post);
}

bool gemm_s8_relaxed() {
#ifdef __EMSCRIPTEN__
  static const bool on = gemm_s8_nr() == 8 && tir_relaxed_s8_available() != 0;
  return on;
#else
  return false;
#endif
}

namespace {
constexpr int64_t kRelaxedNR = 8, kRelaxedMR = 4, kRelaxedMaxK = 32768;

// The relaxed kernel's panels: for each 4 k, 8 columns' 4 int8 (zero padded past K and N).
void pack_b_s8_relaxed(int64_t K, int64_t N, const int8_t* W, int64_t ldw, int8_t* dst) {
  const int64_t kq_count = (K + 3) / 4, panels = (N + kRelaxedNR - 1) / kRelaxedNR;
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t kq = 0; kq < kq_count; ++kq) {
      int8_t* o = dst + (p * kq_count + kq) * kRelaxedNR * 4;
      for (int64_t j = 0; j < kRelaxedNR; ++j)
        for (int64_t t = 0; t < 4; ++t) {
          const int64_t n = p * kRelaxedNR + j, k = 4 * kq + t;
          o[j * 4 + t] = n < N && k < K ? W[n * ldw + k] : int8_t(0);
        }
    }
}

#ifdef __EMSCRIPTEN__
void gemm_s8_relaxed_run(int64_t M, int64_t N, int64_t K, const int16_t* A, int64_t lda, const int8_t* packed_b,
                         const QGemmEpilogue& e, float* C, int64_t ldc) {
  if (K > kRelaxedMaxK) throw ExecutionError("gemm_s8: K = " + std::to_string(K) + " is past the int8 GEMM's exact int32 range");
  RelaxedGemmS8 g{};
  g.a = A;
  g.lda = int32_t(lda);
  g.M = int32_t(M);
  g.N = int32_t(N);
  g.K = int32_t(K);
  g.a_offset = e.a_offset;
  g.b = packed_b;
  g.row_scale = e.row_scale;
  g.row_zero = e.row_zero;
  g.row_sum = e.row_sum;
  g.col_scale = e.col_scale;
  g.col_sum = e.col_sum;
  g.col_zero = e.col_zero;
  g.bias = e.bias;
  g.c = C;
  g.ldc = int32_t(ldc);
  for_each_s8_block(M, N, kRelaxedMR, kRelaxedNR, kRelaxedMR * K * kRelaxedNR, e.post, C, ldc,
                    [&](int64_t p0, int64_t p1, int64_t t0, int64_t t1) {
                      // 4 rows of A as bytes, per thread: static, so a run allocates nothing
                      alignas(16) static thread_local uint8_t scratch[kRelaxedMR * kRelaxedMaxK];
                      RelaxedGemmS8 mine = g;
                      mine.scratch = scratch;
                      tir_relaxed_gemm_s8(&mine, int32_t(p0), int32_t(p1), int32_t(t0), int32_t(t1));
                    });
}
#endif
}  // namespace

int64_t packed_b_s8_size(int64_t K, int64_t N) {
  const int64_t nr = gemm_s8_nr();
  if (gemm_s8_relaxed()) return ((N + nr - 1) / nr) * nr * ((K + 3) / 4 * 4) / 2;  // int8 in int16 units
  return ((N + nr - 1) / nr) * nr * ((K + 1) / 2) * 2;
}

void pack_b_s8(int64_t K, int64_t N, const int8_t* W, int64_t ldw, int16_t* dst) {
  if (gemm_s8_relaxed()) return pack_b_s8_relaxed(K, N, W, ldw, reinterpret_cast<int8_t*>(dst));
  HWY_DYNAMIC_DISPATCH(pack_b_s8_impl)(K, N, W, ldw, dst);
}

void gemm_s8(int64_t M, int64_t N, int64_t K, const int16_t* A, int64_t lda, const int16_t* packed_b,
             const QGemmEpilogue& e, float* C, int64_t ldc) {
#ifdef __EMSCRIPTEN__
  if (gemm_s8_relaxed())
    return gemm_s8_relaxed_run(M, N, K, A, lda, reinterpret_cast<const int8_t*>(packed_b), e, C, ldc);
#endif
  HWY_DYNAMIC_DISPATCH(gemm_s8_impl)(M, N, K, A, lda, packed_b, e, C, ldc);
}

void gemm_s8_ref(int64_t M, int64_t N, int64_t K, const int16_t* A, int64_t lda, const int8_t* W, int64_t ldw,
                 const QGemmEpilogue& e, float* C, int64_t ldc) {
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      int64_t acc = 0;
      for (int64_t k = 0; k < K; ++k) {
        const int64_t a = int64_t(A[m * lda + k]) - (e.row_zero ? e.row_zero[m] : 0);
        const int64_t w = int64_t(W[n * ldw + k]) - (e.col_zero ? e.col_zero[n] : 0);
        acc += a * w;
      }
      const float y = float(int32_t(acc)) * (e.row_scale[m] * e.col_scale[n]);
      C[m * ldc + n] = e.bias ? y + e.bias[n] : y;
    }
  if (e.post) apply_gemm_s8_post(*e.post, 0, M, 0, N, C, ldc);
}

}  // namespace tir
#endif  // HWY_ONCE
