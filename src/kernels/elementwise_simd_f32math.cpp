// Float32 transcendental row kernels in float32 lanes, for targets without
// float64 SIMD math (WASM: Highway 1.0.3 has none there, see elementwise_simd.h),
// where they replace the scalar path. Each is at least as accurate as the
// scalar reference it replaces (std:: float functions in torch's formulas),
// measured against float64 by tests/cpp/unit/ops_elementwise_simd_test.cpp:
// - exp, sigmoid, silu: Highway's Exp algorithm (1 ulp) in the reference's formula;
// - gelu: 0.5 x erfc(-x / sqrt 2), erfc from a fitted form (fractional error
//   < 1.2e-7) and an exp for non-positive arguments, instead of 1 + erf, which
//   cancels for negative x (the scalar reference and PyTorch lose most bits there);
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

HWY_INLINE VF one(DF d) { return hn::Set(d, 1.0f); }

// max / min in one instruction each: WASM's f32x4.max and min (NaN and -0
// semantics) cost several under V8, pmax / pmin one (b if a < b / b < a, else
// a: a NaN a stays).
HWY_INLINE VF pmax(DF, VF a, VF b) {
#if HWY_TARGET == HWY_WASM
  return VF{wasm_f32x4_pmax(a.raw, b.raw)};
#else
  return hn::Max(a, b);
#endif
}
HWY_INLINE VF pmin(DF, VF a, VF b) {
#if HWY_TARGET == HWY_WASM
  return VF{wasm_f32x4_pmin(a.raw, b.raw)};
#else
  return hn::Min(a, b);
#endif
}

// e^y for y in [-104, 104] (callers clamp: e^-104 rounds to 0 and e^88.8 is
// already inf, as for every y beyond): Highway's Exp (same reduction and
// polynomial, 1 ulp) without the steps that cost most on WASM: the float-to-int
// conversion (here a rounding by adding 1.5 * 2^23, which leaves n in the low
// mantissa bits) and NaN-aware clamps. 2^n is applied as two factors, so
// results below FLT_MIN come out as the subnormals they are.
HWY_INLINE VF exp_in_range(DF d, VF y) {
  const hn::RebindToSigned<DF> di;
  const VF kShifter = hn::Set(d, 12582912.0f);
  const VF k = hn::MulAdd(y, hn::Set(d, 1.44269504088896341f), kShifter);
  const VF n = hn::Sub(k, kShifter);
  const auto ni = hn::Sub(hn::BitCast(di, k), hn::BitCast(di, kShifter));
  VF r = hn::MulAdd(n, hn::Set(d, -0.693145751953125f), y);  // y - n ln 2 in two parts
  r = hn::MulAdd(n, hn::Set(d, -1.428606765330187045e-6f), r);
  const VF r2 = hn::Mul(r, r), r4 = hn::Mul(r2, r2);
  const VF q01 = hn::MulAdd(hn::Set(d, 0.166666671633720397949219f), r, hn::Set(d, 0.5f));
  const VF q23 = hn::MulAdd(hn::Set(d, 0.00833336077630519866943359f), r, hn::Set(d, 0.0416664853692054748535156f));
  const VF q45 = hn::MulAdd(hn::Set(d, 0.000198527617612853646278381f), r, hn::Set(d, 0.00139304355252534151077271f));
  const VF q = hn::MulAdd(q45, r4, hn::MulAdd(q23, r2, q01));
  const VF e = hn::Add(hn::MulAdd(q, r2, r), one(d));
  const auto n1 = hn::ShiftRight<1>(ni), bias = hn::Set(di, 127);
  const VF s1 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(n1, bias)));
  const VF s2 = hn::BitCast(d, hn::ShiftLeft<23>(hn::Add(hn::Sub(ni, n1), bias)));
  return hn::Mul(hn::Mul(e, s1), s2);
}
HWY_INLINE VF exp_clamped(DF d, VF y) {
  return exp_in_range(d, pmin(d, pmax(d, y, hn::Set(d, -104.0f)), hn::Set(d, 104.0f)));
}

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
// p by Estrin's scheme: a third of Horner's latency (a gelu row is latency-bound).
constexpr float kErfcc[10] = {-1.26551223f, 1.00002368f, 0.37409196f, 0.09678418f, -0.18628806f,
                              0.27886807f,  -1.13520398f, 1.48851587f, -0.82215223f, 0.17087277f};
struct GeluOp {  // 0.5 x erfc(-x / sqrt 2) = h for x <= 0, x - h for x > 0, h = 0.5 x erfc(|x| / sqrt 2)
  VF operator()(DF d, VF x) const {
    const VF a = hn::Mul(hn::Abs(x), hn::Set(d, 0.70710678118654752f));
    const VF t = hn::Div(one(d), hn::MulAdd(hn::Set(d, 0.5f), a, one(d)));
    const VF t2 = hn::Mul(t, t), t4 = hn::Mul(t2, t2), t8 = hn::Mul(t4, t4);
    auto c = [d](int j) { return hn::Set(d, kErfcc[j]); };
    const VF p03 = hn::MulAdd(hn::MulAdd(c(3), t, c(2)), t2, hn::MulAdd(c(1), t, c(0)));
    const VF p47 = hn::MulAdd(hn::MulAdd(c(7), t, c(6)), t2, hn::MulAdd(c(5), t, c(4)));
    const VF p = hn::MulAdd(hn::MulAdd(c(9), t, c(8)), t8, hn::MulAdd(p47, t4, p03));
    // 0.5 x with +inf kept finite, so x = +inf gives inf - 0 (and -inf gives -inf * 0 = NaN,
    // the reference's -inf * (1 + erf(-inf))). a^2 as x * (x / 2): one rounding.
    const VF hx = hn::Mul(hn::Set(d, 0.5f), pmin(d, x, hn::Set(d, std::numeric_limits<float>::max())));
    // p - x^2 / 2 <= p(1) < 1e-7: no upper clamp (one instruction fewer, and a
    // measured 30% on WASM: the unrolled row's registers).
    const VF y = pmax(d, hn::NegMulAdd(hx, x, p), hn::Set(d, -104.0f));
    const VF h = hn::Mul(hx, hn::Mul(t, exp_in_range(d, y)));
    return hn::IfThenElse(hn::Gt(x, hn::Zero(d)), hn::Sub(x, h), h);
  }
};

// NaN stays NaN (the clamps above may drop it on some targets).
template <class Op> struct NanKept {
  VF operator()(DF d, VF x) const { return hn::IfThenElse(hn::IsNaN(x), x, Op()(d, x)); }
};

template <class Op> void row(float* out, const float* in, int64_t n, const RowParams&) {
  unary_row<4>(DF(), NanKept<Op>(), out, in, n);
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
