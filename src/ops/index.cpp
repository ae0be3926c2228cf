// Gathers: index.Tensor (advanced indexing), index_select, embedding, gather.
// The ops turn index values into element offsets (range-checked here, so the
// error names the node) and kernels/gather.h moves the bytes; any dtype works.
#include <algorithm>
#include <cstring>
#include <string>

#include "core/checked.h"
#include "core/dispatch.h"
#include "kernels/gather.h"
#include "core/strided.h"
#include "ops/common.h"
#include "ops/index_util.h"
#include "ops/op.h"

namespace tir {
namespace indexing {

void check_index_dtype(const OpCall& call, const Tensor& idx, bool allow_int32) {
  if (idx.dtype == DType::Bool || idx.dtype == DType::U8)
    call.fail("boolean/uint8 mask indices are not supported (data-dependent output shape)");
  call.check(idx.dtype == DType::I64 || (allow_int32 && idx.dtype == DType::I32),
             std::string("indices must be int64") + (allow_int32 ? " or int32" : "") + ", got " +
                 dtype_name(idx.dtype));
}

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

int64_t checked_index(const OpCall& call, int64_t v, int64_t size, int64_t dim, bool wrap) {
  if (v < (wrap ? -size : 0) || v >= size)
    call.fail("index " + std::to_string(v) + " is out of bounds for dimension " + std::to_string(dim) +
              " with size " + std::to_string(size));
  return v < 0 ? v + size : v;
}

std::vector<const Tensor*> tensor_list(const OpCall& call, size_t first, size_t count, size_t mask_list) {
  std::vector<const Tensor*> list;
  const auto masks = call.tensor_list_none_masks();
  if (mask_list < masks.size()) {
    size_t present = 0;
    for (bool none : masks[mask_list]) present += none ? 0 : 1;
    call.check(present == count, "_tensor_list_none_masks does not match the number of index tensors");
    size_t next = first;
    for (bool none : masks[mask_list]) list.push_back(none ? nullptr : &call.in[next++]);
  } else {
    for (size_t k = 0; k < count; ++k) list.push_back(&call.in[first + k]);
  }
  return list;
}

IndexPlan plan_index(const OpCall& call, const Shape& self_shape, std::vector<const Tensor*> idx) {
  IndexPlan p;
  p.idx = std::move(idx);
  call.check(p.idx.size() <= self_shape.size(), "too many indices (" + std::to_string(p.idx.size()) +
                                                    ") for a tensor of shape " + shape_to_string(self_shape));
  int first = -1, last = -1;
  for (size_t d = 0; d < p.idx.size(); ++d) {
    if (!p.idx[d]) continue;
    const Tensor& t = *p.idx[d];
    check_index_dtype(call, t);
    auto b = first < 0 ? std::optional<Shape>(t.shape) : broadcast_shapes(p.bshape, t.shape);
    call.check(b.has_value(), "index tensors of shapes " + shape_to_string(p.bshape) + " and " +
                                  shape_to_string(t.shape) + " cannot be broadcast together");
    p.bshape = *b;
    if (first < 0) first = int(d);
    last = int(d);
  }
  call.check(first >= 0, "at least one index tensor is needed");
  bool adjacent = true;
  for (int d = first; d <= last; ++d) adjacent &= p.idx[size_t(d)] != nullptr;
  for (size_t d = 0; d < self_shape.size(); ++d)
    if (d >= p.idx.size() || !p.idx[d]) p.rest.push_back(d);
  // Adjacent advanced indices replace their dims in place; separated ones go first.
  p.bpos = adjacent ? size_t(first) : 0;
  for (size_t r = 0; r < p.rest.size(); ++r) {
    if (r == p.bpos) p.out.insert(p.out.end(), p.bshape.begin(), p.bshape.end());
    p.out.push_back(self_shape[p.rest[r]]);
  }
  if (p.bpos == p.rest.size()) p.out.insert(p.out.end(), p.bshape.begin(), p.bshape.end());
  return p;
}

IndexAddressing address_index(const OpCall& call, const IndexPlan& p, const Tensor& self,
                              const Strides& res_strides) {
  IndexAddressing a;
  const int64_t count = shape_numel(p.bshape);
  a.self_off.assign(size_t(count), 0);
  for (size_t d = 0; d < p.idx.size(); ++d) {
    if (!p.idx[d]) continue;
    const Tensor& idx = *p.idx[d];
    const auto vals = read_indices(idx, p.bshape, broadcast_strides(idx, p.bshape));
    for (int64_t b = 0; b < count; ++b)
      a.self_off[size_t(b)] +=
          checked_index(call, vals[size_t(b)], self.shape[d], int64_t(d), true) * self.strides[d];
  }
  // Result dims: rest[0..bpos) | broadcast dims | rest[bpos..).
  const size_t nb = p.bshape.size();
  for (size_t r = 0; r < p.rest.size(); ++r) {
    a.block.push_back(self.shape[p.rest[r]]);
    a.self_st.push_back(self.strides[p.rest[r]]);
    a.res_st.push_back(res_strides[r < p.bpos ? r : r + nb]);
  }
  const Strides bst(res_strides.begin() + std::ptrdiff_t(p.bpos),
                    res_strides.begin() + std::ptrdiff_t(p.bpos + nb));
  a.res_off.reserve(size_t(count));
  for_each_row<1>(p.bshape, {bst.data()}, {0},
                  [&](std::array<int64_t, 1> off, int64_t n, std::array<int64_t, 1> st) {
                    for (int64_t k = 0; k < n; ++k) a.res_off.push_back(off[0] + k * st[0]);
                  });
  return a;
}

void along_offsets(const OpCall& call, const Tensor& index, int64_t dim, int64_t self_size,
                   int64_t self_stride, int64_t other_stride, std::vector<int64_t>* self_off,
                   std::vector<int64_t>* other_off) {
  const size_t n = size_t(index.numel());
  self_off->resize(n);  // no allocation when the caller keeps them sized (a run allocates nothing)
  other_off->resize(n);
  const int64_t step = index.dim() == 1 ? index.strides[0] : 0;
  for (size_t j = 0; j < n; ++j) {
    const int64_t at = int64_t(j) * step;
    const int64_t v = index.dtype == DType::I32 ? int64_t(index.data<int32_t>()[at]) : index.data<int64_t>()[at];
    (*self_off)[j] = checked_index(call, v, self_size, dim, false) * self_stride;
    (*other_off)[j] = int64_t(j) * other_stride;
  }
}

void check_mask(const OpCall& call, const Tensor& mask, const Shape& self_shape, size_t first_dim) {
  call.check(mask.dim() > 0, "0-d boolean mask indices are not supported");
  call.check(first_dim + size_t(mask.dim()) <= self_shape.size(),
             "too many indices for a tensor of shape " + shape_to_string(self_shape));
  for (size_t k = 0; k < size_t(mask.dim()); ++k)
    call.check(mask.shape[k] == self_shape[first_dim + k],
               "the shape of the mask " + shape_to_string(mask.shape) + " at index " + std::to_string(k) +
                   " does not match the shape of the indexed tensor " + shape_to_string(self_shape) +
                   " at index " + std::to_string(first_dim + k));
}

void expand_masks(const OpCall& call, const std::vector<const Tensor*>& entries, const Shape& self_shape,
                  std::vector<Tensor>* owned, std::vector<const Tensor*>* per_dim) {
  owned->reserve(self_shape.size());  // per_dim points into owned: it must not reallocate
  for (const Tensor* t : entries) {
    if (!t || !is_mask(*t)) {
      per_dim->push_back(t);
      continue;
    }
    check_mask(call, *t, self_shape, per_dim->size());
    const Tensor m = to_dtype_owned(*t, DType::Bool);
    const bool* mp = m.data<bool>();
    const size_t k = size_t(m.dim());
    std::vector<std::vector<int64_t>> coords(k);
    std::vector<int64_t> pos(k, 0);
    for (int64_t flat = 0; flat < m.numel(); ++flat) {
      if (mp[flat])
        for (size_t d = 0; d < k; ++d) coords[d].push_back(pos[d]);
      for (size_t d = k; d-- > 0;) {  // row-major counter
        if (++pos[d] < m.shape[d]) break;
        pos[d] = 0;
      }
    }
    for (size_t d = 0; d < k; ++d) {
      Tensor c = make_owned(DType::I64, {int64_t(coords[d].size())});
      std::copy(coords[d].begin(), coords[d].end(), c.data<int64_t>());
      owned->push_back(c);
      per_dim->push_back(&owned->back());
    }
  }
}

void mask_placeholders(const OpCall& call, const std::vector<const Tensor*>& entries, const Shape& self_shape,
                       std::vector<Tensor>* owned, std::vector<const Tensor*>* per_dim) {
  owned->reserve(self_shape.size());
  for (const Tensor* t : entries) {
    if (!t || !is_mask(*t)) {
      per_dim->push_back(t);
      continue;
    }
    check_mask(call, *t, self_shape, per_dim->size());
    for (int64_t d = 0; d < t->dim(); ++d) {
      Tensor c;
      c.dtype = DType::I64;
      c.shape = {1};
      c.strides = {1};
      owned->push_back(c);
      per_dim->push_back(&owned->back());
    }
  }
}

}  // namespace indexing

namespace {

using namespace indexing;

// --- index.Tensor -------------------------------------------------------
// Bool masks select a data-dependent number of elements: the shape comes from
// the IR's output metadata (torch.export records the concrete shape), and run
// checks that the masks' true counts agree with it.
std::vector<const Tensor*> index_entries(const OpCall& call) {
  call.check(!call.in.empty(), "missing self");
  return tensor_list(call, 1, call.in.size() - 1);
}

bool has_mask(const std::vector<const Tensor*>& entries) {
  for (const Tensor* t : entries)
    if (t && is_mask(*t)) return true;
  return false;
}

void plan_index_tensor(OpCall& call) {
  const auto entries = index_entries(call);
  const Tensor& self = call.in[0];
  if (!has_mask(entries)) {
    call.fresh(0, self.dtype, plan_index(call, self.shape, entries).out);
    return;
  }
  std::vector<Tensor> owned;
  std::vector<const Tensor*> per_dim;
  mask_placeholders(call, entries, self.shape, &owned, &per_dim);
  const IndexPlan p = plan_index(call, self.shape, per_dim);
  // The sliced dims must agree with the metadata (or with the shape the data
  // gives, OpCall::run_shapes); the broadcast dims come from it.
  call.data_dependent = true;
  const Shape meta = !call.run_shapes.empty() ? call.run_shapes[0]
                     : call.num_ir_outputs() > 0 ? call.node->outputs[0].shape : Shape{};
  bool usable = meta.size() == p.out.size();
  for (size_t r = 0; r < p.rest.size() && usable; ++r)
    usable = meta[r < p.bpos ? r : r + p.bshape.size()] == self.shape[p.rest[r]];
  call.check(usable, "a boolean mask index selects a data-dependent number of elements and the IR output "
                     "shape " + shape_to_string(meta) + " does not fit a result of rank " +
                     std::to_string(p.out.size()) + " (self " + shape_to_string(self.shape) + ")");
  call.fresh(0, self.dtype, meta);
}

std::vector<Shape> infer_index_tensor(const OpCall& call) {
  const auto entries = index_entries(call);
  std::vector<Tensor> owned;
  std::vector<const Tensor*> per_dim;
  expand_masks(call, entries, call.in[0].shape, &owned, &per_dim);
  return {plan_index(call, call.in[0].shape, per_dim).out};
}

void run_index_tensor(OpCall& call) {
  const auto entries = index_entries(call);
  const Tensor &self = call.in[0], &out = call.out[0];
  std::vector<Tensor> owned;
  std::vector<const Tensor*> per_dim;
  expand_masks(call, entries, self.shape, &owned, &per_dim);
  const IndexPlan p = plan_index(call, self.shape, per_dim);
  if (p.out != out.shape)
    call.fail("the boolean mask index selects a result of shape " + shape_to_string(p.out) +
              " but the IR output shape is " + shape_to_string(out.shape) +
              " (the mask's true count differs from the exported example)");
  const IndexAddressing a = address_index(call, p, self, out.strides);
  copy_blocks(dtype_size(self.dtype), a.block, self.raw(), a.self_st, a.self_off.data(), out.raw(), a.res_st,
              a.res_off.data(), a.count());
}

// --- index_select / embedding: whole slices picked along one dim -----------
void select_along(const OpCall& call, const Tensor& self, size_t dim, const Tensor& index, const Tensor& out,
                  size_t out_dim) {
  std::vector<int64_t> src_off, dst_off;
  along_offsets(call, index, int64_t(dim), self.shape[dim], self.strides[dim], out.strides[out_dim], &src_off,
                &dst_off);
  copy_blocks(dtype_size(self.dtype), drop(self.shape, dim), self.raw(), drop(self.strides, dim),
              src_off.data(), out.raw(), drop(out.strides, out_dim), dst_off.data(), int64_t(src_off.size()));
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
  if ((w.strides[1] == 1 || D == 1) && idx.is_contiguous() && out.is_contiguous()) {
    // Rows copied straight from the indices (a run allocates nothing).
    const size_t item = dtype_size(w.dtype), row = size_t(D) * item;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t v = idx.dtype == DType::I64 ? idx.data<int64_t>()[i] : int64_t(idx.data<int32_t>()[i]);
      const int64_t r = checked_index(call, v, w.shape[0], 0, false);
      std::memcpy(out.raw() + size_t(i) * row, w.raw() + size_t(r * w.strides[0]) * item, row);
    }
    return;
  }
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

// --- repeat_interleave --------------------------------------------------
// self_int: each slice along dim (or each element of the flattened self when
// dim is None) repeated `repeats` times; a gather along one dim.
struct RepeatArgs {
  bool flat = false;  // dim None: self is flattened first
  size_t dim = 0;
  int64_t repeats = 0;
};

RepeatArgs repeat_args(const OpCall& call) {
  RepeatArgs r;
  const Tensor& self = call.in[0];
  r.repeats = call.i("repeats");
  call.check(r.repeats >= 0, "repeats can not be negative, got " + std::to_string(r.repeats));
  r.flat = !call.has("dim") || self.dim() == 0;
  if (!r.flat) r.dim = size_t(call.wrap_dim(call.i("dim"), self.dim()));
  return r;
}

void plan_repeat_interleave_int(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  const RepeatArgs r = repeat_args(call);
  Shape out = r.flat ? Shape{self.numel()} : self.shape;
  out[r.dim] = checked_mul(out[r.dim], r.repeats, "repeat_interleave");
  if (call.has("output_size"))
    call.check(call.i("output_size") == out[r.dim], "output_size " + std::to_string(call.i("output_size")) +
                                                         " does not match the repeated size " +
                                                         std::to_string(out[r.dim]));
  call.fresh(0, self.dtype, out);
}

void run_repeat_interleave_int(OpCall& call) {
  const RepeatArgs r = repeat_args(call);
  const Tensor& out = call.out[0];
  Tensor self = call.in[0];
  if (r.flat) {
    self = contiguous_or_self(self);
    self = self.view_as({self.numel()}, {1}, self.offset);
  }
  const int64_t n = out.shape[r.dim];
  std::vector<int64_t> src_off(static_cast<size_t>(n)), dst_off(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    src_off[size_t(j)] = (j / r.repeats) * self.strides[r.dim];
    dst_off[size_t(j)] = j * out.strides[r.dim];
  }
  copy_blocks(dtype_size(self.dtype), drop(self.shape, r.dim), self.raw(), drop(self.strides, r.dim),
              src_off.data(), out.raw(), drop(out.strides, r.dim), dst_off.data(), n);
}

// Tensor: [0]*repeats[0] + [1]*repeats[1] + ...; the length is the data's sum,
// so it comes from output_size or from the IR's output metadata.
void plan_repeat_interleave_tensor(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& rep = call.in[0];
  call.check(rep.dtype == DType::I64 || rep.dtype == DType::I32,
             std::string("repeats must be an int64 or int32 tensor, got ") + dtype_name(rep.dtype));
  call.check(rep.dim() <= 1, "repeats must be a 0-d or 1-d tensor, got " + shape_to_string(rep.shape));
  int64_t size = -1;
  if (call.has("output_size")) {
    size = call.i("output_size");
  } else {
    call.data_dependent = true;  // the recorded length, or the data's (OpCall::run_shapes)
    const Shape meta = !call.run_shapes.empty() ? call.run_shapes[0]
                       : call.num_ir_outputs() > 0 ? call.node->outputs[0].shape : Shape{};
    if (meta.size() == 1) size = meta[0];
  }
  call.check(size >= 0, "the output length is the sum of the repeats tensor's data; it needs output_size or "
                        "a 1-d IR output shape");
  call.fresh(0, rep.dtype, {size});
}

std::vector<Shape> infer_repeat_interleave_tensor(const OpCall& call) {
  int64_t total = 0;
  for (int64_t r : read_indices(call.in[0])) {
    call.check(r >= 0, "repeats can not be negative, got " + std::to_string(r));
    total += r;
  }
  return {{total}};
}

void run_repeat_interleave_tensor(OpCall& call) {
  const Tensor& out = call.out[0];
  const auto reps = read_indices(call.in[0]);
  int64_t total = 0;
  for (int64_t r : reps) {
    call.check(r >= 0, "repeats can not be negative, got " + std::to_string(r));
    total += r;
  }
  call.check(total == out.shape[0], "the repeats sum to " + std::to_string(total) + " but the output length is " +
                                        std::to_string(out.shape[0]));
  dispatch_compute(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* o = out.data<T>();
    int64_t k = 0;
    for (size_t i = 0; i < reps.size(); ++i)
      for (int64_t j = 0; j < reps[i]; ++j) o[k++] = T(i);
  });
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor
    {"aten.index.Tensor", {plan_index_tensor, run_index_tensor, nullptr, {}, infer_index_tensor}},
    // aten::_unsafe_index.Tensor(Tensor self, Tensor?[] indices) -> Tensor
    // (index.Tensor without bounds promises; we still check: same result for valid input)
    {"aten._unsafe_index.Tensor", {plan_index_tensor, run_index_tensor, nullptr, {}, infer_index_tensor}},
    // aten::index_select(Tensor self, int dim, Tensor index) -> Tensor
    {"aten.index_select.default", {plan_index_select, run_index_select}},
    // aten::embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1,
    //   bool scale_grad_by_freq=False, bool sparse=False) -> Tensor
    {"aten.embedding.default", {plan_embedding, run_embedding}},
    // aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor
    {"aten.gather.default", {plan_gather, run_gather}},
    // aten::repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *,
    //   SymInt? output_size=None) -> Tensor
    {"aten.repeat_interleave.self_int", {plan_repeat_interleave_int, run_repeat_interleave_int}},
    // aten::repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor
    {"aten.repeat_interleave.Tensor",
     {plan_repeat_interleave_tensor, run_repeat_interleave_tensor, nullptr, {}, infer_repeat_interleave_tensor}});

}  // namespace tir
