// Transcendental float32 rows (unary_row_f32: float64 lanes natively, float32
// lanes on WASM) against a float64 truth and against the scalar reference,
// inside whichever build runs it (kernels/selfcheck.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "kernels/elementwise.h"
#include "kernels/elementwise_simd.h"
#include "kernels/selfcheck.h"
#include "kernels/softmax.h"

namespace tir {

namespace {

// |r - t| in float32 ulps at t (as tests/cpp/ulp.h; the truth is a double here).
double ulps(float r, double t) {
  if (std::isnan(t)) return std::isnan(r) ? 0 : 1e9;
  if (std::isinf(float(t)) || std::isinf(r)) return r == float(t) ? 0 : 1e9;
  const float ft = std::abs(float(t));
  double ulp = double(std::nextafter(ft, INFINITY)) - double(ft);
  if (std::isinf(std::nextafter(ft, INFINITY))) ulp = std::ldexp(1.0, 104);
  ulp = std::max(ulp, std::ldexp(1.0, -149));
  return std::abs(double(r) - t) / ulp;
}

double sigmoid_d(double x) { return x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x)); }

struct Case {
  UnaryOp op;
  const char* name;
  double (*truth)(double);
  float lo, hi;
};

const Case kCases[] = {
    {UnaryOp::Exp, "exp", [](double x) { return std::exp(x); }, -110, 90},
    {UnaryOp::Sigmoid, "sigmoid", sigmoid_d, -110, 110},
    {UnaryOp::Silu, "silu", [](double x) { return x * sigmoid_d(x); }, -110, 110},
    {UnaryOp::Gelu, "gelu", [](double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }, -20, 20},
    {UnaryOp::GeluTanh, "gelu_tanh",
     [](double x) { return x * sigmoid_d(2 * 0.79788456080286535588 * (x + 0.044715 * x * x * x)); }, -20, 20},
};

// softmax_f32's rows (the SIMD exp row where it exists) at awkward lengths,
// in place and not, against a float64 truth of the same steps (x - max rounded
// to float32, as both paths do): at most 3 ulp (a 1-ulp exp, then the scale),
// and a max error at most 1 ulp over the scalar reference's; NaN rows NaN,
// fully -inf rows 0 (safe) or NaN.
void check_softmax(SelfcheckResult& r) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  double e_got = 0, e_ref = 0;
  std::string worst;
  for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 33, 48, 129, 1000}) {
    const int64_t rows = 5;
    std::vector<float> x(size_t(rows * n));
    uint32_t seed = uint32_t(n) * 2654435761u;
    for (float& v : x) {
      seed = seed * 1664525u + 1013904223u;
      v = float(int32_t(seed >> 8) % 20000) * (n > 100 ? 0.005f : 0.0011f) - (n > 100 ? 0.0f : 10.0f);
    }
    if (n > 2) x[size_t(n + 1)] = -inf;                           // row 1: one masked key
    x[size_t(2 * n + n / 2)] = nan;                                 // row 2: NaN
    for (int64_t k = 0; k < n; ++k) x[size_t(3 * n + k)] = -inf;  // row 3: all masked
    x[size_t(4 * n)] = 120;                                         // row 4: the rest underflows
    for (SoftmaxKind kind : {SoftmaxKind::Softmax, SoftmaxKind::SafeSoftmax})
      for (bool in_place : {false, true}) {
        std::vector<float> got = x, ref(x.size());
        softmax_f32(in_place ? got.data() : x.data(), got.data(), rows, n, 1, kind);
        softmax_f32(x.data(), ref.data(), rows, n, 1, kind, EwPath::Scalar);
        for (int64_t row = 0; row < rows; ++row) {
          const float* xr = x.data() + row * n;
          float mx = -inf;
          bool has_nan = false;
          for (int64_t k = 0; k < n; ++k) has_nan |= std::isnan(xr[k]), mx = std::max(mx, xr[k]);
          double sum = 0;
          for (int64_t k = 0; k < n; ++k) sum += std::exp(double(xr[k] - mx));
          for (int64_t k = 0; k < n; ++k) {
            ++r.cases;
            const float g = got[size_t(row * n + k)];
            char line[200];
            if (has_nan || mx == -inf) {
              const bool ok = !has_nan && kind == SoftmaxKind::SafeSoftmax ? g == 0 : std::isnan(g);
              if (!ok && ++r.failures <= 20) {
                std::snprintf(line, sizeof line, "softmax n=%lld row %lld k=%lld: %g, want %s\n", (long long)n,
                              (long long)row, (long long)k, double(g), has_nan || kind != SoftmaxKind::SafeSoftmax ? "NaN" : "0");
                r.report += line;
              }
              continue;
            }
            const double t = std::exp(double(xr[k] - mx)) / sum, e = ulps(g, t);
            e_ref = std::max(e_ref, ulps(ref[size_t(row * n + k)], t));
            if (e > e_got) {
              e_got = e;
              std::snprintf(line, sizeof line, "n=%lld row %lld k=%lld%s: %.9g, float64 %.9g", (long long)n,
                            (long long)row, (long long)k, in_place ? " in place" : "", double(g), t);
              worst = line;
            }
          }
        }
      }
  }
  if (e_got > 3 || e_got > e_ref + 1) {
    ++r.failures;
    r.report += "softmax: max error " + std::to_string(e_got) + " ulp (" + worst + "), the scalar reference's " +
                std::to_string(e_ref) + "\n";
  }
}

}  // namespace

SelfcheckResult selfcheck_transcendental() {
  SelfcheckResult r;
  for (const Case& c : kCases) {
    const UnaryRowF32 row = unary_row_f32(c.op);
    if (!row) continue;  // this build runs the scalar reference itself
    std::vector<float> x;
    for (uint32_t bits = 0; bits < 0x7f800000u; bits += 16411) {  // every 16411th float of each sign
      float v;
      std::memcpy(&v, &bits, 4);
      if (v >= c.lo && v <= c.hi) x.push_back(v);
      if (-v >= c.lo && -v <= c.hi && v != 0) x.push_back(-v);
    }
    for (float s : {0.0f, -0.0f, std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN()})
      x.push_back(s);
    std::vector<float> got(x.size());
    row(got.data(), x.data(), int64_t(x.size()), RowParams{});
    Tensor in = make_owned(DType::F32, {int64_t(x.size())}), ref = make_owned(DType::F32, {int64_t(x.size())});
    std::memcpy(in.data<float>(), x.data(), x.size() * 4);
    unary_kernel(c.op, ref, in, {}, EwPath::Scalar);
    double e_got = 0, e_ref = 0;
    float worst = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      ++r.cases;
      const float want = ref.data<float>()[i];
      if (!std::isfinite(x[i]) || x[i] == 0) {  // the reference's bits (torch's formulas), NaN as NaN
        if (!(std::isnan(got[i]) && std::isnan(want)) && std::memcmp(&got[i], &want, 4) != 0) {
          ++r.failures;
          r.report += std::string(c.name) + "(" + std::to_string(x[i]) + "): " + std::to_string(got[i]) +
                      ", the reference gives " + std::to_string(want) + "\n";
        }
        continue;
      }
      const double t = c.truth(double(x[i]));
      const double e = ulps(got[i], t);
      if (e > e_got) e_got = e, worst = x[i];
      e_ref = std::max(e_ref, ulps(want, t));
    }
    // No less accurate than the scalar reference, or 1 ulp (a quarter ulp of slack
    // where both evaluate the same float formula).
    if (e_got > std::max(e_ref, 1.0) + 0.25) {
      ++r.failures;
      r.report += std::string(c.name) + ": max error " + std::to_string(e_got) + " ulp at " + std::to_string(worst) +
                  ", the scalar reference's " + std::to_string(e_ref) + "\n";
    }
  }
  check_softmax(r);
  return r;
}

}  // namespace tir
