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

// t itself when it has `dtype` (no copy), else a converted copy held in `keep`.
inline const Tensor& as_dtype_ref(const Tensor& t, DType dtype, Tensor& keep) {
  if (t.dtype == dtype) return t;
  keep = to_dtype_owned(t, dtype);
  return keep;
}

// t's data as contiguous `dtype`: t itself when it already is (no copy, no
// allocation), else a converted contiguous copy held in `keep`.
inline const Tensor& dense_ref(const Tensor& t, DType dtype, Tensor& keep) {
  if (t.dtype == dtype && t.is_contiguous()) return t;
  keep = contiguous_or_self(as_dtype(t, dtype));
  return keep;
}

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

// An elementwise operand as run() reads it, worked out before the run (a run
// allocates nothing). plan_operand declares workspace for a tensor that must
// be copied each run (another dtype and not a weight, or one overlapping the
// output differently: in-place forms); prepare_operand builds the kernel's
// view: the input broadcast to the output's shape, a Scalar or a constant
// converted once (planned constants), or the workspace; read_operand copies
// into the workspace when there is one and returns the view.
struct Operand {
  int ws = -1;             // workspace index (plan)
  Tensor view;             // what the kernel reads (prepare)
  Tensor src, ws_tensor;   // copied src -> ws_tensor each run (undefined: none)
  bool per_run = false;    // a written weight of another dtype: converted each run
  DType dtype = DType::F32;
};

inline Operand plan_operand(OpCall& call, const TensorOrScalar& o, DType dtype, const Tensor* out) {
  Operand op;
  op.dtype = dtype;
  if (!o.is_tensor()) return op;
  const Tensor& t = *o.tensor;
  const bool overlaps = out && t.same_storage(*out) && !same_view(t, *out);
  const bool convert = t.dtype != dtype && t.buffer->kind != Buffer::Kind::Weight;
  if (overlaps || convert) op.ws = int(call.add_workspace(dtype, t.shape));
  return op;
}

inline void prepare_operand(const OpCall& call, const TensorOrScalar& o, size_t in_idx, const Shape& shape,
                            Operand& op) {
  op.src = op.ws_tensor = Tensor();
  op.per_run = false;
  if (!o.is_tensor()) {
    op.view = broadcast_view(scalar_tensor(o.scalar, op.dtype), shape);
    return;
  }
  const Tensor& t = call.in[in_idx];
  if (op.ws >= 0) {
    op.src = t;
    op.ws_tensor = call.workspace[size_t(op.ws)];
    op.view = broadcast_view(op.ws_tensor, shape);
    return;
  }
  op.per_run = t.dtype != op.dtype && !call.is_constant(in_idx);
  op.view = op.per_run ? Tensor() : broadcast_view(as_dtype(t, op.dtype), shape);
  if (op.per_run) op.src = t;
}

inline const Tensor& read_operand(Operand& op, const Shape& shape) {
  if (op.per_run) op.view = broadcast_view(as_dtype(op.src, op.dtype), shape);
  if (op.ws_tensor.defined()) copy_into(op.ws_tensor, op.src);
  return op.view;
}

inline Shape broadcast_or_fail(const OpCall& call, const Shape& a, const Shape& b) {
  auto s = broadcast_shapes(a, b);
  if (!s) call.fail("shapes " + shape_to_string(a) + " and " + shape_to_string(b) + " cannot be broadcast");
  return *s;
}

}  // namespace ew
}  // namespace tir
