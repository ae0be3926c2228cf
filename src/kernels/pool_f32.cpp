// SIMD max pooling for f32 2-D windows without indices (ResNet's stem pool):
// each vector of output columns takes the max over the window in registers.
// NaN wins and stays, as in the scalar kernel (v > best || isnan(v)).
#include <cmath>
#include <limits>

#include "kernels/parallel.h"
#include "kernels/pool.h"
#include "kernels/sliding.h"

// Compiled once per SIMD target (kernels/simd_dispatch.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/pool_f32.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;

void plane(const PoolGeom& g, const float* x, float* y) {
  const D d;
  const int64_t L = int64_t(hn::Lanes(d)), S = g.SW;
  const float ninf = -std::numeric_limits<float>::infinity();
  int64_t a, z;
  sliding_interior(g.W, g.OW, g.KW, S, g.PW, g.DW, &a, &z);
  for (int64_t oh = 0; oh < g.OH; ++oh) {
    const int64_t h0 = oh * g.SH - g.PH;
    float* yr = y + oh * g.OW;
    auto scalar = [&](int64_t ow) {
      float best = ninf;
      for (int64_t kh = 0; kh < g.KH; ++kh) {
        const int64_t ih = h0 + kh * g.DH;
        if (ih < 0 || ih >= g.H) continue;
        for (int64_t kw = 0; kw < g.KW; ++kw) {
          const int64_t iw = ow * S - g.PW + kw * g.DW;
          if (iw < 0 || iw >= g.W) continue;
          const float v = x[ih * g.W + iw];
          if (v > best || std::isnan(v)) best = v;
        }
      }
      yr[ow] = best;
    };
    for (int64_t ow = 0; ow < a; ++ow) scalar(ow);
    int64_t ow = a;
    for (; ow + L <= z; ow += L) {
      V best = hn::Set(d, ninf);
      for (int64_t kh = 0; kh < g.KH; ++kh) {
        const int64_t ih = h0 + kh * g.DH;
        if (ih < 0 || ih >= g.H) continue;
        const float* xr = x + ih * g.W + ow * S - g.PW;
        for (int64_t kw = 0; kw < g.KW; ++kw) {
          V v, odd;
          if (S == 1)
            v = hn::LoadU(d, xr + kw * g.DW);
          else
            hn::LoadInterleaved2(d, xr + kw * g.DW, v, odd);
          best = hn::IfThenElse(hn::Or(hn::Gt(v, best), hn::IsNaN(v)), v, best);
        }
      }
      hn::StoreU(best, d, yr + ow);
    }
    for (; ow < g.OW; ++ow) scalar(ow);
  }
}

void max_pool_planes(const PoolGeom& g, const float* x, float* y) {
  const int64_t IP = g.H * g.W, OP = g.OH * g.OW;
  parallel_for_chunks(g.planes, chunks_for(g.planes, OP * g.KH * g.KW), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) plane(g, x + p * IP, y + p * OP);
  });
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tir {

HWY_EXPORT(max_pool_planes);

bool max_pool_f32_fast(const PoolGeom& g, const float* x, float* y) {
  if (g.D != 1 || g.OD != 1 || g.KD != 1 || g.SW > 2) return false;
  HWY_DYNAMIC_DISPATCH(max_pool_planes)(g, x, y);
  return true;
}

}  // namespace tir
#endif  // HWY_ONCE
