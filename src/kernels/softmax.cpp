#include "kernels/softmax.h"

#include <cmath>
#include <limits>

#include "kernels/parallel.h"

namespace tir {
namespace {

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

void softmax_f32(const float* x, float* y, int64_t outer, int64_t n, int64_t inner, SoftmaxKind kind) {
  softmax_impl(x, y, outer, n, inner, kind);
}
void softmax_f64(const double* x, double* y, int64_t outer, int64_t n, int64_t inner, SoftmaxKind kind) {
  softmax_impl(x, y, outer, n, inner, kind);
}

}  // namespace tir
