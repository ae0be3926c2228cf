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

bool is_half(DType d) { return d == DType::F16 || d == DType::BF16; }

// The IR's dtype of input i: float16/bfloat16 tensors are stored as f32 here,
// so the node's input meta says what the values stand for.
DType ir_input_dtype(const OpCall& call, size_t i) {
  const DType stored = call.in[i].dtype;
  if (i < call.node->inputs.size() && compute_dtype(call.node->inputs[i].dtype) == stored)
    return call.node->inputs[i].dtype;
  return stored;
}

// F16/BF16 when a result written in f32 must be rounded to that precision
// (torch stores it in 16 bits); F32 (no rounding) otherwise.
struct RoundState {
  DType round_to = DType::F32;
};

std::shared_ptr<RoundState> rounding_to(DType target, DType source) {
  auto st = std::make_shared<RoundState>();
  if (is_half(target) && target != source) st->round_to = target;
  return st;
}

void round_result(const OpCall& call, const Tensor& t) {
  if (!call.state) return;
  const DType r = call.state_as<RoundState>().round_to;
  if (is_half(r)) round_to_half_inplace(t, r);
}

// to.* / type_as: a view of the input when nothing changes and copy=false
// (a later in-place op then mutates the original, as in torch); else a converted
// copy, rounded to half/bfloat16 precision when that is the target.
void plan_to(OpCall& call, Target target, bool always_copy) {
  call.expect_inputs(1, target == Target::Other ? 2 : 1);
  const Tensor& self = call.in[0];
  const DType self_ir = ir_input_dtype(call, 0);
  DType want = self_ir;
  if (target == Target::Other) {
    call.check(call.in.size() == 2, "missing argument 'other'");
    want = ir_input_dtype(call, 1);
  } else {
    auto d = call.dtype("dtype");
    call.check(d.has_value() || target == Target::AttrOptional, "missing required argument 'dtype'");
    if (d) want = *d;
  }
  call.check(!is_complex(want), "complex dtypes are not supported");
  if (!always_copy && want == self_ir && !call.b("copy", false)) {
    call.alias(0, self);
    return;
  }
  call.fresh(0, compute_dtype(want), self.shape);
  call.state = rounding_to(want, self_ir);
}

void run_copy_out(OpCall& call) {
  if (call.out[0].same_storage(call.in[0])) return;  // aliased: nothing to do
  copy_into(call.out[0], call.in[0]);
  round_result(call, call.out[0]);
}

OpDef to_def(Target t, bool always_copy) {
  return foldable({[=](OpCall& c) { plan_to(c, t, always_copy); }, run_copy_out});
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
  call.state = rounding_to(ir_input_dtype(call, 0), ir_input_dtype(call, 1));
}

void run_copy_(OpCall& call) {
  const Tensor& self = call.out[0];
  const Tensor src = ew::read_safe(call.in[1], self);
  if (ew::same_view(src, self)) return;
  copy_into(self, broadcast_view(src, self.shape));
  round_result(call, self);
}

// copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor: functional copy_
void plan_copy(OpCall& call) {
  call.expect_inputs(2, 2);
  const Tensor& self = call.in[0];
  const Shape s = ew::broadcast_or_fail(call, self.shape, call.in[1].shape);
  call.check(s == self.shape, "source of shape " + shape_to_string(call.in[1].shape) +
                                  " does not broadcast to destination shape " + shape_to_string(self.shape));
  call.fresh(0, self.dtype, self.shape);
  call.state = rounding_to(ir_input_dtype(call, 0), ir_input_dtype(call, 1));
}

void run_copy(OpCall& call) {
  copy_into(call.out[0], broadcast_view(call.in[1], call.out[0].shape));
  round_result(call, call.out[0]);
}

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
  call.state = rounding_to(ir_input_dtype(call, 0), zero ? ir_input_dtype(call, 0) : DType::F64);
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
  round_result(call, out);
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
    {"aten.clone.default", foldable({plan_clone, run_copy_out})},
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
