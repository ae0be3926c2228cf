// Winograd F(2x2, 3x3), f32. Output tiles are 2x2 (input tiles 4x4, stride
// 2), numbered over the batch: tile q = (n * TH + th) * TW + tw. Tiles run in
// blocks of TB so the per-block scratch (16 V_s: C x TB, 16 M_s: OC x TB)
// stays about L2-sized; per block: input transform V = B^T d B (SIMD over the
// tiles of a tile row), 16 gemms M_s = U_s V_s, output transform
// Y = A^T M A with bias, residual and activation. The transforms use only
// 0, +-1 and +-0.5; every output is computed the same way whatever the
// blocking or thread count (the gemm's sums do not depend on them either).
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/conv_winograd.h"
#include "kernels/parallel.h"

// Compiled once per SIMD target (kernels/simd_dispatch.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/conv_winograd_f32.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd_act-inl.h"

// Shared by every target: defined once, in the first target pass.
#ifndef TIR_CONV_WINOGRAD_HELPERS_
#define TIR_CONV_WINOGRAD_HELPERS_
namespace tir {
namespace {

// Floats of V + M scratch one tile block may use (1 MiB).
constexpr int64_t kBlockFloats = int64_t(1) << 18;

thread_local std::vector<float> t_block, t_stage, t_weights;

// Tiles per block: as many as the scratch budget allows, a multiple of the
// gemm's NR, at least 4 panels (fewer tiles re-stream U too often).
int64_t block_tiles(const ConvGeom& g, int64_t total) {
  const int64_t nr = gemm_nr();
  int64_t tb = kBlockFloats / (16 * (g.C + g.OC));
  tb = std::max(4 * nr, tb / nr * nr);
  return std::min(tb, total);
}

}  // namespace
}  // namespace tir
#endif  // TIR_CONV_WINOGRAD_HELPERS_

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

struct Job {
  const ConvGeom* g;
  const float* x;
  const float* u;  // 16 packed U_s
  const float* bias;
  float* y;
  const GemmEpilogue* epi;
  int64_t TH, TW, T;  // tiles per column, row, image
  int64_t upack;      // floats per packed U_s
  int64_t ld;         // row stride of V_s and M_s (>= TB + lanes - 1)
};

// One block's scratch: V_s at v + s * C * ld, M_s at m + s * OC * ld.
struct Block {
  int64_t q0, nb;
  float* v;
  float* m;
};

// Calls fn(n, th, tw0, run, j0) for each run of tiles in one tile row.
template <typename F>
void for_each_row_run(const Job& job, const Block& b, const F& fn) {
  for (int64_t q = b.q0; q < b.q0 + b.nb;) {
    const int64_t n = q / job.T, t = q % job.T, th = t / job.TW, tw0 = t % job.TW;
    const int64_t run = std::min(job.TW - tw0, b.q0 + b.nb - q);
    fn(n, th, tw0, run, q - b.q0);
    q += run;
  }
}

// V for channels [c0, c1) of the block.
void input_transform(const Job& job, const Block& b, int64_t c0, int64_t c1) {
  const ConvGeom& g = *job.g;
  const D d;
  const int64_t L = int64_t(hn::Lanes(d));
  const int64_t row_len = 2 * job.TW + 2 * L;  // 4 staged input rows, zero-padded
  float* stage = scratch(t_stage, 4 * row_len);
  const int64_t sV = g.C * job.ld;
  for (int64_t c = c0; c < c1; ++c)
    for_each_row_run(job, b, [&](int64_t n, int64_t th, int64_t tw0, int64_t run, int64_t j0) {
      // Stage input rows 2th-PH .. +3, columns 2tw0-PW .. so padding needs no branches below.
      const float* plane = job.x + (n * g.C + c) * g.H * g.W;
      const int64_t iw0 = 2 * tw0 - g.PW, width = 2 * run + 2;
      const int64_t lo = std::max<int64_t>(0, -iw0), hi = std::max(lo, std::min(width, g.W - iw0));
      for (int64_t r = 0; r < 4; ++r) {
        float* s = stage + r * row_len;
        const int64_t ih = 2 * th - g.PH + r;
        std::fill(s, s + 2 * run + 2 * L, 0.0f);
        if (ih >= 0 && ih < g.H && hi > lo) std::memcpy(s + lo, plane + ih * g.W + iw0 + lo, size_t(hi - lo) * 4);
      }
      float* dst = b.v + c * job.ld + j0;
      for (int64_t j = 0; j < run; j += L) {
        V t[4][4];  // B^T d: rows
        V e[4][4];
        for (int64_t r = 0; r < 4; ++r) {
          const float* s = stage + r * row_len + 2 * j;
          hn::LoadInterleaved2(d, s, e[r][0], e[r][1]);
          hn::LoadInterleaved2(d, s + 2, e[r][2], e[r][3]);
        }
        for (int k = 0; k < 4; ++k) {
          t[0][k] = hn::Sub(e[0][k], e[2][k]);
          t[1][k] = hn::Add(e[1][k], e[2][k]);
          t[2][k] = hn::Sub(e[2][k], e[1][k]);
          t[3][k] = hn::Sub(e[1][k], e[3][k]);
        }
        // Stores may spill past the run into later lanes of this row
        // (rewritten by the next run, or padding: ld leaves room).
        for (int i = 0; i < 4; ++i) {
          float* o = dst + (4 * i) * sV + j;
          hn::StoreU(hn::Sub(t[i][0], t[i][2]), d, o);
          hn::StoreU(hn::Add(t[i][1], t[i][2]), d, o + sV);
          hn::StoreU(hn::Sub(t[i][2], t[i][1]), d, o + 2 * sV);
          hn::StoreU(hn::Sub(t[i][1], t[i][3]), d, o + 3 * sV);
        }
      }
    });
}

void gemms(const Job& job, const Block& b, int64_t s0, int64_t s1) {
  const ConvGeom& g = *job.g;
  for (int64_t s = s0; s < s1; ++s) {
    GemmOperandA A;
    A.packed = job.u + s * job.upack;
    GemmOperandB B;
    B.data = b.v + s * g.C * job.ld;
    B.ld = job.ld;
    gemm_f32_ex(g.OC, b.nb, g.C, A, B, b.m + s * g.OC * job.ld, job.ld);
  }
}

float finish(float v, const float* res, const GemmEpilogue& e) { return apply_gemm_act(res ? v + *res : v, e); }

// One output row of a run: y[2tw + 0/1] = c0/c1 of each lane's tile.
void store_row(const D d, V c0, V c1, float* yr, const float* rr, int64_t ow0, int64_t cnt, int64_t OW,
               const GemmEpilogue& e) {
  const int64_t L = int64_t(hn::Lanes(d));
  if (cnt == L && ow0 + 2 * L <= OW) {
    if (rr) {
      V r0, r1;
      hn::LoadInterleaved2(d, rr + ow0, r0, r1);
      c0 = hn::Add(c0, r0);
      c1 = hn::Add(c1, r1);
    }
    if (e.act == GemmAct::Relu) {
      c0 = max_keep_nan(hn::Zero(d), c0);
      c1 = max_keep_nan(hn::Zero(d), c1);
    } else if (e.act == GemmAct::Clamp) {
      c0 = min_keep_nan(hn::Set(d, e.hi), max_keep_nan(hn::Set(d, e.lo), c0));
      c1 = min_keep_nan(hn::Set(d, e.hi), max_keep_nan(hn::Set(d, e.lo), c1));
    }
    hn::StoreInterleaved2(c0, c1, d, yr + ow0);
    return;
  }
  HWY_ALIGN float a0[hn::MaxLanes(D())], a1[hn::MaxLanes(D())];
  hn::Store(c0, d, a0);
  hn::Store(c1, d, a1);
  for (int64_t l = 0; l < cnt; ++l) {
    const int64_t ow = ow0 + 2 * l;
    yr[ow] = finish(a0[l], rr ? rr + ow : nullptr, e);
    if (ow + 1 < OW) yr[ow + 1] = finish(a1[l], rr ? rr + ow + 1 : nullptr, e);
  }
}

// Y for output channels [oc0, oc1) of the block.
void output_transform(const Job& job, const Block& b, int64_t oc0, int64_t oc1) {
  const ConvGeom& g = *job.g;
  const GemmEpilogue& e = *job.epi;
  const D d;
  const int64_t L = int64_t(hn::Lanes(d)), sM = g.OC * job.ld, P = g.OH * g.OW;
  for (int64_t oc = oc0; oc < oc1; ++oc) {
    const V bias = hn::Set(d, job.bias ? job.bias[oc] : 0.0f);
    for_each_row_run(job, b, [&](int64_t n, int64_t th, int64_t tw0, int64_t run, int64_t j0) {
      const int64_t oh = 2 * th, off = (n * g.OC + oc) * P + oh * g.OW;
      float* y0 = job.y + off;
      const float* r0 = e.residual ? e.residual + off : nullptr;
      const bool row1 = oh + 1 < g.OH;
      const float* src = b.m + oc * job.ld + j0;
      for (int64_t j = 0; j < run; j += L) {
        V t[2][4];  // A^T M: rows
        for (int k = 0; k < 4; ++k) {
          const float* p = src + j + k * sM;
          const V m0 = hn::LoadU(d, p), m1 = hn::LoadU(d, p + 4 * sM), m2 = hn::LoadU(d, p + 8 * sM),
                  m3 = hn::LoadU(d, p + 12 * sM);
          t[0][k] = hn::Add(hn::Add(m0, m1), m2);
          t[1][k] = hn::Sub(hn::Sub(m1, m2), m3);
        }
        const int64_t cnt = std::min(L, run - j), ow0 = 2 * (tw0 + j);
        for (int i = 0; i < (row1 ? 2 : 1); ++i) {
          const V c0 = hn::Add(hn::Add(hn::Add(t[i][0], t[i][1]), t[i][2]), bias);
          const V c1 = hn::Add(hn::Sub(hn::Sub(t[i][1], t[i][2]), t[i][3]), bias);
          store_row(d, c0, c1, y0 + i * g.OW, r0 ? r0 + i * g.OW : nullptr, ow0, cnt, g.OW, e);
        }
      }
    });
  }
}

void run(const Job& job) {
  const ConvGeom& g = *job.g;
  const int64_t total = g.N * job.T, TB = block_tiles(g, total);
  const int64_t nblocks = (total + TB - 1) / TB;
  const int64_t block_floats = 16 * (g.C + g.OC) * job.ld;
  const int threads = num_threads();
  if (threads == 1 || nblocks >= 2 * threads) {
    // Whole blocks per thread: the gemms inside run inline.
    parallel_for_chunks(nblocks, nblocks, [&](int64_t b0, int64_t b1) {
      float* s = scratch(t_block, block_floats);
      for (int64_t bi = b0; bi < b1; ++bi) {
        const Block b{bi * TB, std::min(TB, total - bi * TB), s, s + 16 * g.C * job.ld};
        input_transform(job, b, 0, g.C);
        gemms(job, b, 0, 16);
        output_transform(job, b, 0, g.OC);
      }
    });
    return;
  }
  // Few blocks: each phase split across the threads.
  float* s = scratch(t_block, block_floats);
  for (int64_t bi = 0; bi < nblocks; ++bi) {
    const Block b{bi * TB, std::min(TB, total - bi * TB), s, s + 16 * g.C * job.ld};
    const int64_t px = 64 * b.nb;  // transform work per channel: ~64 operations a tile
    parallel_for_chunks(g.C, chunks_for(g.C, px), [&](int64_t c0, int64_t c1) { input_transform(job, b, c0, c1); });
    parallel_for_chunks(16, 16, [&](int64_t s0, int64_t s1) { gemms(job, b, s0, s1); });
    parallel_for_chunks(g.OC, chunks_for(g.OC, px),
                        [&](int64_t o0, int64_t o1) { output_transform(job, b, o0, o1); });
  }
}

}  // namespace

// conv_winograd_f32 on this target (u: the prepared weights).
void winograd(const ConvGeom& g, const float* x, const float* u, const float* bias, float* y,
              const GemmEpilogue& epi) {
  Job job;
  job.g = &g;
  job.x = x;
  job.u = u;
  job.bias = bias;
  job.y = y;
  job.epi = &epi;
  job.TH = (g.OH + 1) / 2;
  job.TW = (g.OW + 1) / 2;
  job.T = job.TH * job.TW;
  job.upack = packed_a_size(g.OC, g.C);
  const int64_t L = int64_t(hn::Lanes(D())), TB = block_tiles(g, g.N * job.T);
  job.ld = (TB + L - 1) / L * L + L;
  run(job);
}

}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tir {

HWY_EXPORT(winograd);

bool conv_winograd_applies(const ConvGeom& g) {
  if (g.D != 1 || g.KD != 1 || g.OD != 1 || g.KH != 3 || g.KW != 3 || g.G != 1) return false;
  if (g.SH != 1 || g.SW != 1 || g.DH != 1 || g.DW != 1) return false;
  // Measured (AVX2, ResNet shapes and small ones): 1.7-3x faster than im2col
  // from 8 channels and 9 tiles up while the ragged last tile row/column
  // wastes < 40% of the outputs; fewer tiles make the gemms re-read 16 U_s
  // (16/9 of the im2col weights) for too little work.
  if (g.C < 8 || g.OC < 8) return false;
  const int64_t tiles = ((g.OH + 1) / 2) * ((g.OW + 1) / 2);
  return g.N * tiles >= 9 && 10 * 4 * tiles <= 14 * g.OH * g.OW;
}

int64_t conv_winograd_weights_size(const ConvGeom& g) { return 16 * packed_a_size(g.OC, g.C); }

namespace {

// U = G w G^T in double for one 3x3 kernel, scaled first in f32 as the
// im2col path scales its weights.
void transform_kernel(const float* k, float scale, double u[16]) {
  double w[3][3], t[4][3];
  for (int i = 0; i < 9; ++i) w[i / 3][i % 3] = double(k[i] * scale);
  for (int j = 0; j < 3; ++j) {
    t[0][j] = w[0][j];
    t[1][j] = 0.5 * (w[0][j] + w[1][j] + w[2][j]);
    t[2][j] = 0.5 * (w[0][j] - w[1][j] + w[2][j]);
    t[3][j] = w[2][j];
  }
  for (int i = 0; i < 4; ++i) {
    u[i * 4 + 0] = t[i][0];
    u[i * 4 + 1] = 0.5 * (t[i][0] + t[i][1] + t[i][2]);
    u[i * 4 + 2] = 0.5 * (t[i][0] - t[i][1] + t[i][2]);
    u[i * 4 + 3] = t[i][2];
  }
}

// tmp: 16 * OC * C floats.
void prepare_into(const ConvGeom& g, const float* w, const float* oc_scale, float* tmp, float* dst) {
  const int64_t OC = g.OC, C = g.C, per = packed_a_size(OC, C);
  for (int64_t oc = 0; oc < OC; ++oc)
    for (int64_t c = 0; c < C; ++c) {
      double u[16];
      transform_kernel(w + (oc * C + c) * 9, oc_scale ? oc_scale[oc] : 1.0f, u);
      for (int s = 0; s < 16; ++s) tmp[(s * OC + oc) * C + c] = float(u[s]);
    }
  for (int64_t s = 0; s < 16; ++s) pack_a_f32(OC, C, tmp + s * OC * C, C, false, dst + s * per);
}

}  // namespace

void conv_winograd_prepare_f32(const ConvGeom& g, const float* w, const float* oc_scale, float* dst) {
  std::vector<float> tmp(size_t(16 * g.OC * g.C));
  prepare_into(g, w, oc_scale, tmp.data(), dst);
}

void conv_winograd_f32(const ConvGeom& g, const float* x, const float* w, const float* u, const float* bias,
                       float* y, const GemmEpilogue& epi) {
  if (g.N * g.OC * g.OH * g.OW == 0) return;
  if (!u) {
    const int64_t n = conv_winograd_weights_size(g);
    float* s = scratch(t_weights, n + 16 * g.OC * g.C);
    prepare_into(g, w, nullptr, s + n, s);
    u = s;
  }
  HWY_DYNAMIC_DISPATCH(winograd)(g, x, u, bias, y, epi);
}

}  // namespace tir
#endif  // HWY_ONCE
