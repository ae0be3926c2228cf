// im2col / col2im over one contiguous [C, H, W] image and its column matrix
// [C*kh*kw, oh*ow] (torch's layout: row c*kh*kw + i*kw + j, column y*ow + x).
// Padding reads as zero in im2col and is dropped in col2im, which sums the
// overlapping patches back in torch's order (column rows ascending, then
// positions ascending). Scalar code; instantiated for float and double (im2col
// also for uint16_t: f16/bf16 bits, a pure copy).
#pragma once
#include <cstdint>

namespace tir {

struct Im2colGeom {
  int64_t C = 0, H = 0, W = 0;    // image
  int64_t kh = 1, kw = 1, dh = 1, dw = 1, ph = 0, pw = 0, sh = 1, sw = 1;
  int64_t oh = 0, ow = 0;         // patch positions
};

template <typename T> void im2col(const Im2colGeom& g, const T* im, T* col);
// Overwrites im (zeros, then the sums).
template <typename T> void col2im(const Im2colGeom& g, const T* col, T* im);

}  // namespace tir
