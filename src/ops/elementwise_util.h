// Helpers shared by the elementwise, conversion, reduction and norm op files.
#pragma once
#include <string>

#include "core/dtype.h"
#include "kernels/elementwise.h"
#include "ops/common.h"
#include "ops/op.h"

namespace tir {
namespace ew {

// t itself when it already has `dtype`, else an owned converted copy.
inline Tensor as_dtype(const Tensor& t, DType dtype) { return t.dtype == dtype ? t : to_dtype_owned(t, dtype); }

inline int dtype_category(DType d) { return d == DType::Bool ? 0 : is_integral(d) ? 1 : is_complex(d) ? 3 : 2; }

// torch.can_cast for writing a result into an existing tensor (in-place ops):
// never from a higher category down (float -> int, int -> bool).
inline bool can_cast(DType from, DType to) { return dtype_category(from) <= dtype_category(to); }

inline void check_inplace_cast(const OpCall& call, DType result, DType self) {
  call.check(can_cast(result, self), std::string("result type ") + dtype_name(result) +
                                         " can't be cast to the desired output type " + dtype_name(self));
}

inline bool same_view(const Tensor& a, const Tensor& b) {
  return a.buffer == b.buffer && a.offset == b.offset && a.shape == b.shape && a.strides == b.strides;
}

// An operand read while `dst` is written: when it shares memory with dst but is
// not the very same view, read it from a snapshot (torch computes as if out of place).
inline Tensor read_safe(const Tensor& src, const Tensor& dst) {
  if (src.same_storage(dst) && !same_view(src, dst)) return to_dtype_owned(src, src.dtype);
  return src;
}

// A tensor or scalar operand, converted to `dtype` and broadcast to `shape`.
inline Tensor operand_view(const TensorOrScalar& o, DType dtype, const Shape& shape) {
  if (o.is_tensor()) return broadcast_view(as_dtype(*o.tensor, dtype), shape);
  return broadcast_view(scalar_tensor(o.scalar, dtype), shape);
}

inline Shape broadcast_or_fail(const OpCall& call, const Shape& a, const Shape& b) {
  auto s = broadcast_shapes(a, b);
  if (!s) call.fail("shapes " + shape_to_string(a) + " and " + shape_to_string(b) + " cannot be broadcast");
  return *s;
}

}  // namespace ew
}  // namespace tir
