// The views select.int / slice.Tensor take, shared by the view ops and by the
// scatter ops (select_scatter, slice_scatter) that write into the same region.
#pragma once
#include "ops/op.h"

namespace tir {

// x narrowed to [start, start + step*len) along dim.
Tensor slice_view(const Tensor& x, int64_t dim, int64_t start, int64_t len, int64_t step);
// select.int(x, dim, index): index may be negative; range-checked.
Tensor select_view(const OpCall& c, const Tensor& x, int64_t dim, int64_t index);
// The view select.int / slice.Tensor would produce from this node's attrs
// (dim, index / dim, start, end, step), with torch's bound clamping.
Tensor select_by_attrs(const OpCall& c, const Tensor& x);
Tensor slice_by_attrs(const OpCall& c, const Tensor& x);
// expand(x, size): -1 keeps a dim, stretched size-1 dims get stride 0 (expand, broadcast_to).
Tensor expand_view(const OpCall& c, const Tensor& x, const std::vector<int64_t>& size);

}  // namespace tir
