// Joins: cat, stack, hstack and vstack. Each input is copied (with dtype promotion) into its
// slice of the output through copy_into, so strided inputs need no copy first.
#include <string>

#include "core/checked.h"
#include "ops/common.h"
#include "ops/op.h"

namespace tir {
namespace {

DType promoted(const std::vector<Tensor>& ts) {
  std::vector<PromotionOperand> ops;
  for (const auto& t : ts) ops.push_back(PromotionOperand::of(t));
  return compute_dtype(result_type(ops));
}

// torch skips legacy empty 1-D [0] tensors in cat (an empty initial KV cache).
bool skipped(const Tensor& t) { return t.dim() == 1 && t.shape[0] == 0; }

struct CatPlan {
  int64_t dim = 0;
  Shape out;
};

// `tensors` are the pieces (call.in, or views of them for hstack/vstack).
CatPlan plan_cat_shape(const OpCall& call, const std::vector<Tensor>& tensors, int64_t dim) {
  call.check(!tensors.empty(), "cat needs at least one tensor");
  const Tensor* ref = nullptr;
  for (const auto& t : tensors)
    if (!skipped(t)) {
      ref = &t;
      break;
    }
  CatPlan p;
  if (!ref) {  // all inputs are legacy empties
    p.out = {0};
    return p;
  }
  call.check(ref->dim() > 0, "zero-dimensional tensor cannot be concatenated");
  p.dim = call.wrap_dim(dim, ref->dim());
  p.out = ref->shape;
  p.out[size_t(p.dim)] = 0;
  for (size_t k = 0; k < tensors.size(); ++k) {
    const Tensor& t = tensors[k];
    if (skipped(t)) continue;
    bool ok = t.dim() == ref->dim();
    for (int64_t d = 0; ok && d < t.dim(); ++d)
      ok = d == p.dim || t.shape[size_t(d)] == ref->shape[size_t(d)];
    if (!ok)
      call.fail("tensor " + std::to_string(k) + " has shape " + shape_to_string(t.shape) + ", expected " +
                shape_to_string(ref->shape) + " except in dimension " + std::to_string(p.dim));
    p.out[size_t(p.dim)] = checked_add(p.out[size_t(p.dim)], t.shape[size_t(p.dim)], "cat output size");
  }
  return p;
}

void cat_into(const OpCall& call, const std::vector<Tensor>& tensors, int64_t dim) {
  const CatPlan p = plan_cat_shape(call, tensors, dim);
  const Tensor& out = call.out[0];
  int64_t pos = 0;
  const size_t d = size_t(p.dim);
  for (const auto& t : tensors) {
    if (skipped(t) || p.out.size() <= d) continue;
    Shape s = out.shape;
    s[d] = t.shape[d];
    if (s[d] == 0) continue;
    copy_into(out.view_as(s, out.strides, out.offset + pos * out.strides[d]), t);
    pos += s[d];
  }
}

// cat's output pieces, one view per input copied (built at plan: a run allocates nothing).
struct CatState {
  std::vector<std::pair<size_t, Tensor>> pieces;  // (input index, its slice of the output)
};

void plan_cat(OpCall& call) {
  const CatPlan p = plan_cat_shape(call, call.in, call.i("dim", 0));
  const Tensor& out = call.fresh(0, promoted(call.in), p.out);
  auto st = std::make_shared<CatState>();
  const size_t d = size_t(p.dim);
  int64_t pos = 0;
  for (size_t i = 0; i < call.in.size(); ++i) {
    const Tensor& t = call.in[i];
    if (skipped(t) || p.out.size() <= d || t.shape[d] == 0) continue;
    Shape s = out.shape;
    s[d] = t.shape[d];
    st->pieces.push_back({i, out.view_as(s, out.strides, out.offset + pos * out.strides[d])});
    pos += s[d];
  }
  call.state = st;
}
void run_cat(OpCall& call) {
  for (const auto& [i, piece] : call.state_as<CatState>().pieces) copy_into(piece, call.in[i]);
}

// hstack / vstack: torch.atleast_1d / atleast_2d views of the inputs, then cat
// along dim 1 (dim 0 when the inputs are 1-D) / dim 0.
Tensor at_least(const Tensor& t, int64_t rank) {
  if (t.dim() >= rank) return t;
  if (t.dim() == 0) return t.view_as(Shape(size_t(rank), 1), Strides(size_t(rank), 1), t.offset);
  return t.view_as({1, t.shape[0]}, {t.shape[0] * t.strides[0], t.strides[0]}, t.offset);  // 1-D -> [1, n]
}

struct StackedCat {
  std::vector<Tensor> tensors;
  int64_t dim;
};

StackedCat stacked_cat(const OpCall& call, bool horizontal) {
  call.check(!call.in.empty(), std::string(horizontal ? "hstack" : "vstack") + " expects a non-empty TensorList");
  StackedCat s;
  for (const auto& t : call.in) s.tensors.push_back(at_least(t, horizontal ? 1 : 2));
  s.dim = horizontal && s.tensors[0].dim() > 1 ? 1 : 0;
  return s;
}

OpDef stacked_cat_def(bool horizontal) {
  auto plan = [horizontal](OpCall& call) {
    const StackedCat s = stacked_cat(call, horizontal);
    call.fresh(0, promoted(call.in), plan_cat_shape(call, s.tensors, s.dim).out);
  };
  auto run = [horizontal](OpCall& call) {
    const StackedCat s = stacked_cat(call, horizontal);
    cat_into(call, s.tensors, s.dim);
  };
  return {plan, run};
}

void plan_stack(OpCall& call) {
  call.check(!call.in.empty(), "stack expects a non-empty list of tensors");
  const Tensor& ref = call.in[0];
  for (size_t k = 1; k < call.in.size(); ++k)
    call.check(call.in[k].shape == ref.shape,
               "stack expects each tensor to be equal size, but got " + shape_to_string(ref.shape) +
                   " at entry 0 and " + shape_to_string(call.in[k].shape) + " at entry " + std::to_string(k));
  const int64_t dim = call.wrap_dim(call.i("dim", 0), ref.dim() + 1);
  Shape out = ref.shape;
  out.insert(out.begin() + dim, int64_t(call.in.size()));
  call.fresh(0, promoted(call.in), out);
}

void run_stack(OpCall& call) {
  const Tensor& out = call.out[0];
  const size_t dim = size_t(call.wrap_dim(call.i("dim", 0), call.in[0].dim() + 1));
  Strides st = out.strides;
  st.erase(st.begin() + std::ptrdiff_t(dim));
  for (size_t k = 0; k < call.in.size(); ++k)
    copy_into(out.view_as(call.in[k].shape, st, out.offset + int64_t(k) * out.strides[dim]), call.in[k]);
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::cat(Tensor[] tensors, int dim=0) -> Tensor
    {"aten.cat.default", {plan_cat, run_cat}},
    // aten::stack(Tensor[] tensors, int dim=0) -> Tensor
    {"aten.stack.default", {plan_stack, run_stack}},
    // aten::hstack(Tensor[] tensors) -> Tensor
    {"aten.hstack.default", stacked_cat_def(true)},
    // aten::vstack(Tensor[] tensors) -> Tensor
    {"aten.vstack.default", stacked_cat_def(false)});

}  // namespace tir
