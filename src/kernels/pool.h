// 2-D pooling over contiguous [planes, H, W] data (planes = N*C). Window
// geometry is resolved by the op (output sizes, ceil_mode); these loops only
// follow it. Max pooling treats padding as -inf and propagates NaN like
// torch's CPU kernels; indices are flat positions in the H*W plane.
// T = float or double.
#pragma once
#include <cstdint>

namespace tir {

struct Pool2dGeom {
  int64_t planes = 1, H = 1, W = 1, OH = 1, OW = 1;
  int64_t KH = 1, KW = 1, SH = 1, SW = 1, PH = 0, PW = 0, DH = 1, DW = 1;
};

// indices may be null.
template <typename T>
void max_pool2d(const Pool2dGeom& g, const T* x, T* y, int64_t* indices);

// divisor_override <= 0 means none. Dilation is ignored (avg_pool has none).
template <typename T>
void avg_pool2d(const Pool2dGeom& g, bool count_include_pad, int64_t divisor_override, const T* x, T* y);

// Bin i spans [floor(i*In/Out), ceil((i+1)*In/Out)); bins may overlap.
// Only planes/H/W/OH/OW of `g` are used.
template <typename T>
void adaptive_avg_pool2d(const Pool2dGeom& g, const T* x, T* y);
template <typename T>
void adaptive_max_pool2d(const Pool2dGeom& g, const T* x, T* y, int64_t* indices);

}  // namespace tir
