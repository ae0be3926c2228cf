// The unary row driver of the float32 SIMD rows (elementwise_simd.cpp,
// elementwise_simd_f64.cpp, elementwise_simd_f32math.cpp), in Highway's
// Transform style: whole vectors
// straight from memory, the tail through a padded copy, so a row of any length
// and alignment takes the same lane code. Per-target include guard
// (kernels/simd_dispatch.h).
#if defined(TIR_KERNELS_SIMD_ROWS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TIR_KERNELS_SIMD_ROWS_INL_H_
#undef TIR_KERNELS_SIMD_ROWS_INL_H_
#else
#define TIR_KERNELS_SIMD_ROWS_INL_H_
#endif
#include <cstdint>
#include <cstring>

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {

// out[0, n) = op(d, in[0, n)) a vector at a time. out may equal in. kUnroll
// vectors per step where op is a long dependency chain (transcendentals): the
// chains of kUnroll vectors overlap instead of one waiting on the last.
template <int kUnroll = 1, class D, class Op>
HWY_INLINE void unary_row(D d, const Op& op, float* out, const float* in, int64_t n) {
  namespace hn = hwy::HWY_NAMESPACE;
  const int64_t L = int64_t(hn::Lanes(d));
  int64_t i = 0;
  if constexpr (kUnroll > 1) {
    for (; i + kUnroll * L <= n; i += kUnroll * L) {
      hn::Vec<D> v[kUnroll];
      for (int u = 0; u < kUnroll; ++u) v[u] = op(d, hn::LoadU(d, in + i + u * L));
      for (int u = 0; u < kUnroll; ++u) hn::StoreU(v[u], d, out + i + u * L);
    }
  }
  for (; i + L <= n; i += L) hn::StoreU(op(d, hn::LoadU(d, in + i)), d, out + i);
  if (i == n) return;
  HWY_ALIGN float buf[HWY_MAX_BYTES / sizeof(float)] = {};
  std::memcpy(buf, in + i, size_t(n - i) * sizeof(float));
  hn::Store(op(d, hn::Load(d, buf)), d, buf);
  std::memcpy(out + i, buf, size_t(n - i) * sizeof(float));
}

}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
