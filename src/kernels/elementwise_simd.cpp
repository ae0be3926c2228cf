#include "kernels/elementwise_simd.h"

#include <cstring>
#include <limits>

// Compiled once per SIMD target (kernels/simd_dispatch.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/elementwise_simd.cpp"
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

// ---- drivers (Transform style) ----
// Whole vectors straight from memory; the tail (and a scalar operand) through
// padded copies, so a row of any length and alignment takes the same lane code.
template <class D> constexpr size_t kMax = HWY_MAX_BYTES / sizeof(hn::TFromD<D>);

template <class Op>
void binary_row(float* out, const float* a, const float* b, int64_t n, RowOperands kind, const RowParams& p) {
  const DF d;
  const Op op{p};
  const int64_t L = int64_t(hn::Lanes(d));
  const int64_t sa = kind == RowOperands::ScalarVec ? 0 : 1, sb = kind == RowOperands::VecScalar ? 0 : 1;
  const auto va_one = hn::Set(d, *a), vb_one = hn::Set(d, *b);
  const auto load = [&](const float* p0, int64_t s, int64_t i, const hn::Vec<DF>& one) {
    return s ? hn::LoadU(d, p0 + i) : one;
  };
  int64_t i = 0;
  for (; i + L <= n; i += L) hn::StoreU(op(d, load(a, sa, i, va_one), load(b, sb, i, vb_one)), d, out + i);
  if (i == n) return;
  HWY_ALIGN float ba[kMax<DF>] = {}, bb[kMax<DF>] = {};
  const size_t rest = size_t(n - i) * sizeof(float);
  if (sa) std::memcpy(ba, a + i, rest);
  if (sb) std::memcpy(bb, b + i, rest);
  const auto va = sa ? hn::Load(d, ba) : va_one, vb = sb ? hn::Load(d, bb) : vb_one;
  hn::Store(op(d, va, vb), d, ba);
  std::memcpy(out + i, ba, rest);
}

template <class Op> void unary_f32(float* out, const float* in, int64_t n, const RowParams& p) {
  unary_row(DF(), Op{p}, out, in, n);
}

// ---- exact ops: the scalar reference's operations, in its order ----
// std::max(x, y) is (x < y) ? y : x and std::min(x, y) is (y < x) ? y : x
// (clamp's scalar code): the selects below keep their NaN and -0.0 results.
template <class D, class V> HWY_INLINE V std_max(D, V x, V y) { return hn::IfThenElse(hn::Lt(x, y), y, x); }
template <class D, class V> HWY_INLINE V std_min(D, V x, V y) { return hn::IfThenElse(hn::Lt(y, x), y, x); }

struct AddOp {
  RowParams p;
  template <class D, class V> V operator()(D, V x, V y) const { return hn::Add(x, y); }
};
struct AddAlphaOp {  // x + alpha * y, not fused (the scalar code is built with -ffp-contract=off)
  RowParams p;
  template <class D, class V> V operator()(D d, V x, V y) const { return hn::Add(x, hn::Mul(hn::Set(d, p.a), y)); }
};
struct MulOp {
  RowParams p;
  template <class D, class V> V operator()(D, V x, V y) const { return hn::Mul(x, y); }
};
struct DivOp {
  RowParams p;
  template <class D, class V> V operator()(D, V x, V y) const { return hn::Div(x, y); }
};
// NaN-propagating (a NaN operand gives x + y); equal operands (+-0) give y.
struct MaximumOp {
  RowParams p;
  template <class D, class V> V operator()(D, V x, V y) const {
    return hn::IfThenElse(hn::Or(hn::IsNaN(x), hn::IsNaN(y)), hn::Add(x, y), hn::IfThenElse(hn::Gt(x, y), x, y));
  }
};
struct MinimumOp {
  RowParams p;
  template <class D, class V> V operator()(D, V x, V y) const {
    return hn::IfThenElse(hn::Or(hn::IsNaN(x), hn::IsNaN(y)), hn::Add(x, y), hn::IfThenElse(hn::Lt(x, y), x, y));
  }
};

struct ReluOp {  // x < 0 ? 0 : x (NaN and -0.0 stay)
  RowParams p;
  template <class D, class V> V operator()(D d, V x) const { return hn::IfThenZeroElse(hn::Lt(x, hn::Zero(d)), x); }
};
struct NegOp {
  RowParams p;
  template <class D, class V> V operator()(D, V x) const { return hn::Neg(x); }
};
struct AbsOp {
  RowParams p;
  template <class D, class V> V operator()(D, V x) const { return hn::Abs(x); }
};
struct ClampOp {  // NaN stays NaN: both compares are false
  RowParams p;
  template <class D, class V> V operator()(D d, V x) const {
    return std_min(d, std_max(d, x, hn::Set(d, p.a)), hn::Set(d, p.b));
  }
};
struct LeakyReluOp {
  RowParams p;
  template <class D, class V> V operator()(D d, V x) const {
    return hn::IfThenElse(hn::Gt(x, hn::Zero(d)), x, hn::Mul(x, hn::Set(d, p.a)));
  }
};
template <class D, class V> HWY_INLINE V relu6_of_x_plus_3(D d, V x) {
  return std_min(d, std_max(d, hn::Add(x, hn::Set(d, 3.0f)), hn::Zero(d)), hn::Set(d, 6.0f));
}
struct HardswishOp {  // x * min(max(x + 3, 0), 6) / 6
  RowParams p;
  template <class D, class V> V operator()(D d, V x) const {
    return hn::Div(hn::Mul(x, relu6_of_x_plus_3(d, x)), hn::Set(d, 6.0f));
  }
};
struct HardsigmoidOp {
  RowParams p;
  template <class D, class V> V operator()(D d, V x) const { return hn::Div(relu6_of_x_plus_3(d, x), hn::Set(d, 6.0f)); }
};
struct SqrtOp {
  RowParams p;
  template <class D, class V> V operator()(D, V x) const { return hn::Sqrt(x); }
};
struct RsqrtOp {  // 1 / sqrt(x), both correctly rounded (no approximate rsqrt)
  RowParams p;
  template <class D, class V> V operator()(D d, V x) const { return hn::Div(hn::Set(d, 1.0f), hn::Sqrt(x)); }
};
struct ReciprocalOp {
  RowParams p;
  template <class D, class V> V operator()(D d, V x) const { return hn::Div(hn::Set(d, 1.0f), x); }
};

}  // namespace

// This target's row kernels (the public functions below pick the target).
BinaryRowF32 binary_row_for(BinaryOp op, float alpha) {
  switch (op) {
    case BinaryOp::Add: return alpha == 1.0f ? &binary_row<AddOp> : &binary_row<AddAlphaOp>;
    case BinaryOp::Mul: return &binary_row<MulOp>;
    case BinaryOp::Div: return &binary_row<DivOp>;
    case BinaryOp::Maximum: return &binary_row<MaximumOp>;
    case BinaryOp::Minimum: return &binary_row<MinimumOp>;
    default: return nullptr;
  }
}

UnaryRowF32 unary_row_for(UnaryOp op) {
  switch (op) {
    case UnaryOp::Relu: return &unary_f32<ReluOp>;
    case UnaryOp::Neg: return &unary_f32<NegOp>;
    case UnaryOp::Abs: return &unary_f32<AbsOp>;
    case UnaryOp::Clamp: return &unary_f32<ClampOp>;
    case UnaryOp::LeakyRelu: return &unary_f32<LeakyReluOp>;
    case UnaryOp::Hardswish: return &unary_f32<HardswishOp>;
    case UnaryOp::Hardsigmoid: return &unary_f32<HardsigmoidOp>;
    case UnaryOp::Sqrt: return &unary_f32<SqrtOp>;
    case UnaryOp::Rsqrt: return &unary_f32<RsqrtOp>;
    case UnaryOp::Reciprocal: return &unary_f32<ReciprocalOp>;
    default: return nullptr;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tir {

HWY_EXPORT(binary_row_for);
HWY_EXPORT(unary_row_for);

BinaryRowF32 binary_row_f32(BinaryOp op, float alpha) { return HWY_DYNAMIC_DISPATCH(binary_row_for)(op, alpha); }

UnaryRowF32 unary_row_f32(UnaryOp op) {
  if (UnaryRowF32 f = HWY_DYNAMIC_DISPATCH(unary_row_for)(op)) return f;
  return unary_row_f32_widened(op);
}

}  // namespace tir
#endif  // HWY_ONCE
