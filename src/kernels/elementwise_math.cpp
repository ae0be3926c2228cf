#include "kernels/elementwise_math.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/dispatch.h"
#include "core/wrap_int.h"
#include "core/strided.h"
#include "core/thread_pool.h"
#include "kernels/elementwise.h"

// Compiled once per SIMD target (kernels/simd_dispatch.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/elementwise_math.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"

// Scalar helpers the SIMD rows call too: defined once, in the first target pass.
#ifndef TIR_ELEMENTWISE_MATH_HELPERS_
#define TIR_ELEMENTWISE_MATH_HELPERS_
namespace tir {
namespace {

// The float64 function of each floating op (also the float32 scalar reference,
// computed in double and rounded once).
double ref(MathUnaryOp op, double x, const MathParams& p) {
  switch (op) {
    case MathUnaryOp::Acos: return std::acos(x);
    case MathUnaryOp::Acosh: return std::acosh(x);
    case MathUnaryOp::Asin: return std::asin(x);
    case MathUnaryOp::Asinh: return std::asinh(x);
    case MathUnaryOp::Atan: return std::atan(x);
    case MathUnaryOp::Atanh: return std::atanh(x);
    case MathUnaryOp::Cosh: return std::cosh(x);
    case MathUnaryOp::Sinh: return std::sinh(x);
    case MathUnaryOp::Tan: return std::tan(x);
    case MathUnaryOp::Erfc: return std::erfc(x);
    case MathUnaryOp::Erfinv: return erfinv_ref(x);
    case MathUnaryOp::Exp2: return std::exp2(x);
    case MathUnaryOp::Log10: return std::log10(x);
    default: return x;
  }
}

// Inputs (as doubles) inside Highway's documented float64 valid range; the
// others (NaN, +-inf, outside the domain) take the scalar path.
[[maybe_unused]] bool in_simd_range(MathUnaryOp op, float x) {
  switch (op) {
    case MathUnaryOp::Acos: case MathUnaryOp::Asin: return x >= -1.f && x <= 1.f;
    case MathUnaryOp::Acosh: return x >= 1.f && x <= std::numeric_limits<float>::max();
    case MathUnaryOp::Atanh: return x > -1.f && x < 1.f;
    case MathUnaryOp::Log10: return x > 0.f && x <= std::numeric_limits<float>::max();
    case MathUnaryOp::Sinh: return x >= -709.f && x <= 709.f;
    default: return std::isfinite(x);  // asinh, atan, sinh (float's range is inside double's)
  }
}

}  // namespace
}  // namespace tir
#endif  // TIR_ELEMENTWISE_MATH_HELPERS_

// Highway 1.0.3 (Debian's) has no float64 contrib/math and no float <-> double
// PromoteTo/DemoteTo on its WASM target, HWY_SCALAR's DemoteTo saturates
// (sinh(100) would give FLT_MAX) and EMU128's converts NaN to int32 with undefined
// behaviour: there the scalar path runs.
#undef TIR_MATH_SIMD
#if HWY_TARGET == HWY_WASM || HWY_TARGET == HWY_WASM_EMU256 || HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128 || !HWY_HAVE_FLOAT64
#define TIR_MATH_SIMD 0
#else
#define TIR_MATH_SIMD 1
#endif

// ---- the Highway SIMD path (float32, contiguous rows) ----
// Highway's float32 functions measure 1.2-3.3 ulp (worse than PyTorch's Sleef
// u10), so float32 lanes are widened to float64, evaluated with Highway's
// float64 function (2-4 ulp of a double) and rounded once: <= 0.5 ulp + 2^-28.
HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {
#if TIR_MATH_SIMD
namespace {

namespace hn = hwy::HWY_NAMESPACE;
using D = hn::ScalableTag<double>;
using DF = hn::Rebind<float, D>;  // as many float lanes as D has doubles
using V = hn::Vec<D>;

template <MathUnaryOp kOp> HWY_INLINE V apply(D d, V x) {
  if constexpr (kOp == MathUnaryOp::Acos) return hn::Acos(d, x);
  else if constexpr (kOp == MathUnaryOp::Acosh) return hn::Acosh(d, x);
  else if constexpr (kOp == MathUnaryOp::Asin) return hn::Asin(d, x);
  else if constexpr (kOp == MathUnaryOp::Asinh) return hn::Asinh(d, x);
  else if constexpr (kOp == MathUnaryOp::Atan) return hn::Atan(d, x);
  else if constexpr (kOp == MathUnaryOp::Atanh) return hn::Atanh(d, x);
  else if constexpr (kOp == MathUnaryOp::Sinh) return hn::Sinh(d, x);
  else return hn::Log10(d, x);
}

template <MathUnaryOp kOp> HWY_INLINE void block(const float* x, float* y) {
  const D d;
  const DF df;
  hn::StoreU(hn::DemoteTo(df, apply<kOp>(d, hn::PromoteTo(d, hn::LoadU(df, x)))), df, y);
}

// y[0, n) = op(x[0, n)); the tail goes through a padded block so every
// element sees the same code. `fix` recomputes lanes outside Highway's valid
// range from a copy of each block's inputs (y may be x: in place).
template <MathUnaryOp kOp, typename Fix> void row(const float* x, float* y, int64_t n, Fix fix) {
  const D d;
  const int64_t L = int64_t(hn::Lanes(d));
  float in[HWY_MAX_BYTES / sizeof(double)], out[HWY_MAX_BYTES / sizeof(double)];
  for (int64_t i = 0; i < n; i += L) {
    const int64_t m = std::min(L, n - i);
    for (int64_t k = 0; k < L; ++k) in[k] = k < m ? x[i + k] : 1.0f;
    block<kOp>(in, out);
    for (int64_t k = 0; k < m; ++k) {
      y[i + k] = out[k];
      fix(in[k], y + i + k);
    }
  }
}

}  // namespace

// y[0, n) = op(x[0, n)) for the ops simd_capable() lists; lanes outside
// Highway's valid range are recomputed by the scalar reference.
template <MathUnaryOp kOp> void simd_row_op(const float* x, float* y, int64_t n, const MathParams& p) {
  row<kOp>(x, y, n, [&p](float v, float* out) {
    if (!in_simd_range(kOp, v)) *out = float(ref(kOp, double(v), p));
  });
}
void simd_row(MathUnaryOp op, const float* x, float* y, int64_t n, const MathParams& p) {
  switch (op) {
    case MathUnaryOp::Acos: return simd_row_op<MathUnaryOp::Acos>(x, y, n, p);
    case MathUnaryOp::Acosh: return simd_row_op<MathUnaryOp::Acosh>(x, y, n, p);
    case MathUnaryOp::Asin: return simd_row_op<MathUnaryOp::Asin>(x, y, n, p);
    case MathUnaryOp::Asinh: return simd_row_op<MathUnaryOp::Asinh>(x, y, n, p);
    case MathUnaryOp::Atan: return simd_row_op<MathUnaryOp::Atan>(x, y, n, p);
    case MathUnaryOp::Atanh: return simd_row_op<MathUnaryOp::Atanh>(x, y, n, p);
    case MathUnaryOp::Sinh: return simd_row_op<MathUnaryOp::Sinh>(x, y, n, p);
    default: return simd_row_op<MathUnaryOp::Log10>(x, y, n, p);
  }
}
#else
void simd_row(MathUnaryOp, const float*, float*, int64_t, const MathParams&) {}
#endif  // TIR_MATH_SIMD
bool has_simd_math() { return TIR_MATH_SIMD; }

}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tir {

HWY_EXPORT(simd_row);
HWY_EXPORT(has_simd_math);
namespace {

constexpr int64_t kCheapGrain = int64_t(1) << 16;
constexpr int64_t kCostlyGrain = int64_t(1) << 13;

// Calls f(offsets, count, strides) over out's elements row by row (strides of
// out and the operands coalesced); fully contiguous operands split across threads.
template <size_t N, typename F>
void for_rows(const Tensor& out, const std::array<const Tensor*, N - 1>& ins, int64_t grain, F&& f) {
  DimVec shape = out.shape;
  std::array<DimVec, N> st;
  st[0] = out.strides;
  for (size_t k = 1; k < N; ++k) st[k] = ins[k - 1]->strides;
  std::array<DimVec*, N> ptrs;
  for (size_t k = 0; k < N; ++k) ptrs[k] = &st[k];
  coalesce_in_place<DimVec, N>(shape, ptrs);
  std::array<const int64_t*, N> sp;
  for (size_t k = 0; k < N; ++k) sp[k] = st[k].data();
  bool contiguous = shape.size() == 1;
  for (size_t k = 0; k < N && contiguous; ++k) contiguous = st[k][0] == 1;
  if (contiguous && shape[0] >= 2 * grain) {
    parallel_for(shape[0], grain, [&](int64_t b, int64_t e) {
      std::array<int64_t, N> off, one;
      off.fill(b);
      one.fill(1);
      f(off, e - b, one);
    });
    return;
  }
  for_each_row<N>(shape, sp, std::array<int64_t, N>{}, f);
}

template <typename T, typename F> void map1(const Tensor& out, const Tensor& in, int64_t grain, F f) {
  T* po = out.data<T>();
  const T* pi = in.data<T>();
  for_rows<2>(out, {&in}, grain, [&](std::array<int64_t, 2> off, int64_t n, std::array<int64_t, 2> s) {
    for (int64_t k = 0; k < n; ++k) po[off[0] + k * s[0]] = f(pi[off[1] + k * s[1]]);
  });
}

template <typename T, typename F>
void map2(const Tensor& out, const Tensor& a, const Tensor& b, int64_t grain, F f) {
  T* po = out.data<T>();
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  for_rows<3>(out, {&a, &b}, grain, [&](std::array<int64_t, 3> off, int64_t n, std::array<int64_t, 3> s) {
    for (int64_t k = 0; k < n; ++k) po[off[0] + k * s[0]] = f(pa[off[1] + k * s[1]], pb[off[2] + k * s[2]]);
  });
}

template <typename T, typename F>
void map3(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c, F f) {
  T* po = out.data<T>();
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  const T* pc = c.data<T>();
  for_rows<4>(out, {&a, &b, &c}, kCheapGrain,
              [&](std::array<int64_t, 4> off, int64_t n, std::array<int64_t, 4> s) {
                for (int64_t k = 0; k < n; ++k)
                  po[off[0] + k * s[0]] = f(pa[off[1] + k * s[1]], pb[off[2] + k * s[2]], pc[off[3] + k * s[3]]);
              });
}


bool simd_capable(MathUnaryOp op) {
  if (!HWY_DYNAMIC_DISPATCH(has_simd_math)()) return false;
  switch (op) {
    case MathUnaryOp::Acos: case MathUnaryOp::Acosh: case MathUnaryOp::Asin: case MathUnaryOp::Asinh:
    case MathUnaryOp::Atan: case MathUnaryOp::Atanh: case MathUnaryOp::Sinh: case MathUnaryOp::Log10:
      return true;
    default: return false;
  }
}
// Ops whose SIMD path Auto picks: all measure 0.5 ulp like the scalar path
// (tests/cpp/unit/ops_elementwise_math_test.cpp: EwMath.SimdUlpSweep, which also
// times both); asin, acosh and atanh were no faster through float64 lanes (AVX2).
bool simd_ok(MathUnaryOp op) {
  return simd_capable(op) && op != MathUnaryOp::Asin && op != MathUnaryOp::Acosh && op != MathUnaryOp::Atanh;
}


void simd_unary(MathUnaryOp op, const Tensor& out, const Tensor& in, const MathParams& p) {
  float* po = out.data<float>();
  const float* pi = in.data<float>();
  for_rows<2>(out, {&in}, kCostlyGrain, [&](std::array<int64_t, 2> off, int64_t n, std::array<int64_t, 2> s) {
    if (s[0] == 1 && s[1] == 1) return HWY_DYNAMIC_DISPATCH(simd_row)(op, pi + off[1], po + off[0], n, p);
    for (int64_t k = 0; k < n; ++k) po[off[0] + k * s[0]] = float(ref(op, double(pi[off[1] + k * s[1]]), p));
  });
}

template <typename T> void unary_typed(MathUnaryOp op, const Tensor& out, const Tensor& in, const MathParams& p) {
  constexpr bool kFloat = std::is_floating_point_v<T>;
  if constexpr (kFloat) {
    switch (op) {
      case MathUnaryOp::Frac: return map1<T>(out, in, kCheapGrain, [](T x) { return x - std::trunc(x); });
      case MathUnaryOp::Hardshrink: {
        const T l = T(p.a);
        return map1<T>(out, in, kCheapGrain, [l](T x) { return (x >= -l && x <= l) ? T(0) : x; });
      }
      case MathUnaryOp::Softshrink: {
        const T l = T(p.a);
        return map1<T>(out, in, kCheapGrain, [l](T x) { return x > l ? x - l : x < -l ? x + l : T(0); });
      }
      case MathUnaryOp::Threshold: {
        const T th = T(p.a), v = T(p.b);
        return map1<T>(out, in, kCheapGrain, [th, v](T x) { return x <= th ? v : x; });
      }
      default:
        return map1<T>(out, in, kCostlyGrain, [op, &p](T x) { return T(ref(op, double(x), p)); });
    }
  } else if constexpr (!std::is_same_v<T, bool>) {
    if (op == MathUnaryOp::Threshold) {
      const T th = p.a_is_int ? T(p.ia) : convert<T>(p.a), v = p.b_is_int ? T(p.ib) : convert<T>(p.b);
      return map1<T>(out, in, kCheapGrain, [th, v](T x) { return x <= th ? v : x; });
    }
  }
  throw ExecutionError(std::string("math kernel: op not supported for dtype ") + dtype_name(in.dtype));
}

// torch >= 2.1 (defined for every count): a << b is 0 for b outside [0, bits);
// a >> b is the sign fill (a >> bits-1) there.
template <typename T> T shift_left(T a, T b) {
  constexpr int64_t bits = int64_t(sizeof(T)) * 8;
  if (int64_t(b) < 0 || int64_t(b) >= bits) return T(0);
  return T(std::make_unsigned_t<T>(a) << int(b));
}
template <typename T> T shift_right(T a, T b) {
  constexpr int64_t bits = int64_t(sizeof(T)) * 8;
  if (int64_t(b) < 0 || int64_t(b) >= bits) {
    if constexpr (std::is_signed_v<T>) return T(a >> (bits - 1));
    else return T(0);
  }
  return T(a >> int(b));
}

template <typename T> void binary_typed(MathBinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case MathBinaryOp::Atan2:
        return map2<T>(out, a, b, kCostlyGrain, [](T x, T y) { return T(std::atan2(double(x), double(y))); });
      case MathBinaryOp::Hypot:
        return map2<T>(out, a, b, kCostlyGrain, [](T x, T y) { return T(std::hypot(double(x), double(y))); });
      case MathBinaryOp::Copysign:
        return map2<T>(out, a, b, kCheapGrain, [](T x, T y) { return std::copysign(x, y); });
      default: break;
    }
  } else if constexpr (!std::is_same_v<T, bool>) {
    if (op == MathBinaryOp::ShiftLeft) return map2<T>(out, a, b, kCheapGrain, shift_left<T>);
    if (op == MathBinaryOp::ShiftRight) return map2<T>(out, a, b, kCheapGrain, shift_right<T>);
  }
  throw ExecutionError(std::string("math kernel: binary op not supported for dtype ") + dtype_name(a.dtype));
}

}  // namespace

double erfinv_ref(double y) {
  constexpr double a[4] = {0.886226899, -1.645349621, 0.914624893, -0.140543331};
  constexpr double b[4] = {-2.118377725, 1.442710462, -0.329097515, 0.012229801};
  constexpr double c[4] = {-1.970840454, -1.624906493, 3.429567803, 1.641345311};
  constexpr double d[2] = {3.543889200, 1.637067800};
  const double ay = std::abs(y);
  if (ay > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (ay == 1.0) return std::copysign(std::numeric_limits<double>::infinity(), y);
  double x;
  if (ay <= 0.7) {
    const double z = y * y;
    const double num = ((a[3] * z + a[2]) * z + a[1]) * z + a[0];
    const double dem = (((b[3] * z + b[2]) * z + b[1]) * z + b[0]) * z + 1.0;
    x = y * num / dem;
  } else {
    const double z = std::sqrt(-std::log((1.0 - ay) / 2.0));
    const double num = ((c[3] * z + c[2]) * z + c[1]) * z + c[0];
    const double dem = (d[1] * z + d[0]) * z + 1.0;
    x = std::copysign(num, y) / dem;
  }
  const double k = 2.0 / std::sqrt(3.14159265358979323846);
  x = x - (std::erf(x) - y) / (k * std::exp(-x * x));
  x = x - (std::erf(x) - y) / (k * std::exp(-x * x));
  return x;
}

bool math_unary_uses_simd(MathUnaryOp op) { return simd_ok(op); }

void math_unary_kernel(MathUnaryOp op, const Tensor& out, const Tensor& in, const MathParams& p, MathPath path) {
  if (in.dtype == DType::F32 && simd_capable(op) &&
      (path == MathPath::Simd || (path == MathPath::Auto && simd_ok(op))))
    return simd_unary(op, out, in, p);
  dispatch_compute(in.dtype, [&](auto tag) { unary_typed<decltype(tag)>(op, out, in, p); });
}

void math_binary_kernel(MathBinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, MathPath) {
  dispatch_compute(a.dtype, [&](auto tag) { binary_typed<decltype(tag)>(op, out, a, b); });
}

void addc_kernel(bool divide, const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                 const Scalar& value) {
  dispatch_compute(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      const T v = T(value.f);
      if (divide) return map3<T>(out, self, t1, t2, [v](T s, T x, T y) { return s + v * x / y; });
      return map3<T>(out, self, t1, t2, [v](T s, T x, T y) { return s + v * x * y; });
    } else if constexpr (!std::is_same_v<T, bool>) {
      const T v = value.is_floating() ? convert<T>(value.f) : T(value.i);
      if (!divide)
        return map3<T>(out, self, t1, t2, [v](T s, T x, T y) { return wrap_add(s, wrap_mul(wrap_mul(v, x), y)); });
    }
    throw ExecutionError(std::string("addcmul/addcdiv kernel: not supported for dtype ") + dtype_name(out.dtype));
  });
}

void lerp_kernel(const Tensor& out, const Tensor& self, const Tensor& end, const Tensor& weight) {
  dispatch_compute(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      return map3<T>(out, self, end, weight, [](T s, T e, T w) {
        return std::abs(w) < T(0.5) ? s + w * (e - s) : e - (e - s) * (T(1) - w);
      });
    } else {
      throw ExecutionError(std::string("lerp kernel: not supported for dtype ") + dtype_name(out.dtype));
    }
  });
}

}  // namespace tir
#endif  // HWY_ONCE
