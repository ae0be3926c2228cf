// Softmax family along any dim: softmax.int, _softmax, log_softmax.int,
// _log_softmax, _safe_softmax.
#include <memory>
#include <string>

#include "kernels/softmax.h"
#include "ops/common.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"

namespace tir {
namespace {

struct SoftmaxState {
  SoftmaxKind kind;
  DType dtype;  // compute and output dtype
  int64_t outer = 1, n = 1, inner = 1;
};

// has_dtype: the public forms take `ScalarType? dtype` (input cast first);
// the underscore forms take `bool half_to_float` (f16 in, f32 out: our f16 is already f32).
void plan_softmax(OpCall& call, SoftmaxKind kind, bool has_dtype) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  auto st = std::make_shared<SoftmaxState>();
  st->kind = kind;
  st->dtype = compute_dtype(self.dtype);
  if (has_dtype) {
    if (auto d = call.dtype("dtype")) st->dtype = compute_dtype(*d);
  } else {
    call.b("half_to_float", false);
  }
  call.check(is_floating(st->dtype), std::string("softmax is not implemented for dtype ") + dtype_name(st->dtype));
  const int64_t dim = call.wrap_dim(call.i("dim"), self.dim());
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d < dim) st->outer *= self.shape[size_t(d)];
    else if (d == dim) st->n = self.shape[size_t(d)];
    else st->inner *= self.shape[size_t(d)];
  }
  call.fresh(0, st->dtype, self.shape);
  call.state = st;
}

void run_softmax(OpCall& call) {
  auto& st = call.state_as<SoftmaxState>();
  Tensor keep;  // a converted or contiguous copy of the input, when it needs one
  const Tensor& x = ew::dense_ref(call.in[0], st.dtype, keep);
  const Tensor& y = call.out[0];
  if (y.numel() == 0) return;
  if (st.dtype == DType::F32)
    softmax_f32(x.data<float>(), y.data<float>(), st.outer, st.n, st.inner, st.kind);
  else if (st.dtype == DType::F64)
    softmax_f64(x.data<double>(), y.data<double>(), st.outer, st.n, st.inner, st.kind);
  else
    call.fail(std::string("softmax is not implemented for dtype ") + dtype_name(st.dtype));
}

OpDef softmax(SoftmaxKind kind, bool has_dtype) {
  return {[=](OpCall& c) { plan_softmax(c, kind, has_dtype); }, run_softmax};
}

}  // namespace

TIR_REGISTER_OPS(
    // softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
    {"aten.softmax.int", softmax(SoftmaxKind::Softmax, true)},
    // _softmax(Tensor self, int dim, bool half_to_float) -> Tensor
    {"aten._softmax.default", softmax(SoftmaxKind::Softmax, false)},
    // log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor
    {"aten.log_softmax.int", softmax(SoftmaxKind::LogSoftmax, true)},
    // _log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor
    {"aten._log_softmax.default", softmax(SoftmaxKind::LogSoftmax, false)},
    // _safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor (fully -inf rows give 0)
    {"aten._safe_softmax.default", softmax(SoftmaxKind::SafeSoftmax, true)});

}  // namespace tir
