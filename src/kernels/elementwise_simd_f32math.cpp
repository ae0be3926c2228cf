// Float32 transcendental row kernels in float32 lanes, for targets without
// float64 SIMD math (WASM: Highway 1.0.3 has none there, see elementwise_simd.h),
// where they replace the scalar path. Each is at least as accurate as the
// scalar reference it replaces (std:: float functions in torch's formulas),
// measured against float64 by tests/cpp/unit/ops_elementwise_simd_test.cpp:
// - exp, sigmoid, silu: Highway's Exp (1 ulp) in the reference's formula;
// - gelu: 0.5 x erfc(-x / sqrt 2), erfc from a fitted form (fractional error
//   < 1.2e-7) instead of 1 + erf, which cancels for negative x (the scalar
//   reference and PyTorch lose most bits there);
// - gelu-tanh: x / (1 + exp(-2u)) instead of 0.5 x (1 + tanh(u)), likewise.
// tanh, log and the rest keep the scalar path: Highway's float32 Tanh is 2 ulp.
#include <limits>

#include "kernels/elementwise_simd.h"

// Compiled once per SIMD target (kernels/simd_dispatch.h): WASM uses it; native
// builds run it only in tests (their rows use float64 lanes).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/elementwise_simd_f32math.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"
#include "kernels/simd_rows-inl.h"  // unary_row

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;

// Exp on [-104, 104], Highway's valid range: above 88.7 it gives +inf, below
// -103 zero, so +-inf arguments get the limits the scalar exp gives them.
HWY_INLINE VF exp_clamped(DF d, VF t) { return hn::Exp(d, hn::Min(hn::Max(t, hn::Set(d, -104.0f)), hn::Set(d, 104.0f))); }
HWY_INLINE VF one(DF d) { return hn::Set(d, 1.0f); }

struct ExpOp {
  VF operator()(DF d, VF x) const { return exp_clamped(d, x); }
};
struct SigmoidOp {  // 1 / (1 + exp(-x))
  VF operator()(DF d, VF x) const { return hn::Div(one(d), hn::Add(one(d), exp_clamped(d, hn::Neg(x)))); }
};
struct SiluOp {  // x / (1 + exp(-x)); -inf gives NaN as the reference's -inf / inf
  VF operator()(DF d, VF x) const { return hn::Div(x, hn::Add(one(d), exp_clamped(d, hn::Neg(x)))); }
};
struct GeluTanhOp {  // 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3)
  VF operator()(DF d, VF x) const {
    const VF x3 = hn::Mul(hn::Mul(x, x), x);
    const VF u2 = hn::Mul(hn::Set(d, 2.0f * 0.7978845608f), hn::Add(x, hn::Mul(hn::Set(d, 0.044715f), x3)));
    const VF r = hn::Div(x, hn::Add(one(d), exp_clamped(d, hn::Neg(u2))));
    // -inf: the reference's -inf * (1 + tanh(-inf)) = -inf * 0 is NaN.
    return hn::IfThenElse(hn::Eq(x, hn::Set(d, -std::numeric_limits<float>::infinity())),
                          hn::Set(d, std::numeric_limits<float>::quiet_NaN()), r);
  }
};
// erfc(a) for a >= 0 as t exp(-a^2 + p(t)), t = 1 / (1 + a/2): the classic
// Chebyshev-fitted form (Numerical Recipes' erfcc), fractional error < 1.2e-7.
constexpr float kErfcc[10] = {-1.26551223f, 1.00002368f, 0.37409196f, 0.09678418f, -0.18628806f,
                              0.27886807f,  -1.13520398f, 1.48851587f, -0.82215223f, 0.17087277f};
struct GeluOp {  // 0.5 x erfc(-x / sqrt 2); erfc(-a) = 2 - erfc(a)
  VF operator()(DF d, VF x) const {
    const VF z = hn::Mul(x, hn::Set(d, -0.70710678f));
    const VF a = hn::Abs(z);
    const VF t = hn::Div(one(d), hn::MulAdd(hn::Set(d, 0.5f), a, one(d)));
    VF p = hn::Set(d, kErfcc[9]);
    for (int j = 8; j >= 0; --j) p = hn::MulAdd(p, t, hn::Set(d, kErfcc[j]));
    const VF e = hn::Mul(t, exp_clamped(d, hn::Sub(p, hn::Mul(a, a))));
    const VF erfc = hn::IfThenElse(hn::Lt(z, hn::Zero(d)), hn::Sub(hn::Set(d, 2.0f), e), e);
    const VF r = hn::Mul(hn::Mul(hn::Set(d, 0.5f), x), erfc);
    // -inf: the reference's -inf * (1 + erf(-inf)) = -inf * 0 is NaN.
    return hn::IfThenElse(hn::Eq(x, hn::Set(d, -std::numeric_limits<float>::infinity())),
                          hn::Set(d, std::numeric_limits<float>::quiet_NaN()), r);
  }
};

// NaN stays NaN (the clamps above may drop it on some targets).
template <class Op> struct NanKept {
  VF operator()(DF d, VF x) const { return hn::IfThenElse(hn::IsNaN(x), x, Op()(d, x)); }
};

template <class Op> void row(float* out, const float* in, int64_t n, const RowParams&) {
  unary_row(DF(), NanKept<Op>(), out, in, n);
}

}  // namespace

UnaryRowF32 narrow_row_for(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp: return &row<ExpOp>;
    case UnaryOp::Sigmoid: return &row<SigmoidOp>;
    case UnaryOp::Silu: return &row<SiluOp>;
    case UnaryOp::Gelu: return &row<GeluOp>;
    case UnaryOp::GeluTanh: return &row<GeluTanhOp>;
    default: return nullptr;
  }
}
}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tir {
HWY_EXPORT(narrow_row_for);
UnaryRowF32 unary_row_f32_narrow(UnaryOp op) { return HWY_DYNAMIC_DISPATCH(narrow_row_for)(op); }
}  // namespace tir
#endif  // HWY_ONCE
