// Float32 transcendental row kernels through float64 lanes (see elementwise_simd.h):
// every op is evaluated in double with Highway's float64 functions and rounded
// to float once. Formulas are rearranged where the float32 one cancels
// (1 + tanh(u) = 2 / (1 + exp(-2u)), 1 + erf(z) = erfc(-z)); infinities follow
// the scalar reference (torch's float formulas), NaN stays NaN.
#include <limits>

#include "kernels/elementwise_simd.h"

// Compiled once per SIMD target (kernels/simd_dispatch.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/elementwise_simd_f64.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"
#include "kernels/simd_rows-inl.h"  // unary_row
// No float64 math on WASM (there: the float32-lane rows of unary_row_f32_narrow);
// the emulated fallbacks keep the scalar reference: HWY_SCALAR's DemoteTo saturates
// where the float overflows (exp(100) would give FLT_MAX, not inf), and EMU128's
// converts NaN to int32 with undefined behaviour (Exp's range reduction; UBSan).
#undef TIR_WIDENED_SIMD
#if HWY_TARGET == HWY_WASM || HWY_TARGET == HWY_WASM_EMU256 || HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128 || !HWY_HAVE_FLOAT64
#define TIR_WIDENED_SIMD 0
#else
#define TIR_WIDENED_SIMD 1
#endif
#if TIR_WIDENED_SIMD
#include "kernels/erfc_f64-inl.h"
#endif

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {
#if !TIR_WIDENED_SIMD
#if HWY_TARGET == HWY_WASM || HWY_TARGET == HWY_WASM_EMU256
// WASM: the float32-lane rows (elementwise_simd_f32math.cpp) where they exist.
UnaryRowF32 widened_row_for(UnaryOp op) { return unary_row_f32_narrow(op); }
#else
UnaryRowF32 widened_row_for(UnaryOp) { return nullptr; }
#endif
#else

namespace {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<double>;
using DFh = hn::Rebind<float, D>;  // as many float lanes as D has doubles
using V = hn::Vec<D>;

// Highway's Exp/Expm1 are valid up to 706 (float64); above, the float result
// is +inf anyway.
constexpr double kExpMax = 706.0;
HWY_INLINE V exp_clamped(D d, V t) { return hn::Exp(d, hn::Min(t, hn::Set(d, kExpMax))); }
HWY_INLINE V nan_if_neg_inf(D d, V x, V r) {
  return hn::IfThenElse(hn::Eq(x, hn::Set(d, -std::numeric_limits<double>::infinity())),
                        hn::Set(d, std::numeric_limits<double>::quiet_NaN()), r);
}
HWY_INLINE V one(D d) { return hn::Set(d, 1.0); }

struct ExpOp {
  RowParams p;
  V operator()(D d, V x) const { return exp_clamped(d, x); }
};
struct LogOp {  // Highway's Log is valid on (0, DBL_MAX]: zero, negatives and +inf by hand
  RowParams p;
  V operator()(D d, V x) const {
    constexpr double inf = std::numeric_limits<double>::infinity();
    const V r = hn::Log(d, x);
    const V z = hn::Zero(d);
    return hn::IfThenElse(hn::Eq(x, z), hn::Set(d, -inf),
                          hn::IfThenElse(hn::Lt(x, z), hn::Set(d, std::numeric_limits<double>::quiet_NaN()),
                                         hn::IfThenElse(hn::Eq(x, hn::Set(d, inf)), x, r)));
  }
};
struct TanhOp {
  RowParams p;
  V operator()(D d, V x) const { return hn::Tanh(d, x); }
};
struct SigmoidOp {
  RowParams p;
  V operator()(D d, V x) const { return hn::Div(one(d), hn::Add(one(d), exp_clamped(d, hn::Neg(x)))); }
};
struct SiluOp {  // x / (1 + exp(-x)); -inf gives NaN as torch's -inf / inf
  RowParams p;
  V operator()(D d, V x) const {
    return nan_if_neg_inf(d, x, hn::Div(x, hn::Add(one(d), exp_clamped(d, hn::Neg(x)))));
  }
};
struct GeluTanhOp {  // 0.5 x (1 + tanh(u)) = x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3)
  RowParams p;
  V operator()(D d, V x) const {
    const V x3 = hn::Mul(hn::Mul(x, x), x);
    const V u2 = hn::Mul(hn::Set(d, 2.0 * 0.79788456080286535588), hn::Add(x, hn::Mul(hn::Set(d, 0.044715), x3)));
    return nan_if_neg_inf(d, x, hn::Div(x, hn::Add(one(d), exp_clamped(d, hn::Neg(u2)))));
  }
};
struct GeluOp {  // 0.5 x (1 + erf(x / sqrt 2)) = 0.5 x erfc(-x / sqrt 2); -inf gives NaN as torch
  RowParams p;
  V operator()(D d, V x) const {
    const V e = erfc_f64(d, hn::Mul(x, hn::Set(d, -0.70710678118654752440)));
    return nan_if_neg_inf(d, x, hn::Mul(hn::Mul(hn::Set(d, 0.5), x), e));
  }
};
struct EluOp {  // x <= 0 ? expm1(x * input_scale) * alpha * scale : x * scale; +-0 keeps its sign
  RowParams p;
  V operator()(D d, V x) const {
    const V neg = hn::Mul(hn::Expm1(d, hn::Min(hn::Mul(x, hn::Set(d, p.c)), hn::Set(d, kExpMax))), hn::Set(d, p.a));
    const V r = hn::IfThenElse(hn::Le(x, hn::Zero(d)), neg, hn::Mul(x, hn::Set(d, p.b)));
    return hn::IfThenElse(hn::Eq(x, hn::Zero(d)), hn::Mul(x, hn::Set(d, p.a)), r);
  }
};
struct SoftplusOp {  // float(x * beta) > threshold ? x : log1p(exp(x * beta)) / beta
  RowParams p;
  V operator()(D d, V x) const {
    const V t = hn::Mul(x, hn::Set(d, p.a));
    // The threshold test on the float product, as the scalar code makes it.
    const V t_float = hn::PromoteTo(d, hn::DemoteTo(DFh(), t));
    // log1p(exp(t)) = max(t, 0) + log1p(exp(-|t|)): no overflow for large t.
    const V sp = hn::Add(hn::Max(t, hn::Zero(d)), hn::Log1p(d, hn::Exp(d, hn::Neg(hn::Abs(t)))));
    return hn::IfThenElse(hn::Gt(t_float, hn::Set(d, p.b)), x, hn::Div(sp, hn::Set(d, p.a)));
  }
};
struct MishOp {  // x tanh(log1p(e)) = x n / (n + 2), n = e (e + 2), e = exp(x); tanh is 1 in double past x = 40
  RowParams p;
  V operator()(D d, V x) const {
    const V e = hn::Exp(d, hn::Min(x, hn::Set(d, 40.0)));
    const V n = hn::Mul(e, hn::Add(e, hn::Set(d, 2.0)));
    return hn::Mul(x, hn::Div(n, hn::Add(n, hn::Set(d, 2.0))));
  }
};

// Each float lane widened to double, op applied, rounded once (NaN kept).
template <class Op> struct Widened {
  Op op;
  hn::Vec<DFh> operator()(DFh, hn::Vec<DFh> v) const {
    const D d;
    const V x = hn::PromoteTo(d, v);
    return hn::DemoteTo(DFh(), hn::IfThenElse(hn::IsNaN(x), x, op(d, x)));
  }
};

template <class Op> void row(float* out, const float* in, int64_t n, const RowParams& p) {
  unary_row(DFh(), Widened<Op>{Op{p}}, out, in, n);
}

}  // namespace

UnaryRowF32 widened_row_for(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp: return &row<ExpOp>;
    case UnaryOp::Log: return &row<LogOp>;
    case UnaryOp::Tanh: return &row<TanhOp>;
    case UnaryOp::Sigmoid: return &row<SigmoidOp>;
    case UnaryOp::Silu: return &row<SiluOp>;
    case UnaryOp::Gelu: return &row<GeluOp>;
    case UnaryOp::GeluTanh: return &row<GeluTanhOp>;
    case UnaryOp::Elu: return &row<EluOp>;
    case UnaryOp::Softplus: return &row<SoftplusOp>;
    case UnaryOp::Mish: return &row<MishOp>;
    default: return nullptr;
  }
}
#endif  // float64 math
}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tir {
HWY_EXPORT(widened_row_for);
UnaryRowF32 unary_row_f32_widened(UnaryOp op) { return HWY_DYNAMIC_DISPATCH(widened_row_for)(op); }
}  // namespace tir
#endif  // HWY_ONCE
