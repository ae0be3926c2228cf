// N-d pooling (1-D, 2-D, 3-D) over contiguous [planes, D, H, W] data (planes =
// N*C); lower ranks have leading spatial sizes 1, as in kernels/conv.h. Window
// geometry is resolved by the op (output sizes, ceil_mode); these loops only
// follow it. Max pooling treats padding as -inf and propagates NaN like
// torch's CPU kernels; indices are flat positions in the D*H*W volume.
// T = float or double.
#pragma once
#include <cstdint>

namespace tir {

struct PoolGeom {
  int64_t planes = 1, D = 1, H = 1, W = 1, OD = 1, OH = 1, OW = 1;
  int64_t KD = 1, KH = 1, KW = 1, SD = 1, SH = 1, SW = 1, PD = 0, PH = 0, PW = 0, DD = 1, DH = 1, DW = 1;
};
using Pool2dGeom = PoolGeom;  // the 2-D name existing callers use

// indices may be null.
template <typename T>
void max_pool(const PoolGeom& g, const T* x, T* y, int64_t* indices);

// The SIMD f32 path max_pool takes for 2-D windows without indices
// (kernels/pool_f32.cpp); false when the geometry is not one it handles.
bool max_pool_f32_fast(const PoolGeom& g, const float* x, float* y);

// divisor_override <= 0 means none. Dilation is ignored (avg_pool has none).
template <typename T>
void avg_pool(const PoolGeom& g, bool count_include_pad, int64_t divisor_override, const T* x, T* y);

// Bin i spans [floor(i*In/Out), ceil((i+1)*In/Out)); bins may overlap.
// Only planes and the input/output sizes of `g` are used.
template <typename T>
void adaptive_avg_pool(const PoolGeom& g, const T* x, T* y);
template <typename T>
void adaptive_max_pool(const PoolGeom& g, const T* x, T* y, int64_t* indices);

// 2-D names kept for existing callers (same kernels).
template <typename T>
inline void max_pool2d(const PoolGeom& g, const T* x, T* y, int64_t* indices) { max_pool<T>(g, x, y, indices); }
template <typename T>
inline void avg_pool2d(const PoolGeom& g, bool count_include_pad, int64_t divisor_override, const T* x, T* y) {
  avg_pool<T>(g, count_include_pad, divisor_override, x, y);
}
template <typename T>
inline void adaptive_avg_pool2d(const PoolGeom& g, const T* x, T* y) { adaptive_avg_pool<T>(g, x, y); }
template <typename T>
inline void adaptive_max_pool2d(const PoolGeom& g, const T* x, T* y, int64_t* indices) {
  adaptive_max_pool<T>(g, x, y, indices);
}

}  // namespace tir
