// Depthwise f32 convolution, SIMD over output columns. Each input plane is
// first copied into a zero-padded per-thread scratch plane wide enough that
// every tap of every output vector (the last one rounded up to whole vectors)
// reads inside it: no border path, no bounds checks, and small planes (7x7,
// 14x14) run in SIMD like large ones. The copy is one pass over the input,
// against KH*KW multiply-adds per output. Strides 1 and 2 (the ones real
// networks use) load contiguous or de-interleaved vectors; other strides
// gather the columns into the scratch row first.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/conv_depthwise.h"
#include "kernels/parallel.h"

// Compiled once per SIMD target (kernels/simd_dispatch.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/conv_depthwise_f32.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "kernels/simd_act-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

constexpr int64_t kL = int64_t(hn::MaxLanes(D()));
constexpr int kMaxTaps = 49;  // taps kept in registers/stack vectors (7x7)

thread_local std::vector<float> t_plane, t_row;

// The padded plane: row r holds input row r - PH, column c input column c - PW
// (zero outside the input). Sizes cover every tap of the rounded-up output.
struct Padded {
  int64_t rows, cols;
};

Padded padded_size(const ConvGeom& g) {
  const int64_t owv = (g.OW + kL - 1) / kL * kL;
  const int64_t s = g.SW <= 2 ? g.SW : 1;  // larger strides gather their columns (plane_strided)
  const int64_t cols = std::max((owv - 1) * s + (g.KW - 1) * g.DW + s + 1, (g.OW - 1) * g.SW + (g.KW - 1) * g.DW + 1);
  return {(g.OH - 1) * g.SH + (g.KH - 1) * g.DH + 1, cols};
}

void pad_plane(const ConvGeom& g, const float* x, const Padded& p, float* dst) {
  for (int64_t r = 0; r < p.rows; ++r) {
    float* row = dst + r * p.cols;
    const int64_t ih = r - g.PH;
    if (ih < 0 || ih >= g.H) {
      std::memset(row, 0, size_t(p.cols) * sizeof(float));
      continue;
    }
    const int64_t left = std::min(g.PW, p.cols), n = std::max<int64_t>(0, std::min(g.W, p.cols - left));
    std::memset(row, 0, size_t(left) * sizeof(float));
    std::memcpy(row + left, x + ih * g.W, size_t(n) * sizeof(float));
    std::memset(row + left + n, 0, size_t(p.cols - left - n) * sizeof(float));
  }
}

// Loads the L outputs' inputs of one tap: columns base + j*S, j < L.
template <int S>
HWY_INLINE V load_tap(D d, const float* p) {
  if constexpr (S == 1) {
    return hn::LoadU(d, p);
  } else {
    V even, odd;
    hn::LoadInterleaved2(d, p, even, odd);
    return even;
  }
}

// One output plane. S: 1 or 2 (column stride as loaded from `pad`, whose rows
// are `cols` apart); larger strides come here as S = 1 over gathered rows.
template <int S, int KH, int KW>
void plane(const ConvGeom& g, const float* pad, int64_t cols, const float* w, float b, float* y, const float* res,
           const GemmEpilogue& e, int64_t row_stride) {
  const D d;
  const int64_t kh_n = KH > 0 ? KH : g.KH, kw_n = KW > 0 ? KW : g.KW, taps = kh_n * kw_n;
  V wv[kMaxTaps];
  for (int64_t t = 0; t < taps; ++t) wv[t] = hn::Set(d, w[t]);
  const V bias = hn::Set(d, b), lo = hn::Set(d, e.lo), hi = hn::Set(d, e.hi);
  HWY_ALIGN float tail[kL];
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    const float* in = pad + oh * row_stride;
    float* yr = y + oh * g.OW;
    const float* rr = res ? res + oh * g.OW : nullptr;
    for (int64_t ow = 0; ow < g.OW; ow += kL) {
      V acc = bias;
      for (int64_t kh = 0; kh < kh_n; ++kh) {
        const float* xr = in + kh * g.DH * cols + ow * S;
        for (int64_t kw = 0; kw < kw_n; ++kw) acc = hn::MulAdd(wv[kh * kw_n + kw], load_tap<S>(d, xr + kw * g.DW), acc);
      }
      const int64_t n = std::min(kL, g.OW - ow);
      if (rr) {
        if (n == kL) {
          acc = hn::Add(acc, hn::LoadU(d, rr + ow));
        } else {
          std::memcpy(tail, rr + ow, size_t(n) * sizeof(float));
          acc = hn::Add(acc, hn::Load(d, tail));
        }
      }
      // NaN propagates as in torch (simd_act-inl.h).
      if (e.act == GemmAct::Relu) acc = max_keep_nan(hn::Zero(d), acc);
      if (e.act == GemmAct::Clamp) acc = min_keep_nan(hi, max_keep_nan(lo, acc));
      if (n == kL) {
        hn::StoreU(acc, d, yr + ow);
      } else {
        hn::Store(acc, d, tail);
        std::memcpy(yr + ow, tail, size_t(n) * sizeof(float));
      }
    }
  }
}

template <int S>
void plane_any(const ConvGeom& g, const float* pad, int64_t cols, const float* w, float b, float* y,
               const float* res, const GemmEpilogue& e, int64_t row_stride) {
  if (g.KH == 3 && g.KW == 3) return plane<S, 3, 3>(g, pad, cols, w, b, y, res, e, row_stride);
  if (g.KH == 5 && g.KW == 5) return plane<S, 5, 5>(g, pad, cols, w, b, y, res, e, row_stride);
  plane<S, 0, 0>(g, pad, cols, w, b, y, res, e, row_stride);
}

// Strides above 2 (rare): per output row, each tap's input columns are
// gathered densely (tap t of output ow at t * OWv + ow), and the row runs as
// a 1 x taps stride-1 conv over them.
void plane_strided(const ConvGeom& g, const float* pad, int64_t cols, const float* w, float b, float* y,
                   const float* res, const GemmEpilogue& e) {
  const int64_t owv = (g.OW + kL - 1) / kL * kL;
  float* rows = scratch(t_row, g.KH * g.KW * owv);
  ConvGeom one = g;  // a 1 x (KH*KW) "conv" over the gathered taps, one output row at a time
  one.OH = 1;
  one.KH = 1;
  one.KW = g.KH * g.KW;
  one.DH = 1;
  one.DW = owv;
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    for (int64_t kh = 0; kh < g.KH; ++kh)
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        const float* src = pad + (oh * g.SH + kh * g.DH) * cols + kw * g.DW;
        float* dst = rows + (kh * g.KW + kw) * owv;
        for (int64_t ow = 0; ow < owv; ++ow) dst[ow] = ow < g.OW ? src[ow * g.SW] : 0.0f;
      }
    plane<1, 0, 0>(one, rows, 0, w, b, y + oh * g.OW, res ? res + oh * g.OW : nullptr, e, 0);
  }
}

void depthwise(const ConvGeom& g, const float* x, const float* w, const float* bias, float* y,
               const GemmEpilogue& e) {
  const int64_t ocg = g.OC / g.G, IP = g.in_plane(), P = g.out_plane(), taps = g.taps();
  const Padded p = padded_size(g);
  parallel_for_chunks(g.N * g.OC, chunks_for(g.N * g.OC, P * taps), [&](int64_t p0, int64_t p1) {
    float* pad = scratch(t_plane, p.rows * p.cols);
    int64_t padded_src = -1;  // the (n, input channel) now in `pad`
    for (int64_t np = p0; np < p1; ++np) {
      const int64_t n = np / g.OC, oc = np % g.OC, src = n * g.C + oc / ocg;
      if (src != padded_src) {  // channel multipliers > 1 reuse the padded plane
        pad_plane(g, x + src * IP, p, pad);
        padded_src = src;
      }
      const float b = bias ? bias[oc] : 0.0f;
      const float* res = e.residual ? e.residual + np * P : nullptr;
      const float* wo = w + oc * taps;
      if (g.SW == 1)
        plane_any<1>(g, pad, p.cols, wo, b, y + np * P, res, e, g.SH * p.cols);
      else if (g.SW == 2)
        plane_any<2>(g, pad, p.cols, wo, b, y + np * P, res, e, g.SH * p.cols);
      else
        plane_strided(g, pad, p.cols, wo, b, y + np * P, res, e);
    }
  });
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tir {

HWY_EXPORT(depthwise);

void conv_depthwise_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, float* y,
                        const GemmEpilogue& epi) {
  // 3-D depthwise, or taps beyond what the kernel keeps in vectors: the
  // reference, then the epilogue.
  if (g.KD != 1 || g.D != 1 || g.OD != 1 || g.taps() > HWY_NAMESPACE::kMaxTaps) {
    conv_nd<float>(g, x, w, bias, y);
    GemmEpilogue e = epi;
    e.bias = nullptr;
    apply_gemm_epilogue_ref(1, g.N * g.OC * g.out_plane(), y, 0, e);
    return;
  }
  HWY_DYNAMIC_DISPATCH(depthwise)(g, x, w, bias, y, epi);
}

}  // namespace tir
#endif  // HWY_ONCE
