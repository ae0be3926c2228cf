#include "kernels/sort.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/dispatch.h"
#include "kernels/lines.h"

namespace tir {
namespace {

// Strict "a comes before b" with NaN as the largest value.
template <typename T> inline bool before(T a, T b, bool descending) {
  if constexpr (std::is_floating_point_v<T>) {
    if (descending) return std::isnan(a) ? !std::isnan(b) : a > b;
    return std::isnan(b) ? !std::isnan(a) : a < b;
  } else {
    return descending ? a > b : a < b;
  }
}

// k < 0: full stable sort; else the first k in order (ties by index).
template <typename T>
void sort_typed(const Tensor& in, int64_t dim, bool descending, int64_t k, const Tensor* values,
                const Tensor& indices) {
  const bool zero_d = in.dim() == 0;
  const int64_t n = zero_d ? 1 : in.shape[size_t(dim)];
  const int64_t si = zero_d ? 0 : in.strides[size_t(dim)];
  const int64_t sx = zero_d ? 0 : indices.strides[size_t(dim)];
  const int64_t sv = !values || zero_d ? 0 : values->strides[size_t(dim)];
  const int64_t take = k < 0 ? n : k;
  const T* p = in.data<T>();
  std::vector<T> row(static_cast<size_t>(n));
  std::vector<int64_t> order(static_cast<size_t>(n));
  const Strides& vst = values ? values->strides : indices.strides;
  for_each_line<3>(in.shape, dim, {in.strides, indices.strides, vst}, {0, 0, 0}, [&](std::array<int64_t, 3> off) {
    for (int64_t j = 0; j < n; ++j) {
      row[size_t(j)] = p[off[0] + j * si];
      order[size_t(j)] = j;
    }
    auto cmp = [&](int64_t a, int64_t b) { return before(row[size_t(a)], row[size_t(b)], descending); };
    if (k < 0) {
      std::stable_sort(order.begin(), order.end(), cmp);
    } else {
      // Index tie-break makes the order total, so partial_sort gives the stable answer.
      std::partial_sort(order.begin(), order.begin() + take, order.end(), [&](int64_t a, int64_t b) {
        return cmp(a, b) || (!cmp(b, a) && a < b);
      });
    }
    int64_t* ix = indices.data<int64_t>();
    for (int64_t j = 0; j < take; ++j) {
      ix[off[1] + j * sx] = order[size_t(j)];
      if (values) values->data<T>()[off[2] + j * sv] = row[size_t(order[size_t(j)])];
    }
  });
}

}  // namespace

void sort_kernel(const Tensor& in, int64_t dim, bool descending, const Tensor* values, const Tensor& indices) {
  dispatch_compute(in.dtype, [&](auto tag) { sort_typed<decltype(tag)>(in, dim, descending, -1, values, indices); });
}

void topk_kernel(const Tensor& in, int64_t dim, int64_t k, bool largest, const Tensor& values,
                 const Tensor& indices) {
  dispatch_compute(in.dtype, [&](auto tag) { sort_typed<decltype(tag)>(in, dim, largest, k, &values, indices); });
}

}  // namespace tir
