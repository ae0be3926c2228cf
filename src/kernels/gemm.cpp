// SIMD f32 gemm (Highway: WASM128 in the browser; natively compiled for each
// of AVX-512/AVX2/SSE4/fallback and dispatched at run time, simd_dispatch.h;
// the packed layouts follow the chosen target's tile). BLIS-style: op(A)
// in MR-row panels, op(B) in NR-column
// panels, both zero-padded; loops jc (NC) / pc (KC) / ic (MC) / jr (NR) / ir
// (MR) around an MR x NR register-blocked micro-kernel that keeps the tile in
// 2*MR vector accumulators. The epilogue (alpha/beta, bias, residual, relu or
// clamp) runs on the registers after the last K block. Each element
// accumulates k = 0..K-1 in order in blocks of kKSub (each a multiply-add chain
// from zero, then added to C), whatever the thread split: results do not depend
// on the thread count. Packed half-precision B (gemm_half-inl.h): the GEMV widens
// in registers, the blocked path widens each KC x NC block of B into thread
// scratch before its micro-kernels, so both sum exactly what the f32 path sums
// on the widened weights.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/half.h"
#include "kernels/gemm.h"
#include "kernels/parallel.h"

// Compiled once per SIMD target (kernels/simd_dispatch.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/gemm.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd_act-inl.h"
#include "kernels/gemm_half-inl.h"
#ifdef __EMSCRIPTEN__
#include "kernels/wasm_relaxed/gemm_f32_args.h"
// bindings/relaxed_simd.js: the relaxed-SIMD kernel module, instantiated on the engine's memory in
// each thread that calls it.
extern "C" int tir_relaxed_f32_available(void);
extern "C" int tir_relaxed_f32_fused(void);
extern "C" void tir_relaxed_gemm_f32(const RelaxedGemmF32* args);
#endif

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

constexpr int64_t kL = int64_t(hn::MaxLanes(D()));
// V8 keeps a 4 x 8 tile (8 accumulators) in registers; a 6 x 8 tile spills
// and runs at half the speed (measured: 1024^3 gemm 34 ms vs 67 ms). Unrolling the k loop
// by two ran 1.12x slower (2026-12-06, Intel Xeon, A/B in one process). Native
// AVX2 has 16 ymm registers for the classic 6 x 16.
#if HWY_TARGET == HWY_WASM
constexpr int64_t kMR = 4;
#else
constexpr int64_t kMR = 6;
#endif
constexpr int64_t kNR = 2 * kL;
// Cache blocks: a KC x NR sliver of B stays in L1 while MC rows of A (MC x KC,
// 96-144 KiB) stream from L2; the packed KC x NC block of B is per thread.
constexpr int64_t kKC = 256;
constexpr int64_t kKSub = 64;  // accumulation block inside a KC block (micro_kernel)
constexpr int64_t kMC = kMR * 24;
constexpr int64_t kNC = 256;  // columns: 32 panels in WASM, 16 with AVX2, 8 with AVX-512
// Thread splits use a few chunks per thread, claimed dynamically (see
// parallel_for_chunks): a late worker still gets work.
constexpr int kChunksPerThread = 4;
// Most floats an unpacked B may have for the M == 1 path to pack it whole.
constexpr int64_t kGemvPackLimit = int64_t(1) << 20;

thread_local std::vector<float> t_apack, t_bpack, t_xscaled;

struct Job {
  int64_t M, N, K;
  const float* apack;         // whole A, packed
  const GemmOperandB* B;
  float* C;
  int64_t ldc;
  float alpha, beta;
  const GemmEpilogue* epi;
};

// Finishes one tile: acc (mr x 2 vectors) -> C, with alpha/beta (first K
// block), accumulation (later blocks) and the epilogue (last block).
template <int MR>
HWY_INLINE void store_tile(const Job& job, V (&c0)[MR], V (&c1)[MR], int64_t row, int64_t col, int64_t mr,
                           int64_t nr, bool first, bool last) {
  const D d;
  float* C = job.C + row * job.ldc + col;
  const GemmEpilogue& e = *job.epi;
  if (job.alpha != 1.0f) {
    const V a = hn::Set(d, job.alpha);
    for (int i = 0; i < MR; ++i) {
      c0[i] = hn::Mul(c0[i], a);
      c1[i] = hn::Mul(c1[i], a);
    }
  }
  const float cscale = first ? job.beta : 1.0f;
  if (nr == kNR) {
    const V cs = hn::Set(d, cscale);
    for (int i = 0; i < MR; ++i) {
      if (i >= mr) break;
      float* c = C + i * job.ldc;
      V v0 = c0[i], v1 = c1[i];
      if (cscale != 0.0f) {
        v0 = hn::MulAdd(cs, hn::LoadU(d, c), v0);
        v1 = hn::MulAdd(cs, hn::LoadU(d, c + kL), v1);
      }
      if (last) {
        if (e.bias) {
          if (e.bias_per_row) {
            const V b = hn::Set(d, e.bias[row + i]);
            v0 = hn::Add(v0, b);
            v1 = hn::Add(v1, b);
          } else {
            v0 = hn::Add(v0, hn::LoadU(d, e.bias + col));
            v1 = hn::Add(v1, hn::LoadU(d, e.bias + col + kL));
          }
        }
        if (e.residual) {
          const float* r = e.residual + (row + i) * e.ldr + col;
          v0 = hn::Add(v0, hn::LoadU(d, r));
          v1 = hn::Add(v1, hn::LoadU(d, r + kL));
        }
        // NaN propagates as in torch (simd_act-inl.h).
        if (e.act == GemmAct::Relu) {
          v0 = max_keep_nan(hn::Zero(d), v0);
          v1 = max_keep_nan(hn::Zero(d), v1);
        } else if (e.act == GemmAct::Clamp) {
          const V lo = hn::Set(d, e.lo), hi = hn::Set(d, e.hi);
          v0 = min_keep_nan(hi, max_keep_nan(lo, v0));
          v1 = min_keep_nan(hi, max_keep_nan(lo, v1));
        }
      }
      hn::StoreU(v0, d, c);
      hn::StoreU(v1, d, c + kL);
    }
    return;
  }
  // Ragged right edge: through a buffer, then the scalar epilogue.
  HWY_ALIGN float tile[kNR];
  for (int i = 0; i < MR; ++i) {
    if (i >= mr) break;
    float* c = C + i * job.ldc;
    hn::StoreU(c0[i], d, tile);
    hn::StoreU(c1[i], d, tile + kL);
    for (int64_t j = 0; j < nr; ++j) c[j] = cscale != 0.0f ? tile[j] + cscale * c[j] : tile[j];
  }
  if (last) apply_gemm_epilogue_ref(mr, nr, C, job.ldc, e, row, col);
}

// C[row:row+mr, col:col+nr] (+)= A panel x B sliver over kc; a has k stride
// kMR (packed), b k stride kNR.
template <int MR>
HWY_NOINLINE void micro_kernel(const Job& job, int64_t kc, const float* HWY_RESTRICT a,
                               const float* HWY_RESTRICT b, int64_t row, int64_t col, int64_t mr, int64_t nr,
                               bool first, bool last) {
  const D d;
  V c0[MR], c1[MR];
  // Blocked accumulation: each kKSub-long run of k sums from zero in registers and is then
  // added to C, so no float chain is longer than kKSub + K / kKSub (vs K): about half the
  // rounding error of one chain on long K (im2col and Winograd convolutions), for one extra
  // C-tile load/store per kKSub multiply-adds.
  for (int64_t k0 = 0; k0 < kc; k0 += kKSub) {
    const int64_t k1 = std::min(kc, k0 + kKSub);
    for (int i = 0; i < MR; ++i) c0[i] = c1[i] = hn::Zero(d);
    for (int64_t k = k0; k < k1; ++k) {
      const V b0 = hn::LoadU(d, b), b1 = hn::LoadU(d, b + kL);
      for (int i = 0; i < MR; ++i) {
        const V ai = hn::Set(d, a[i]);
        c0[i] = hn::MulAdd(ai, b0, c0[i]);
        c1[i] = hn::MulAdd(ai, b1, c1[i]);
      }
      a += kMR;
      b += kNR;
    }
    store_tile<MR>(job, c0, c1, row, col, mr, nr, first && k0 == 0, last && k1 == kc);
  }
}

void run_tile(const Job& job, int64_t kc, const float* a, const float* b, int64_t row, int64_t col, int64_t mr,
              int64_t nr, bool first, bool last) {
  if (mr >= kMR) return micro_kernel<int(kMR)>(job, kc, a, b, row, col, mr, nr, first, last);
  switch (mr) {
    case 1: return micro_kernel<1>(job, kc, a, b, row, col, mr, nr, first, last);
    case 2: return micro_kernel<2>(job, kc, a, b, row, col, mr, nr, first, last);
    case 3: return micro_kernel<3>(job, kc, a, b, row, col, mr, nr, first, last);
    case 4:
      if constexpr (kMR > 4) return micro_kernel<4>(job, kc, a, b, row, col, mr, nr, first, last);
      break;
    case 5:
      if constexpr (kMR > 5) return micro_kernel<5>(job, kc, a, b, row, col, mr, nr, first, last);
      break;
  }
}

// p[k * pstride + r] = src[r * ld + k] for r < rows, k < kc: the packers' transposing gather
// (rows of A, or of a transposed B such as attention's keys), through registers in 4 x 4
// blocks instead of one strided scalar load per element. It only moves floats: the same bits.
void gather_transposed(const float* src, int64_t ld, int64_t rows, int64_t kc, float* p, int64_t pstride) {
  int64_t r = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::FixedTag<float, 4> d4;
  for (; r + 4 <= rows; r += 4) {
    const float* s0 = src + r * ld;
    const float *s1 = s0 + ld, *s2 = s1 + ld, *s3 = s2 + ld;
    int64_t k = 0;
    for (; k + 4 <= kc; k += 4) {
      const auto r0 = hn::LoadU(d4, s0 + k), r1 = hn::LoadU(d4, s1 + k);
      const auto r2 = hn::LoadU(d4, s2 + k), r3 = hn::LoadU(d4, s3 + k);
      const auto t0 = hn::InterleaveLower(d4, r0, r1), t1 = hn::InterleaveLower(d4, r2, r3);
      const auto t2 = hn::InterleaveUpper(d4, r0, r1), t3 = hn::InterleaveUpper(d4, r2, r3);
      float* q = p + k * pstride + r;
      hn::StoreU(hn::ConcatLowerLower(d4, t1, t0), d4, q);
      hn::StoreU(hn::ConcatUpperUpper(d4, t1, t0), d4, q + pstride);
      hn::StoreU(hn::ConcatLowerLower(d4, t3, t2), d4, q + 2 * pstride);
      hn::StoreU(hn::ConcatUpperUpper(d4, t3, t2), d4, q + 3 * pstride);
    }
    for (; k < kc; ++k)
      for (int64_t i = 0; i < 4; ++i) p[k * pstride + r + i] = src[(r + i) * ld + k];
  }
#endif
  for (; r < rows; ++r)
    for (int64_t k = 0; k < kc; ++k) p[k * pstride + r] = src[r * ld + k];
}

// Zeroes columns [from, width) of kc rows of `width` floats (the panels' padding).
void zero_panel_tail(float* p, int64_t kc, int64_t from, int64_t width) {
  if (from >= width) return;
  for (int64_t k = 0; k < kc; ++k, p += width)
    for (int64_t j = from; j < width; ++j) p[j] = 0.0f;
}

// Packs op(A) as [ceil(M/MR)][K][MR], zero-padded (pack_a_f32).
void pack_a(int64_t M, int64_t K, const float* A, int64_t lda, bool transA, float* dst) {
  constexpr int64_t MR = kMR;
  for (int64_t q = 0; q * MR < M; ++q) {
    const int64_t i0 = q * MR, h = std::min(MR, M - i0);
    float* p = dst + q * K * MR;
    if (transA) {
      for (int64_t k = 0; k < K; ++k)
        for (int64_t i = 0; i < h; ++i) p[k * MR + i] = A[k * lda + i0 + i];
    } else {
      gather_transposed(A + i0 * lda, lda, h, K, p, MR);
    }
    zero_panel_tail(p, K, h, MR);
  }
}

// Packs op(B)[k0:k0+kc, j0:j0+nc] as [ceil(nc/NR)][kc][NR], zero-padded.
void pack_b_block(const float* B, int64_t ldb, bool trans, int64_t k0, int64_t kc, int64_t j0, int64_t nc,
                  float* dst) {
  for (int64_t q = 0; q * kNR < nc; ++q) {
    const int64_t jb = j0 + q * kNR, w = std::min(kNR, nc - q * kNR);
    float* p = dst + q * kc * kNR;
    if (!trans) {
      for (int64_t k = 0; k < kc; ++k) std::memcpy(p + k * kNR, B + (k0 + k) * ldb + jb, size_t(w) * sizeof(float));
    } else {
      gather_transposed(B + jb * ldb + k0, ldb, w, kc, p, kNR);
    }
    zero_panel_tail(p, kc, w, kNR);
  }
}

#if HWY_TARGET == HWY_WASM && defined(__EMSCRIPTEN__)
// The jr / ir loops of run_block over one MC x NC block and KC slice, on the relaxed-SIMD module
// (same tile, order and stores; one call per block).
void run_block_relaxed(const Job& job, const float* a, const float* bblk, int64_t bstride, int64_t ic, int64_t mc,
                       int64_t jc, int64_t nc, int64_t kc, bool first, bool last) {
  static_assert(kMR == 4 && kNR == 8, "the relaxed module's tile is 4 x 8");
  alignas(16) static thread_local float tile[kNR];  // per thread: a run allocates nothing
  const GemmEpilogue& e = *job.epi;
  RelaxedGemmF32 g{};
  g.a = a;
  g.a_stride = int32_t(job.K * kMR);
  g.b = bblk;
  g.b_stride = int32_t(bstride);
  g.rows = int32_t(mc);
  g.cols = int32_t(nc);
  g.kc = int32_t(kc);
  g.ksub = int32_t(kKSub);
  g.c = job.C + ic * job.ldc + jc;
  g.ldc = int32_t(job.ldc);
  g.alpha = job.alpha;
  g.beta = job.beta;
  g.first = first;
  g.last = last;
  if (e.bias) g.bias = e.bias_per_row ? e.bias + ic : e.bias + jc;
  g.bias_per_row = e.bias_per_row;
  if (e.residual) g.residual = e.residual + ic * e.ldr + jc;
  g.ldr = int32_t(e.ldr);
  g.act = int32_t(e.act);
  g.lo = e.lo;
  g.hi = e.hi;
  g.tile = tile;
  tir_relaxed_gemm_f32(&g);
}
#endif

// Rows [m0, m1) x columns [n0, n1) of C; m0 is MR-aligned, n0 NR-aligned.
void run_block(const Job& job, int64_t m0, int64_t m1, int64_t n0, int64_t n1) {
  const int64_t K = job.K;
  const GemmOperandB& B = *job.B;
  for (int64_t jc = n0; jc < n1; jc += kNC) {
    const int64_t nc = std::min(kNC, n1 - jc);
    for (int64_t pc = 0; pc < K; pc += kKC) {
      const int64_t kc = std::min(kKC, K - pc);
      const bool first = pc == 0, last = pc + kc == K;
      const float* bblk;
      int64_t bstride;  // floats between consecutive NR panels
      if (B.packed) {
        bblk = B.packed + (jc / kNR) * K * kNR + pc * kNR;
        bstride = K * kNR;
      } else if (B.packed_half) {  // widen the block's panel slices, amortized over the rows
        float* dst = scratch(t_bpack, ((nc + kNR - 1) / kNR) * kc * kNR);
        for (int64_t q = 0; q * kNR < nc; ++q) {
          const uint16_t* src = B.packed_half + (jc / kNR + q) * K * kNR + pc * kNR;
          if (B.half == PackedHalf::BF16)
            half_simd::widen_bf16(src, kc * kNR, dst + q * kc * kNR);
          else
            half_simd::widen_f16(src, kc * kNR, dst + q * kc * kNR);
        }
        bblk = dst;
        bstride = kc * kNR;
      } else {
        float* dst = scratch(t_bpack, ((nc + kNR - 1) / kNR) * kc * kNR);
        if (B.pack_block)
          (*B.pack_block)(pc, kc, jc, nc, dst);
        else
          pack_b_block(B.data, B.ld, B.trans, pc, kc, jc, nc, dst);
        bblk = dst;
        bstride = kc * kNR;
      }
#if HWY_TARGET == HWY_WASM && defined(__EMSCRIPTEN__)
      const bool relaxed = gemm_f32_relaxed();
#endif
      for (int64_t ic = m0; ic < m1; ic += kMC) {
        const int64_t mc = std::min(kMC, m1 - ic);
#if HWY_TARGET == HWY_WASM && defined(__EMSCRIPTEN__)
        if (relaxed)
          run_block_relaxed(job, job.apack + (ic / kMR) * K * kMR + pc * kMR, bblk, bstride, ic, mc, jc, nc, kc, first,
                            last);
        else
#endif
        for (int64_t jr = 0; jr < nc; jr += kNR) {
          const float* b = bblk + (jr / kNR) * bstride;
          const int64_t nr = std::min(kNR, nc - jr);
          for (int64_t ir = ic; ir < ic + mc; ir += kMR) {
            const float* a = job.apack + (ir / kMR) * K * kMR + pc * kMR;
            run_tile(job, kc, a, b, ir, jc + jr, std::min(kMR, m1 - ir), nr, first, last);
          }
        }
        // The row activation over the finished block, while it is in cache.
        if (last && job.epi->act_row) apply_gemm_act_rows(mc, nc, job.C + ic * job.ldc + jc, job.ldc, *job.epi);
      }
    }
  }
}

// One k-row of a panel into its two accumulators (the GEMV's inner step).
template <class Load>
HWY_INLINE void gemv_step(const V a, const typename Load::T* p, V& c0, V& c1) {
  V w0, w1;
  Load::load(p, w0, w1);
  c0 = hn::MulAdd(a, w0, c0);
  c1 = hn::MulAdd(a, w1, c1);
}

// One row of A times packed B (GEMV: linear layers at batch 1): four panels
// at a time for eight independent accumulator chains; streams B once. `Load`
// (gemm_half-inl.h) reads a k-row of a panel as f32 or widened halves. Like
// the micro-kernel, each output sums K in blocks of kKSub, each a chain from
// zero added to the total, so M = 1 gives the blocked path's bits: one chain
// over all of K made decode-step linears ~3x less accurate than PyTorch's
// (measured against float64, K = 256).
//
// `panels` holds panel q0's k-row k at panels + k * k_stride, panel q0 + 1 at + panel_stride:
// a packed B (panel_stride K * NR, k_stride NR) or, kInPlace, the rows of an unpacked row-major
// B read in place (panel_stride NR, k_stride ldb). Same loads either way, so the same bits. The
// packed form keeps NR a compile-time stride: a run-time one made a 1024 x 1024 GEMV 1.3x slower.
template <class Load, bool kInPlace = false>
void gemv_panels(const Job& job, const float* x, const typename Load::T* panels, int64_t panel_stride,
                 int64_t ldb, int64_t q0, int64_t q1) {
  const D d;
  const int64_t K = job.K, k_stride = kInPlace ? ldb : kNR;
  for (int64_t q = q0; q < q1; q += 4) {
    const int64_t nq = std::min<int64_t>(4, q1 - q);
    V acc[8];
    for (auto& v : acc) v = hn::Zero(d);
    const typename Load::T* p0 = panels + (q - q0) * panel_stride;
    for (int64_t k0 = 0; k0 < K; k0 += kKSub) {
      const int64_t k1 = std::min(K, k0 + kKSub);
      V blk[8];
      for (auto& v : blk) v = hn::Zero(d);
      if (nq == 4) {
        const typename Load::T *p1 = p0 + panel_stride, *p2 = p1 + panel_stride, *p3 = p2 + panel_stride;
        for (int64_t k = k0; k < k1; ++k) {
          const V a = hn::Set(d, x[k]);
          const int64_t o = k * k_stride;
          gemv_step<Load>(a, p0 + o, blk[0], blk[1]);
          gemv_step<Load>(a, p1 + o, blk[2], blk[3]);
          gemv_step<Load>(a, p2 + o, blk[4], blk[5]);
          gemv_step<Load>(a, p3 + o, blk[6], blk[7]);
        }
      } else {
        for (int64_t j = 0; j < nq; ++j) {
          const typename Load::T* p = p0 + j * panel_stride;
          for (int64_t k = k0; k < k1; ++k)
            gemv_step<Load>(hn::Set(d, x[k]), p + k * k_stride, blk[2 * j], blk[2 * j + 1]);
        }
      }
      // The first block is stored, not added to zero (as store_tile does): a -0 sum stays -0.
      for (int i = 0; i < 8; ++i) acc[i] = k0 == 0 ? blk[i] : hn::Add(acc[i], blk[i]);
    }
    for (int64_t j = 0; j < nq; ++j) {
      V c0[1] = {acc[2 * j]}, c1[1] = {acc[2 * j + 1]};
      if (Load::kSplit) half_simd::unsplit(c0[0], c1[0]);
      const int64_t col = (q + j) * kNR;
      store_tile<1>(job, c0, c1, 0, col, 1, std::min(kNR, job.N - col), true, true);
    }
  }
}

// x * 2^112 into scratch for LoadF16Scaled, or null when a finite |x| >= 2^16
// would overflow (NaN and inf behave as in the f32 path).
const float* f16_scaled_row(const float* x, int64_t K) {
  float* t = scratch(t_xscaled, K);
  for (int64_t k = 0; k < K; ++k) {
    if (std::fabs(x[k]) >= half_simd::kF16ScaledMaxX && std::isfinite(x[k])) return nullptr;
    t[k] = x[k] * half_simd::kF16Scale;
  }
  return t;
}

// GEMV over panels [q0, q1) of whichever B the job has: packed (f32 or halves), or `direct`, an
// unpacked row-major B read in place, whose partial last panel (if any) is packed in `tail`;
// xs: x scaled by f16_scaled_row (null: not usable).
void gemv_cols(const Job& job, const float* x, const float* xs, bool direct, const float* tail, int64_t q0,
               int64_t q1) {
  const GemmOperandB& B = *job.B;
  const int64_t K = job.K, P = K * kNR;
  if (direct) {
    const int64_t full = job.N / kNR, q1f = std::min(q1, full);
    if (q0 < q1f) gemv_panels<half_simd::LoadF32, true>(job, x, B.data + q0 * kNR, kNR, B.ld, q0, q1f);
    if (q1 > full) gemv_panels<half_simd::LoadF32>(job, x, tail, P, 0, full, q1);
  } else if (B.packed) {
    gemv_panels<half_simd::LoadF32>(job, x, B.packed + q0 * P, P, 0, q0, q1);
  } else if (B.half == PackedHalf::BF16) {
    gemv_panels<half_simd::LoadBF16>(job, x, B.packed_half + q0 * P, P, 0, q0, q1);
#if !TIR_GEMM_F16C
  } else if (xs) {
    gemv_panels<half_simd::LoadF16Scaled>(job, xs, B.packed_half + q0 * P, P, 0, q0, q1);
#endif
  } else {
    gemv_panels<half_simd::LoadF16>(job, x, B.packed_half + q0 * P, P, 0, q0, q1);
  }
  if (job.epi->act_row)
    apply_gemm_act_rows(1, std::min(job.N, q1 * kNR) - q0 * kNR, job.C + q0 * kNR, job.ldc, *job.epi);
}

void gemm_simd(int64_t M, int64_t N, int64_t K, const GemmOperandA& A, const GemmOperandB& B, float* C,
               int64_t ldc, float alpha, float beta, const GemmEpilogue& epi) {
  Job job{M, N, K, nullptr, &B, C, ldc, alpha, beta, &epi};
  const int64_t npanels = (N + kNR - 1) / kNR, mpanels = (M + kMR - 1) / kMR;
  const bool parallel = num_threads() > 1 && M * N * K >= 2 * kMinTaskWork;
  // One row times a B that is not packed (attention at decode). A row-major B (p v) already
  // holds the panels' k-rows: the GEMV reads it in place, packing only a partial last panel.
  // A transposed B (q k^T) is packed whole (it is read once either way); both instead of the
  // blocked path, whose MR-row tile would be mostly padding.
  const bool unpacked = !B.packed && !B.packed_half && !B.pack_block;
  const bool direct = M == 1 && unpacked && !B.trans;
  const float* tail = nullptr;
  GemmOperandB packed_now;
  if (direct && N % kNR) {
    float* t = B.pack_scratch ? B.pack_scratch : scratch(t_bpack, K * kNR);
    pack_b_block(B.data, B.ld, false, 0, K, N / kNR * kNR, N % kNR, t);
    tail = t;
  } else if (M == 1 && unpacked && !direct && packed_b_size(K, N) <= kGemvPackLimit) {
    float* dst = B.pack_scratch ? B.pack_scratch : scratch(t_bpack, packed_b_size(K, N));
    pack_b_block(B.data, B.ld, B.trans, 0, K, 0, N, dst);
    packed_now.packed = dst;
    job.B = &packed_now;
  }
  if (M == 1 && (direct || job.B->packed || job.B->packed_half)) {
    // The row of A, unit stride (a packed row has stride MR; A^T's row stride lda).
    const float* x = A.data;
    const int64_t stride = A.packed ? kMR : A.trans ? A.ld : 1;
    if (stride != 1) {
      float* t = scratch(t_apack, K);
      for (int64_t k = 0; k < K; ++k) t[k] = (A.packed ? A.packed : A.data)[k * stride];
      x = t;
    }
    const float* xs = nullptr;
    if (!TIR_GEMM_F16C && !job.B->packed && B.half == PackedHalf::F16 && B.half_finite) xs = f16_scaled_row(x, K);
    if (parallel)
      parallel_for_chunks((npanels + 3) / 4, kChunksPerThread * num_threads(), [&](int64_t g0, int64_t g1) {
        gemv_cols(job, x, xs, direct, tail, g0 * 4, std::min(npanels, g1 * 4));
      });
    else
      gemv_cols(job, x, xs, direct, tail, 0, npanels);
    return;
  }
  if (A.packed) {
    job.apack = A.packed;
  } else {
    float* t = scratch(t_apack, packed_a_size(M, K));
    pack_a(M, K, A.data, A.ld, A.trans, t);
    job.apack = t;
  }
  if (!parallel) {
    run_block(job, 0, M, 0, N);
  } else if (npanels >= mpanels || npanels >= kChunksPerThread * num_threads()) {
    parallel_for_chunks(npanels, kChunksPerThread * num_threads(),
                        [&](int64_t q0, int64_t q1) { run_block(job, 0, M, q0 * kNR, std::min(N, q1 * kNR)); });
  } else {
    parallel_for_chunks(mpanels, kChunksPerThread * num_threads(),
                        [&](int64_t p0, int64_t p1) { run_block(job, p0 * kMR, std::min(M, p1 * kMR), 0, N); });
  }
}

// The tile of this target (the packed layouts' MR and NR).
int64_t tile_mr() { return kMR; }
int64_t tile_nr() { return kNR; }

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tir {

HWY_EXPORT(tile_mr);
HWY_EXPORT(tile_nr);
HWY_EXPORT(pack_a);
HWY_EXPORT(pack_b_block);
HWY_EXPORT(gemm_simd);

int64_t gemm_mr() { return HWY_DYNAMIC_DISPATCH(tile_mr)(); }
int64_t gemm_nr() { return HWY_DYNAMIC_DISPATCH(tile_nr)(); }

bool gemm_f32_relaxed() {
#ifdef __EMSCRIPTEN__
  static const bool on = gemm_mr() == 4 && gemm_nr() == 8 && tir_relaxed_f32_available() != 0;
  return on;
#else
  return false;
#endif
}

bool gemm_f32_relaxed_fused() {
#ifdef __EMSCRIPTEN__
  static const bool fused = gemm_f32_relaxed() && tir_relaxed_f32_fused() != 0;
  return fused;
#else
  return false;
#endif
}

int64_t packed_a_size(int64_t M, int64_t K) {
  const int64_t MR = gemm_mr();
  return ((M + MR - 1) / MR) * MR * K;
}
int64_t packed_b_size(int64_t K, int64_t N) {
  const int64_t NR = gemm_nr();
  return ((N + NR - 1) / NR) * NR * K;
}

void pack_a_f32(int64_t M, int64_t K, const float* A, int64_t lda, bool transA, float* dst) {
  HWY_DYNAMIC_DISPATCH(pack_a)(M, K, A, lda, transA, dst);
}

void pack_b_f32(int64_t K, int64_t N, const float* B, int64_t ldb, bool transB, float* dst) {
  HWY_DYNAMIC_DISPATCH(pack_b_block)(B, ldb, transB, 0, K, 0, N, dst);
}

void pack_b_half(int64_t K, int64_t N, const float* B, int64_t ldb, bool transB, PackedHalf kind, uint16_t* dst) {
  const int64_t NR = gemm_nr();
  std::vector<float> panel(size_t(K * NR));  // one f32 panel at a time, then rounded
  for (int64_t j0 = 0; j0 < N; j0 += NR) {
    HWY_DYNAMIC_DISPATCH(pack_b_block)(B, ldb, transB, 0, K, j0, std::min(NR, N - j0), panel.data());
    uint16_t* p = dst + (j0 / NR) * K * NR;
    for (int64_t i = 0; i < K * NR; ++i)
      p[i] = kind == PackedHalf::BF16 ? float_to_bf16(panel[size_t(i)]) : float_to_half(panel[size_t(i)]);
  }
}

void gemm_f32_ex(int64_t M, int64_t N, int64_t K, const GemmOperandA& A, const GemmOperandB& B, float* C,
                 int64_t ldc, float alpha, float beta, const GemmEpilogue& epi) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {  // no products: C = beta * C, then the epilogue
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
    apply_gemm_epilogue_ref(M, N, C, ldc, epi);
    apply_gemm_act_rows(M, N, C, ldc, epi);
    return;
  }
  HWY_DYNAMIC_DISPATCH(gemm_simd)(M, N, K, A, B, C, ldc, alpha, beta, epi);
}

void gemm_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool transA, const float* B,
              int64_t ldb, bool transB, float* C, int64_t ldc, float alpha, float beta) {
  GemmOperandA a;
  a.data = A;
  a.ld = lda;
  a.trans = transA;
  GemmOperandB b;
  b.data = B;
  b.ld = ldb;
  b.trans = transB;
  gemm_f32_ex(M, N, K, a, b, C, ldc, alpha, beta);
}

}  // namespace tir
#endif  // HWY_ONCE
