// SIMD grid_sampler_2d for f32 bilinear with zeros or border padding (the
// STN / optical-flow warp case): a vector of output positions at a time, the
// four corners fetched with GatherIndex (masked to 0 outside the image). Every
// lane does the scalar kernel's operations in the same order (no FMA), so the
// result is bit-identical to grid_sample_ref.
#include "kernels/grid_sample.h"
#include "kernels/parallel.h"

// Compiled once per SIMD target (kernels/simd_dispatch.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/grid_sample_f32.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<float>;
using V = hn::Vec<D>;
using DI = hn::RebindToSigned<D>;

// grid_unnormalize (grid_sample.h) per lane: widened to double, g * scale +
// offset, rounded back to float.
#if HWY_HAVE_FLOAT64 && HWY_TARGET != HWY_WASM && HWY_TARGET != HWY_WASM_EMU256 && HWY_TARGET != HWY_SCALAR && HWY_TARGET != HWY_EMU128
V unnormalize(D d, V g, GridScale s) {
  const hn::Half<D> dh;
  const hn::Repartition<double, D> dd;
  const auto sc = hn::Set(dd, s.scale), of = hn::Set(dd, s.offset);
  const auto lo = hn::DemoteTo(dh, hn::Add(hn::Mul(hn::PromoteTo(dd, hn::LowerHalf(dh, g)), sc), of));
  const auto hi = hn::DemoteTo(dh, hn::Add(hn::Mul(hn::PromoteTo(dd, hn::UpperHalf(dh, g)), sc), of));
  return hn::Combine(d, hi, lo);
}
#else  // Highway 1.0.3 has no float <-> double conversions on WASM: the scalar function per lane
V unnormalize(D d, V g, GridScale s) {
  HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)];
  hn::Store(g, d, buf);
  for (size_t i = 0; i < hn::Lanes(d); ++i) buf[i] = grid_unnormalize(buf[i], s);
  return hn::Load(d, buf);
}
#endif

// Unnormalize, then border-clip as the scalar Axis (NaN stays NaN).
V source(D d, V g, int64_t size, GridScale s, bool border) {
  V v = unnormalize(d, g, s);
  if (border) {
    const V zero = hn::Zero(d), hi = hn::Set(d, float(size - 1));
    const auto is_num = hn::Eq(v, v);
    v = hn::IfThenElse(hn::Gt(v, zero), v, hn::IfThenElse(is_num, zero, v));
    v = hn::IfThenElse(hn::Lt(v, hi), v, hn::IfThenElse(is_num, hi, v));
  }
  return v;
}

void bilinear(const GridSampleArgs& a, const float* in, const float* grid, float* out) {
  const D d;
  const DI di;
  const int64_t L = int64_t(hn::Lanes(d)), P = a.oH * a.oW, HW = a.H * a.W;
  const bool border = a.pad == GridPad::Border;
  const GridScale sx = grid_scale(a.W, a.align_corners), sy = grid_scale(a.H, a.align_corners);
  for (int64_t n = 0; n < a.N; ++n) {
    const float* g = grid + n * P * 2;
    const float* img = in + n * a.C * HW;
    float* o = out + n * a.C * P;
    parallel_for_chunks(P, chunks_for(P, 16 * a.C), [&](int64_t p0, int64_t p1) {
      int64_t p = p0;
      const V zero = hn::Zero(d), onev = hn::Set(d, 1.0f), Wf = hn::Set(d, float(a.W)), Hf = hn::Set(d, float(a.H));
      for (; p + L <= p1; p += L) {
        V gx, gy;
        hn::LoadInterleaved2(d, g + 2 * p, gx, gy);
        const V x = source(d, gx, a.W, sx, border), y = source(d, gy, a.H, sy, border);
        const V xw = hn::Floor(x), yn = hn::Floor(y);
        const V w = hn::Sub(x, xw), e = hn::Sub(onev, w), nn = hn::Sub(y, yn), s = hn::Sub(onev, nn);
        const V nw = hn::Mul(s, e), ne = hn::Mul(s, w), sw = hn::Mul(nn, e), se = hn::Mul(nn, w);
        const V x1 = hn::Add(xw, onev), y1 = hn::Add(yn, onev);
        // inside [0, size) as the scalar index() (false for NaN)
        const auto mx0 = hn::And(hn::Ge(xw, zero), hn::Lt(xw, Wf)), mx1 = hn::And(hn::Ge(x1, zero), hn::Lt(x1, Wf));
        const auto my0 = hn::And(hn::Ge(yn, zero), hn::Lt(yn, Hf)), my1 = hn::And(hn::Ge(y1, zero), hn::Lt(y1, Hf));
        const auto m00 = hn::And(mx0, my0), m01 = hn::And(mx1, my0), m10 = hn::And(mx0, my1), m11 = hn::And(mx1, my1);
        auto idx = [&](V xf, V yf, decltype(m00) m) {  // masked-out lanes read element 0
          return hn::ConvertTo(di, hn::IfThenElseZero(m, hn::Add(hn::Mul(yf, hn::Set(d, float(a.W))), xf)));
        };
        const auto i00 = idx(xw, yn, m00), i01 = idx(x1, yn, m01), i10 = idx(xw, y1, m10), i11 = idx(x1, y1, m11);
        for (int64_t c = 0; c < a.C; ++c) {
          const float* pl = img + c * HW;
          const V vnw = hn::IfThenElseZero(m00, hn::GatherIndex(d, pl, i00));
          const V vne = hn::IfThenElseZero(m01, hn::GatherIndex(d, pl, i01));
          const V vsw = hn::IfThenElseZero(m10, hn::GatherIndex(d, pl, i10));
          const V vse = hn::IfThenElseZero(m11, hn::GatherIndex(d, pl, i11));
          const V r = hn::Add(hn::Add(hn::Add(hn::Mul(vnw, nw), hn::Mul(vne, ne)), hn::Mul(vsw, sw)), hn::Mul(vse, se));
          hn::StoreU(r, d, o + c * P + p);
        }
      }
      for (; p < p1; ++p) {  // tail: the scalar kernel, one position and channel at a time
        GridSampleArgs t = a;
        t.N = 1, t.C = 1, t.oH = 1, t.oW = 1;
        for (int64_t c = 0; c < a.C; ++c) grid_sample_ref<float>(t, img + c * HW, g + 2 * p, o + c * P + p);
      }
    });
  }
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tir {

HWY_EXPORT(bilinear);

bool grid_sample_f32_fast(const GridSampleArgs& a, const float* in, const float* grid, float* out) {
  if (a.three_d || a.interp != GridInterp::Bilinear || a.pad == GridPad::Reflection) return false;
  // flat indices as float32 / int32 stay exact below 2^24
  if (a.H * a.W >= (int64_t(1) << 24)) return false;
  HWY_DYNAMIC_DISPATCH(bilinear)(a, in, grid, out);
  return true;
}

}  // namespace tir
#endif  // HWY_ONCE
