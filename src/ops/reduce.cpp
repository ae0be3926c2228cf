// Reductions: sum, mean, prod, amax/amin, max/min (full and .dim with
// indices), argmax/argmin, any/all.
#include <memory>
#include <string>

#include "kernels/reduce.h"
#include "ops/common.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"

namespace tir {
namespace {

// How the op names its reduced dims.
enum class DimArg {
  List,       // int[1]? dim: null or [] = all dims
  ListOrAll,  // int[1] dim=[] (amax/amin): [] = all dims
  Single,     // int dim (required)
  OptSingle,  // int? dim=None: null = all dims, flattened (argmax)
  All,        // no dim argument: full reduction
};

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
  const int64_t nd = self.dim();
  auto st = std::make_shared<ReduceState>();
  st->op = spec.op;
  st->rd.assign(size_t(nd), false);

  std::vector<int64_t> dims;
  bool all = false;
  switch (spec.dims) {
    case DimArg::List: {
      auto d = call.opt_ints("dim");
      all = !d || d->empty();
      if (d) dims = *d;
      break;
    }
    case DimArg::ListOrAll:
      dims = call.ints("dim", std::vector<int64_t>{});
      all = dims.empty();
      break;
    case DimArg::Single: dims = {call.i("dim")}; break;
    case DimArg::OptSingle:
      all = !call.has("dim");
      if (!all) dims = {call.i("dim")};
      break;
    case DimArg::All: all = true; break;
  }
  if (all) {
    st->rd.assign(size_t(nd), true);
  } else {
    for (int64_t d : dims) {
      const int64_t w = call.wrap_dim(d, nd);
      if (nd == 0) continue;
      call.check(!st->rd[size_t(w)], "dim " + std::to_string(w) + " appears multiple times in the list of dims");
      st->rd[size_t(w)] = true;
    }
  }
  // keepdim: reduced dims become 1. Full reductions without a dim argument give a 0-d result.
  const bool keepdim = spec.dims != DimArg::All && call.b("keepdim", false);
  Shape out_shape;
  int64_t count = 1;
  for (int64_t d = 0; d < nd; ++d) {
    if (st->rd[size_t(d)]) {
      count *= self.shape[size_t(d)];
      if (keepdim) out_shape.push_back(1);
    } else {
      out_shape.push_back(self.shape[size_t(d)]);
    }
  }

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
  const Tensor in = ew::as_dtype(call.in[0], st.in_dtype);
  reduce_kernel(st.op, in, st.rd, call.out[0], call.out.size() > 1 ? &call.out[1] : nullptr);
}

OpDef reduce(ReduceOp op, DimArg dims, bool has_dtype = false, bool with_indices = false) {
  ReduceSpec s{op, dims, has_dtype, with_indices};
  return {[s](OpCall& c) { plan_reduce(c, s); }, run_reduce};
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
    {"aten.all.default", reduce(ReduceOp::All, DimArg::All)});

}  // namespace tir
