#include "core/checked.h"
#include "ops/view_util.h"

#include <algorithm>

namespace tir {

Tensor slice_view(const Tensor& x, int64_t dim, int64_t start, int64_t len, int64_t step) {
  Shape shape = x.shape;
  Strides strides = x.strides;
  shape[size_t(dim)] = len;
  strides[size_t(dim)] = checked_mul(strides[size_t(dim)], step, "slice stride");
  return x.view_as(shape, strides,
                   checked_add(x.offset, checked_mul(start, x.strides[size_t(dim)], "slice offset"), "slice offset"));
}

Tensor select_view(const OpCall& c, const Tensor& x, int64_t dim, int64_t index) {
  const int64_t size = x.shape[size_t(dim)];
  c.check(index >= -size && index < size, "select(): index " + std::to_string(index) +
                                              " out of range for tensor of size " + shape_to_string(x.shape) +
                                              " at dimension " + std::to_string(dim));
  if (index < 0) index += size;
  Shape shape = x.shape;
  Strides strides = x.strides;
  shape.erase(shape.begin() + dim);
  strides.erase(strides.begin() + dim);
  return x.view_as(shape, strides, x.offset + index * x.strides[size_t(dim)]);
}

Tensor select_by_attrs(const OpCall& c, const Tensor& x) {
  c.check(x.dim() > 0, "select() cannot be applied to a 0-dim tensor");
  return select_view(c, x, c.wrap_dim(c.i("dim"), x.dim()), c.i("index"));
}

Tensor slice_by_attrs(const OpCall& c, const Tensor& x) {
  c.check(x.dim() > 0, "slice() cannot be applied to a 0-dim tensor");
  const int64_t dim = c.wrap_dim(c.i("dim", 0), x.dim());
  const int64_t size = x.shape[size_t(dim)];
  const int64_t step = c.i("step", 1);
  c.check(step > 0, "slice step must be positive");
  // Bounds may be INT64_MAX: only add `size` to negative values, then clamp.
  auto clamp_bound = [&](int64_t v) {
    if (v < 0) v += size;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  const int64_t start = clamp_bound(c.i("start", 0));
  const int64_t end = std::max(start, clamp_bound(c.i("end", size)));
  return slice_view(x, dim, start, (end - start + step - 1) / step, step);
}

Tensor expand_view(const OpCall& c, const Tensor& x, const std::vector<int64_t>& size) {
  c.check(size.size() >= size_t(x.dim()), "expand: the number of sizes provided (" + std::to_string(size.size()) +
                                             ") must be greater or equal to the number of dimensions in the tensor (" +
                                             std::to_string(x.dim()) + ")");
  const size_t lead = size.size() - size_t(x.dim());
  Shape shape(size.size());
  Strides strides(size.size(), 0);
  for (size_t i = 0; i < size.size(); ++i) {
    if (i < lead) {
      c.check(size[i] >= 0, "expand: -1 is not allowed in a leading, non-existing dimension");
      shape[i] = size[i];
      continue;
    }
    const int64_t have = x.shape[i - lead];
    const int64_t want = size[i] == -1 ? have : size[i];
    c.check(have == want || have == 1, "expand: size " + std::to_string(want) + " must match the existing size " +
                                           std::to_string(have) + " at non-singleton dimension " + std::to_string(i));
    shape[i] = want;
    strides[i] = have == want ? x.strides[i - lead] : 0;
  }
  return x.view_as(shape, strides, x.offset);
}

}  // namespace tir
