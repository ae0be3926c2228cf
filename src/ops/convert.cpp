// Dtype conversions and copies: to.*, _to_copy, type_as, clone,
// lift_fresh_copy, copy_/copy, fill_/fill, zero_/zero.
#include <memory>
#include <string>

#include "kernels/elementwise.h"
#include "ops/common.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"

namespace tir {
namespace {

// Where a conversion's target dtype comes from.
enum class Target { Attr, AttrOptional, Other };

// to.* / type_as: a view of the input when nothing changes and copy=false
// (a later in-place op then mutates the original, as in torch); else a converted copy.
void plan_to(OpCall& call, Target target, bool always_copy) {
  call.expect_inputs(1, target == Target::Other ? 2 : 1);
  const Tensor& self = call.in[0];
  DType want = self.dtype;
  if (target == Target::Other) {
    call.check(call.in.size() == 2, "missing argument 'other'");
    want = call.in[1].dtype;
  } else {
    auto d = call.dtype("dtype");
    call.check(d.has_value() || target == Target::AttrOptional, "missing required argument 'dtype'");
    if (d) want = *d;
  }
  call.check(!is_complex(want), "complex dtypes are not supported");
  want = compute_dtype(want);
  if (!always_copy && want == self.dtype && !call.b("copy", false)) {
    call.alias(0, self);
    return;
  }
  call.fresh(0, want, self.shape);
}

void run_copy_out(OpCall& call) {
  if (call.out[0].same_storage(call.in[0])) return;  // aliased: nothing to do
  copy_into(call.out[0], call.in[0]);
}

OpDef to_def(Target t, bool always_copy) {
  return {[=](OpCall& c) { plan_to(c, t, always_copy); }, run_copy_out};
}

// clone(Tensor self, *, MemoryFormat? memory_format=None); lift_fresh_copy(Tensor self)
void plan_clone(OpCall& call) {
  call.expect_inputs(1, 1);
  call.fresh(0, call.in[0].dtype, call.in[0].shape);
}

// copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
void plan_copy_(OpCall& call) {
  call.expect_inputs(2, 2);
  const Tensor& self = call.in[0];
  const Tensor& src = call.in[1];
  const Shape s = ew::broadcast_or_fail(call, self.shape, src.shape);
  call.check(s == self.shape, "source of shape " + shape_to_string(src.shape) +
                                  " does not broadcast to destination shape " + shape_to_string(self.shape));
  call.alias(0, self);
}

void run_copy_(OpCall& call) {
  const Tensor& self = call.out[0];
  const Tensor src = ew::read_safe(call.in[1], self);
  if (ew::same_view(src, self)) return;
  copy_into(self, broadcast_view(src, self.shape));
}

// copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor: functional copy_
void plan_copy(OpCall& call) {
  call.expect_inputs(2, 2);
  const Tensor& self = call.in[0];
  const Shape s = ew::broadcast_or_fail(call, self.shape, call.in[1].shape);
  call.check(s == self.shape, "source of shape " + shape_to_string(call.in[1].shape) +
                                  " does not broadcast to destination shape " + shape_to_string(self.shape));
  call.fresh(0, self.dtype, self.shape);
}

void run_copy(OpCall& call) { copy_into(call.out[0], broadcast_view(call.in[1], call.out[0].shape)); }

// fill_.Scalar(Tensor(a!) self, Scalar value); fill_.Tensor(self, Tensor value) with a 0-d value;
// zero_(Tensor(a!) self). Functional fill/zero return a new tensor.
void plan_fill(OpCall& call, bool inplace, bool zero) {
  call.expect_inputs(1, zero ? 1 : 2);
  const Tensor& self = call.in[0];
  if (!zero) {
    if (call.in.size() == 2)
      call.check(call.in[1].dim() == 0, "fill_ only supports a 0-dimension value tensor, got shape " +
                                            shape_to_string(call.in[1].shape));
    else
      call.scalar("value");
  }
  if (inplace) call.alias(0, self);
  else call.fresh(0, self.dtype, self.shape);
}

void run_fill(OpCall& call) {
  const Tensor& out = call.out[0];
  if (call.in.size() == 2) {
    const Tensor v = to_dtype_owned(call.in[1], out.dtype);
    copy_into(out, broadcast_view(v, out.shape));
  } else if (call.node->op_type.find("zero") != std::string::npos) {
    fill_kernel(out, Scalar::of_int(0));
  } else {
    fill_kernel(out, call.scalar("value"));
  }
}

OpDef fill_def(bool inplace, bool zero) {
  return {[=](OpCall& c) { plan_fill(c, inplace, zero); }, run_fill};
}

}  // namespace

TIR_REGISTER_OPS(
    // to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)
    {"aten.to.dtype", to_def(Target::Attr, false)},
    // to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,
    //   bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)
    {"aten.to.dtype_layout", to_def(Target::AttrOptional, false)},
    // to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, ...) -> Tensor(a)
    {"aten.to.device", to_def(Target::Attr, false)},
    // to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, ...) -> Tensor(a)
    {"aten.to.other", to_def(Target::Other, false)},
    // type_as(Tensor self, Tensor other) -> Tensor
    {"aten.type_as.default", to_def(Target::Other, false)},
    // _to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,
    //   bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor
    {"aten._to_copy.default", to_def(Target::AttrOptional, true)},
    // clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor
    {"aten.clone.default", {plan_clone, run_copy_out}},
    // lift_fresh_copy(Tensor self) -> Tensor
    {"aten.lift_fresh_copy.default", {plan_clone, run_copy_out}},
    // copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
    {"aten.copy_.default", {plan_copy_, run_copy_}},
    // copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor
    {"aten.copy.default", {plan_copy, run_copy}},
    // fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)
    {"aten.fill_.Scalar", fill_def(true, false)},
    // fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)
    {"aten.fill_.Tensor", fill_def(true, false)},
    // fill.Scalar(Tensor self, Scalar value) -> Tensor; fill.Tensor(Tensor self, Tensor value) -> Tensor
    {"aten.fill.Scalar", fill_def(false, false)},
    {"aten.fill.Tensor", fill_def(false, false)},
    // zero_(Tensor(a!) self) -> Tensor(a!); zero(Tensor self) -> Tensor
    {"aten.zero_.default", fill_def(true, true)},
    {"aten.zero.default", fill_def(false, true)});

}  // namespace tir
