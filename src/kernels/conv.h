// 2-D convolution over contiguous NCHW data (1-D convs use H = 1).
// Normal conv: weight [OC, C/G, KH, KW]; transposed: weight [C, OC/G, KH, KW].
// Padding is given as the top/left amount; the output size is explicit, so an
// asymmetric "same" padding (extra on the bottom/right) needs no extra field.
// Scalar reference (im2col + gemm, direct loops for depthwise); a later issue
// swaps in SIMD/threads behind these signatures.
#pragma once
#include <cstdint>

namespace tir {

struct Conv2dGeom {
  int64_t N = 1, C = 1, H = 1, W = 1;  // input
  int64_t OC = 1, OH = 1, OW = 1;      // output
  int64_t KH = 1, KW = 1;
  int64_t SH = 1, SW = 1, PH = 0, PW = 0, DH = 1, DW = 1;
  int64_t G = 1;
};

// y = conv(x, w) + bias (bias may be null). T = float or double.
template <typename T>
void conv2d(const Conv2dGeom& g, const T* x, const T* w, const T* bias, T* y);

// Transposed convolution (the gradient of conv2d w.r.t. its input), with
// geometry written from the output's side: g.C/H/W describe the INPUT of the
// transposed conv, g.OC/OH/OW its output.
template <typename T>
void conv_transpose2d(const Conv2dGeom& g, const T* x, const T* w, const T* bias, T* y);

}  // namespace tir
