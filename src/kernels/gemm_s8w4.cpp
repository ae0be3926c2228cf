// int8 x int4 group-wise GEMM (see gemm_s8w4.h). Highway, compiled per target
// (kernels/simd_dispatch.h); the k-pair multiply-add is i32x4.dot_i16x8_s on WASM,
// pmaddwd natively. Group sums are exact int32 and the float combination runs in the
// same order everywhere, so the result depends on neither the target nor the threads.
#include <algorithm>
#include <cstring>

#include "kernels/gemm_s8w4.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemm_s8w4.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using D32 = hn::ScalableTag<int32_t>;

constexpr int64_t kL = int64_t(hn::MaxLanes(D32()));
constexpr int64_t kNR = 2 * kL;  // the int8 GEMM's panel width (gemm_s8_nr())
constexpr int64_t kMR = 4;

// The 4-bit value of B[k, n] in panel lane terms: per quad of k (two k pairs) a panel holds NR
// int16 lanes; lane i's nibble j belongs to vector j of (b0(kp), b1(kp), b0(kp + 1), b1(kp + 1)),
// where b0's lane i is column i / 2 and b1's is column kL + i / 2, at k = 2 kp + i % 2.
inline void lane_of(int64_t k, int64_t j_in_panel, int64_t* lane, int* nibble) {
  const int64_t kp = k / 2, half = j_in_panel / kL;
  *lane = (j_in_panel % kL) * 2 + k % 2;
  *nibble = int((kp % 2) * 2 + half);
}

void pack_b_s4_impl(int64_t K, int64_t N, const int8_t* W, int64_t ldw, uint8_t* dst) {
  const int64_t quads = K / 4, panels = (N + kNR - 1) / kNR;
  std::memset(dst, 0, size_t(panels * quads * kNR * 2));
  for (int64_t p = 0; p < panels; ++p)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t j = 0; j < kNR; ++j) {
        const int64_t n = p * kNR + j;
        if (n >= N) continue;
        int64_t lane;
        int nib;
        lane_of(k, j, &lane, &nib);
        uint16_t* q = reinterpret_cast<uint16_t*>(dst) + (p * quads + k / 4) * kNR + lane;
        uint16_t v;
        std::memcpy(&v, q, 2);
        v = uint16_t(v | ((uint16_t(W[n * ldw + k]) & 0xF) << (4 * nib)));
        std::memcpy(q, &v, 2);
      }
}

#if HWY_TARGET == HWY_SCALAR
int32_t nibble_at(const uint8_t* bp, int64_t k, int64_t j) {
  int64_t lane;
  int nib;
  lane_of(k, j, &lane, &nib);
  uint16_t v;
  std::memcpy(&v, bp + ((k / 4) * kNR + lane) * 2, 2);
  return int32_t(int16_t(uint16_t(v << (12 - 4 * nib))) >> 12);
}

void tile(int64_t m0, int64_t rows, int64_t n0, int64_t N, int64_t K, int64_t G, const int16_t* A, int64_t lda,
          const uint8_t* bp, const QGemmEpilogue& e, float* C, int64_t ldc) {
  const int64_t groups = K / G;
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t m = m0 + r;
    const int32_t rz = e.row_zero ? e.row_zero[m] : 0;
    for (int64_t j = 0; j < kNR && n0 + j < N; ++j) {
      const int64_t n = n0 + j;
      float f = 0;
      for (int64_t g = 0; g < groups; ++g) {
        int32_t acc = 0;
        for (int64_t k = g * G; k < g * G + G; ++k) acc += int32_t(A[m * lda + k]) * nibble_at(bp, k, j);
        const int64_t c = s4_param_index(g, n, groups, kNR);
        int32_t s = acc - rz * e.col_sum[c];
        if (e.col_zero) s += e.col_zero[c] * (int32_t(G) * rz - e.row_sum[m * groups + g]);
        const float t = float(s) * e.col_scale[c];
        f = g == 0 ? t : f + t;
      }
      const float y = f * e.row_scale[m];
      C[m * ldc + n] = e.bias ? y + e.bias[n] : y;
    }
  }
}
#else
using D16 = hn::Repartition<int16_t, D32>;
using DF = hn::Repartition<float, D32>;
using V32 = hn::Vec<D32>;
using VF = hn::Vec<DF>;

inline int32_t load_pair(const int16_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <int ROWS>
void tile_rows(int64_t m0, int64_t n0, int64_t N, int64_t K, int64_t G, const int16_t* A, int64_t lda,
               const uint8_t* bp, const QGemmEpilogue& e, float* C, int64_t ldc) {
  const D32 d32;
  const D16 d16;
  const DF df;
  const int64_t groups = K / G;
  const int16_t* a[ROWS];
  for (int r = 0; r < ROWS; ++r) a[r] = A + (m0 + r) * lda;
  const int16_t* b = reinterpret_cast<const int16_t*>(bp);
  VF f[ROWS][2];
  for (int64_t g = 0; g < groups; ++g) {
    V32 acc[ROWS][2], acc1[ROWS][2];
    for (int r = 0; r < ROWS; ++r)
      for (int v = 0; v < 2; ++v) acc[r][v] = acc1[r][v] = hn::Zero(d32);
    // Unrolled: V8 puts a stack check on every WASM loop header, and in the threaded build (shared
    // memory) a header run per 4 k of a decode GEMV made lm_head 1.8-2.8x slower, erratically,
    // than the same code in the single-threaded build (2026-12-07, bench in the commit message).
#pragma clang loop unroll_count(8)
    for (int64_t kq = g * G / 4; kq < (g + 1) * G / 4; ++kq) {
      const auto v = hn::LoadU(d16, b + kq * kNR);
      // four signed nibbles per lane: shift each to the top, then arithmetically back down
      const auto w0 = hn::ShiftRight<12>(hn::ShiftLeft<12>(v));
      const auto w1 = hn::ShiftRight<12>(hn::ShiftLeft<8>(v));
      const auto w2 = hn::ShiftRight<12>(hn::ShiftLeft<4>(v));
      const auto w3 = hn::ShiftRight<12>(v);
      for (int r = 0; r < ROWS; ++r) {
        const auto a0 = hn::BitCast(d16, hn::Set(d32, load_pair(a[r] + 4 * kq)));
        const auto a1 = hn::BitCast(d16, hn::Set(d32, load_pair(a[r] + 4 * kq + 2)));
        acc[r][0] = hn::ReorderWidenMulAccumulate(d32, a0, w0, acc[r][0], acc1[r][0]);
        acc[r][1] = hn::ReorderWidenMulAccumulate(d32, a0, w1, acc[r][1], acc1[r][1]);
        acc[r][0] = hn::ReorderWidenMulAccumulate(d32, a1, w2, acc[r][0], acc1[r][0]);
        acc[r][1] = hn::ReorderWidenMulAccumulate(d32, a1, w3, acc[r][1], acc1[r][1]);
      }
    }
    // the group's exact sum, corrected for the zero points, times its weight scales
    const int64_t c = s4_param_index(g, n0, groups, kNR);
    const V32 cs0 = hn::LoadU(d32, e.col_sum + c), cs1 = hn::LoadU(d32, e.col_sum + c + kL);
    const VF sc0 = hn::LoadU(df, e.col_scale + c), sc1 = hn::LoadU(df, e.col_scale + c + kL);
    for (int r = 0; r < ROWS; ++r) {
      const int64_t m = m0 + r;
      const V32 rz = hn::Set(d32, e.row_zero ? e.row_zero[m] : 0);
      V32 s0 = hn::Sub(hn::RearrangeToOddPlusEven(acc[r][0], acc1[r][0]), hn::Mul(rz, cs0));
      V32 s1 = hn::Sub(hn::RearrangeToOddPlusEven(acc[r][1], acc1[r][1]), hn::Mul(rz, cs1));
      if (e.col_zero) {
        const V32 t = hn::Sub(hn::Mul(hn::Set(d32, int32_t(G)), rz), hn::Set(d32, e.row_sum[m * groups + g]));
        s0 = hn::Add(s0, hn::Mul(hn::LoadU(d32, e.col_zero + c), t));
        s1 = hn::Add(s1, hn::Mul(hn::LoadU(d32, e.col_zero + c + kL), t));
      }
      const VF t0 = hn::Mul(hn::ConvertTo(df, s0), sc0), t1 = hn::Mul(hn::ConvertTo(df, s1), sc1);
      f[r][0] = g == 0 ? t0 : hn::Add(f[r][0], t0);
      f[r][1] = g == 0 ? t1 : hn::Add(f[r][1], t1);
    }
  }
  const int64_t cols = std::min(kNR, N - n0);
  const VF zero = hn::Zero(df);
  const VF bias0 = e.bias ? hn::LoadU(df, e.bias + n0) : zero, bias1 = e.bias ? hn::LoadU(df, e.bias + n0 + kL) : zero;
  alignas(64) float out[kNR];
  for (int r = 0; r < ROWS; ++r) {
    const int64_t m = m0 + r;
    const VF rs = hn::Set(df, e.row_scale[m]);
    VF y0 = hn::Mul(groups ? f[r][0] : zero, rs), y1 = hn::Mul(groups ? f[r][1] : zero, rs);
    if (e.bias) {
      y0 = hn::Add(y0, bias0);
      y1 = hn::Add(y1, bias1);
    }
    float* cp = C + m * ldc + n0;
    if (cols == kNR) {
      hn::StoreU(y0, df, cp);
      hn::StoreU(y1, df, cp + kL);
    } else {
      hn::Store(y0, df, out);
      hn::Store(y1, df, out + kL);
      std::memcpy(cp, out, size_t(cols) * sizeof(float));
    }
  }
}

void tile(int64_t m0, int64_t rows, int64_t n0, int64_t N, int64_t K, int64_t G, const int16_t* A, int64_t lda,
          const uint8_t* bp, const QGemmEpilogue& e, float* C, int64_t ldc) {
  static_assert(kMR == 4, "tile() dispatches 1..4 rows");
  switch (rows) {
    case 1: return tile_rows<1>(m0, n0, N, K, G, A, lda, bp, e, C, ldc);
    case 2: return tile_rows<2>(m0, n0, N, K, G, A, lda, bp, e, C, ldc);
    case 3: return tile_rows<3>(m0, n0, N, K, G, A, lda, bp, e, C, ldc);
    default: return tile_rows<4>(m0, n0, N, K, G, A, lda, bp, e, C, ldc);
  }
}
#endif  // HWY_TARGET == HWY_SCALAR

void gemm_s8w4_impl(int64_t M, int64_t N, int64_t K, int64_t G, const int16_t* A, int64_t lda, const uint8_t* packed_b,
                    const QGemmEpilogue& e, float* C, int64_t ldc) {
  const int64_t panel_bytes = K / 4 * kNR * 2;
  for_each_s8_tile(M, N, kMR, kNR, kMR * K * kNR, e.post, C, ldc, [&](int64_t m0, int64_t rows, int64_t p) {
    tile(m0, rows, p * kNR, N, K, G, A, lda, packed_b + p * panel_bytes, e, C, ldc);
  });
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tir {

HWY_EXPORT(pack_b_s4_impl);
HWY_EXPORT(gemm_s8w4_impl);

int64_t packed_b_s4_size(int64_t K, int64_t N) {
  const int64_t nr = gemm_s8_nr();
  return (N + nr - 1) / nr * nr * (K / 4) * 2;
}

void pack_b_s4(int64_t K, int64_t N, const int8_t* W, int64_t ldw, uint8_t* dst) {
  HWY_DYNAMIC_DISPATCH(pack_b_s4_impl)(K, N, W, ldw, dst);
}

void gemm_s8w4(int64_t M, int64_t N, int64_t K, int64_t G, const int16_t* A, int64_t lda, const uint8_t* packed_b,
               const QGemmEpilogue& e, float* C, int64_t ldc) {
  HWY_DYNAMIC_DISPATCH(gemm_s8w4_impl)(M, N, K, G, A, lda, packed_b, e, C, ldc);
}

void gemm_s8w4_ref(int64_t M, int64_t N, int64_t K, int64_t G, const int16_t* A, int64_t lda, const int8_t* W,
                   int64_t ldw, const QGemmEpilogue& e, float* C, int64_t ldc) {
  const int64_t groups = G > 0 ? K / G : 0, nr = gemm_s8_nr();
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float f = 0;
      for (int64_t g = 0; g < groups; ++g) {
        int64_t acc = 0;
        const int64_t c = s4_param_index(g, n, groups, nr);
        const int64_t rz = e.row_zero ? e.row_zero[m] : 0, cz = e.col_zero ? e.col_zero[c] : 0;
        for (int64_t k = g * G; k < g * G + G; ++k) acc += (int64_t(A[m * lda + k]) - rz) * (int64_t(W[n * ldw + k]) - cz);
        const float t = float(int32_t(acc)) * e.col_scale[c];
        f = g == 0 ? t : f + t;
      }
      const float y = f * e.row_scale[m];
      C[m * ldc + n] = e.bias ? y + e.bias[n] : y;
    }
  if (e.post) apply_gemm_s8_post(*e.post, 0, M, 0, N, C, ldc);
}

}  // namespace tir
#endif  // HWY_ONCE
