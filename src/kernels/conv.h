// N-d convolution (1-D, 2-D, 3-D) over contiguous NC[D]HW data. Lower ranks
// are the 3-D case with leading spatial sizes 1 (a 2-D conv has D = KD = 1, a
// 1-D conv also H = KH = 1), so there is one set of loops; the size-1 loops
// cost nothing measurable on the hot 2-D path.
// Normal conv: weight [OC, C/G, KD, KH, KW]; transposed: weight [C, OC/G, KD, KH, KW].
// Padding is given as the front/top/left amount; the output size is explicit, so
// an asymmetric "same" padding (extra at the end) needs no extra field.
// conv_nd<T> is the reference (im2col + gemm, direct loops for depthwise);
// conv_nd_f32 is the fast f32 path: weights prepared once (packed gemm panels,
// optionally scaled per output channel by a folded batch norm), im2col written
// straight into packed gemm blocks, and the gemm epilogue applied in registers.
#pragma once
#include <cstdint>

#include "kernels/gemm.h"

namespace tir {

struct ConvGeom {
  int64_t N = 1, C = 1, D = 1, H = 1, W = 1;  // input
  int64_t OC = 1, OD = 1, OH = 1, OW = 1;     // output
  int64_t KD = 1, KH = 1, KW = 1;
  int64_t SD = 1, SH = 1, SW = 1, PD = 0, PH = 0, PW = 0, DD = 1, DH = 1, DW = 1;
  int64_t G = 1;
  int64_t in_plane() const { return D * H * W; }
  int64_t out_plane() const { return OD * OH * OW; }
  int64_t taps() const { return KD * KH * KW; }
};
using Conv2dGeom = ConvGeom;  // the 2-D name existing callers use

// y = conv(x, w) + bias (bias may be null). T = float or double.
template <typename T>
void conv_nd(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y);

// True when conv_nd_f32 runs this geometry as a depthwise (direct) conv.
bool conv_is_depthwise(const ConvGeom& g);
// Size in floats of the prepared weights, and the preparation itself:
// w [OC, C/G, KD, KH, KW] times oc_scale[oc] (null: 1).
int64_t conv_prepared_weights_size(const ConvGeom& g);
void prepare_conv_weights_f32(const ConvGeom& g, const float* w, const float* oc_scale, float* dst);

// y = act(conv(x, w) + bias[oc] + residual) for f32, normal (not transposed)
// convolutions. w_prepared (from prepare_conv_weights_f32) or, when null, w in
// torch layout. epi: residual (the whole output tensor's data, same layout as
// y) and activation; its bias fields are ignored (bias is per channel here).
void conv_nd_f32(const ConvGeom& g, const float* x, const float* w, const float* w_prepared, const float* bias,
                 float* y, const GemmEpilogue& epi);

// Transposed convolution (the gradient of conv_nd w.r.t. its input), with
// geometry written from the output's side: g.C/D/H/W describe the INPUT of the
// transposed conv, g.OC/OD/OH/OW its output.
template <typename T>
void conv_transpose_nd(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y);

// 2-D names kept for existing callers (same kernels).
template <typename T>
inline void conv2d(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y) {
  conv_nd<T>(g, x, w, bias, y);
}
template <typename T>
inline void conv_transpose2d(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y) {
  conv_transpose_nd<T>(g, x, w, bias, y);
}

}  // namespace tir
