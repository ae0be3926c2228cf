#include "kernels/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/elementwise_simd.h"
#include "kernels/parallel.h"

namespace tir {
namespace {

// Float32 rows with inner == 1 on the SIMD exp row (unary_row_f32: float64
// lanes rounded once natively, 1 ulp on WASM) where the scalar path spends most
// of its time in std::exp. The same steps as softmax_impl: the max (NaN and
// all -inf rows as there), x - max in float32, exp, a double sum, one scale.
// Returns false where no SIMD exp row exists (the scalar path runs).
bool softmax_rows_simd(const float* x, float* y, int64_t rows, int64_t n, SoftmaxKind kind) {
  const UnaryRowF32 exp_row = unary_row_f32(UnaryOp::Exp);
  if (!exp_row || kind == SoftmaxKind::LogSoftmax) return false;
  const float ninf = -std::numeric_limits<float>::infinity();
  parallel_for(rows, grain_for(3 * n), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = x + r * n;
      float* yr = y + r * n;
      float mx = ninf;
      bool nan = false;
      for (int64_t k = 0; k < n; ++k) {  // branch-free, so the compiler vectorizes it
        const float v = xr[k];
        nan |= v != v;
        mx = v > mx ? v : mx;
      }
      if (nan || mx == ninf) {
        const float fill = !nan && kind == SoftmaxKind::SafeSoftmax ? 0.0f : std::numeric_limits<float>::quiet_NaN();
        std::fill(yr, yr + n, fill);
        continue;
      }
      for (int64_t k = 0; k < n; ++k) yr[k] = xr[k] - mx;
      exp_row(yr, yr, n, RowParams{});
      double s[4] = {0, 0, 0, 0};  // four chains: a double add's latency, not its cost, bounds one
      int64_t k = 0;
      for (; k + 4 <= n; k += 4)
        for (int j = 0; j < 4; ++j) s[j] += double(yr[k + j]);
      for (; k < n; ++k) s[0] += double(yr[k]);
      const float inv = float(1.0 / ((s[0] + s[1]) + (s[2] + s[3])));
      for (k = 0; k < n; ++k) yr[k] *= inv;
    }
  });
  return true;
}

template <typename T>
void softmax_impl(const T* x, T* y, int64_t outer, int64_t n, int64_t inner, SoftmaxKind kind) {
  const T ninf = -std::numeric_limits<T>::infinity();
  // Rows (o, i) are independent; each row's sum stays on one thread.
  parallel_for(outer * inner, grain_for(3 * n), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t o = r / inner, i = r % inner;
      const T* xr = x + o * n * inner + i;
      T* yr = y + o * n * inner + i;
      T mx = ninf;
      bool nan = false;
      for (int64_t k = 0; k < n; ++k) {
        const T v = xr[k * inner];
        if (std::isnan(v)) nan = true;
        else if (v > mx) mx = v;
      }
      if (nan) {
        for (int64_t k = 0; k < n; ++k) yr[k * inner] = std::numeric_limits<T>::quiet_NaN();
        continue;
      }
      if (mx == ninf) {  // the whole row is -inf
        const T fill = kind == SoftmaxKind::SafeSoftmax ? T(0)
                                                         : std::numeric_limits<T>::quiet_NaN();
        for (int64_t k = 0; k < n; ++k) yr[k * inner] = fill;
        continue;
      }
      // Sum in double: rows can be long and torch's vectorized sum is close to exact.
      double sum = 0;
      if (kind == SoftmaxKind::LogSoftmax) {
        for (int64_t k = 0; k < n; ++k) sum += std::exp(double(xr[k * inner] - mx));
        const T lse = T(std::log(sum));
        for (int64_t k = 0; k < n; ++k) yr[k * inner] = xr[k * inner] - mx - lse;
      } else {
        for (int64_t k = 0; k < n; ++k) {
          const T e = std::exp(xr[k * inner] - mx);
          yr[k * inner] = e;
          sum += double(e);
        }
        const T inv = T(1.0 / sum);
        for (int64_t k = 0; k < n; ++k) yr[k * inner] *= inv;
      }
    }
  });
}

}  // namespace

void softmax_f32(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, SoftmaxKind kind,
                 EwPath path) {
  if (path == EwPath::Auto && inner == 1 && softmax_rows_simd(x, y, outer, n, kind)) return;
  softmax_impl(x, y, outer, n, inner, kind);
}
void softmax_f64(const double* x, double* y, int64_t outer, int64_t n, int64_t inner, SoftmaxKind kind) {
  softmax_impl(x, y, outer, n, inner, kind);
}

}  // namespace tir
