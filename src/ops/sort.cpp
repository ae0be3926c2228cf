// Scans and sorts along one dim: cumsum/cumprod, sort/argsort, topk.
#include <memory>
#include <string>

#include "kernels/reduce.h"
#include "kernels/sort.h"
#include "ops/common.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"

namespace tir {
namespace {

struct DimState {
  int64_t dim;
  DType in_dtype;
  bool prod;
};

// --- cumsum / cumprod -------------------------------------------------------------
void plan_cumsum(OpCall& call, bool prod) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(!is_complex(self.dtype), "complex tensors are not supported");
  auto st = std::make_shared<DimState>();
  st->dim = call.wrap_dim(call.i("dim"), self.dim());
  st->prod = prod;
  // bool/int accumulate as int64 unless `dtype` says otherwise (docs/spec/OPS.md §3.1)
  const auto dt = call.dtype("dtype");
  st->in_dtype = dt ? compute_dtype(*dt) : is_floating(self.dtype) ? compute_dtype(self.dtype) : DType::I64;
  call.check(st->in_dtype != DType::Bool, "cumsum/cumprod with dtype=torch.bool is not supported");
  call.fresh(0, st->in_dtype, self.shape);
  call.state = st;
}
void run_cumsum(OpCall& call) {
  auto& st = call.state_as<DimState>();
  const Tensor in = ew::as_dtype(call.in[0], st.in_dtype);
  if (st.prod) cumprod_kernel(in, st.dim, call.out[0]);
  else cumsum_kernel(in, st.dim, call.out[0]);
}

// --- sort / argsort ------------------------------------------------------------
struct SortState {
  int64_t dim;
  bool descending;
};
void plan_sort(OpCall& call, bool with_values) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(!is_complex(self.dtype), "sort of complex tensors is not supported");
  auto st = std::make_shared<SortState>();
  st->dim = call.wrap_dim(call.i("dim", -1), self.dim());
  st->descending = call.b("descending", false);
  if (with_values) {
    call.fresh(0, compute_dtype(self.dtype), self.shape);
    call.fresh(1, DType::I64, self.shape);
  } else {
    call.fresh(0, DType::I64, self.shape);
  }
  call.state = st;
}
void run_sort(OpCall& call) {
  auto& st = call.state_as<SortState>();
  if (call.out.size() == 2) sort_kernel(call.in[0], st.dim, st.descending, &call.out[0], call.out[1]);
  else sort_kernel(call.in[0], st.dim, st.descending, nullptr, call.out[0]);
}

// --- topk ----------------------------------------------------------------------
struct TopkState {
  int64_t dim, k;
  bool largest;
};
void plan_topk(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(!is_complex(self.dtype), "topk of complex tensors is not supported");
  auto st = std::make_shared<TopkState>();
  st->dim = call.wrap_dim(call.i("dim", -1), self.dim());
  st->k = call.i("k");
  st->largest = call.b("largest", true);
  // `sorted` is accepted either way: the result is always in order, which is one
  // valid answer for sorted=False (torch's own CPU order then depends on k and n).
  (void)call.b("sorted", true);
  const int64_t n = self.dim() == 0 ? 1 : self.shape[size_t(st->dim)];
  call.check(st->k >= 0 && st->k <= n, "selected index k out of range: k = " + std::to_string(st->k) +
                                           " for a dimension of size " + std::to_string(n));
  Shape out = self.shape;
  if (!out.empty()) out[size_t(st->dim)] = st->k;
  call.fresh(0, compute_dtype(self.dtype), out);
  call.fresh(1, DType::I64, out);
  call.state = st;
}
void run_topk(OpCall& call) {
  auto& st = call.state_as<TopkState>();
  topk_kernel(call.in[0], st.dim, st.k, st.largest, call.out[0], call.out[1]);
}

}  // namespace

TIR_REGISTER_OPS(
    // cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
    {"aten.cumsum.default", {[](OpCall& c) { plan_cumsum(c, false); }, run_cumsum}},
    // cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
    {"aten.cumprod.default", {[](OpCall& c) { plan_cumsum(c, true); }, run_cumsum}},
    // sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
    {"aten.sort.default", {[](OpCall& c) { plan_sort(c, true); }, run_sort}},
    // sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
    // (our sort is always stable)
    {"aten.sort.stable", {[](OpCall& c) { plan_sort(c, true); }, run_sort}},
    // argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor
    {"aten.argsort.default", {[](OpCall& c) { plan_sort(c, false); }, run_sort}},
    // argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor
    {"aten.argsort.stable", {[](OpCall& c) { plan_sort(c, false); }, run_sort}},
    // topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True)
    //   -> (Tensor values, Tensor indices)
    {"aten.topk.default", {plan_topk, run_topk}});

}  // namespace tir
