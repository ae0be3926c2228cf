// Float32 error in ulps against a float64 truth, and dense float32 input sweeps:
// shared by the elementwise accuracy tests (unit and LibTorch parity).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tir::test {

// |r - t| in units of the float32 ulp at t (the spacing of floats around t).
// NaN truth wants NaN; an infinite truth or result counts 0 when equal, else 1e9.
inline double ulp_error(float r, double t) {
  if (std::isnan(t)) return std::isnan(r) ? 0 : 1e9;
  if (std::isinf(float(t)) || std::isinf(r)) return r == float(t) ? 0 : 1e9;  // overflow: inf expected
  const float ft = std::abs(float(t));
  double ulp = double(std::nextafter(ft, INFINITY)) - double(ft);
  if (std::isinf(std::nextafter(ft, INFINITY))) ulp = std::ldexp(1.0, 104);
  ulp = std::max(ulp, std::ldexp(1.0, -149));
  return std::abs(double(r) - t) / ulp;
}

// Float32 inputs spread over [lo, hi]: every `step`-th float bit pattern of each
// sign (denormals included).
inline std::vector<float> sweep(float lo, float hi, uint32_t step = 331) {
  std::vector<float> v;
  for (uint32_t bits = 0; bits < 0x7f800000u; bits += step) {
    float x;
    std::memcpy(&x, &bits, 4);
    if (x >= lo && x <= hi) v.push_back(x);
    if (-x >= lo && -x <= hi && x != 0) v.push_back(-x);
  }
  return v;
}

}  // namespace tir::test
