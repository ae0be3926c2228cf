// Gathers: index.Tensor (advanced indexing), index_select, embedding, gather.
// The ops turn index values into element offsets (range-checked here, so the
// error names the node) and kernels/gather.h moves the bytes; any dtype works.
#include <string>

#include "kernels/dispatch.h"
#include "kernels/gather.h"
#include "kernels/strided.h"
#include "ops/common.h"
#include "ops/op.h"

namespace tir {
namespace {

void check_index_dtype(const OpCall& call, const Tensor& idx, bool allow_int32 = true) {
  if (idx.dtype == DType::Bool || idx.dtype == DType::U8)
    call.fail("boolean/uint8 mask indices are not supported (data-dependent output shape)");
  call.check(idx.dtype == DType::I64 || (allow_int32 && idx.dtype == DType::I32),
             std::string("indices must be int64") + (allow_int32 ? " or int32" : "") + ", got " +
                 dtype_name(idx.dtype));
}

// Index values of `t` seen with `shape`/`strides` (broadcast allowed), row-major.
std::vector<int64_t> read_indices(const Tensor& t, const Shape& shape, const Strides& strides) {
  std::vector<int64_t> v;
  v.reserve(size_t(shape_numel(shape)));
  dispatch_compute(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    for_each_row<1>(shape, {strides.data()}, {0},
                    [&](std::array<int64_t, 1> off, int64_t n, std::array<int64_t, 1> st) {
                      for (int64_t k = 0; k < n; ++k) v.push_back(int64_t(p[off[0] + k * st[0]]));
                    });
  });
  return v;
}

// Range check; `wrap` allows negative indices (index.Tensor), as torch does.
int64_t checked_index(const OpCall& call, int64_t v, int64_t size, int64_t dim, bool wrap) {
  if (v < (wrap ? -size : 0) || v >= size)
    call.fail("index " + std::to_string(v) + " is out of bounds for dimension " + std::to_string(dim) +
              " with size " + std::to_string(size));
  return v < 0 ? v + size : v;
}

template <typename V>
std::vector<V> drop(const std::vector<V>& v, size_t i) {
  std::vector<V> r = v;
  r.erase(r.begin() + std::ptrdiff_t(i));
  return r;
}

// --- index.Tensor -------------------------------------------------------
struct IndexPlan {
  std::vector<int> slot;     // per indexed dim: input number, or -1 for None
  Shape bshape;              // broadcast shape of the index tensors
  std::vector<size_t> rest;  // self dims kept as slices, in order
  size_t bpos = 0;           // where the broadcast dims go in the output
  Shape out;
};

IndexPlan plan_index(const OpCall& call) {
  call.check(!call.in.empty(), "missing self");
  const Tensor& self = call.in[0];
  const size_t ntensors = call.in.size() - 1;
  IndexPlan p;
  const auto masks = call.tensor_list_none_masks();
  if (!masks.empty()) {
    size_t next = 1;
    for (bool none : masks[0]) p.slot.push_back(none ? -1 : int(next++));
    call.check(next - 1 == ntensors, "_tensor_list_none_masks does not match the number of index tensors");
  } else {
    for (size_t k = 0; k < ntensors; ++k) p.slot.push_back(int(k + 1));
  }
  call.check(p.slot.size() <= size_t(self.dim()), "too many indices (" + std::to_string(p.slot.size()) +
                                                      ") for a tensor of shape " +
                                                      shape_to_string(self.shape));
  int first = -1, last = -1;
  bool have = false;
  for (size_t d = 0; d < p.slot.size(); ++d) {
    if (p.slot[d] < 0) continue;
    const Tensor& idx = call.in[size_t(p.slot[d])];
    check_index_dtype(call, idx);
    if (!have) p.bshape = idx.shape;
    auto b = broadcast_shapes(p.bshape, idx.shape);
    call.check(b.has_value(), "index tensors of shapes " + shape_to_string(p.bshape) + " and " +
                                  shape_to_string(idx.shape) + " cannot be broadcast together");
    p.bshape = *b;
    have = true;
    if (first < 0) first = int(d);
    last = int(d);
  }
  call.check(have, "index.Tensor needs at least one index tensor");
  bool adjacent = true;
  for (int d = first; d <= last; ++d) adjacent &= p.slot[size_t(d)] >= 0;
  for (size_t d = 0; d < size_t(self.dim()); ++d)
    if (d >= p.slot.size() || p.slot[d] < 0) p.rest.push_back(d);
  // Adjacent advanced indices replace their dims in place; separated ones go first.
  p.bpos = adjacent ? size_t(first) : 0;
  for (size_t r = 0; r < p.rest.size(); ++r) {
    if (r == p.bpos) p.out.insert(p.out.end(), p.bshape.begin(), p.bshape.end());
    p.out.push_back(self.shape[p.rest[r]]);
  }
  if (p.bpos == p.rest.size()) p.out.insert(p.out.end(), p.bshape.begin(), p.bshape.end());
  return p;
}

void plan_index_tensor(OpCall& call) {
  const IndexPlan p = plan_index(call);
  call.fresh(0, call.in[0].dtype, p.out);
}

void run_index_tensor(OpCall& call) {
  const IndexPlan p = plan_index(call);
  const Tensor& self = call.in[0];
  const Tensor& out = call.out[0];
  const int64_t count = shape_numel(p.bshape);
  std::vector<int64_t> src_off(size_t(count), 0);
  for (size_t d = 0; d < p.slot.size(); ++d) {
    if (p.slot[d] < 0) continue;
    const Tensor& idx = call.in[size_t(p.slot[d])];
    const auto vals = read_indices(idx, p.bshape, broadcast_strides(idx, p.bshape));
    for (int64_t b = 0; b < count; ++b)
      src_off[size_t(b)] +=
          checked_index(call, vals[size_t(b)], self.shape[d], int64_t(d), true) * self.strides[d];
  }
  // Output dims: rest[0..bpos) | broadcast dims | rest[bpos..).
  const size_t nb = p.bshape.size();
  Shape block;
  Strides src_st, dst_st, bst;
  for (size_t r = 0; r < p.rest.size(); ++r) {
    block.push_back(self.shape[p.rest[r]]);
    src_st.push_back(self.strides[p.rest[r]]);
    dst_st.push_back(out.strides[r < p.bpos ? r : r + nb]);
  }
  bst.assign(out.strides.begin() + std::ptrdiff_t(p.bpos), out.strides.begin() + std::ptrdiff_t(p.bpos + nb));
  std::vector<int64_t> dst_off;
  dst_off.reserve(size_t(count));
  for_each_row<1>(p.bshape, {bst.data()}, {0},
                  [&](std::array<int64_t, 1> off, int64_t n, std::array<int64_t, 1> st) {
                    for (int64_t k = 0; k < n; ++k) dst_off.push_back(off[0] + k * st[0]);
                  });
  copy_blocks(dtype_size(self.dtype), block, self.raw(), src_st, src_off.data(), out.raw(), dst_st,
              dst_off.data(), count);
}

// --- index_select / embedding: whole slices picked along one dim -----------
void select_along(const OpCall& call, const Tensor& self, size_t dim, const Tensor& index, const Tensor& out,
                  size_t out_dim) {
  const auto vals = read_indices(index, index.shape, index.strides);
  const int64_t count = int64_t(vals.size());
  std::vector<int64_t> src_off(vals.size()), dst_off(vals.size());
  for (int64_t j = 0; j < count; ++j) {
    src_off[size_t(j)] =
        checked_index(call, vals[size_t(j)], self.shape[dim], int64_t(dim), false) * self.strides[dim];
    dst_off[size_t(j)] = j * out.strides[out_dim];
  }
  copy_blocks(dtype_size(self.dtype), drop(self.shape, dim), self.raw(), drop(self.strides, dim),
              src_off.data(), out.raw(), drop(out.strides, out_dim), dst_off.data(), count);
}

void plan_index_select(OpCall& call) {
  call.expect_inputs(2, 2);
  const Tensor &self = call.in[0], &index = call.in[1];
  call.check(self.dim() >= 1, "index_select on a 0-d tensor is not supported");
  check_index_dtype(call, index);
  call.check(index.dim() <= 1, "index must be 0-D or 1-D, got " + shape_to_string(index.shape));
  const int64_t dim = call.wrap_dim(call.i("dim"), self.dim());
  Shape out = self.shape;
  out[size_t(dim)] = index.numel();
  call.fresh(0, self.dtype, out);
}
void run_index_select(OpCall& call) {
  const size_t dim = size_t(call.wrap_dim(call.i("dim"), call.in[0].dim()));
  const Tensor& out = call.out[0];
  // Out is contiguous: a 1-D view of the index covers the 0-d case too.
  const Tensor& idx = call.in[1];
  const Tensor idx1 = idx.dim() == 0 ? idx.view_as({1}, {1}, idx.offset) : idx;
  select_along(call, call.in[0], dim, idx1, out, dim);
}

void plan_embedding(OpCall& call) {
  call.expect_inputs(2, 2);
  const Tensor &w = call.in[0], &idx = call.in[1];
  call.check(w.dim() == 2, "weight must be 2-D, got " + shape_to_string(w.shape));
  check_index_dtype(call, idx);
  Shape out = idx.shape;
  out.push_back(w.shape[1]);
  call.fresh(0, w.dtype, out);
}
void run_embedding(OpCall& call) {
  const Tensor &w = call.in[0], &idx = call.in[1], &out = call.out[0];
  // out viewed as [numel(indices), D]; indices flattened row-major.
  const int64_t n = idx.numel(), D = w.shape[1];
  const Tensor flat_out = out.view_as({n, D}, {D, 1}, out.offset);
  const Tensor flat_idx = contiguous_or_self(idx);
  select_along(call, w, 0, flat_idx.view_as({n}, {1}, flat_idx.offset), flat_out, 0);
}

// --- gather: out[i][j] = self[index[i][j]][j] (dim 0) ----------------------
void plan_gather(OpCall& call) {
  call.expect_inputs(2, 2);
  const Tensor &self = call.in[0], &index = call.in[1];
  check_index_dtype(call, index, false);
  const int64_t nd = self.dim();
  call.check(index.dim() == nd || (nd <= 1 && index.dim() <= 1), "index " + shape_to_string(index.shape) +
                                                                     " must have the same rank as self " +
                                                                     shape_to_string(self.shape));
  const int64_t dim = call.wrap_dim(call.i("dim"), nd);
  for (int64_t d = 0; d < index.dim() && index.dim() == nd; ++d)
    call.check(d == dim || index.shape[d] <= self.shape[d],
               "index " + shape_to_string(index.shape) + " is larger than self " +
                   shape_to_string(self.shape) + " outside dim " + std::to_string(dim));
  call.fresh(0, self.dtype, index.shape);
}
void run_gather(OpCall& call) {
  const Tensor &self = call.in[0], &index = call.in[1], &out = call.out[0];
  const int64_t nd = self.dim();
  const size_t dim = size_t(call.wrap_dim(call.i("dim"), nd));
  const auto vals = read_indices(index, index.shape, index.strides);
  // Self's strides over the index's positions, with the gathered dim's stride 0.
  Strides pos_st(index.shape.size(), 0);
  for (size_t d = 0; d < pos_st.size() && nd == index.dim(); ++d) pos_st[d] = d == dim ? 0 : self.strides[d];
  const int64_t dim_size = nd == 0 ? 1 : self.shape[dim], dim_stride = nd == 0 ? 0 : self.strides[dim];
  std::vector<int64_t> src_off, dst_off;
  src_off.reserve(vals.size());
  dst_off.reserve(vals.size());
  for_each_row<2>(index.shape, {pos_st.data(), out.strides.data()}, {0, 0},
                  [&](std::array<int64_t, 2> off, int64_t n, std::array<int64_t, 2> st) {
                    for (int64_t k = 0; k < n; ++k) {
                      const int64_t v =
                          checked_index(call, vals[src_off.size()], dim_size, int64_t(dim), false);
                      src_off.push_back(off[0] + k * st[0] + v * dim_stride);
                      dst_off.push_back(off[1] + k * st[1]);
                    }
                  });
  copy_blocks(dtype_size(self.dtype), {}, self.raw(), {}, src_off.data(), out.raw(), {}, dst_off.data(),
              int64_t(src_off.size()));
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor
    {"aten.index.Tensor", {plan_index_tensor, run_index_tensor}},
    // aten::_unsafe_index.Tensor(Tensor self, Tensor?[] indices) -> Tensor
    // (index.Tensor without bounds promises; we still check: same result for valid input)
    {"aten._unsafe_index.Tensor", {plan_index_tensor, run_index_tensor}},
    // aten::index_select(Tensor self, int dim, Tensor index) -> Tensor
    {"aten.index_select.default", {plan_index_select, run_index_select}},
    // aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1,
    //   bool scale_grad_by_freq=False, bool sparse=False) -> Tensor
    {"aten.embedding.default", {plan_embedding, run_embedding}},
    // aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor
    {"aten.gather.default", {plan_gather, run_gather}});

}  // namespace tir
