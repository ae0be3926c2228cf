// Reductions: sum, mean, prod, amax/amin, max/min (full and .dim with
// indices), argmax/argmin, any/all, var/std (+ _mean) with correction.
#include <memory>
#include <string>

#include "kernels/reduce.h"
#include "ops/common.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"
#include "ops/reduce_util.h"

namespace tir {
namespace {

struct ReduceSpec {
  ReduceOp op;
  DimArg dims;
  bool has_dtype = false;
  bool with_indices = false;  // max.dim / min.dim
};

struct ReduceState {
  ReduceOp op;
  DType in_dtype;  // the kernel's input dtype
  std::vector<bool> rd;
};

const char* op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::Max: case ReduceOp::ArgMax: return "max";
    case ReduceOp::Min: case ReduceOp::ArgMin: return "min";
    default: return "reduction";
  }
}

void plan_reduce(OpCall& call, const ReduceSpec& spec) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(!is_complex(self.dtype), "complex tensors are not supported");
  auto st = std::make_shared<ReduceState>();
  st->op = spec.op;
  ReducedDims r = reduced_dims(call, self.shape, spec.dims, call.b("keepdim", false));
  st->rd = r.rd;
  const Shape& out_shape = r.out_shape;
  const int64_t count = r.count;

  std::optional<DType> dtype_arg;
  if (spec.has_dtype) dtype_arg = call.dtype("dtype");
  DType out_dtype = compute_dtype(self.dtype);
  st->in_dtype = out_dtype;
  switch (spec.op) {
    case ReduceOp::Sum:
    case ReduceOp::Prod:
      if (dtype_arg) out_dtype = compute_dtype(*dtype_arg);
      else if (!is_floating(self.dtype)) out_dtype = DType::I64;  // bool/int sums are int64
      st->in_dtype = out_dtype;
      break;
    case ReduceOp::Mean:
      if (dtype_arg) out_dtype = compute_dtype(*dtype_arg);
      call.check(is_floating(out_dtype),
                 std::string("mean(): could not infer output dtype. Input dtype must be either a floating "
                             "point or complex dtype. Got: ") + dtype_name(out_dtype));
      st->in_dtype = out_dtype;
      break;
    case ReduceOp::Any:
    case ReduceOp::All: out_dtype = self.dtype == DType::U8 ? DType::U8 : DType::Bool; break;
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin: out_dtype = DType::I64; break;
    case ReduceOp::Max:
    case ReduceOp::Min: break;
  }
  if (spec.op == ReduceOp::Max || spec.op == ReduceOp::Min || spec.op == ReduceOp::ArgMax ||
      spec.op == ReduceOp::ArgMin)
    call.check(count > 0, std::string(op_name(spec.op)) +
                              "(): cannot reduce over a zero-size dimension (input shape " +
                              shape_to_string(self.shape) + ")");
  call.fresh(0, out_dtype, out_shape);
  if (spec.with_indices) call.fresh(1, DType::I64, out_shape);
  call.state = st;
}

void run_reduce(OpCall& call) {
  auto& st = call.state_as<ReduceState>();
  Tensor keep;  // the input converted to the reduction's dtype, when it differs
  const Tensor& in = call.in[0].dtype == st.in_dtype ? call.in[0] : (keep = ew::as_dtype(call.in[0], st.in_dtype));
  reduce_kernel(st.op, in, st.rd, call.out[0], call.out.size() > 1 ? &call.out[1] : nullptr);
}

OpDef reduce(ReduceOp op, DimArg dims, bool has_dtype = false, bool with_indices = false) {
  ReduceSpec s{op, dims, has_dtype, with_indices};
  return {[s](OpCall& c) { plan_reduce(c, s); }, run_reduce};
}

// --- var / std (+ mean): divisor max(0, n - correction) ---------------------
struct VarState {
  std::vector<bool> rd;
  double correction;
  bool take_sqrt;
};

// `unbiased_form`: the .dim overloads take `bool unbiased` instead of `correction`.
void plan_var(OpCall& call, bool take_sqrt, bool with_mean, bool unbiased_form) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(is_floating(self.dtype), std::string(take_sqrt ? "std" : "var") +
                                          "(): std and var only support floating point and complex dtypes, got " +
                                          dtype_name(self.dtype));
  auto st = std::make_shared<VarState>();
  ReducedDims r = reduced_dims(call, self.shape, DimArg::List, call.b("keepdim", false));
  st->rd = r.rd;
  st->take_sqrt = take_sqrt;
  if (unbiased_form) {
    st->correction = call.b("unbiased", true) ? 1.0 : 0.0;
  } else {
    auto c = call.opt_scalar("correction");
    st->correction = c ? c->f : 1.0;
  }
  const DType dt = compute_dtype(self.dtype);
  call.fresh(0, dt, r.out_shape);
  if (with_mean) call.fresh(1, dt, r.out_shape);
  call.state = st;
}

void run_var(OpCall& call) {
  auto& st = call.state_as<VarState>();
  var_kernel(call.in[0], st.rd, st.correction, st.take_sqrt, call.out[0], call.out.size() > 1 ? &call.out[1] : nullptr);
}

OpDef var_op(bool take_sqrt, bool with_mean, bool unbiased_form) {
  return {[=](OpCall& c) { plan_var(c, take_sqrt, with_mean, unbiased_form); }, run_var};
}

// --- logsumexp: ints compute as float32 (torch >= 2.0) -----------------------
struct LseState {
  std::vector<bool> rd;
  DType dtype;
};
void plan_logsumexp(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(!is_complex(self.dtype), "complex tensors are not supported");
  auto st = std::make_shared<LseState>();
  ReducedDims r = reduced_dims(call, self.shape, DimArg::ListOrAll, call.b("keepdim", false));
  st->rd = r.rd;
  st->dtype = is_floating(self.dtype) ? compute_dtype(self.dtype) : DType::F32;
  call.fresh(0, st->dtype, r.out_shape);
  call.state = st;
}
void run_logsumexp(OpCall& call) {
  auto& st = call.state_as<LseState>();
  logsumexp_kernel(ew::as_dtype(call.in[0], st.dtype), st.rd, call.out[0]);
}

// --- count_nonzero: sum of (x != 0) as int64 ----------------------------------
void plan_count_nonzero(OpCall& call, DimArg dims) {
  call.expect_inputs(1, 1);
  auto st = std::make_shared<ReduceState>();
  st->op = ReduceOp::Sum;
  st->in_dtype = DType::I64;
  ReducedDims r = reduced_dims(call, call.in[0].shape, dims, false);
  st->rd = r.rd;
  call.fresh(0, DType::I64, r.out_shape);
  call.state = st;
}
void run_count_nonzero(OpCall& call) {
  auto& st = call.state_as<ReduceState>();
  const Tensor nz = ew::as_dtype(ew::as_dtype(call.in[0], DType::Bool), DType::I64);
  reduce_kernel(ReduceOp::Sum, nz, st.rd, call.out[0]);
}

}  // namespace

TIR_REGISTER_OPS(
    // sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
    {"aten.sum.dim_IntList", reduce(ReduceOp::Sum, DimArg::List, true)},
    // sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
    {"aten.sum.default", reduce(ReduceOp::Sum, DimArg::All, true)},
    // mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
    {"aten.mean.dim", reduce(ReduceOp::Mean, DimArg::List, true)},
    // mean(Tensor self, *, ScalarType? dtype=None) -> Tensor
    {"aten.mean.default", reduce(ReduceOp::Mean, DimArg::All, true)},
    // prod(Tensor self, *, ScalarType? dtype=None) -> Tensor
    {"aten.prod.default", reduce(ReduceOp::Prod, DimArg::All, true)},
    // prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
    {"aten.prod.dim_int", reduce(ReduceOp::Prod, DimArg::Single, true)},
    // amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor
    {"aten.amax.default", reduce(ReduceOp::Max, DimArg::ListOrAll)},
    // amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor
    {"aten.amin.default", reduce(ReduceOp::Min, DimArg::ListOrAll)},
    // max(Tensor self) -> Tensor; min(Tensor self) -> Tensor
    {"aten.max.default", reduce(ReduceOp::Max, DimArg::All)},
    {"aten.min.default", reduce(ReduceOp::Min, DimArg::All)},
    // max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
    {"aten.max.dim", reduce(ReduceOp::Max, DimArg::Single, false, true)},
    // min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
    {"aten.min.dim", reduce(ReduceOp::Min, DimArg::Single, false, true)},
    // argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor
    {"aten.argmax.default", reduce(ReduceOp::ArgMax, DimArg::OptSingle)},
    // argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor
    {"aten.argmin.default", reduce(ReduceOp::ArgMin, DimArg::OptSingle)},
    // any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor
    {"aten.any.dim", reduce(ReduceOp::Any, DimArg::Single)},
    // any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor
    {"aten.any.dims", reduce(ReduceOp::Any, DimArg::List)},
    // any(Tensor self) -> Tensor
    {"aten.any.default", reduce(ReduceOp::Any, DimArg::All)},
    // all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor
    {"aten.all.dim", reduce(ReduceOp::All, DimArg::Single)},
    // all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor
    {"aten.all.dims", reduce(ReduceOp::All, DimArg::List)},
    // all(Tensor self) -> Tensor
    {"aten.all.default", reduce(ReduceOp::All, DimArg::All)},
    // var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor
    {"aten.var.correction", var_op(false, false, false)},
    // var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor
    {"aten.var.dim", var_op(false, false, true)},
    // std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor
    {"aten.std.correction", var_op(true, false, false)},
    // std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor
    {"aten.std.dim", var_op(true, false, true)},
    // var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)
    //   -> (Tensor, Tensor)
    {"aten.var_mean.correction", var_op(false, true, false)},
    // var_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)
    {"aten.var_mean.dim", var_op(false, true, true)},
    // std_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False)
    //   -> (Tensor, Tensor)
    {"aten.std_mean.correction", var_op(true, true, false)},
    // std_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)
    {"aten.std_mean.dim", var_op(true, true, true)},
    // logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor
    {"aten.logsumexp.default", {plan_logsumexp, run_logsumexp}},
    // count_nonzero(Tensor self, int? dim=None) -> Tensor
    {"aten.count_nonzero.default", {[](OpCall& c) { plan_count_nonzero(c, DimArg::OptSingle); }, run_count_nonzero}},
    // count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor  ([] = all dims)
    {"aten.count_nonzero.dim_IntList", {[](OpCall& c) { plan_count_nonzero(c, DimArg::ListOrAll); }, run_count_nonzero}});

}  // namespace tir
