// Winograd F(2x2, 3x3) for f32 3x3 stride-1 2-D convolutions (Lavin & Gray):
// each 2x2 output tile costs 16 multiplies per (oc, c) instead of 36, as 16
// gemms U_s (OC x C) x V_s (C x tiles) between an input and an output
// transform. conv_f32.cpp routes the geometries conv_winograd_applies accepts.
#pragma once
#include <cstdint>

#include "kernels/conv.h"

namespace tir {

// 2-D, KH = KW = 3, stride 1, dilation 1, one group, and big enough to win
// over im2col + gemm. Geometry only, so prepare and run agree.
bool conv_winograd_applies(const ConvGeom& g);
// Prepared weights: 16 gemm A operands U_s = (G w G^T)_s, each OC x C packed.
int64_t conv_winograd_weights_size(const ConvGeom& g);
void conv_winograd_prepare_f32(const ConvGeom& g, const float* w, const float* oc_scale, float* dst);
// y = act(conv(x, w) + bias + residual); u from conv_winograd_prepare_f32,
// or null to transform w (torch layout) on the fly into thread scratch.
void conv_winograd_f32(const ConvGeom& g, const float* x, const float* w, const float* u, const float* bias,
                       float* y, const GemmEpilogue& epi);

}  // namespace tir
