// Elementwise math ops of tier 3: inverse and hyperbolic trig, tan, erfc,
// erfinv, exp2, log10, frac, sgn, threshold and the shrink activations;
// atan2 (and its out= form), hypot, copysign, and the integer shifts.
#include <memory>
#include <string>
#include <vector>

#include "kernels/elementwise.h"
#include "kernels/elementwise_math.h"
#include "ops/common.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"

namespace tir {
namespace {

// ---- unary ----

enum class UParams { None, FloatOnly, Shrink, Softshrink, Threshold };

struct MathUnaryState {
  MathUnaryOp op;
  MathParams p;
  DType compute;
};

std::string not_implemented(const char* what, DType d) {
  return std::string("\"") + what + "\" not implemented for " + dtype_name(d) + " tensors";
}

void plan_math_unary(OpCall& call, MathUnaryOp op, UParams params) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(!is_complex(self.dtype), "complex tensors are not supported by this op");
  auto st = std::make_shared<MathUnaryState>();
  st->op = op;
  // Float functions of int/bool inputs compute in the default float dtype (torch.float32).
  st->compute = is_floating(self.dtype) ? compute_dtype(self.dtype) : DType::F32;
  switch (params) {
    case UParams::None: break;
    case UParams::FloatOnly:
      call.check(is_floating(self.dtype), not_implemented("frac", self.dtype));
      break;
    case UParams::Shrink:
    case UParams::Softshrink:
      call.check(is_floating(self.dtype), not_implemented(params == UParams::Shrink ? "hardshrink" : "softshrink",
                                                          self.dtype));
      st->p.a = call.f("lambd", 0.5);
      if (params == UParams::Softshrink)
        call.check(st->p.a >= 0, "lambda must be greater or equal to 0, but found to be " + std::to_string(st->p.a));
      break;
    case UParams::Threshold: {
      call.check(self.dtype != DType::Bool, not_implemented("threshold", self.dtype));
      st->compute = compute_dtype(self.dtype);  // threshold keeps the dtype; bounds are cast to it
      const Scalar th = call.scalar("threshold"), v = call.scalar("value");
      st->p.a = th.f;
      st->p.b = v.f;
      st->p.a_is_int = !th.is_floating();
      st->p.b_is_int = !v.is_floating();
      st->p.ia = th.i;
      st->p.ib = v.i;
      break;
    }
  }
  call.fresh(0, st->compute, self.shape);
  call.state = st;
}

void run_math_unary(OpCall& call) {
  auto& st = call.state_as<MathUnaryState>();
  math_unary_kernel(st.op, call.out[0], ew::as_dtype(call.in[0], st.compute), st.p);
}

OpDef math_unary(MathUnaryOp op, UParams params = UParams::None) {
  return {[=](OpCall& c) { plan_math_unary(c, op, params); }, run_math_unary};
}

// sgn(Tensor self) -> Tensor: sign for real dtypes (bool stays bool).
void plan_sgn(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(!is_complex(self.dtype), "complex tensors are not supported by sgn here");
  call.fresh(0, compute_dtype(self.dtype), self.shape);
}
void run_sgn(OpCall& call) {
  unary_kernel(UnaryOp::Sign, call.out[0], ew::as_dtype(call.in[0], call.out[0].dtype));
}

// ---- binary ----

enum class BKind { Float, FloatStrict /* int,int is an error (hypot) */, Shift };

struct MathBinaryState {
  MathBinaryOp op;
  DType compute;
  Shape shape;
  TensorOrScalar a, b;
  bool out_arg = false;  // atan2.out: out is input 2
};

// self, other: tensors, or `other` a Python scalar in attrs (Scalar overloads,
// or a number written where the schema says Tensor).
std::vector<TensorOrScalar> bind_self_other(const OpCall& call, size_t tensors) {
  std::vector<TensorOrScalar> ops(2);
  ops[0].tensor = call.in[0];
  if (tensors >= 2) ops[1].tensor = call.in[1];
  else ops[1].scalar = call.scalar("other");
  return ops;
}

void plan_math_binary(OpCall& call, MathBinaryOp op, BKind kind, bool out_arg) {
  const size_t max_in = out_arg ? 3 : 2;
  call.expect_inputs(1, max_in);
  const size_t tensors = out_arg ? call.in.size() - 1 : call.in.size();
  call.check(tensors >= 1, "missing argument 'self'");
  auto st = std::make_shared<MathBinaryState>();
  st->op = op;
  st->out_arg = out_arg;
  auto ops = bind_self_other(call, tensors);
  const DType result = result_type({ops[0].operand(), ops[1].operand()});
  call.check(!is_complex(result), "complex tensors are not supported by this op");
  st->compute = compute_dtype(result);
  switch (kind) {
    case BKind::Float:
      if (!is_floating(result)) st->compute = DType::F32;
      break;
    case BKind::FloatStrict:
      call.check(is_floating(result), not_implemented("hypot", result));
      break;
    case BKind::Shift:
      call.check(is_integral(result), std::string("bit shifts are only defined for integer tensors, got ") +
                                          dtype_name(result));
      break;
  }
  st->a = ops[0];
  st->b = ops[1];
  st->shape = ops[1].is_tensor() ? ew::broadcast_or_fail(call, ops[0].tensor->shape, ops[1].tensor->shape)
                                 : ops[0].tensor->shape;
  if (out_arg) {
    call.check(call.in.size() == 3, "atan2.out needs the 'out' tensor");
    const Tensor& out = call.in[2];
    call.check(out.shape == st->shape, "out= tensor of shape " + shape_to_string(out.shape) +
                                           " does not match the result's shape " + shape_to_string(st->shape));
    ew::check_inplace_cast(call, st->compute, out.dtype);
    call.alias(0, out);
  } else {
    call.fresh(0, st->compute, st->shape);
  }
  call.state = st;
}

void run_math_binary(OpCall& call) {
  auto& st = call.state_as<MathBinaryState>();
  const Tensor& out = call.out[0];
  TensorOrScalar a = st.a, b = st.b;
  a.tensor = ew::read_safe(call.in[0], out);
  if (b.is_tensor()) b.tensor = ew::read_safe(call.in[1], out);
  const Tensor av = ew::operand_view(a, st.compute, st.shape);
  const Tensor bv = ew::operand_view(b, st.compute, st.shape);
  if (out.dtype == st.compute) {
    math_binary_kernel(st.op, out, av, bv);
  } else {  // out= of another float dtype: compute, then cast
    Tensor tmp = make_owned(st.compute, st.shape);
    math_binary_kernel(st.op, tmp, av, bv);
    copy_into(out, tmp);
  }
}

OpDef math_binary(MathBinaryOp op, BKind kind, bool out_arg = false) {
  return {[=](OpCall& c) { plan_math_binary(c, op, kind, out_arg); }, run_math_binary};
}

}  // namespace

TIR_REGISTER_OPS(
    // acos / acosh / asin / asinh / atan / atanh / cosh / sinh / tan (Tensor self) -> Tensor (ints -> float32)
    {"aten.acos.default", math_unary(MathUnaryOp::Acos)},
    {"aten.acosh.default", math_unary(MathUnaryOp::Acosh)},
    {"aten.asin.default", math_unary(MathUnaryOp::Asin)},
    {"aten.asinh.default", math_unary(MathUnaryOp::Asinh)},
    {"aten.atan.default", math_unary(MathUnaryOp::Atan)},
    {"aten.atanh.default", math_unary(MathUnaryOp::Atanh)},
    {"aten.cosh.default", math_unary(MathUnaryOp::Cosh)},
    {"aten.sinh.default", math_unary(MathUnaryOp::Sinh)},
    {"aten.tan.default", math_unary(MathUnaryOp::Tan)},
    // erfc / erfinv / exp2 / log10 (Tensor self) -> Tensor (ints -> float32)
    {"aten.erfc.default", math_unary(MathUnaryOp::Erfc)},
    {"aten.erfinv.default", math_unary(MathUnaryOp::Erfinv)},
    {"aten.exp2.default", math_unary(MathUnaryOp::Exp2)},
    {"aten.log10.default", math_unary(MathUnaryOp::Log10)},
    // frac(Tensor self) -> Tensor (floating only)
    {"aten.frac.default", math_unary(MathUnaryOp::Frac, UParams::FloatOnly)},
    // sgn(Tensor self) -> Tensor
    {"aten.sgn.default", {plan_sgn, run_sgn}},
    // threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor
    {"aten.threshold.default", math_unary(MathUnaryOp::Threshold, UParams::Threshold)},
    // hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor; softshrink(Tensor self, Scalar lambd=0.5) -> Tensor
    {"aten.hardshrink.default", math_unary(MathUnaryOp::Hardshrink, UParams::Shrink)},
    {"aten.softshrink.default", math_unary(MathUnaryOp::Softshrink, UParams::Softshrink)},
    // atan2(Tensor self, Tensor other) -> Tensor
    {"aten.atan2.default", math_binary(MathBinaryOp::Atan2, BKind::Float)},
    // atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
    {"aten.atan2.out", math_binary(MathBinaryOp::Atan2, BKind::Float, true)},
    // hypot(Tensor self, Tensor other) -> Tensor (floating only)
    {"aten.hypot.default", math_binary(MathBinaryOp::Hypot, BKind::FloatStrict)},
    // copysign.Tensor(Tensor self, Tensor other) -> Tensor
    {"aten.copysign.Tensor", math_binary(MathBinaryOp::Copysign, BKind::Float)},
    // __lshift__.Scalar / __rshift__.Scalar(Tensor self, Scalar other) -> Tensor
    {"aten.__lshift__.Scalar", math_binary(MathBinaryOp::ShiftLeft, BKind::Shift)},
    {"aten.__rshift__.Scalar", math_binary(MathBinaryOp::ShiftRight, BKind::Shift)},
    // bitwise_left_shift / bitwise_right_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor
    {"aten.bitwise_left_shift.Tensor_Scalar", math_binary(MathBinaryOp::ShiftLeft, BKind::Shift)},
    {"aten.bitwise_right_shift.Tensor_Scalar", math_binary(MathBinaryOp::ShiftRight, BKind::Shift)});

}  // namespace tir
