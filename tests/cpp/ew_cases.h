// The float32 elementwise ops whose SIMD rows are checked against float64 truth
// (tests/cpp/unit/ops_elementwise_simd_test.cpp) and against PyTorch's own error
// (tests/cpp/parity/ops_elementwise_simd_parity_test.cpp): each with its kernel
// params, its truth (long double where the float formula would cancel), the
// sweep range, and the ATen op with the attrs that give the same function.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "ir/attr.h"
#include "kernels/elementwise.h"

namespace tir::test {

struct UnCase {
  UnaryOp op;
  UnaryParams p;
  const char* name;
};
inline UnaryParams params(double a, double b = 0, double c = 0, bool has_a = true, bool has_b = true) {
  UnaryParams p;
  p.a = a, p.b = b, p.c = c, p.has_a = has_a, p.has_b = has_b;
  return p;
}

// The transcendental ops, each with its float64 truth (long double where the
// double formula would cancel), for the params given.
struct Transcendental {
  UnCase c;
  long double (*truth)(long double x, const UnaryParams& p);
  float lo, hi;      // sweep range
  const char* aten;  // the ATen op computing the same function, with `attrs`
  AttrMap attrs;
};
inline long double sigmoid_l(long double x) { return 1 / (1 + std::exp(-x)); }
// The params as the kernel casts them to float.
inline long double elu_l(long double x, const UnaryParams& p) {
  return x <= 0 ? std::expm1(x * (long double)float(p.c)) * (long double)float(p.a * p.b) : x * (long double)float(p.b);
}
inline long double softplus_l(long double x, const UnaryParams& p) {
  const long double t = x * (long double)float(p.a);
  if (float(x * float(p.a)) > float(p.b)) return x;  // torch's threshold test, on the float product
  return (std::max(t, 0.0L) + std::log1p(std::exp(-std::abs(t)))) / (long double)float(p.a);
}
inline const std::vector<Transcendental>& transcendental() {
  static const std::vector<Transcendental> v = {
      {{UnaryOp::Exp, {}, "exp"}, [](long double x, const UnaryParams&) { return std::exp(x); }, -110, 90, "aten.exp.default", {}},
      {{UnaryOp::Log, {}, "log"}, [](long double x, const UnaryParams&) { return std::log(x); }, 0, 3.4e38f, "aten.log.default", {}},
      {{UnaryOp::Tanh, {}, "tanh"}, [](long double x, const UnaryParams&) { return std::tanh(x); }, -20, 20, "aten.tanh.default", {}},
      {{UnaryOp::Sigmoid, {}, "sigmoid"}, [](long double x, const UnaryParams&) { return sigmoid_l(x); }, -110, 110, "aten.sigmoid.default", {}},
      {{UnaryOp::Silu, {}, "silu"}, [](long double x, const UnaryParams&) { return x * sigmoid_l(x); }, -110, 110, "aten.silu.default", {}},
      {{UnaryOp::Gelu, {}, "gelu"},
       [](long double x, const UnaryParams&) { return 0.5L * x * std::erfc(-x / std::sqrt(2.0L)); }, -20, 20, "aten.gelu.default", {}},
      {{UnaryOp::GeluTanh, {}, "gelu_tanh"},
       [](long double x, const UnaryParams&) {
         const long double u = 0.79788456080286535588L * (x + 0.044715L * x * x * x);
         return x * sigmoid_l(2 * u);  // 0.5 x (1 + tanh u) without its cancellation
       },
       -20, 20, "aten.gelu.default", {{"approximate", Attr::of_string("tanh")}}},
      {{UnaryOp::Elu, params(1, 1, 1), "elu"}, elu_l, -110, 100, "aten.elu.default", {}},
      {{UnaryOp::Elu, params(1.6732632423543772, 1.0507009873554805, 1), "selu"}, elu_l, -110, 100, "aten.selu.default", {}},
      {{UnaryOp::Softplus, params(1, 20), "softplus"}, softplus_l, -110, 100, "aten.softplus.default", {}},
      {{UnaryOp::Softplus, params(2, 5), "softplus_b2"}, softplus_l, -110, 100, "aten.softplus.default", {{"beta", Attr::of_float(2)}, {"threshold", Attr::of_float(5)}}},
      {{UnaryOp::Mish, {}, "mish"},
       [](long double x, const UnaryParams&) { return x * std::tanh(std::log1p(std::exp(x))); }, -110, 100,
       "aten.mish.default", {}},
  };
  return v;
}

}  // namespace tir::test

