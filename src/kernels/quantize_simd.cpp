// Highway rows of the two per-run steps of dynamic int8 activations (see quantize.h): the
// min/max that choose_qparams.tensor reduces over, and float32 -> int16 quantization in
// quantize_per_tensor's float32 arithmetic. The scalar rows in quantize.cpp are the reference;
// both give the same bits (round half to even, clamp, NaN -> 0).
#include <cmath>

#include "kernels/quantize.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/quantize_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;

void minmax_f32_impl(const float* x, int64_t n, float* lo, float* hi) {
  const hn::ScalableTag<float> d;
  const int64_t L = int64_t(hn::Lanes(d));
  float l = INFINITY, h = -INFINITY;
  bool any_nan = false;
  int64_t i = 0;
  if (n >= L) {  // lanes start from the first vector (no reduction of the infinite start values)
    auto vlo = hn::LoadU(d, x), vhi = vlo;
    auto nan = hn::VecFromMask(d, hn::IsNaN(vlo));  // all-ones lanes where a NaN was seen
    for (i = L; i + L <= n; i += L) {
      const auto v = hn::LoadU(d, x + i);
      nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(v)));
      vlo = hn::Min(vlo, v);
      vhi = hn::Max(vhi, v);
    }
    l = hn::GetLane(hn::MinOfLanes(d, vlo));
    h = hn::GetLane(hn::MaxOfLanes(d, vhi));
    any_nan = !hn::AllFalse(d, hn::MaskFromVec(nan));
  }
  for (; i < n; ++i) {
    any_nan = any_nan || std::isnan(x[i]);
    l = x[i] < l ? x[i] : l;
    h = x[i] > h ? x[i] : h;
  }
  *lo = any_nan ? NAN : l;
  *hi = any_nan ? NAN : h;
}

template <typename Q>
void quantize_f32_impl(const float* x, int64_t n, float inv_scale, float zero_point, float qmin, float qmax, Q* out) {
  const hn::ScalableTag<float> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::Rebind<Q, decltype(d)> dq;
  const int64_t L = int64_t(hn::Lanes(d));
  const auto s = hn::Set(d, inv_scale), z = hn::Set(d, zero_point);
  const auto lo = hn::Set(d, qmin), hi = hn::Set(d, qmax);
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    const auto t = hn::Add(hn::Round(hn::Mul(hn::LoadU(d, x + i), s)), z);
    // NaN -> 0, tested before the clamp (hn::Min/Max need not keep NaN)
    const auto r = hn::IfThenZeroElse(hn::IsNaN(t), hn::Min(hn::Max(t, lo), hi));
    hn::StoreU(hn::DemoteTo(dq, hn::ConvertTo(di, r)), dq, out + i);
  }
  for (; i < n; ++i) {
    float r = std::nearbyint(x[i] * inv_scale) + zero_point;
    r = r < qmin ? qmin : r;
    r = r > qmax ? qmax : r;
    out[i] = Q(r == r ? r : 0.0f);
  }
}

void quantize_f32_i16_impl(const float* x, int64_t n, float inv, float z, float lo, float hi, int16_t* out) {
  quantize_f32_impl(x, n, inv, z, lo, hi, out);
}
void quantize_f32_i8_impl(const float* x, int64_t n, float inv, float z, float lo, float hi, int8_t* out) {
  quantize_f32_impl(x, n, inv, z, lo, hi, out);
}
void quantize_f32_u8_impl(const float* x, int64_t n, float inv, float z, float lo, float hi, uint8_t* out) {
  quantize_f32_impl(x, n, inv, z, lo, hi, out);
}

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tir {

HWY_EXPORT(minmax_f32_impl);
HWY_EXPORT(quantize_f32_i16_impl);
HWY_EXPORT(quantize_f32_i8_impl);
HWY_EXPORT(quantize_f32_u8_impl);

void minmax_f32(const float* x, int64_t n, float* lo, float* hi) { HWY_DYNAMIC_DISPATCH(minmax_f32_impl)(x, n, lo, hi); }

void quantize_f32_i16(const float* x, int64_t n, float inv_scale, float zero_point, float qmin, float qmax,
                      int16_t* out) {
  HWY_DYNAMIC_DISPATCH(quantize_f32_i16_impl)(x, n, inv_scale, zero_point, qmin, qmax, out);
}

bool quantize_f32_row(const float* x, int64_t n, float inv_scale, float zero_point, float qmin, float qmax, DType out,
                      void* dst) {
  switch (out) {
    case DType::I16:
      quantize_f32_i16(x, n, inv_scale, zero_point, qmin, qmax, static_cast<int16_t*>(dst));
      return true;
    case DType::I8:
      HWY_DYNAMIC_DISPATCH(quantize_f32_i8_impl)(x, n, inv_scale, zero_point, qmin, qmax, static_cast<int8_t*>(dst));
      return true;
    case DType::U8:
      HWY_DYNAMIC_DISPATCH(quantize_f32_u8_impl)(x, n, inv_scale, zero_point, qmin, qmax, static_cast<uint8_t*>(dst));
      return true;
    default:
      return false;
  }
}

void minmax_f32_into(const float* x, int64_t n, double* mn, double* mx) {
  float lo, hi;
  minmax_f32(x, n, &lo, &hi);
  // NaN propagates as in minmax_row (torch.amin / amax)
  *mn = std::isnan(lo) || std::isnan(*mn) ? double(NAN) : std::fmin(*mn, double(lo));
  *mx = std::isnan(hi) || std::isnan(*mx) ? double(NAN) : std::fmax(*mx, double(hi));
}

}  // namespace tir
#endif  // HWY_ONCE
