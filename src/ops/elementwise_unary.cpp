// Unary elementwise ops and activations (and their in-place forms), rounding,
// nan/inf tests, clamp with scalar or tensor bounds.
#include <limits>
#include <memory>
#include <string>

#include "kernels/elementwise.h"
#include "ops/common.h"
#include "ops/complex.h"
#include "ops/elementwise_util.h"
#include "ops/epilogue.h"
#include "ops/op.h"

namespace tir {
namespace {

enum class Params {
  None, Gelu, Hardtanh, Relu6, Clamp, ClampMin, ClampMax, LeakyRelu, Elu, Celu, Selu, Softplus, NanToNum,
  RoundDecimals,
};

struct UnarySpec {
  UnaryOp op;
  Params params = Params::None;
  bool inplace = false;
  bool float_input = false;  // torch's kernel rejects integer/bool inputs (elu, mish, ...)
};

// torch.finfo(d).max for the IR's float dtype (our f16/bf16 values live in f32).
double float_max(DType d) {
  switch (d) {
    case DType::F16: return 65504.0;
    case DType::BF16: return 3.3895313892515355e38;
    case DType::F64: return std::numeric_limits<double>::max();
    default: return std::numeric_limits<float>::max();
  }
}

struct UnaryState {
  UnaryOp op;
  UnaryParams p;
  DType compute;   // dtype the kernel reads and writes
  DType result;    // dtype of the op's result before any in-place cast
};

// Float functions of int/bool inputs compute in the default float dtype.
DType float_result(DType d) { return is_floating(d) ? compute_dtype(d) : DType::F32; }

void plan_unary(OpCall& call, const UnarySpec& spec) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(!is_complex(self.dtype), "complex tensors are not supported");
  auto st = std::make_shared<UnaryState>();
  st->op = spec.op;
  st->compute = compute_dtype(self.dtype);
  if (spec.float_input)
    call.check(is_floating(self.dtype), std::string("not implemented for ") + dtype_name(self.dtype) +
                                            " tensors (floating point only)");
  std::vector<PromotionOperand> promo{PromotionOperand::of(self)};
  auto bound = [&](const char* name, std::optional<Scalar> def, double* v, bool* has) {
    auto s = call.opt_scalar(name);
    if (!s) s = def;
    if (!s) return;
    *v = s->f;
    *has = true;
    if (!s->is_floating()) {  // keep int bounds exact
      const bool first = v == &st->p.a;
      (first ? st->p.a_is_int : st->p.b_is_int) = true;
      (first ? st->p.ia : st->p.ib) = s->i;
    }
    promo.push_back(PromotionOperand::of(*s));
  };
  switch (spec.params) {
    case Params::None: break;
    case Params::Gelu: {
      const std::string a = call.str("approximate", std::string("none"));
      call.check(a == "none" || a == "tanh", "approximate must be 'none' or 'tanh', got '" + a + "'");
      if (a == "tanh") st->op = UnaryOp::GeluTanh;
      break;
    }
    case Params::Hardtanh:
      bound("min_val", Scalar::of_int(-1), &st->p.a, &st->p.has_a);
      bound("max_val", Scalar::of_int(1), &st->p.b, &st->p.has_b);
      break;
    case Params::Clamp:
      bound("min", std::nullopt, &st->p.a, &st->p.has_a);
      bound("max", std::nullopt, &st->p.b, &st->p.has_b);
      call.check(st->p.has_a || st->p.has_b, "at least one of 'min' or 'max' must not be None");
      break;
    case Params::Relu6:  // hardtanh(0, 6); int bounds leave the dtype alone
      st->p.a = 0;
      st->p.b = 6;
      st->p.has_a = st->p.has_b = true;
      break;
    case Params::ClampMin: bound("min", std::nullopt, &st->p.a, &st->p.has_a); break;
    case Params::ClampMax: bound("max", std::nullopt, &st->p.b, &st->p.has_b); break;
    case Params::LeakyRelu: st->p.a = call.f("negative_slope", 0.01); break;
    case Params::Elu:
      st->p.a = call.f("alpha", 1.0);
      st->p.b = call.f("scale", 1.0);
      st->p.c = call.f("input_scale", 1.0);
      break;
    case Params::Celu: {  // elu(x, alpha, scale=1, input_scale=1/alpha)
      const double alpha = call.f("alpha", 1.0);
      call.check(alpha != 0.0, "ZeroDivisionError: alpha of celu must not be 0");
      st->p.a = alpha;
      st->p.b = 1.0;
      st->p.c = 1.0 / alpha;
      break;
    }
    case Params::Selu:  // elu with torch's fixed constants
      st->p.a = 1.6732632423543772848170429916717;
      st->p.b = 1.0507009873554804934193349852946;
      st->p.c = 1.0;
      break;
    case Params::NanToNum: {
      // Defaults: nan -> 0, +-inf -> the IR output dtype's largest finite values.
      DType ir = self.dtype;
      if (call.num_ir_outputs() > 0 && compute_dtype(call.node->outputs[0].dtype) == compute_dtype(self.dtype))
        ir = call.node->outputs[0].dtype;
      const double mx = float_max(ir);
      st->p.a = call.f("nan", 0.0);
      st->p.b = call.f("posinf", mx);
      st->p.c = call.f("neginf", -mx);
      break;
    }
    case Params::RoundDecimals:
      st->p.a = double(call.i("decimals"));
      call.check(is_floating(self.dtype), std::string("round with decimals is not implemented for ") +
                                              dtype_name(self.dtype) + " tensors");
      break;
    case Params::Softplus:
      st->p.a = call.f("beta", 1.0);
      st->p.b = call.f("threshold", 20.0);
      break;
  }
  if (spec.params == Params::ClampMin || spec.params == Params::ClampMax) {
    call.check(st->p.has_a || st->p.has_b, "missing bound");
  }
  if (unary_op_is_floating_only(st->op)) {
    st->compute = float_result(self.dtype);
  } else if (promo.size() > 1) {
    st->compute = compute_dtype(result_type(promo));  // clamp(int, 0.5) is float
  }
  if (st->op == UnaryOp::Square && st->compute == DType::Bool) st->compute = DType::I64;  // pow(bool, 2)
  st->result = unary_op_is_predicate(st->op) ? DType::Bool : st->compute;
  if (st->compute == DType::Bool) {
    call.check(st->op == UnaryOp::BitwiseNot || st->op == UnaryOp::Sign || st->op == UnaryOp::NanToNum ||
                   unary_op_is_predicate(st->op),
               "boolean inputs are not supported for this op");
  }
  if (st->op == UnaryOp::BitwiseNot)
    call.check(!is_floating(st->compute), "bitwise_not is only defined for integer and bool tensors");
  if (spec.inplace) {
    if (!unary_op_is_predicate(st->op)) ew::check_inplace_cast(call, st->result, self.dtype);
    call.alias(0, self);
  } else {
    call.fresh(0, st->result, self.shape);
  }
  call.state = st;
}

void run_unary(OpCall& call) {
  auto& st = call.state_as<UnaryState>();
  const Tensor& out = call.out[0];
  Tensor keep;  // the input converted to the compute dtype, when it differs
  const Tensor& in = ew::as_dtype_ref(call.in[0], st.compute, keep);
  if (out.dtype == st.result) {
    unary_kernel(st.op, out, in, st.p);
  } else {  // in-place into another dtype (logical_not_ on floats)
    Tensor tmp = make_owned(st.result, out.shape);
    unary_kernel(st.op, tmp, in, st.p);
    copy_into(out, tmp);
  }
}

OpDef unary(UnaryOp op, Params params = Params::None) {
  UnarySpec s{op, params, false};
  return foldable({[s](OpCall& c) { plan_unary(c, s); }, run_unary});
}
OpDef unary_(UnaryOp op, Params params = Params::None) {
  UnarySpec s{op, params, true};
  return {[s](OpCall& c) { plan_unary(c, s); }, run_unary};
}
// Floating-point-only inputs (torch raises "not implemented for 'Long'").
OpDef unary_float(UnaryOp op, Params params = Params::None, bool inplace = false) {
  UnarySpec s{op, params, inplace, true};
  OpDef def{[s](OpCall& c) { plan_unary(c, s); }, run_unary};
  def.traits.constant_foldable = !inplace;
  return def;
}

// relu, or a clamp with this call's planned bounds (hardtanh's, relu6's and
// clamp's own defaults), as a fused epilogue's activation (OpTraits::epilogue_part).
bool activation_part(const OpCall& call, EpiloguePart* part) {
  const auto& st = call.state_as<UnaryState>();
  if (st.op == UnaryOp::Relu) {
    part->act = FusedEpilogue::Act::Relu;
    return true;
  }
  if (epilogue_unary_name(st.op)) {  // a smooth activation (ops/epilogue.h)
    if (st.compute != DType::F32 || call.out[0].dtype != DType::F32) return false;
    part->act = FusedEpilogue::Act::Unary;
    part->unary = st.op;
    return true;
  }
  if (st.op != UnaryOp::Clamp) return false;
  const double inf = std::numeric_limits<double>::infinity();
  part->lo = st.p.has_a ? st.p.a : -inf;
  part->hi = st.p.has_b ? st.p.b : inf;
  part->act = FusedEpilogue::Act::Clamp;
  return part->lo <= part->hi;  // NaN or crossed bounds: left to the op
}

OpDef activation(OpDef def) {
  def.traits.epilogue = EpilogueRole::Activation;
  def.traits.epilogue_part = activation_part;
  return def;
}

// ---- clamp with tensor bounds: clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) ----
// With two inputs the IR cannot say which bound was given (docs/spec/OPS.md §1.7); like
// pytorch-ir, the tensor is taken as `min`.
struct ClampTensorState {
  DType compute;
  Shape shape;
  bool has_min = false, has_max = false;
};

void plan_clamp_tensor(OpCall& call, bool inplace, int only /* 0 both, 1 min, 2 max */) {
  call.expect_inputs(2, 3);
  auto st = std::make_shared<ClampTensorState>();
  st->has_min = only != 2;
  st->has_max = only == 2 || (only == 0 && call.in.size() == 3);
  std::vector<PromotionOperand> promo;
  Shape shape;
  for (const auto& t : call.in) {
    promo.push_back(PromotionOperand::of(t));
    shape = ew::broadcast_or_fail(call, shape, t.shape);
  }
  st->compute = compute_dtype(result_type(promo));
  call.check(st->compute != DType::Bool, "clamp is not supported for bool tensors");
  st->shape = shape;
  if (inplace) {
    call.check(shape == call.in[0].shape, "bounds do not broadcast to self's shape");
    ew::check_inplace_cast(call, st->compute, call.in[0].dtype);
    call.alias(0, call.in[0]);
  } else {
    call.fresh(0, st->compute, shape);
  }
  call.state = st;
}

void run_clamp_tensor(OpCall& call) {
  auto& st = call.state_as<ClampTensorState>();
  const Tensor& out = call.out[0];
  auto view = [&](size_t i) { return broadcast_view(ew::as_dtype(ew::read_safe(call.in[i], out), st.compute), st.shape); };
  Tensor acc = out.dtype == st.compute ? out : make_owned(st.compute, st.shape);
  Tensor x = view(0);
  size_t next = 1;
  if (st.has_min) {
    binary_kernel(BinaryOp::Maximum, acc, x, view(next++));
    x = acc;
  }
  if (st.has_max) {
    binary_kernel(BinaryOp::Minimum, acc, x, view(next++));
    x = acc;
  }
  if (!acc.same_storage(out)) copy_into(out, acc);
}

OpDef clamp_tensor(bool inplace, int only) {
  return {[=](OpCall& c) { plan_clamp_tensor(c, inplace, only); }, run_clamp_tensor};
}

}  // namespace

TIR_REGISTER_OPS(
    // relu(Tensor self) -> Tensor; relu_(Tensor(a!) self) -> Tensor(a!)
    {"aten.relu.default", activation(unary(UnaryOp::Relu))},
    {"aten.relu_.default", activation(unary_(UnaryOp::Relu))},
    // sigmoid(Tensor self) -> Tensor
    {"aten.sigmoid.default", activation(unary(UnaryOp::Sigmoid))},
    {"aten.sigmoid_.default", activation(unary_(UnaryOp::Sigmoid))},
    // tanh(Tensor self) -> Tensor
    {"aten.tanh.default", activation(unary(UnaryOp::Tanh))},
    {"aten.tanh_.default", activation(unary_(UnaryOp::Tanh))},
    // hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor
    {"aten.hardtanh.default", activation(unary(UnaryOp::Clamp, Params::Hardtanh))},
    {"aten.hardtanh_.default", activation(unary_(UnaryOp::Clamp, Params::Hardtanh))},
    // gelu(Tensor self, *, str approximate="none") -> Tensor
    {"aten.gelu.default", activation(unary(UnaryOp::Gelu, Params::Gelu))},
    {"aten.gelu_.default", activation(unary_(UnaryOp::Gelu, Params::Gelu))},
    // silu(Tensor self) -> Tensor
    {"aten.silu.default", activation(unary(UnaryOp::Silu))},
    {"aten.silu_.default", activation(unary_(UnaryOp::Silu))},
    // hardswish(Tensor self) -> Tensor
    {"aten.hardswish.default", activation(unary(UnaryOp::Hardswish))},
    {"aten.hardswish_.default", activation(unary_(UnaryOp::Hardswish))},
    // hardsigmoid(Tensor self) -> Tensor
    {"aten.hardsigmoid.default", activation(unary(UnaryOp::Hardsigmoid))},
    {"aten.hardsigmoid_.default", activation(unary_(UnaryOp::Hardsigmoid))},
    // neg(Tensor self) -> Tensor
    {"aten.neg.default", unary(UnaryOp::Neg)},
    {"aten.neg_.default", unary_(UnaryOp::Neg)},
    // abs(Tensor self) -> Tensor
    {"aten.abs.default", complex_or(unary(UnaryOp::Abs), complex_abs())},
    {"aten.abs_.default", unary_(UnaryOp::Abs)},
    // exp / log / sqrt / rsqrt / sin / cos / erf / reciprocal (Tensor self) -> Tensor
    {"aten.exp.default", unary(UnaryOp::Exp)},
    {"aten.exp_.default", unary_(UnaryOp::Exp)},
    {"aten.log.default", unary(UnaryOp::Log)},
    {"aten.sqrt.default", unary(UnaryOp::Sqrt)},
    {"aten.sqrt_.default", unary_(UnaryOp::Sqrt)},
    {"aten.rsqrt.default", unary(UnaryOp::Rsqrt)},
    {"aten.rsqrt_.default", unary_(UnaryOp::Rsqrt)},
    {"aten.sin.default", unary(UnaryOp::Sin)},
    {"aten.cos.default", unary(UnaryOp::Cos)},
    {"aten.erf.default", unary(UnaryOp::Erf)},
    {"aten.reciprocal.default", unary(UnaryOp::Reciprocal)},
    // clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor
    {"aten.clamp.default", activation(unary(UnaryOp::Clamp, Params::Clamp))},
    {"aten.clamp_.default", activation(unary_(UnaryOp::Clamp, Params::Clamp))},
    // clamp_min(Tensor self, Scalar min) -> Tensor; clamp_max(Tensor self, Scalar max) -> Tensor
    {"aten.clamp_min.default", unary(UnaryOp::Clamp, Params::ClampMin)},
    {"aten.clamp_min_.default", unary_(UnaryOp::Clamp, Params::ClampMin)},
    {"aten.clamp_max.default", unary(UnaryOp::Clamp, Params::ClampMax)},
    {"aten.clamp_max_.default", unary_(UnaryOp::Clamp, Params::ClampMax)},
    // clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor
    {"aten.clamp.Tensor", clamp_tensor(false, 0)},
    {"aten.clamp_.Tensor", clamp_tensor(true, 0)},
    // clamp_min.Tensor(Tensor self, Tensor min) / clamp_max.Tensor(Tensor self, Tensor max) -> Tensor
    {"aten.clamp_min.Tensor", clamp_tensor(false, 1)},
    {"aten.clamp_max.Tensor", clamp_tensor(false, 2)},
    // leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor
    {"aten.leaky_relu.default", unary(UnaryOp::LeakyRelu, Params::LeakyRelu)},
    {"aten.leaky_relu_.default", unary_(UnaryOp::LeakyRelu, Params::LeakyRelu)},
    // elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor
    {"aten.elu.default", unary(UnaryOp::Elu, Params::Elu)},
    {"aten.elu_.default", unary_(UnaryOp::Elu, Params::Elu)},
    // softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor
    {"aten.softplus.default", unary(UnaryOp::Softplus, Params::Softplus)},
    // logical_not(Tensor self) -> Tensor (bool); logical_not_ keeps self's dtype
    {"aten.logical_not.default", unary(UnaryOp::LogicalNot)},
    {"aten.logical_not_.default", unary_(UnaryOp::LogicalNot)},
    // bitwise_not(Tensor self) -> Tensor
    {"aten.bitwise_not.default", unary(UnaryOp::BitwiseNot)},
    // ceil / floor / trunc / round(Tensor self) -> Tensor: integers pass through; round is half to even
    {"aten.ceil.default", unary(UnaryOp::Ceil)},
    {"aten.floor.default", unary(UnaryOp::Floor)},
    {"aten.trunc.default", unary(UnaryOp::Trunc)},
    {"aten.round.default", unary(UnaryOp::Round)},
    // round.decimals(Tensor self, *, int decimals) -> Tensor
    {"aten.round.decimals", unary(UnaryOp::RoundDecimals, Params::RoundDecimals)},
    // sign(Tensor self) -> Tensor; square(Tensor self) -> Tensor (bool -> int64)
    {"aten.sign.default", unary(UnaryOp::Sign)},
    {"aten.square.default", unary(UnaryOp::Square)},
    // expm1 / log1p / log2(Tensor self) -> Tensor (ints -> float32)
    {"aten.expm1.default", unary(UnaryOp::Expm1)},
    {"aten.log1p.default", unary(UnaryOp::Log1p)},
    {"aten.log2.default", unary(UnaryOp::Log2)},
    // isfinite / isinf / isnan(Tensor self) -> Tensor (bool)
    {"aten.isfinite.default", unary(UnaryOp::IsFinite)},
    {"aten.isinf.default", unary(UnaryOp::IsInf)},
    {"aten.isnan.default", unary(UnaryOp::IsNan)},
    // nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor
    {"aten.nan_to_num.default", unary(UnaryOp::NanToNum, Params::NanToNum)},
    // relu6(Tensor self) -> Tensor: hardtanh(0, 6)
    {"aten.relu6.default", activation(unary(UnaryOp::Clamp, Params::Relu6))},
    // celu(Tensor self, Scalar alpha=1.) -> Tensor
    {"aten.celu.default", unary_float(UnaryOp::Elu, Params::Celu)},
    // selu(Tensor self) -> Tensor
    {"aten.selu.default", unary_float(UnaryOp::Elu, Params::Selu)},
    // mish(Tensor self) -> Tensor
    {"aten.mish.default", unary_float(UnaryOp::Mish)},
    // log_sigmoid(Tensor self) -> Tensor
    {"aten.log_sigmoid.default", unary_float(UnaryOp::LogSigmoid)});

}  // namespace tir
