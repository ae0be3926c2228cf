// Vector norms: linalg_vector_norm and the older norm.ScalarOpt_dim.
#include <cmath>
#include <memory>
#include <string>

#include "kernels/reduce.h"
#include "ops/common.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"
#include "ops/reduce_util.h"

namespace tir {
namespace {

struct NormState {
  std::vector<bool> rd;
  double ord;
  DType dtype;  // compute (= output) dtype
};

// `ord_attr`: "ord" (default 2) or "p" (null = 2); `dims`: how `dim` reads.
void plan_norm(OpCall& call, const char* ord_attr, DimArg dims, bool has_dtype) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(is_floating(self.dtype), std::string("linalg.vector_norm: Expected a floating point or complex "
                                                  "tensor as input. Got ") +
                                          dtype_name(self.dtype));
  auto st = std::make_shared<NormState>();
  const auto ord = call.opt_scalar(ord_attr);
  st->ord = ord ? ord->f : 2.0;
  const auto dt = has_dtype ? call.dtype("dtype") : std::nullopt;
  st->dtype = compute_dtype(dt ? *dt : self.dtype);
  call.check(is_floating(st->dtype), std::string("linalg.vector_norm: dtype should be floating point, got ") +
                                         dtype_name(st->dtype));
  ReducedDims r = reduced_dims(call, self.shape, dims, call.b("keepdim", false));
  st->rd = r.rd;
  // max/min/negative powers have no identity: an empty group has no answer
  call.check(r.count > 0 || !(st->ord < 0 || std::isinf(st->ord)),
             "linalg.vector_norm cannot compute the " + std::to_string(st->ord) +
                 " norm on an empty tensor because the operation does not have an identity");
  call.fresh(0, st->dtype, r.out_shape);
  call.state = st;
}

void run_norm(OpCall& call) {
  auto& st = call.state_as<NormState>();
  vector_norm_kernel(ew::as_dtype(call.in[0], st.dtype), st.rd, st.ord, call.out[0]);
}

}  // namespace

TIR_REGISTER_OPS(
    // linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *,
    //   ScalarType? dtype=None) -> Tensor
    {"aten.linalg_vector_norm.default",
     {[](OpCall& c) { plan_norm(c, "ord", DimArg::List, true); }, run_norm}},
    // norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor
    {"aten.norm.ScalarOpt_dim", {[](OpCall& c) { plan_norm(c, "p", DimArg::ListOrAll, false); }, run_norm}},
    // norm.Scalar(Tensor self, Scalar p=2) -> Tensor
    {"aten.norm.Scalar", {[](OpCall& c) { plan_norm(c, "p", DimArg::All, false); }, run_norm}});

}  // namespace tir
