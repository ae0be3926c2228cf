// Depthwise f32 convolution (one input channel per group), SIMD over output
// columns: each vector of outputs accumulates every tap in registers, with
// bias, residual and activation applied before the single store. Border
// columns (taps that fall outside the input) run the scalar path.
#pragma once
#include "kernels/conv.h"

namespace tir {

// w in torch layout [OC, 1, KD, KH, KW]; bias per output channel or null;
// epi: residual (whole output tensor) and activation (bias fields ignored).
void conv_depthwise_f32(const ConvGeom& g, const float* x, const float* w, const float* bias, float* y,
                        const GemmEpilogue& epi);

}  // namespace tir
