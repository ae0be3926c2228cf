// searchsorted.Tensor and bucketize.Tensor: for each value, the insertion
// index in a sorted boundary row (left: first position whose boundary is >=
// value; right: first whose boundary is > value). The binary search is
// torch's (cus_lower_bound / cus_upper_bound), so NaN values and NaN
// boundaries land where torch puts them. Values and boundaries are compared in
// their promoted dtype.
#include <string>

#include "core/dispatch.h"
#include "ops/common.h"
#include "ops/datadep_util.h"
#include "ops/op.h"

namespace tir {
namespace {

struct SearchArgs {
  bool right = false, int32 = false, has_sorter = false;
};

SearchArgs search_args(const OpCall& call, bool bucketize) {
  SearchArgs a;
  a.int32 = call.b("out_int32", false);
  a.right = call.b("right", false);
  if (bucketize) return a;
  if (call.has("side")) {
    const std::string side = call.str("side");
    call.check(side == "left" || side == "right",
               "torch.searchsorted(): side can only be 'left' or 'right' but got " + side);
    call.check(!(a.right && side == "left"), "torch.searchsorted(): side and right can't be set to opposites, got "
                                             "side of left while right was True");
    a.right = side == "right";
  }
  a.has_sorter = call.in.size() > 2;
  return a;
}

// Inputs: [boundaries, values] (+ sorter); bucketize: [values, boundaries]. Output: values' shape.
void plan_search(OpCall& call, bool bucketize) {
  call.expect_inputs(2, bucketize ? 2 : 3);
  const SearchArgs a = search_args(call, bucketize);
  const Tensor &bd = call.in[bucketize ? 1 : 0], &val = call.in[bucketize ? 0 : 1];
  const std::string op = bucketize ? "torch.bucketize()" : "torch.searchsorted()";
  if (bucketize)
    call.check(bd.dim() == 1, op + ": boundaries tensor must be 1 dimension, but got dim(" +
                                  std::to_string(bd.dim()) + ")");
  call.check(bd.dim() >= 1, op + ": boundaries tensor should have positive dimension, but got 0 dimension");
  if (bd.dim() > 1) {
    bool ok = bd.dim() == val.dim();
    for (int64_t d = 0; ok && d + 1 < bd.dim(); ++d) ok = bd.shape[size_t(d)] == val.shape[size_t(d)];
    call.check(ok, op + ": boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
                        "tensor and input value tensor must match, but we got boundaries tensor " +
                        shape_to_string(bd.shape) + " and input value tensor " + shape_to_string(val.shape));
  }
  if (a.has_sorter) {
    const Tensor& sorter = call.in[2];
    call.check(sorter.dtype == DType::I64, op + ": sorter must be a tensor of long dtype but got dtype " +
                                               dtype_name(sorter.dtype));
    call.check(sorter.shape == bd.shape, op + ": boundary and sorter must have the same size, but got boundary "
                                              "tensor " + shape_to_string(bd.shape) + " and got sorter tensor " +
                                              shape_to_string(sorter.shape));
  }
  call.check(bd.dtype != DType::Bool && val.dtype != DType::Bool, op + " is not implemented for bool tensors");
  call.fresh(0, a.int32 ? DType::I32 : DType::I64, val.shape);
}

void run_search(OpCall& call, bool bucketize) {
  const SearchArgs a = search_args(call, bucketize);
  const Tensor &bd_in = call.in[bucketize ? 1 : 0], &val_in = call.in[bucketize ? 0 : 1];
  const DType ct = promote_types(bd_in.dtype, val_in.dtype);
  const Tensor bd = to_dtype_owned(bd_in, ct), val = to_dtype_owned(val_in, ct);
  const Tensor sorter = a.has_sorter ? to_dtype_owned(call.in[2], DType::I64) : Tensor();
  const int64_t m = bd.shape.back();
  const int64_t k = val.dim() == 0 ? 1 : val.shape.back();
  const int64_t n = val.numel();
  const int64_t* sort = a.has_sorter ? sorter.data<int64_t>() : nullptr;
  if (sort)
    for (int64_t j = 0; j < sorter.numel(); ++j)
      if (sort[j] < 0 || sort[j] >= m)
        call.fail("torch.searchsorted(): sorter index out of range: " + std::to_string(sort[j]) +
                  " for a boundary row of size " + std::to_string(m));
  const Tensor& out = call.out[0];
  dispatch_compute(ct, [&](auto tag) {
    using T = decltype(tag);
    const T* b = bd.data<T>();
    const T* v = val.data<T>();
    for (int64_t j = 0; j < n; ++j) {
      const int64_t row = bd.dim() == 1 ? 0 : j / k;
      const T* brow = b + row * m;
      const int64_t* srow = sort ? sort + row * m : nullptr;
      int64_t lo = 0, hi = m;
      while (lo < hi) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        const T mv = srow ? brow[srow[mid]] : brow[mid];
        const bool go_right = a.right ? !(mv > v[j]) : !(mv >= v[j]);
        if (go_right) lo = mid + 1;
        else hi = mid;
      }
      if (a.int32) out.data<int32_t>()[j] = int32_t(lo);
      else out.data<int64_t>()[j] = lo;
    }
  });
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False,
    //   bool right=False, str? side=None, Tensor? sorter=None) -> Tensor
    {"aten.searchsorted.Tensor", {[](OpCall& c) { plan_search(c, false); }, [](OpCall& c) { run_search(c, false); }}},
    // aten::bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor
    {"aten.bucketize.Tensor", {[](OpCall& c) { plan_search(c, true); }, [](OpCall& c) { run_search(c, true); }}});

}  // namespace tir
