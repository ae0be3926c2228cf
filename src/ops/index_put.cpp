// Scatters: index_put (advanced-index writes), index_copy, index_add,
// select_scatter, slice_scatter. Out-of-place forms copy self into a fresh
// output first; in-place forms (`op_`) alias output 0 to self and write through
// self's strides, so writes into views (KV caches, `x[:, 0][idx] = v`) land in
// the base. Addressing is shared with the gathers (ops/index_util.h).
#include <algorithm>
#include <string>

#include "kernels/gather.h"
#include "ops/common.h"
#include "ops/elementwise_util.h"
#include "ops/index_util.h"
#include "ops/view_util.h"
#include "ops/op.h"

namespace tir {
namespace {

using namespace indexing;

// A source read while `target` is written, in target's dtype: a snapshot when it
// shares target's memory (torch reads it as if before the write).
Tensor source_for(const Tensor& src, const Tensor& target) {
  return ew::as_dtype(ew::read_safe(src, target), target.dtype);
}

// --- index_put ------------------------------------------------------------
// Inputs: [self, indices (None entries left out)..., values].
std::vector<const Tensor*> put_indices(const OpCall& call) {
  call.check(call.in.size() >= 3, "expected self, at least one index tensor and values, got " +
                                      std::to_string(call.in.size()) + " inputs");
  return tensor_list(call, 1, call.in.size() - 2);
}

void check_values(const OpCall& call, const Tensor& values, const Shape& result) {
  auto b = broadcast_shapes(values.shape, result);
  call.check(values.dim() <= int64_t(result.size()) && b && *b == result,
             "shape mismatch: value tensor of shape " + shape_to_string(values.shape) +
                 " cannot be broadcast to indexing result of shape " + shape_to_string(result));
}

void plan_index_put(OpCall& call, bool inplace) {
  const auto entries = put_indices(call);
  const Tensor &self = call.in[0], &values = call.in.back();
  bool masked = false;
  for (const Tensor* t : entries) masked |= t && is_mask(*t);
  if (masked) {
    // The indexed shape depends on the masks' data: check what can be checked now.
    size_t dim = 0;
    for (const Tensor* t : entries) {
      if (t && is_mask(*t)) {
        check_mask(call, *t, self.shape, dim);
        dim += size_t(t->dim());
      } else {
        if (t) check_index_dtype(call, *t);
        ++dim;
      }
    }
    call.check(dim <= size_t(self.dim()), "too many indices for a tensor of shape " + shape_to_string(self.shape));
  } else {
    check_values(call, values, plan_index(call, self.shape, entries).out);
  }
  plan_target(call, inplace);
}

void run_index_put(OpCall& call, bool inplace) {
  const auto entries = put_indices(call);
  const Tensor& target = prepare_target(call, inplace);
  const Tensor values = source_for(call.in.back(), target);
  std::vector<Tensor> coords;
  std::vector<const Tensor*> per_dim;
  expand_masks(call, entries, target.shape, &coords, &per_dim);
  const IndexPlan p = plan_index(call, target.shape, per_dim);
  check_values(call, values, p.out);
  const IndexAddressing a = address_index(call, p, target, broadcast_strides(values, p.out));
  if (call.b("accumulate", false))
    add_blocks(target.dtype, 1.0, a.block, values.raw(), a.res_st, a.res_off.data(), target.raw(), a.self_st,
               a.self_off.data(), a.count());
  else
    copy_blocks(dtype_size(target.dtype), a.block, values.raw(), a.res_st, a.res_off.data(), target.raw(),
                a.self_st, a.self_off.data(), a.count());
}

// --- index_copy / index_add: whole slices placed along one dim --------------
// Inputs [self, index, source]; 0-d self/source are treated as 1-element 1-D.
void plan_index_along(OpCall& call, bool inplace) {
  call.expect_inputs(3, 3);
  const Tensor &self = call.in[0], &index = call.in[1], &source = call.in[2];
  check_index_dtype(call, index);
  call.check(index.dim() <= 1, "index should have dimension 1 or 0 (got " + std::to_string(index.dim()) + ")");
  const int64_t dim = call.wrap_dim(call.i("dim"), self.dim());
  const Tensor s1 = as_1d(self), src1 = as_1d(source);
  call.check(s1.dim() == src1.dim(), "source " + shape_to_string(source.shape) + " and self " +
                                         shape_to_string(self.shape) + " must have the same number of dims");
  call.check(drop(s1.shape, size_t(dim)) == drop(src1.shape, size_t(dim)),
             "source/destination tensors must have the same slice shapes (self " + shape_to_string(self.shape) +
                 ", source " + shape_to_string(source.shape) + ", dim " + std::to_string(dim) + ")");
  call.check(index.numel() == src1.shape[size_t(dim)],
             "number of indices (" + std::to_string(index.numel()) + ") should be equal to source.size(dim) (" +
                 std::to_string(src1.shape[size_t(dim)]) + ")");
  plan_target(call, inplace);
}

// What a run of index_copy / index_add reads, worked out at prepare (a run
// allocates nothing): the target and source as 1-D-or-more views, the slice
// shape and strides, and the per-index offsets (filled each run).
struct IndexAlongState {
  bool prepared = false;
  bool direct = false;  // the source is read as is (its dtype, no overlap with the target)
  size_t dim = 0;
  Tensor t1, src;
  Shape block;
  Strides src_st, t_st;
  std::vector<int64_t> t_off, s_off;
  double alpha = 1;
};

void prepare_index_along(OpCall& call) {
  auto& st = call.state_as<IndexAlongState>();
  const Tensor& target = call.out[0];
  st.dim = size_t(call.wrap_dim(call.i("dim"), target.dim()));
  st.t1 = as_1d(target);
  const Tensor& src = call.in[2];
  st.direct = src.dtype == target.dtype && !(src.same_storage(target) && !ew::same_view(src, target));
  st.src = as_1d(src);
  st.block = drop(st.src.shape, st.dim);
  st.src_st = drop(st.src.strides, st.dim);
  st.t_st = drop(st.t1.strides, st.dim);
  st.t_off.resize(size_t(call.in[1].numel()));
  st.s_off.resize(size_t(call.in[1].numel()));
  st.alpha = call.scalar("alpha", Scalar::of_int(1)).f;
  st.prepared = true;
}

void run_index_along(OpCall& call, bool inplace, bool add) {
  if (!call.state) call.state = std::make_shared<IndexAlongState>();  // planned outside a session (op tests)
  auto& st = call.state_as<IndexAlongState>();
  if (!st.prepared) prepare_index_along(call);
  const Tensor& target = prepare_target(call, inplace);
  Tensor converted;  // a snapshot or converted copy of the source, when it is not read as is
  Strides converted_st;
  if (!st.direct) {
    converted = as_1d(source_for(call.in[2], target));
    converted_st = drop(converted.strides, st.dim);
  }
  const Tensor& src = st.direct ? st.src : converted;
  const Strides& src_st = st.direct ? st.src_st : converted_st;
  along_offsets(call, call.in[1], int64_t(st.dim), st.t1.shape[st.dim], st.t1.strides[st.dim], src.strides[st.dim],
                &st.t_off, &st.s_off);
  if (add)
    add_blocks(target.dtype, st.alpha, st.block, src.raw(), src_st, st.s_off.data(), st.t1.raw(), st.t_st,
               st.t_off.data(), int64_t(st.t_off.size()));
  else
    copy_blocks(dtype_size(target.dtype), st.block, src.raw(), src_st, st.s_off.data(), st.t1.raw(), st.t_st,
                st.t_off.data(), int64_t(st.t_off.size()));
}

void plan_index_add(OpCall& call, bool inplace) {
  plan_index_along(call, inplace);
  const Scalar alpha = call.scalar("alpha", Scalar::of_int(1));
  call.check(!is_integral(call.in[0].dtype) || alpha.kind != Scalar::Kind::Float,
             "for integral input tensors, argument alpha must not be a floating point number");
}

// --- select_scatter / slice_scatter: the functional form of view writes -----
// The region of `t` that select.int / slice.Tensor with this node's attrs views.
Tensor scatter_region(const OpCall& call, const Tensor& t, bool select) {
  return select ? select_by_attrs(call, t) : slice_by_attrs(call, t);
}

void plan_scatter_view(OpCall& call, bool select) {
  call.expect_inputs(2, 2);
  const Tensor region = scatter_region(call, call.in[0], select);
  call.check(region.shape == call.in[1].shape, std::string("expected src to have a size equal to the ") +
                                                   (select ? "selected" : "sliced") + " region of self: src " +
                                                   shape_to_string(call.in[1].shape) + ", region " +
                                                   shape_to_string(region.shape));
  plan_target(call, false);
}

void run_scatter_view(OpCall& call, bool select) {
  const Tensor& target = prepare_target(call, false);
  copy_into(scatter_region(call, target, select), call.in[1]);
}

template <bool Inplace>
OpDef index_put_def() {
  return target_def({[](OpCall& c) { plan_index_put(c, Inplace); }, [](OpCall& c) { run_index_put(c, Inplace); }},
                    Inplace);
}
template <bool Inplace, bool Add>
OpDef index_along_def() {
  return target_def({[](OpCall& c) {
                       Add ? plan_index_add(c, Inplace) : plan_index_along(c, Inplace);
                       c.state = std::make_shared<IndexAlongState>();
                     },
                     [](OpCall& c) { run_index_along(c, Inplace, Add); }, prepare_index_along},
                    Inplace);
}
template <bool Select>
OpDef scatter_view_def() {
  return target_def({[](OpCall& c) { plan_scatter_view(c, Select); }, [](OpCall& c) { run_scatter_view(c, Select); }},
                    false);
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor
    {"aten.index_put.default", index_put_def<false>()},
    // aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)
    {"aten.index_put_.default", index_put_def<true>()},
    // aten::_unsafe_index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor
    // (index_put without bounds promises; we still check)
    {"aten._unsafe_index_put.default", index_put_def<false>()},
    // aten::index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor
    {"aten.index_copy.default", index_along_def<false, false>()},
    // aten::index_copy_(Tensor(a!) self, int dim, Tensor index, Tensor source) -> Tensor(a!)
    {"aten.index_copy_.default", index_along_def<true, false>()},
    // aten::index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor
    {"aten.index_add.default", index_along_def<false, true>()},
    // aten::index_add_(Tensor(a!) self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor(a!)
    {"aten.index_add_.default", index_along_def<true, true>()},
    // aten::select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor
    {"aten.select_scatter.default", scatter_view_def<true>()},
    // aten::slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None,
    //   SymInt step=1) -> Tensor
    {"aten.slice_scatter.default", scatter_view_def<false>()});

}  // namespace tir
