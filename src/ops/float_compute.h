// Float ops that compute in float or double: f16/bf16 inputs are widened to
// float (torch's opmath type) and the result is rounded back once at the end.
// Shared by the spatial, distance and bilinear op files.
#pragma once
#include <string>

#include "core/dtype.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"

namespace tir {
namespace fc {

// The compute dtype of a float tensor; fails naming `what` for any other dtype.
inline DType float_compute(const OpCall& call, DType d, const std::string& what) {
  call.check(is_floating(d), what + " must be a floating-point tensor (float16/bfloat16/float32/float64), got " +
                                 std::string(dtype_name(d)));
  return compute_dtype(d);
}

// t in dtype cd, contiguous (t itself when it already is).
inline Tensor dense(const Tensor& t, DType cd) { return contiguous_or_self(ew::as_dtype(t, cd)); }

// Calls fill(T*) with contiguous memory for `out` in compute dtype cd: out's
// own when it is contiguous and of dtype cd, else a scratch copied (and
// rounded) into out afterwards.
template <typename T, typename F> void into(const Tensor& out, DType cd, F&& fill) {
  if (out.dtype == cd && out.is_contiguous()) {
    fill(out.data<T>());
    return;
  }
  Tensor tmp = make_owned(cd, out.shape);
  fill(tmp.data<T>());
  copy_into(out, tmp);
}

template <typename F> void dispatch_fd(DType cd, F&& f) {
  if (cd == DType::F64) f(double{});
  else f(float{});
}

}  // namespace fc
}  // namespace tir
