// Binary elementwise ops with broadcasting and torch type promotion:
// arithmetic, division modes, remainder/fmod, pow, maximum/minimum, bitwise
// ops, comparisons, logical ops, their in-place forms, and where/masked_fill.
#include <memory>
#include <string>
#include <vector>

#include "kernels/elementwise.h"
#include "ops/common.h"
#include "ops/complex.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"

namespace tir {
namespace {

using ew::operand_view;

// Binds the named slots, in schema order, to the tensor inputs starting at
// in[first] or to scalar attrs: a Python scalar in a Tensor slot (or a Scalar
// argument) is in attrs under its slot name and `inputs` is shorter by one.
std::vector<TensorOrScalar> bind_slots(const OpCall& call, size_t first, std::vector<const char*> slots) {
  const size_t avail = call.in.size() > first ? call.in.size() - first : 0;
  call.check(avail <= slots.size(), "expected at most " + std::to_string(slots.size() + first) +
                                        " tensor inputs, got " + std::to_string(call.in.size()));
  size_t scalars_needed = slots.size() - avail, next = first;
  std::vector<TensorOrScalar> out(slots.size());
  for (size_t k = 0; k < slots.size(); ++k) {
    if (scalars_needed > 0 && call.has(slots[k])) {
      out[k].scalar = call.scalar(slots[k]);
      --scalars_needed;
    } else {
      call.check(next < call.in.size(), std::string("missing argument '") + slots[k] + "'");
      out[k].tensor = call.in[next++];
    }
  }
  return out;
}

Shape broadcast_all(const OpCall& call, const std::vector<TensorOrScalar>& ops) {
  Shape s;
  for (const auto& o : ops)
    if (o.is_tensor()) s = ew::broadcast_or_fail(call, s, o.tensor->shape);
  return s;
}

enum class Kind { Arith, TrueDiv, DivMode, Pow, Predicate, Bitwise };

struct BinarySpec {
  BinaryOp op;
  Kind kind;
  const char* slot0 = "self";
  const char* slot1 = "other";
  bool inplace = false;
  bool negate_alpha = false;  // sub: a - alpha*b == add with -alpha
  bool reverse = false;       // rsub: other - alpha*self
};

struct BinaryState {
  BinaryOp op;
  DType compute;
  Shape shape;
  TensorOrScalar a, b;  // as planned (prepare reads the tensors from call.in)
  size_t a_in = 0, b_in = 0;
  Scalar alpha;
  ew::Operand pa, pb;   // plan: workspace; prepare: the kernel's views
  int tmp_ws = -1;      // in-place into a narrower dtype: the result before the cast
  bool prepared = false;
};

// Ops whose integer form divides: a zero divisor must fail, not crash.
bool integer_division(BinaryOp op) {
  return op == BinaryOp::DivTrunc || op == BinaryOp::DivFloor || op == BinaryOp::Remainder || op == BinaryOp::Fmod;
}

Scalar negate(const Scalar& s) {
  return s.kind == Scalar::Kind::Float ? Scalar::of_double(-s.f) : Scalar::of_int(-s.i);
}

void plan_binary(OpCall& call, const BinarySpec& spec) {
  auto ops = bind_slots(call, 0, {spec.slot0, spec.slot1});
  call.check(ops[0].is_tensor() || ops[1].is_tensor(), "needs at least one tensor operand");
  auto st = std::make_shared<BinaryState>();
  st->op = spec.op;
  // Remember which input feeds each tensor operand (run() re-reads call.in).
  st->a_in = 0;
  st->b_in = ops[0].is_tensor() ? 1 : 0;

  const DType result = result_type({ops[0].operand(), ops[1].operand()});
  call.check(!is_complex(result), "complex tensors are not supported");
  st->compute = compute_dtype(result);
  DType out_dtype = st->compute;

  Scalar alpha = call.scalar("alpha", Scalar::of_int(1));
  if (spec.op == BinaryOp::Add) {
    call.check(!(alpha.is_floating() && !is_floating(result)),
               "for integral input tensors, argument alpha must not be a floating point number");
    if (spec.negate_alpha) alpha = negate(alpha);
  }
  st->alpha = alpha;

  switch (spec.kind) {
    case Kind::TrueDiv:
      if (!is_floating(st->compute)) st->compute = DType::F32;
      out_dtype = st->compute;
      break;
    case Kind::DivMode: {
      const Attr* m = call.attr("rounding_mode");
      if (!m) {
        st->op = BinaryOp::Div;
        if (!is_floating(st->compute)) st->compute = DType::F32;
      } else {
        call.check(m->kind == Attr::Kind::String && (m->s == "trunc" || m->s == "floor"),
                   "rounding_mode must be null, 'trunc' or 'floor', got " + m->to_string());
        st->op = m->s == "trunc" ? BinaryOp::DivTrunc : BinaryOp::DivFloor;
      }
      out_dtype = st->compute;
      break;
    }
    case Kind::Pow:
      if (!is_floating(st->compute) && !ops[1].is_tensor() && !ops[1].scalar.is_floating())
        call.check(ops[1].scalar.i >= 0, "Integers to negative integer powers are not allowed.");
      break;
    case Kind::Predicate: out_dtype = DType::Bool; break;
    case Kind::Bitwise:
      call.check(!is_floating(st->compute), std::string("bitwise ops are only defined for integer and bool tensors, got ") +
                                                dtype_name(result));
      break;
    case Kind::Arith: break;
  }
  if (integer_division(st->op) || st->op == BinaryOp::DivTrunc)
    call.check(st->compute != DType::Bool, std::string("not implemented for bool tensors (result type ") +
                                               dtype_name(result) + ")");
  if (spec.reverse) std::swap(ops[0], ops[1]), std::swap(st->a_in, st->b_in);
  st->a = ops[0];
  st->b = ops[1];
  st->shape = broadcast_all(call, ops);

  if (spec.inplace) {
    const Tensor& self = call.in[0];
    call.check(st->shape == self.shape, "output with shape " + shape_to_string(self.shape) +
                                            " doesn't match the broadcast shape " + shape_to_string(st->shape));
    ew::check_inplace_cast(call, spec.kind == Kind::Predicate ? DType::Bool : out_dtype, self.dtype);
    call.alias(0, self);
  } else {
    call.fresh(0, out_dtype, st->shape);
  }
  st->pa = ew::plan_operand(call, st->a, st->compute, &call.out[0]);
  st->pb = ew::plan_operand(call, st->b, st->compute, &call.out[0]);
  const DType want = binary_op_is_predicate(st->op) ? DType::Bool : st->compute;
  if (call.out[0].dtype != want) st->tmp_ws = int(call.add_workspace(want, st->shape));
  call.state = st;
}

void prepare_binary(OpCall& call) {
  auto& st = call.state_as<BinaryState>();
  ew::prepare_operand(call, st.a, st.a_in, st.shape, st.pa);
  ew::prepare_operand(call, st.b, st.b_in, st.shape, st.pb);
  st.prepared = true;
}

void run_binary(OpCall& call) {
  auto& st = call.state_as<BinaryState>();
  if (!st.prepared) prepare_binary(call);  // a call run without prepare (op tests)
  const Tensor& out = call.out[0];
  const Tensor& av = ew::read_operand(st.pa, st.shape);
  const Tensor& bv = ew::read_operand(st.pb, st.shape);
  if (integer_division(st.op) && !is_floating(st.compute) && contains_zero(bv))
    call.fail("ZeroDivisionError: integer division by zero");
  if (st.tmp_ws < 0) {
    binary_kernel(st.op, out, av, bv, st.alpha);
  } else {  // in-place into a narrower dtype (f32 self, f64 other): compute, then cast
    const Tensor& tmp = call.workspace[size_t(st.tmp_ws)];
    binary_kernel(st.op, tmp, av, bv, st.alpha);
    copy_into(out, tmp);
  }
}

OpDef binary(BinarySpec spec) {
  OpDef def{[spec](OpCall& c) { plan_binary(c, spec); }, run_binary, prepare_binary};
  // In place too: folded only together with the value it writes (runtime/constant_fold.cpp).
  def.traits.constant_foldable = true;
  return def;
}

// add.Tensor as a fused epilogue's residual (OpTraits::epilogue_part): only
// a plain sum (alpha 1) is one.
bool residual_part(const OpCall& call, EpiloguePart*) { return call.state_as<BinaryState>().alpha.f == 1.0; }

OpDef residual(OpDef def) {
  def.traits.epilogue = EpilogueRole::Residual;
  def.traits.epilogue_part = residual_part;
  return def;
}
BinarySpec inplace(BinarySpec s) { s.inplace = true; return s; }

const BinarySpec kAdd{BinaryOp::Add, Kind::Arith};
const BinarySpec kSub{BinaryOp::Add, Kind::Arith, "self", "other", false, true};
const BinarySpec kRsub{BinaryOp::Add, Kind::Arith, "self", "other", false, true, true};
const BinarySpec kMul{BinaryOp::Mul, Kind::Arith};
const BinarySpec kDiv{BinaryOp::Div, Kind::TrueDiv};
const BinarySpec kDivMode{BinaryOp::Div, Kind::DivMode};
BinarySpec pred(BinaryOp op) { return {op, Kind::Predicate}; }
BinarySpec bitwise(BinaryOp op) { return {op, Kind::Bitwise}; }
const BinarySpec kFloorDiv{BinaryOp::DivFloor, Kind::Arith};
const BinarySpec kRemainder{BinaryOp::Remainder, Kind::Arith};
const BinarySpec kFmod{BinaryOp::Fmod, Kind::Arith};

// ---- where / masked_fill ----

struct WhereState {
  DType dtype;
  Shape shape;
  std::vector<TensorOrScalar> vals;  // self, other
  std::vector<size_t> val_in;
  ew::Operand ops[2];  // plan: workspace; prepare: the kernel's views
  Tensor cond;         // prepare: the condition broadcast to shape
  bool prepared = false;
};

// where.self(Tensor condition, Tensor self, Tensor other) and the Scalar overloads.
void plan_where(OpCall& call) {
  call.check(!call.in.empty(), "missing condition");
  const Tensor& cond = call.in[0];
  call.check(cond.dtype == DType::Bool || cond.dtype == DType::U8,
             std::string("condition must be a bool tensor, got ") + dtype_name(cond.dtype));
  auto st = std::make_shared<WhereState>();
  st->vals = bind_slots(call, 1, {"self", "other"});
  size_t next = 1;
  for (auto& v : st->vals) st->val_in.push_back(v.is_tensor() ? next++ : 0);
  st->dtype = compute_dtype(result_type({st->vals[0].operand(), st->vals[1].operand()}));
  st->shape = ew::broadcast_or_fail(call, cond.shape, broadcast_all(call, st->vals));
  call.fresh(0, st->dtype, st->shape);
  for (size_t k = 0; k < 2; ++k) st->ops[k] = ew::plan_operand(call, st->vals[k], st->dtype, nullptr);
  call.state = st;
}

void prepare_where(OpCall& call) {
  auto& st = call.state_as<WhereState>();
  for (size_t k = 0; k < 2; ++k) ew::prepare_operand(call, st.vals[k], st.val_in[k], st.shape, st.ops[k]);
  st.cond = broadcast_view(call.in[0], st.shape);
  st.prepared = true;
}

void run_where(OpCall& call) {
  auto& st = call.state_as<WhereState>();
  if (!st.prepared) prepare_where(call);  // a call run without prepare (op tests)
  const Tensor& a = ew::read_operand(st.ops[0], st.shape);
  const Tensor& b = ew::read_operand(st.ops[1], st.shape);
  where_kernel(call.out[0], st.cond, a, b);
}

// masked_fill.Scalar(Tensor self, Tensor mask, Scalar value); .Tensor: value is a 0-d tensor.
void plan_masked_fill(OpCall& call, bool inplace) {
  call.expect_inputs(2, 3);
  const Tensor& self = call.in[0];
  const Tensor& mask = call.in[1];
  call.check(mask.dtype == DType::Bool || mask.dtype == DType::U8,
             std::string("mask must be a bool tensor, got ") + dtype_name(mask.dtype));
  if (call.in.size() == 3)
    call.check(call.in[2].dim() == 0, "value must be a 0-dimensional tensor, got shape " +
                                          shape_to_string(call.in[2].shape));
  else
    call.scalar("value");
  const Shape shape = ew::broadcast_or_fail(call, self.shape, mask.shape);
  if (inplace) {
    call.check(shape == self.shape, "mask of shape " + shape_to_string(mask.shape) +
                                        " does not broadcast to self's shape " + shape_to_string(self.shape));
    call.alias(0, self);
  } else {
    call.fresh(0, compute_dtype(self.dtype), shape);
  }
}

void run_masked_fill(OpCall& call) {
  const Tensor& out = call.out[0];
  const Tensor self = ew::read_safe(call.in[0], out);
  const Tensor mask = ew::read_safe(call.in[1], out);
  Tensor value;
  if (call.in.size() == 3) value = to_dtype_owned(call.in[2], out.dtype);  // value cast to self's dtype
  else value = scalar_tensor(call.scalar("value"), out.dtype);
  where_kernel(out, broadcast_view(mask, out.shape), broadcast_view(value, out.shape),
               broadcast_view(ew::as_dtype(self, out.dtype), out.shape));
}

}  // namespace

TIR_REGISTER_OPS(
    // add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    {"aten.add.Tensor", residual(binary(kAdd))},
    // add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
    {"aten.add.Scalar", binary(kAdd)},
    // add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
    {"aten.add_.Tensor", residual(binary(inplace(kAdd)))},
    // add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)
    {"aten.add_.Scalar", binary(inplace(kAdd))},
    // sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    {"aten.sub.Tensor", binary(kSub)},
    // sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
    {"aten.sub.Scalar", binary(kSub)},
    // sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)
    {"aten.sub_.Tensor", binary(inplace(kSub))},
    // sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)
    {"aten.sub_.Scalar", binary(inplace(kSub))},
    // rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor: other - alpha*self
    {"aten.rsub.Scalar", binary(kRsub)},
    // rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
    {"aten.rsub.Tensor", binary(kRsub)},
    // mul.Tensor(Tensor self, Tensor other) -> Tensor
    {"aten.mul.Tensor", complex_or(binary(kMul), complex_mul())},
    // mul.Scalar(Tensor self, Scalar other) -> Tensor
    {"aten.mul.Scalar", binary(kMul)},
    // mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
    {"aten.mul_.Tensor", binary(inplace(kMul))},
    // mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
    {"aten.mul_.Scalar", binary(inplace(kMul))},
    // div.Tensor(Tensor self, Tensor other) -> Tensor (always true division)
    {"aten.div.Tensor", binary(kDiv)},
    // div.Scalar(Tensor self, Scalar other) -> Tensor
    {"aten.div.Scalar", binary(kDiv)},
    // true_divide.Tensor(Tensor self, Tensor other) -> Tensor: div.Tensor's alias
    {"aten.true_divide.Tensor", binary(kDiv)},
    // div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor
    {"aten.div.Tensor_mode", binary(kDivMode)},
    // div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor
    {"aten.div.Scalar_mode", binary(kDivMode)},
    // div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
    {"aten.div_.Tensor", binary(inplace(kDiv))},
    // div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)
    {"aten.div_.Scalar", binary(inplace(kDiv))},
    // div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)
    {"aten.div_.Tensor_mode", binary(inplace(kDivMode))},
    // floor_divide(Tensor self, Tensor other) -> Tensor
    {"aten.floor_divide.default", binary(kFloorDiv)},
    // floor_divide.Scalar(Tensor self, Scalar other) -> Tensor
    {"aten.floor_divide.Scalar", binary(kFloorDiv)},
    // floor_divide_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)
    {"aten.floor_divide_.Tensor", binary(inplace(kFloorDiv))},
    // remainder.Tensor(Tensor self, Tensor other) -> Tensor (sign of the divisor, Python %)
    {"aten.remainder.Tensor", binary(kRemainder)},
    // remainder.Scalar(Tensor self, Scalar other) -> Tensor
    {"aten.remainder.Scalar", binary(kRemainder)},
    // remainder.Scalar_Tensor(Scalar self, Tensor other) -> Tensor
    {"aten.remainder.Scalar_Tensor", binary(kRemainder)},
    // fmod.Tensor(Tensor self, Tensor other) -> Tensor (sign of the dividend, C fmod)
    {"aten.fmod.Tensor", binary(kFmod)},
    // fmod.Scalar(Tensor self, Scalar other) -> Tensor
    {"aten.fmod.Scalar", binary(kFmod)},
    // bitwise_and/or/xor.Tensor(Tensor self, Tensor other) -> Tensor (integer and bool only)
    {"aten.bitwise_and.Tensor", binary(bitwise(BinaryOp::BitAnd))},
    {"aten.bitwise_or.Tensor", binary(bitwise(BinaryOp::BitOr))},
    {"aten.bitwise_xor.Tensor", binary(bitwise(BinaryOp::BitXor))},
    // bitwise_and/or/xor.Scalar(Tensor self, Scalar other) -> Tensor
    {"aten.bitwise_and.Scalar", binary(bitwise(BinaryOp::BitAnd))},
    {"aten.bitwise_or.Scalar", binary(bitwise(BinaryOp::BitOr))},
    {"aten.bitwise_xor.Scalar", binary(bitwise(BinaryOp::BitXor))},
    // __and__.Tensor(Tensor self, Tensor other) -> Tensor; __or__.Tensor(Tensor self, Tensor other) -> Tensor
    {"aten.__and__.Tensor", binary(bitwise(BinaryOp::BitAnd))},
    {"aten.__or__.Tensor", binary(bitwise(BinaryOp::BitOr))},
    // __xor__.Tensor(Tensor self, Tensor other) -> Tensor
    {"aten.__xor__.Tensor", binary(bitwise(BinaryOp::BitXor))},
    // pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor
    {"aten.pow.Tensor_Scalar", binary({BinaryOp::Pow, Kind::Pow, "self", "exponent"})},
    // pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor
    {"aten.pow.Tensor_Tensor", binary({BinaryOp::Pow, Kind::Pow, "self", "exponent"})},
    // pow.Scalar(Scalar self, Tensor exponent) -> Tensor
    {"aten.pow.Scalar", binary({BinaryOp::Pow, Kind::Pow, "self", "exponent"})},
    // pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)
    {"aten.pow_.Scalar", binary(inplace({BinaryOp::Pow, Kind::Pow, "self", "exponent"}))},
    // maximum(Tensor self, Tensor other) -> Tensor; max.other is the same op
    {"aten.maximum.default", binary({BinaryOp::Maximum, Kind::Arith})},
    {"aten.max.other", binary({BinaryOp::Maximum, Kind::Arith})},
    // minimum(Tensor self, Tensor other) -> Tensor; min.other is the same op
    {"aten.minimum.default", binary({BinaryOp::Minimum, Kind::Arith})},
    {"aten.min.other", binary({BinaryOp::Minimum, Kind::Arith})},
    // eq/ne/lt/le/gt/ge .Tensor(Tensor self, Tensor other) and .Scalar(Tensor self, Scalar other) -> Tensor (bool)
    {"aten.eq.Tensor", binary(pred(BinaryOp::Eq))}, {"aten.eq.Scalar", binary(pred(BinaryOp::Eq))},
    {"aten.ne.Tensor", binary(pred(BinaryOp::Ne))}, {"aten.ne.Scalar", binary(pred(BinaryOp::Ne))},
    {"aten.lt.Tensor", binary(pred(BinaryOp::Lt))}, {"aten.lt.Scalar", binary(pred(BinaryOp::Lt))},
    {"aten.le.Tensor", binary(pred(BinaryOp::Le))}, {"aten.le.Scalar", binary(pred(BinaryOp::Le))},
    {"aten.gt.Tensor", binary(pred(BinaryOp::Gt))}, {"aten.gt.Scalar", binary(pred(BinaryOp::Gt))},
    {"aten.ge.Tensor", binary(pred(BinaryOp::Ge))}, {"aten.ge.Scalar", binary(pred(BinaryOp::Ge))},
    // logical_and/or/xor(Tensor self, Tensor other) -> Tensor (bool)
    {"aten.logical_and.default", binary(pred(BinaryOp::LogicalAnd))},
    {"aten.logical_or.default", binary(pred(BinaryOp::LogicalOr))},
    {"aten.logical_xor.default", binary(pred(BinaryOp::LogicalXor))},
    // where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
    {"aten.where.self", foldable({plan_where, run_where, prepare_where})},
    // where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor
    {"aten.where.ScalarOther", foldable({plan_where, run_where, prepare_where})},
    // where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor
    {"aten.where.ScalarSelf", foldable({plan_where, run_where, prepare_where})},
    // where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor
    {"aten.where.Scalar", foldable({plan_where, run_where, prepare_where})},
    // masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor
    {"aten.masked_fill.Scalar", {[](OpCall& c) { plan_masked_fill(c, false); }, run_masked_fill}},
    // masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor
    {"aten.masked_fill.Tensor", {[](OpCall& c) { plan_masked_fill(c, false); }, run_masked_fill}},
    // masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)
    {"aten.masked_fill_.Scalar", {[](OpCall& c) { plan_masked_fill(c, true); }, run_masked_fill}},
    // masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)
    {"aten.masked_fill_.Tensor", {[](OpCall& c) { plan_masked_fill(c, true); }, run_masked_fill}});

}  // namespace tir
