// Float32 SIMD row kernels behind binary_kernel / unary_kernel (elementwise.h),
// in Highway's Transform style: a functor applied to whole vectors, the tail
// through a padded block so every element sees the same code.
//
// Two kinds:
// - exact ops (add/sub/mul/div, maximum/minimum, relu, neg, abs, clamp,
//   leaky_relu, hardswish, hardsigmoid, sqrt, rsqrt, reciprocal): the scalar
//   reference's IEEE operations in the same order, so the bits are the same
//   (NaN and -0.0 included);
// - transcendental ops (exp, log, tanh, sigmoid, silu, gelu, gelu-tanh, elu,
//   softplus, mish): lanes widened to float64, evaluated with Highway's float64
//   functions (or a float64 erfc here) and rounded once, so they stay within
//   ~0.5 ulp of the float64 truth (PyTorch's float32 kernels measure 1-2 ulp or,
//   for the gelus, much worse). Highway 1.0.3 has no float64 math on WASM: there
//   exp, sigmoid, silu and the gelus run in float32 lanes (unary_row_f32_narrow,
//   no less accurate than the scalar reference) and the rest keep the scalar
//   path (nullptr below).
#pragma once
#include <cstdint>

#include "kernels/elementwise.h"

namespace tir {

// Which operand of a binary row is one broadcast element.
enum class RowOperands : uint8_t { VecVec, VecScalar, ScalarVec };

// Per-op constants, already cast to float as the scalar reference casts them:
// clamp a=lo b=hi; leaky_relu a=slope; elu a=alpha*scale b=scale c=input_scale;
// softplus a=beta b=threshold; add a=alpha.
struct RowParams {
  float a = 0, b = 0, c = 0;
};

// out[0, n) = op(a, b) with a or b read as one element per RowOperands.
using BinaryRowF32 = void (*)(float* out, const float* a, const float* b, int64_t n, RowOperands kind,
                              const RowParams& p);
// out[0, n) = op(in[0, n)). out may equal in.
using UnaryRowF32 = void (*)(float* out, const float* in, int64_t n, const RowParams& p);

// The SIMD row kernel of op for float32 on the SIMD target in use, nullptr when it has none.
// Add takes p.a as alpha (1 -> plain x + y, as the scalar path).
BinaryRowF32 binary_row_f32(BinaryOp op, float alpha);
UnaryRowF32 unary_row_f32(UnaryOp op);
// The transcendental part of unary_row_f32 (elementwise_simd_f64.cpp): float64
// lanes where the target has them, else unary_row_f32_narrow.
UnaryRowF32 unary_row_f32_widened(UnaryOp op);
// Float32-lane versions of exp, sigmoid, silu, gelu and gelu-tanh
// (elementwise_simd_f32math.cpp), for targets without float64 SIMD math.
UnaryRowF32 unary_row_f32_narrow(UnaryOp op);

}  // namespace tir
