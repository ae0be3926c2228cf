#include "kernels/elementwise_misc.h"

#include <algorithm>
#include <cmath>

#include "core/dispatch.h"
#include "core/strided.h"

namespace tir {

void cosine_similarity_kernel(const Tensor& out, const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  Shape outer;
  Strides s1, s2;
  for (size_t d = 0; d < x1.shape.size(); ++d) {
    if (int64_t(d) == dim) continue;
    outer.push_back(x1.shape[d]);
    s1.push_back(x1.strides[d]);
    s2.push_back(x2.strides[d]);
  }
  Strides so(outer.size(), 0);
  for (int64_t d = int64_t(outer.size()) - 1, st = 1; d >= 0; --d) {
    so[size_t(d)] = st;
    st *= outer[size_t(d)];
  }
  const int64_t n = x1.shape[size_t(dim)];
  const int64_t d1 = x1.strides[size_t(dim)], d2 = x2.strides[size_t(dim)];
  dispatch_compute(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      T* po = out.data<T>();
      const T* p1 = x1.data<T>();
      const T* p2 = x2.data<T>();
      for_each_row<3>(outer, {so.data(), s1.data(), s2.data()}, {0, 0, 0},
                      [&](std::array<int64_t, 3> off, int64_t count, std::array<int64_t, 3> s) {
                        for (int64_t r = 0; r < count; ++r) {
                          const T* a = p1 + off[1] + r * s[1];
                          const T* b = p2 + off[2] + r * s[2];
                          double aa = 0, bb = 0, ab = 0;  // double accumulation, like torch's acc_type
                          for (int64_t k = 0; k < n; ++k) {
                            const double x = a[k * d1], y = b[k * d2];
                            aa += x * x;
                            bb += y * y;
                            ab += x * y;
                          }
                          const double na = std::max(std::sqrt(aa), eps), nb = std::max(std::sqrt(bb), eps);
                          po[off[0] + r * s[0]] = T(ab / (na * nb));
                        }
                      });
    } else {
      throw ExecutionError("cosine_similarity_kernel: floating dtypes only");
    }
  });
}

}  // namespace tir
