#include <algorithm>

#include "hwy/highway.h"
#include "kernels/conv_depthwise.h"
#include "kernels/parallel.h"
#include "kernels/sliding.h"

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

float finish(float v, const float* res, const GemmEpilogue& e) {
  if (res) v += *res;
  if (e.act == GemmAct::Relu) v = v < 0.0f ? 0.0f : v;
  if (e.act == GemmAct::Clamp) v = v < e.lo ? e.lo : (v > e.hi ? e.hi : v);
  return v;
}

// One output plane (2-D geometry: KD = OD = D = 1).
void plane(const ConvGeom& g, const float* x, const float* w, float b, float* y, const float* res,
           const GemmEpilogue& e) {
  const D d;
  const int64_t L = int64_t(hn::Lanes(d));
  const int64_t S = g.SW;
  int64_t a, z;  // columns where every tap is inside the input
  sliding_interior(g.W, g.OW, g.KW, S, g.PW, g.DW, &a, &z);
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    float* yr = y + oh * g.OW;
    const float* rr = res ? res + oh * g.OW : nullptr;
    auto scalar = [&](int64_t ow) {
      float acc = b;
      for (int64_t kh = 0; kh < g.KH; ++kh) {
        const int64_t ih = oh * g.SH - g.PH + kh * g.DH;
        if (ih < 0 || ih >= g.H) continue;
        for (int64_t kw = 0; kw < g.KW; ++kw) {
          const int64_t iw = ow * S - g.PW + kw * g.DW;
          if (iw >= 0 && iw < g.W) acc += x[ih * g.W + iw] * w[kh * g.KW + kw];
        }
      }
      yr[ow] = finish(acc, rr ? rr + ow : nullptr, e);
    };
    for (int64_t ow = 0; ow < a; ++ow) scalar(ow);
    int64_t ow = a;
    for (; ow + L <= z; ow += L) {
      V acc = hn::Set(d, b);
      for (int64_t kh = 0; kh < g.KH; ++kh) {
        const int64_t ih = oh * g.SH - g.PH + kh * g.DH;
        if (ih < 0 || ih >= g.H) continue;
        const float* xr = x + ih * g.W + ow * S - g.PW;
        for (int64_t kw = 0; kw < g.KW; ++kw) {
          V v;
          if (S == 1) {
            v = hn::LoadU(d, xr + kw * g.DW);
          } else {
            V odd;
            hn::LoadInterleaved2(d, xr + kw * g.DW, v, odd);
          }
          acc = hn::MulAdd(hn::Set(d, w[kh * g.KW + kw]), v, acc);
        }
      }
      if (rr) acc = hn::Add(acc, hn::LoadU(d, rr + ow));
      if (e.act == GemmAct::Relu) acc = hn::Max(hn::Zero(d), acc);
      if (e.act == GemmAct::Clamp) acc = hn::Min(hn::Set(d, e.hi), hn::Max(hn::Set(d, e.lo), acc));
      hn::StoreU(acc, d, yr + ow);
    }
    for (; ow < g.OW; ++ow) scalar(ow);
  }
}

void depthwise(const ConvGeom& g, const float* x, const float* w, const float* bias, float* y,
               const GemmEpilogue& e) {
  const int64_t ocg = g.OC / g.G, IP = g.in_plane(), P = g.out_plane(), taps = g.taps();
  parallel_for_chunks(g.N * g.OC, chunks_for(g.N * g.OC, P * taps), [&](int64_t p0, int64_t p1) {
    for (int64_t np = p0; np < p1; ++np) {
      const int64_t n = np / g.OC, oc = np % g.OC;
      plane(g, x + (n * g.C + oc / ocg) * IP, w + oc * taps, bias ? bias[oc] : 0.0f, y + np * P,
            e.residual ? e.residual + np * P : nullptr, e);
    }
  });
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

namespace tir {

void conv_depthwise_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, float* y,
                        const GemmEpilogue& epi) {
  if (g.KD != 1 || g.D != 1 || g.OD != 1) {  // 3-D depthwise: the reference, then the epilogue
    conv_nd<float>(g, x, w, bias, y);
    GemmEpilogue e = epi;
    e.bias = nullptr;
    apply_gemm_epilogue_ref(1, g.N * g.OC * g.out_plane(), y, 0, e);
    return;
  }
  HWY_NAMESPACE::depthwise(g, x, w, bias, y, epi);
}

}  // namespace tir
