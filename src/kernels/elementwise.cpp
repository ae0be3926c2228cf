#include "kernels/elementwise.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/dispatch.h"
#include "core/wrap_int.h"
#include "kernels/elementwise_simd.h"
#include "kernels/parallel.h"
#include "core/strided.h"

namespace tir {

namespace {

constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kGeluTanhBeta = 0.79788456080286535588;  // sqrt(2/pi)

// Elements per task: cheap maps (add, compare) vs transcendental ones (exp, erf).
constexpr int64_t kCheapGrain = int64_t(1) << 16;
constexpr int64_t kCostlyGrain = int64_t(1) << 13;

// for_each_row over a coalesced shape, with the flat element range [0, numel)
// split across threads; each task starts mid-row at its first element.
// Operand 0 is the output: when it has a 0 stride (one element written from
// several positions) the loop stays serial so the last write wins as before.
template <size_t N, typename F>
void for_each_row_parallel(const DimVec& shape, const std::array<const int64_t*, N>& strides, int64_t grain, F&& f) {
  const size_t nd = shape.size();
  int64_t total = 1;  // the coalesced shape of a planned value: no overflow
  for (int64_t v : shape) total *= v;
  bool serial = nd == 0 || total < 2 * grain || num_threads() == 1;
  for (size_t d = 0; d < nd && !serial; ++d) serial = strides[0][d] == 0;
  if (serial) {
    std::array<int64_t, N> base{};
    for_each_row<N>(shape, strides, base, f);
    return;
  }
  const int64_t inner = shape[nd - 1];
  std::array<int64_t, N> inner_strides;
  for (size_t k = 0; k < N; ++k) inner_strides[k] = strides[k][nd - 1];
  parallel_for(total, grain, [&](int64_t begin, int64_t end) {
    DimVec idx(nd);
    std::array<int64_t, N> off{};
    int64_t rem = begin;
    for (size_t d = nd; d-- > 0;) {
      idx[d] = rem % shape[d];
      rem /= shape[d];
      for (size_t k = 0; k < N; ++k) off[k] += idx[d] * strides[k][d];
    }
    for (int64_t pos = begin; pos < end;) {
      const int64_t count = std::min(inner - idx[nd - 1], end - pos);
      f(off, count, inner_strides);
      pos += count;
      if (pos == end) break;
      // The row is finished: back to its start, then carry into the outer dims.
      for (size_t k = 0; k < N; ++k) off[k] -= idx[nd - 1] * strides[k][nd - 1];
      idx[nd - 1] = 0;
      for (size_t d = nd - 1; d-- > 0;) {
        if (++idx[d] < shape[d]) {
          for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
          break;
        }
        for (size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * (shape[d] - 1);
        idx[d] = 0;
      }
    }
  });
}

// Float32 maps take a SIMD row kernel `row` (elementwise_simd.h; nullptr: none)
// for rows whose output is contiguous and whose operands are contiguous or one
// broadcast element; other rows (strided views) take the scalar reference `f`.
template <typename O, typename T>
constexpr bool kSimdRows = std::is_same_v<O, float> && std::is_same_v<T, float>;

template <typename O, typename T, typename F>
void map2(const Tensor& out, const Tensor& a, const Tensor& b, F f, BinaryRowF32 row = nullptr,
          const RowParams& rp = {}) {
  DimVec shape = out.shape, so = out.strides, sa = a.strides, sb = b.strides;
  coalesce_in_place<DimVec, 3>(shape, {&so, &sa, &sb});
  O* po = out.data<O>();
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  for_each_row_parallel<3>(shape, {so.data(), sa.data(), sb.data()}, kCheapGrain,
                           [&](std::array<int64_t, 3> off, int64_t n, std::array<int64_t, 3> s) {
                    O* o = po + off[0];
                    const T* x = pa + off[1];
                    const T* y = pb + off[2];
                    if constexpr (kSimdRows<O, T>) {
                      if (row && s[0] == 1 && (s[1] == 1 || s[1] == 0) && (s[2] == 1 || s[2] == 0) && s[1] + s[2] > 0)
                        return row(o, x, y, n, !s[1] ? RowOperands::ScalarVec : !s[2] ? RowOperands::VecScalar
                                                                                 : RowOperands::VecVec, rp);
                    }
                    if (s[0] == 1 && s[1] == 1 && s[2] == 1) {
                      for (int64_t k = 0; k < n; ++k) o[k] = f(x[k], y[k]);
                    } else if (s[0] == 1 && s[1] == 1 && s[2] == 0) {
                      const T yv = *y;
                      for (int64_t k = 0; k < n; ++k) o[k] = f(x[k], yv);
                    } else if (s[0] == 1 && s[1] == 0 && s[2] == 1) {
                      const T xv = *x;
                      for (int64_t k = 0; k < n; ++k) o[k] = f(xv, y[k]);
                    } else {
                      for (int64_t k = 0; k < n; ++k) o[k * s[0]] = f(x[k * s[1]], y[k * s[2]]);
                    }
                  });
}

template <typename O, typename T, typename F>
void map1(const Tensor& out, const Tensor& in, F f, int64_t grain = kCheapGrain, UnaryRowF32 row = nullptr,
          const RowParams& rp = {}) {
  DimVec shape = out.shape, so = out.strides, si = in.strides;
  coalesce_in_place<DimVec, 2>(shape, {&so, &si});
  O* po = out.data<O>();
  const T* pi = in.data<T>();
  for_each_row_parallel<2>(shape, {so.data(), si.data()}, grain,
                           [&](std::array<int64_t, 2> off, int64_t n, std::array<int64_t, 2> s) {
                    O* o = po + off[0];
                    const T* x = pi + off[1];
                    if (s[0] == 1 && s[1] == 1) {
                      if constexpr (kSimdRows<O, T>) {
                        if (row) return row(o, x, n, rp);
                      }
                      for (int64_t k = 0; k < n; ++k) o[k] = f(x[k]);
                    } else {
                      for (int64_t k = 0; k < n; ++k) o[k * s[0]] = f(x[k * s[1]]);
                    }
                  });
}

template <typename T> T int_pow(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {  // torch's powi: only |a| == 1 survives a negative exponent
      if (a == 1) return 1;
      if (a == -1) return (b % 2) ? T(-1) : T(1);
      return 0;
    }
  }
  T r = 1;
  uint64_t e = uint64_t(b);
  while (e) {
    if (e & 1) r = wrap_mul(r, a);
    a = wrap_mul(a, a);
    e >>= 1;
  }
  return r;
}

template <typename T> T float_div_floor(T a, T b) {
  if (b == 0) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
  if (div == 0) return std::copysign(T(0), a / b);
  T fl = std::floor(div);
  if (div - fl > T(0.5)) fl += T(1);
  return fl;
}

template <typename T> T int_div_trunc(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return T(uint64_t(0) - uint64_t(a));  // avoids INT_MIN / -1
  }
  return T(a / b);
}

template <typename T> T int_div_floor(T a, T b) {
  const T q = int_div_trunc(a, b);
  if constexpr (std::is_signed_v<T>) {
    if ((a < 0) != (b < 0) && T(a - q * b) != 0) return T(q - 1);
  }
  return q;
}

template <typename T> T int_remainder(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;  // avoids INT_MIN % -1
  }
  const T r = T(a % b);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (b < 0))) return T(r + b);
  }
  return r;
}

template <typename T> T int_fmod(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return T(a % b);
}

template <typename T> T float_remainder(T a, T b) {
  T mod = std::fmod(a, b);
  if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
  return mod;
}

// `row`: the float32 SIMD row kernel of op, nullptr for the scalar reference.
template <typename T> void binary_typed(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                                        const Scalar& alpha, BinaryRowF32 row) {
  constexpr bool kFloat = std::is_floating_point_v<T>;
  constexpr bool kBool = std::is_same_v<T, bool>;
  // The ops with a SIMD row kernel map through this.
  const auto simd_map = [&](auto f) { return map2<T, T>(out, a, b, f, row, RowParams{float(alpha.f)}); };
  switch (op) {
    case BinaryOp::Add:
      if constexpr (kFloat) {
        const T al = T(alpha.f);
        if (al == T(1)) return simd_map([](T x, T y) { return x + y; });
        return simd_map([al](T x, T y) { return x + al * y; });
      } else if constexpr (kBool) {
        const int64_t al = alpha.i;
        return map2<T, T>(out, a, b, [al](T x, T y) { return (int64_t(x) + al * int64_t(y)) != 0; });
      } else {
        const T al = T(alpha.i);
        return map2<T, T>(out, a, b, [al](T x, T y) { return wrap_add(x, wrap_mul(al, y)); });
      }
    case BinaryOp::Mul:
      if constexpr (kFloat) return simd_map([](T x, T y) { return x * y; });
      else if constexpr (kBool) return map2<T, T>(out, a, b, [](T x, T y) { return x && y; });
      else return map2<T, T>(out, a, b, [](T x, T y) { return wrap_mul(x, y); });
    case BinaryOp::Div:
      if constexpr (kFloat) return simd_map([](T x, T y) { return x / y; });
      break;
    case BinaryOp::DivTrunc:
      if constexpr (kFloat) return map2<T, T>(out, a, b, [](T x, T y) { return std::trunc(x / y); });
      else if constexpr (!kBool) return map2<T, T>(out, a, b, [](T x, T y) { return int_div_trunc(x, y); });
      break;
    case BinaryOp::DivFloor:
      if constexpr (kFloat) return map2<T, T>(out, a, b, [](T x, T y) { return float_div_floor(x, y); });
      else if constexpr (!kBool) return map2<T, T>(out, a, b, [](T x, T y) { return int_div_floor(x, y); });
      break;
    case BinaryOp::Pow:
      if constexpr (kFloat) {
        // A single exponent: torch takes exact shortcuts for these values.
        bool single = true;
        for (auto s : b.strides) single = single && s == 0;
        if (single && b.numel() > 0) {
          const T e = *b.data<T>();
          if (e == T(2)) return map2<T, T>(out, a, b, [](T x, T) { return x * x; });
          if (e == T(3)) return map2<T, T>(out, a, b, [](T x, T) { return x * x * x; });
          if (e == T(0.5)) return map2<T, T>(out, a, b, [](T x, T) { return std::sqrt(x); });
          if (e == T(-0.5)) return map2<T, T>(out, a, b, [](T x, T) { return T(1) / std::sqrt(x); });
          if (e == T(-1)) return map2<T, T>(out, a, b, [](T x, T) { return T(1) / x; });
          if (e == T(-2)) return map2<T, T>(out, a, b, [](T x, T) { return T(1) / (x * x); });
        }
        return map2<T, T>(out, a, b, [](T x, T y) { return std::pow(x, y); });
      } else if constexpr (kBool) {
        return map2<T, T>(out, a, b, [](T x, T y) { return x || !y; });
      } else {
        return map2<T, T>(out, a, b, [](T x, T y) { return int_pow(x, y); });
      }
    case BinaryOp::Maximum:
      if constexpr (kFloat)
        // Equal operands (+-0) give y, as torch's vectorized kernel (x86 max_ps/min_ps).
        return simd_map([](T x, T y) { return (std::isnan(x) || std::isnan(y)) ? x + y : x > y ? x : y; });
      else return map2<T, T>(out, a, b, [](T x, T y) { return std::max(x, y); });
    case BinaryOp::Minimum:
      if constexpr (kFloat)
        return simd_map([](T x, T y) { return (std::isnan(x) || std::isnan(y)) ? x + y : x < y ? x : y; });
      else return map2<T, T>(out, a, b, [](T x, T y) { return std::min(x, y); });
    case BinaryOp::BitAnd:
      if constexpr (kBool) return map2<T, T>(out, a, b, [](T x, T y) { return x && y; });
      else if constexpr (!kFloat) return map2<T, T>(out, a, b, [](T x, T y) { return T(x & y); });
      break;
    case BinaryOp::BitOr:
      if constexpr (kBool) return map2<T, T>(out, a, b, [](T x, T y) { return x || y; });
      else if constexpr (!kFloat) return map2<T, T>(out, a, b, [](T x, T y) { return T(x | y); });
      break;
    case BinaryOp::BitXor:
      if constexpr (kBool) return map2<T, T>(out, a, b, [](T x, T y) { return x != y; });
      else if constexpr (!kFloat) return map2<T, T>(out, a, b, [](T x, T y) { return T(x ^ y); });
      break;
    case BinaryOp::Remainder:
      if constexpr (kFloat) return map2<T, T>(out, a, b, [](T x, T y) { return float_remainder(x, y); });
      else if constexpr (!kBool) return map2<T, T>(out, a, b, [](T x, T y) { return int_remainder(x, y); });
      break;
    case BinaryOp::Fmod:
      if constexpr (kFloat) return map2<T, T>(out, a, b, [](T x, T y) { return std::fmod(x, y); });
      else if constexpr (!kBool) return map2<T, T>(out, a, b, [](T x, T y) { return int_fmod(x, y); });
      break;
    case BinaryOp::Prelu:
      if constexpr (kFloat) return map2<T, T>(out, a, b, [](T x, T w) { return x > T(0) ? x : w * x; });
      break;
    case BinaryOp::MulSigmoid:
      if constexpr (kFloat) return map2<T, T>(out, a, b, [](T x, T y) { return x * (T(1) / (T(1) + std::exp(-y))); });
      break;
    case BinaryOp::Eq: return map2<bool, T>(out, a, b, [](T x, T y) { return x == y; });
    case BinaryOp::Ne: return map2<bool, T>(out, a, b, [](T x, T y) { return x != y; });
    case BinaryOp::Lt: return map2<bool, T>(out, a, b, [](T x, T y) { return x < y; });
    case BinaryOp::Le: return map2<bool, T>(out, a, b, [](T x, T y) { return x <= y; });
    case BinaryOp::Gt: return map2<bool, T>(out, a, b, [](T x, T y) { return x > y; });
    case BinaryOp::Ge: return map2<bool, T>(out, a, b, [](T x, T y) { return x >= y; });
    case BinaryOp::LogicalAnd: return map2<bool, T>(out, a, b, [](T x, T y) { return x != T(0) && y != T(0); });
    case BinaryOp::LogicalOr: return map2<bool, T>(out, a, b, [](T x, T y) { return x != T(0) || y != T(0); });
    case BinaryOp::LogicalXor: return map2<bool, T>(out, a, b, [](T x, T y) { return (x != T(0)) != (y != T(0)); });
  }
  throw ExecutionError(std::string("binary kernel: op not supported for dtype ") + dtype_name(a.dtype));
}

// `row`: the float32 SIMD row kernel of op, nullptr for the scalar reference.
template <typename T>
void unary_typed(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p, UnaryRowF32 row) {
  constexpr bool kFloat = std::is_floating_point_v<T>;
  constexpr bool kBool = std::is_same_v<T, bool>;
  // The ops with a SIMD row kernel map through this; rp holds their constants as floats.
  const auto simd_map = [&](auto f, int64_t grain = kCheapGrain, RowParams rp = {}) {
    return map1<T, T>(out, in, f, grain, row, rp);
  };
  switch (op) {
    case UnaryOp::Relu:
      if constexpr (!kBool) return simd_map([](T x) { return x < T(0) ? T(0) : x; });
      break;
    case UnaryOp::Neg:
      if constexpr (kFloat) return simd_map([](T x) { return -x; });
      else if constexpr (!kBool) return map1<T, T>(out, in, [](T x) { return T(uint64_t(0) - uint64_t(x)); });
      break;
    case UnaryOp::Abs:
      if constexpr (kFloat) return simd_map([](T x) { return std::abs(x); });
      else if constexpr (!kBool) return map1<T, T>(out, in, [](T x) { return x < T(0) ? T(uint64_t(0) - uint64_t(x)) : x; });
      break;
    case UnaryOp::Clamp: {
      if constexpr (!kBool) {
        // Bounds are cast to T like torch's scalar args; NaN input stays NaN.
        const T lo = !p.has_a ? std::numeric_limits<T>::lowest() : p.a_is_int ? convert<T>(p.ia) : convert<T>(p.a);
        const T hi = !p.has_b ? std::numeric_limits<T>::max() : p.b_is_int ? convert<T>(p.ib) : convert<T>(p.b);
        if constexpr (kFloat) {
          const bool lo_nan = p.has_a && std::isnan(p.a), hi_nan = p.has_b && std::isnan(p.b);
          if (lo_nan || hi_nan) return map1<T, T>(out, in, [](T) { return std::numeric_limits<T>::quiet_NaN(); });
          return simd_map([lo, hi](T x) { return std::isnan(x) ? x : std::min(std::max(x, lo), hi); }, kCheapGrain,
                          RowParams{float(lo), float(hi)});
        } else {
          return map1<T, T>(out, in, [lo, hi](T x) { return std::min(std::max(x, lo), hi); });
        }
      }
      break;
    }
    case UnaryOp::BitwiseNot:
      if constexpr (kBool) return map1<T, T>(out, in, [](T x) { return !x; });
      else if constexpr (!kFloat) return map1<T, T>(out, in, [](T x) { return T(~x); });
      break;
    case UnaryOp::LogicalNot: return map1<bool, T>(out, in, [](T x) { return x == T(0); });
    case UnaryOp::IsNan:
      if constexpr (kFloat) return map1<bool, T>(out, in, [](T x) { return std::isnan(x); });
      else return map1<bool, T>(out, in, [](T) { return false; });
    case UnaryOp::IsInf:
      if constexpr (kFloat) return map1<bool, T>(out, in, [](T x) { return std::isinf(x); });
      else return map1<bool, T>(out, in, [](T) { return false; });
    case UnaryOp::IsFinite:
      if constexpr (kFloat) return map1<bool, T>(out, in, [](T x) { return std::isfinite(x); });
      else return map1<bool, T>(out, in, [](T) { return true; });
    case UnaryOp::Ceil:
    case UnaryOp::Floor:
    case UnaryOp::Trunc:
    case UnaryOp::Round:
    case UnaryOp::NanToNum:
      if constexpr (!kFloat) return map1<T, T>(out, in, [](T x) { return x; });  // integers/bool pass through
      break;
    case UnaryOp::Sign:
      if constexpr (kBool) return map1<T, T>(out, in, [](T x) { return x; });
      // NaN and -0.0 give 0, as torch's scalar kernel
      else return map1<T, T>(out, in, [](T x) { return T(int(T(0) < x) - int(x < T(0))); });
    case UnaryOp::Square:
      if constexpr (kFloat) return map1<T, T>(out, in, [](T x) { return x * x; });
      else if constexpr (!kBool) return map1<T, T>(out, in, [](T x) { return wrap_mul(x, x); });
      break;
    default: break;
  }
  if constexpr (kFloat) {
    // Transcendental maps: smaller tasks pay off.
    const auto costly = [&](auto f, RowParams rp = {}) { return simd_map(f, kCostlyGrain, rp); };
    switch (op) {
      case UnaryOp::Sigmoid: return costly([](T x) { return T(1) / (T(1) + std::exp(-x)); });
      case UnaryOp::Tanh: return costly([](T x) { return std::tanh(x); });
      case UnaryOp::Gelu:
        return costly([](T x) { return x * T(0.5) * (T(1) + std::erf(x * T(kSqrt1_2))); });
      case UnaryOp::GeluTanh: {
        const T beta = T(kGeluTanhBeta), kappa = T(0.044715);
        return costly([=](T x) {
          return T(0.5) * x * (T(1) + std::tanh(beta * (x + kappa * x * x * x)));
        });
      }
      case UnaryOp::Silu: return costly([](T x) { return x / (T(1) + std::exp(-x)); });
      case UnaryOp::Hardswish:
        return costly([](T x) { return x * std::min(std::max(x + T(3), T(0)), T(6)) / T(6); });
      case UnaryOp::Hardsigmoid:
        return costly([](T x) { return std::min(std::max(x + T(3), T(0)), T(6)) / T(6); });
      case UnaryOp::Exp: return costly([](T x) { return std::exp(x); });
      case UnaryOp::Log: return costly([](T x) { return std::log(x); });
      case UnaryOp::Sqrt: return costly([](T x) { return std::sqrt(x); });
      case UnaryOp::Rsqrt: return costly([](T x) { return T(1) / std::sqrt(x); });
      case UnaryOp::Sin: return costly([](T x) { return std::sin(x); });
      case UnaryOp::Cos: return costly([](T x) { return std::cos(x); });
      case UnaryOp::Erf: return costly([](T x) { return std::erf(x); });
      case UnaryOp::Reciprocal: return costly([](T x) { return T(1) / x; });
      case UnaryOp::LeakyRelu: {
        const T slope = T(p.a);
        return costly([slope](T x) { return x > T(0) ? x : x * slope; }, RowParams{float(slope)});
      }
      case UnaryOp::Elu: {
        const T neg = T(p.a * p.b), pos = T(p.b), isc = T(p.c);
        return costly([=](T x) { return x <= T(0) ? std::expm1(x * isc) * neg : x * pos; },
                      RowParams{float(neg), float(pos), float(isc)});
      }
      case UnaryOp::Softplus: {
        const T beta = T(p.a), thr = T(p.b);
        return costly([=](T x) { return x * beta > thr ? x : std::log1p(std::exp(x * beta)) / beta; },
                      RowParams{float(beta), float(thr)});
      }
      case UnaryOp::Expm1: return costly([](T x) { return std::expm1(x); });
      case UnaryOp::Log1p: return costly([](T x) { return std::log1p(x); });
      case UnaryOp::Log2: return costly([](T x) { return std::log2(x); });
      case UnaryOp::Mish: return costly([](T x) { return x * std::tanh(std::log1p(std::exp(x))); });
      case UnaryOp::LogSigmoid:  // min(x, 0) - log1p(exp(-|x|)): no overflow for large |x|
        return costly([](T x) { return std::min(x, T(0)) - std::log1p(std::exp(-std::abs(x))); });
      case UnaryOp::ExpNegAbs: return costly([](T x) { return std::exp(-std::abs(x)); });
      case UnaryOp::RoundDecimals: {
        // torch: scale by 10^|d| (multiply for d > 0, divide for d < 0), round half to even, undo.
        const bool neg = p.a < 0;
        const T ten = T(std::pow(10.0, std::abs(p.a)));
        if (neg) return costly([ten](T x) { return std::nearbyint(x / ten) * ten; });
        return costly([ten](T x) { return std::nearbyint(x * ten) / ten; });
      }
      case UnaryOp::Ceil: return map1<T, T>(out, in, [](T x) { return std::ceil(x); });
      case UnaryOp::Floor: return map1<T, T>(out, in, [](T x) { return std::floor(x); });
      case UnaryOp::Trunc: return map1<T, T>(out, in, [](T x) { return std::trunc(x); });
      case UnaryOp::Round: return map1<T, T>(out, in, [](T x) { return std::nearbyint(x); });  // half to even
      case UnaryOp::NanToNum: {
        const T nan = T(p.a), pinf = T(p.b), ninf = T(p.c);
        return map1<T, T>(out, in, [=](T x) {
          return std::isnan(x) ? nan : x == std::numeric_limits<T>::infinity() ? pinf
                                   : x == -std::numeric_limits<T>::infinity() ? ninf : x;
        });
      }
      default: break;
    }
  }
  throw ExecutionError(std::string("unary kernel: op not supported for dtype ") + dtype_name(in.dtype));
}

}  // namespace

bool binary_op_is_predicate(BinaryOp op) { return op >= BinaryOp::Eq; }

void binary_kernel(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha,
                   EwPath path) {
  const BinaryRowF32 row = a.dtype == DType::F32 && path == EwPath::Auto ? binary_row_f32(op, float(alpha.f)) : nullptr;
  dispatch_compute(a.dtype, [&](auto tag) { binary_typed<decltype(tag)>(op, out, a, b, alpha, row); });
}

bool unary_op_is_floating_only(UnaryOp op) { return op >= UnaryOp::Sigmoid && op <= UnaryOp::RoundDecimals; }

bool unary_op_is_predicate(UnaryOp op) { return op >= UnaryOp::LogicalNot; }

void unary_kernel(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p, EwPath path) {
  const UnaryRowF32 row = in.dtype == DType::F32 && path == EwPath::Auto ? unary_row_f32(op) : nullptr;
  dispatch_compute(in.dtype, [&](auto tag) { unary_typed<decltype(tag)>(op, out, in, p, row); });
}

void where_kernel(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  dispatch_compute(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    DimVec shape = out.shape, so = out.strides, sc = cond.strides, sa = a.strides, sb = b.strides;
    coalesce_in_place<DimVec, 4>(shape, {&so, &sc, &sa, &sb});
    T* po = out.data<T>();
    const uint8_t* pc = cond.data<uint8_t>();
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    for_each_row_parallel<4>(shape, {so.data(), sc.data(), sa.data(), sb.data()}, kCheapGrain,
                             [&](std::array<int64_t, 4> off, int64_t n, std::array<int64_t, 4> s) {
                      for (int64_t k = 0; k < n; ++k)
                        po[off[0] + k * s[0]] = pc[off[1] + k * s[1]] ? pa[off[2] + k * s[2]] : pb[off[3] + k * s[3]];
                    });
  });
}

Tensor scalar_tensor(const Scalar& s, DType dtype) {
  Tensor t = make_owned(dtype, {});
  dispatch_storage(dtype, [&](auto tag) {
    using S = decltype(tag);
    S* p = t.data<S>();
    if (s.kind == Scalar::Kind::Float) *p = store_as<S>(s.f);
    else *p = store_as<S>(s.i);
  });
  return t;
}

void fill_kernel(const Tensor& dst, const Scalar& s) {
  dispatch_storage(dst.dtype, [&](auto tag) {
    using S = decltype(tag);
    // The value as scalar_tensor stores it; written in place (no temporary tensor).
    const S v = s.kind == Scalar::Kind::Float ? store_as<S>(s.f) : store_as<S>(s.i);
    S* p = dst.data<S>();
    DimVec shape = dst.shape, st = dst.strides;
    coalesce_in_place<DimVec, 1>(shape, {&st});
    for_each_row<1>(shape, {st.data()}, {0}, [&](std::array<int64_t, 1> off, int64_t n, std::array<int64_t, 1> k) {
      for (int64_t i = 0; i < n; ++i) p[off[0] + i * k[0]] = v;
    });
  });
}

void round_to_half_inplace(const Tensor& t, DType half_dtype) {
  if (t.dtype != DType::F32) throw ExecutionError("round_to_half_inplace: expects a float32 tensor");
  if (half_dtype == DType::F16)
    map1<float, float>(t, t, [](float x) { return half_to_float(float_to_half(x)); });
  else if (half_dtype == DType::BF16)
    map1<float, float>(t, t, [](float x) { return bf16_to_float(float_to_bf16(x)); });
}

bool contains_zero(const Tensor& t) {
  return dispatch_compute(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    bool found = false;
    const T* p = t.data<T>();
    for_each_row<1>(t.shape, {t.strides.data()}, {0}, [&](std::array<int64_t, 1> off, int64_t n, std::array<int64_t, 1> s) {
      for (int64_t k = 0; k < n && !found; ++k) found = p[off[0] + k * s[0]] == T(0);
    });
    return found;
  });
}

}  // namespace tir
