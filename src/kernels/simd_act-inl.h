// Max/Min for the relu and clamp epilogues of the SIMD kernels (gemm.cpp,
// conv_winograd_f32.cpp, conv_depthwise_f32.cpp) with NaN propagating, as torch
// and apply_gemm_act do: x86's and WASM's min/max return the second operand when
// either is NaN, so Max(lo, v) keeps v's NaN; Highway's emulated fallbacks (HWY_SCALAR, the
// native target for CPUs without SSE4, and EMU128) may return the other operand, so there the
// NaN lanes are put back. Per-target include guard (kernels/simd_dispatch.h).
#if defined(TIR_KERNELS_SIMD_ACT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TIR_KERNELS_SIMD_ACT_INL_H_
#undef TIR_KERNELS_SIMD_ACT_INL_H_
#else
#define TIR_KERNELS_SIMD_ACT_INL_H_
#endif
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {

template <class V> HWY_INLINE V max_keep_nan(V lo, V v) {
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  return hwy::HWY_NAMESPACE::IfThenElse(hwy::HWY_NAMESPACE::IsNaN(v), v, hwy::HWY_NAMESPACE::Max(lo, v));
#else
  return hwy::HWY_NAMESPACE::Max(lo, v);
#endif
}
template <class V> HWY_INLINE V min_keep_nan(V hi, V v) {
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  return hwy::HWY_NAMESPACE::IfThenElse(hwy::HWY_NAMESPACE::IsNaN(v), v, hwy::HWY_NAMESPACE::Min(hi, v));
#else
  return hwy::HWY_NAMESPACE::Min(hi, v);
#endif
}

}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
