// A Python scalar argument (torch "Scalar"), as ops and kernels receive it.
#pragma once
#include <cstdint>

namespace tir {

// A Python scalar (torch "Scalar"): its kind decides type promotion.
struct Scalar {
  enum class Kind { Bool, Int, Float };
  Kind kind = Kind::Float;
  double f = 0.0;   // value when Float (and mirrored for Int/Bool)
  int64_t i = 0;    // exact value when Int/Bool
  static Scalar of_double(double v) {
    Scalar s;
    s.kind = Kind::Float;
    s.f = v;
    // Saturated: converting NaN or a double past int64 is undefined behavior.
    s.i = v != v ? 0 : v >= 9.2233720368547758e18 ? INT64_MAX : v <= -9.2233720368547758e18 ? INT64_MIN : int64_t(v);
    return s;
  }
  static Scalar of_int(int64_t v) { Scalar s; s.kind = Kind::Int; s.i = v; s.f = double(v); return s; }
  static Scalar of_bool(bool v) { Scalar s; s.kind = Kind::Bool; s.i = v; s.f = v; return s; }
  bool is_floating() const { return kind == Kind::Float; }
};

}  // namespace tir
