// Elementwise math kernels beyond elementwise.h: inverse/hyperbolic trig,
// erfc/erfinv/exp2/log10/frac, shrink/threshold activations, atan2/hypot/
// copysign, integer shifts, and the addcmul/addcdiv/lerp composites.
// Operands are Tensor views already broadcast to out's shape (any strides).
//
// Float32 acos/asinh/atan/sinh/log10 run a Highway SIMD path on contiguous rows
// (native builds): lanes widened to float64, Highway's float64 function
// (hwy/contrib/math), rounded once (its float32 functions measure 1.2-3.3 ulp,
// worse than PyTorch's Sleef u10; tests/cpp/unit/ops_elementwise_math_test.cpp
// sweeps both). The scalar reference, used elsewhere and in WASM (Highway 1.0.3
// has no float64 math there), computes float32 through the float64 std::
// function, rounded once.
#pragma once
#include <cstdint>

#include "core/scalar.h"
#include "core/tensor.h"

namespace tir {

enum class MathUnaryOp : uint8_t {
  // floating only
  Acos, Acosh, Asin, Asinh, Atan, Atanh, Cosh, Sinh, Tan, Erfc, Erfinv, Exp2, Log10,
  Frac,        // x - trunc(x)
  Hardshrink,  // |x| <= p.a ? 0 : x (NaN stays)
  Softshrink,  // x > p.a ? x - p.a : x < -p.a ? x + p.a : 0 (NaN -> 0, as torch)
  // floating and integral (not bool)
  Threshold,   // x <= p.a ? p.b : x; p.a/p.b cast to the dtype (ints exact)
};
struct MathParams {
  double a = 0, b = 0;
  bool a_is_int = false, b_is_int = false;  // Python-int scalars: exact for int64 tensors
  int64_t ia = 0, ib = 0;
};
// Which implementation runs: Auto picks SIMD where it is accurate enough.
enum class MathPath : uint8_t { Auto, Scalar, Simd };

// out = op(in): in.dtype a compute dtype (f32/f64 for the floating ops),
// out.dtype == in.dtype, same shape; out may alias in (same view).
void math_unary_kernel(MathUnaryOp op, const Tensor& out, const Tensor& in, const MathParams& p = {},
                       MathPath path = MathPath::Auto);
// True when the Auto path of `op` uses SIMD for float32 (the unit tests hold it to <= 1 ulp).
bool math_unary_uses_simd(MathUnaryOp op);

enum class MathBinaryOp : uint8_t {
  Atan2, Hypot, Copysign,   // floating only
  ShiftLeft, ShiftRight,    // integral only; torch >= 2.1's defined results for counts
                            // outside [0, bits): << gives 0, >> gives the sign fill
};
// out = op(a, b): a, b, out share a compute dtype and out's shape; out may alias a or b.
void math_binary_kernel(MathBinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                        MathPath path = MathPath::Auto);

// out = self + value * t1 * t2 (divide: self + value * t1 / t2), torch's
// operation order; all one compute dtype (ints wrap, value cast to the dtype).
void addc_kernel(bool divide, const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                 const Scalar& value);

// out = lerp(self, end, weight), floating: |w| < 0.5 ? self + w*(end-self)
// : end - (end-self)*(1-w). weight has the compute dtype (a 0-d broadcast for Scalar weights).
void lerp_kernel(const Tensor& out, const Tensor& self, const Tensor& end, const Tensor& weight);

// torch's calc_erfinv (rational guess + two Newton steps) in double.
double erfinv_ref(double y);

}  // namespace tir
