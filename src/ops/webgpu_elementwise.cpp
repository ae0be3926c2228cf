// WebGPU lowerings of the elementwise ops, copies and casts: each becomes one
// dispatch of the generated elementwise kernel (src/kernels/wgsl/
// elementwise_ops.json names the op; attributes become its p0/p1 parameters,
// with the defaults the CPU op files use).
#include <cmath>
#include <limits>

#include "ops/webgpu.h"

namespace tir {
namespace {

bool float_io(const OpCall& c) {
  for (const auto& t : c.in)
    if (t.defined() && t.dtype != DType::F32) return false;
  return c.out[0].dtype == DType::F32;
}

// A float32 result from any GPU dtype (int64 held as int32: f32 of it rounds as f32 of the
// int64 does), for the table's "float" ops, which compute in f32 (true division of integers).
bool float_out(const OpCall& c) {
  for (const auto& t : c.in)
    if (t.defined() && t.dtype != DType::F32 && t.dtype != DType::I32 && t.dtype != DType::I64 && t.dtype != DType::Bool)
      return false;
  return c.out[0].dtype == DType::F32;
}

bool unary(const OpCall& c, GpuLowering& g, const char* op, double p0 = 0, double p1 = 0) {
  if (!float_io(c) || c.in.empty()) return false;
  g.dispatches.push_back(gpu_elementwise(op, {c.in[0]}, c.out[0], p0, p1));
  return true;
}

// abs; of a complex64 tensor, |re + i im| = hypot(re, im) over its float32 pairs (two strided
// views of one value), as the CPU's std::abs.
bool lower_abs(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  if (x.dtype != DType::C64) return unary(c, g, "abs");
  if (c.out[0].dtype != DType::F32) return false;
  if (c.out[0].numel() == 0) return true;
  Tensor re = gpu_complex_as_pairs(x);
  re.shape.pop_back();
  re.strides.pop_back();
  Tensor im = re;
  im.offset += 1;
  g.dispatches.push_back(gpu_elementwise("hypot", {re, im}, c.out[0]));
  return true;
}

#define TIR_UNARY(name, op) \
  bool name(const OpCall& c, GpuLowering& g) { return unary(c, g, op); }
TIR_UNARY(lower_relu, "relu")
TIR_UNARY(lower_sigmoid, "sigmoid")
TIR_UNARY(lower_tanh, "tanh")
TIR_UNARY(lower_silu, "silu")
TIR_UNARY(lower_hardswish, "hardswish")
TIR_UNARY(lower_hardsigmoid, "hardsigmoid")
TIR_UNARY(lower_neg, "neg")
TIR_UNARY(lower_exp, "exp")
TIR_UNARY(lower_log, "log")
TIR_UNARY(lower_sqrt, "sqrt")
TIR_UNARY(lower_rsqrt, "rsqrt")
TIR_UNARY(lower_erf, "erf")
TIR_UNARY(lower_reciprocal, "reciprocal")
TIR_UNARY(lower_sin, "sin")
TIR_UNARY(lower_cos, "cos")
TIR_UNARY(lower_mish, "mish")
TIR_UNARY(lower_tan, "tan")
TIR_UNARY(lower_asin, "asin")
TIR_UNARY(lower_acos, "acos")
TIR_UNARY(lower_atan, "atan")
TIR_UNARY(lower_sinh, "sinh")
TIR_UNARY(lower_cosh, "cosh")
TIR_UNARY(lower_asinh, "asinh")
TIR_UNARY(lower_acosh, "acosh")
TIR_UNARY(lower_atanh, "atanh")
TIR_UNARY(lower_exp2, "exp2")
TIR_UNARY(lower_log10, "log10")
TIR_UNARY(lower_frac, "frac")
TIR_UNARY(lower_sgn, "sign")
TIR_UNARY(lower_erfc, "erfc")
#undef TIR_UNARY

bool lower_gelu(const OpCall& c, GpuLowering& g) {
  const std::string approx = c.str("approximate", std::string("none"));
  return unary(c, g, approx == "tanh" ? "gelu_tanh" : "gelu");
}

bool lower_hardtanh(const OpCall& c, GpuLowering& g) {
  return unary(c, g, "clamp", c.f("min_val", -1.0), c.f("max_val", 1.0));
}

bool lower_relu6(const OpCall& c, GpuLowering& g) { return unary(c, g, "relu6"); }

bool lower_leaky_relu(const OpCall& c, GpuLowering& g) {
  return unary(c, g, "leaky_relu", c.f("negative_slope", 0.01));
}

bool lower_hardshrink(const OpCall& c, GpuLowering& g) { return unary(c, g, "hardshrink", c.f("lambd", 0.5)); }
bool lower_softshrink(const OpCall& c, GpuLowering& g) { return unary(c, g, "softshrink", c.f("lambd", 0.5)); }
bool lower_threshold(const OpCall& c, GpuLowering& g) {
  return unary(c, g, "threshold", c.scalar("threshold").f, c.scalar("value").f);
}

// rrelu at inference (training=False): leaky_relu with the mean slope, as the CPU op.
bool lower_rrelu(const OpCall& c, GpuLowering& g) {
  if (c.b("training", false) || c.in.size() != 1 || c.out.size() != 1) return false;
  return unary(c, g, "leaky_relu", (c.f("lower", 0.125) + c.f("upper", 1.0 / 3.0)) / 2);
}

bool lower_softplus(const OpCall& c, GpuLowering& g) {
  // The table's softplus is beta = 1, threshold = 20 (torch's defaults).
  if (c.f("beta", 1.0) != 1.0 || c.f("threshold", 20.0) != 20.0) return false;
  return unary(c, g, "softplus");
}

bool lower_clamp(const OpCall& c, GpuLowering& g) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto lo = c.opt_scalar("min"), hi = c.opt_scalar("max");
  if (c.in.size() != 1) return false;  // clamp.Tensor
  return unary(c, g, "clamp", lo ? lo->f : -inf, hi ? hi->f : inf);
}

bool lower_pow_scalar(const OpCall& c, GpuLowering& g) {
  const Scalar e = c.scalar("exponent");
  if (e.f == 2.0) return unary(c, g, "square");
  if (e.f == 1.0) return unary(c, g, "copy");
  if (e.f == 0.5) return unary(c, g, "sqrt");
  return unary(c, g, "pow_scalar", e.f);
}

// Binary ops: both operands tensors, or `other` a Scalar attribute.
bool binary(const OpCall& c, GpuLowering& g, const char* op, const char* scalar_op, double p0 = 0,
            bool int_inputs = false) {
  if (!(int_inputs ? float_out(c) : float_io(c))) return false;
  if (c.in.size() == 2 && c.in[1].defined()) {
    g.dispatches.push_back(gpu_elementwise(op, {c.in[0], c.in[1]}, c.out[0], p0));
    return true;
  }
  const auto other = c.opt_scalar("other");
  if (!other || !scalar_op) return false;
  // add/sub with a Scalar: a + alpha * other folds into one constant.
  g.dispatches.push_back(gpu_elementwise(scalar_op, {c.in[0]}, c.out[0], other->f * (p0 == 0 ? 1 : p0)));
  return true;
}

bool lower_add(const OpCall& c, GpuLowering& g) { return binary(c, g, "add", "add_scalar", c.scalar("alpha", Scalar::of_int(1)).f); }
bool lower_sub(const OpCall& c, GpuLowering& g) {
  const double alpha = c.scalar("alpha", Scalar::of_int(1)).f;
  if (c.in.size() == 1) {
    const auto other = c.opt_scalar("other");
    if (!other || !float_io(c)) return false;
    g.dispatches.push_back(gpu_elementwise("add_scalar", {c.in[0]}, c.out[0], -other->f * alpha));
    return true;
  }
  return binary(c, g, "sub", nullptr, alpha);
}
bool lower_mul(const OpCall& c, GpuLowering& g) { return binary(c, g, "mul", "mul_scalar"); }
bool lower_div(const OpCall& c, GpuLowering& g) {
  if (c.has("rounding_mode")) return false;
  return binary(c, g, "div", "div_scalar", 0, true);
}
bool lower_maximum(const OpCall& c, GpuLowering& g) { return binary(c, g, "maximum", nullptr); }
bool lower_minimum(const OpCall& c, GpuLowering& g) { return binary(c, g, "minimum", nullptr); }

bool lower_atan2(const OpCall& c, GpuLowering& g) { return binary(c, g, "atan2", nullptr); }
bool lower_hypot(const OpCall& c, GpuLowering& g) { return binary(c, g, "hypot", nullptr); }
bool lower_copysign(const OpCall& c, GpuLowering& g) { return binary(c, g, "copysign", nullptr); }

// addcmul / addcdiv(self, t1, t2, value) and lerp (Scalar or Tensor weight), f32.
bool ternary(const OpCall& c, GpuLowering& g, const char* op, double p0) {
  if (!float_io(c) || c.in.size() != 3) return false;
  g.dispatches.push_back(gpu_elementwise(op, {c.in[0], c.in[1], c.in[2]}, c.out[0], p0));
  return true;
}
bool lower_addcmul(const OpCall& c, GpuLowering& g) { return ternary(c, g, "addcmul", c.scalar("value", Scalar::of_int(1)).f); }
bool lower_addcdiv(const OpCall& c, GpuLowering& g) { return ternary(c, g, "addcdiv", c.scalar("value", Scalar::of_int(1)).f); }
bool lower_lerp(const OpCall& c, GpuLowering& g) {
  if (c.in.size() == 3) return ternary(c, g, "lerp", 0);
  if (!float_io(c) || c.in.size() != 2) return false;
  g.dispatches.push_back(gpu_elementwise("lerp_scalar", {c.in[0], c.in[1]}, c.out[0], c.scalar("weight").f));
  return true;
}

bool lower_rsub_scalar(const OpCall& c, GpuLowering& g) {
  // other - alpha * self
  if (!float_io(c) || c.in.size() != 1) return false;
  const double alpha = c.scalar("alpha", Scalar::of_int(1)).f;
  if (alpha != 1.0) return false;
  return unary(c, g, "rsub_scalar", c.scalar("other").f);
}

bool lower_where(const OpCall& c, GpuLowering& g) {
  if (c.in.size() != 3 || c.in[0].dtype != DType::Bool) return false;
  // Selects one of two values of the output's dtype (int64 ones stay in int32's range).
  const DType t = c.out[0].dtype;
  if (c.in[1].dtype != t || c.in[2].dtype != t || (t != DType::F32 && t != DType::I32 && t != DType::I64)) return false;
  g.dispatches.push_back(gpu_elementwise("where", {c.in[0], c.in[1], c.in[2]}, c.out[0]));
  return true;
}

bool lower_masked_fill(const OpCall& c, GpuLowering& g) {
  if (c.in.size() != 2 || c.in[0].dtype != DType::F32 || c.in[1].dtype != DType::Bool) return false;
  g.dispatches.push_back(gpu_elementwise("masked_fill", {c.in[0], c.in[1]}, c.out[0], c.scalar("value").f));
  return true;
}

// clone / contiguous / _to_copy / to / type_as: a copy (a cast when the dtypes differ)
// into the fresh output; a view output (to() of the same dtype) is free. A cast to float16 or
// bfloat16 (float32 in the engine) rounds to that precision, as the CPU op does.
bool lower_copy(const OpCall& c, GpuLowering& g) {
  if (c.in.empty() || !c.in[0].defined()) return false;
  if (c.out[0].buffer == c.in[0].buffer) return true;  // planned as a view: nothing to run
  const DType from = c.in[0].dtype, to = c.out[0].dtype;
  // int64 inputs are narrowed to int32 on the GPU (checked on upload); nothing writes int64 there.
  const auto ok = [](DType d) { return d == DType::F32 || d == DType::I32 || d == DType::Bool; };
  // int64 results only from integers that already fit int32 (no float -> int64 truncation).
  const bool to_i64 = to == DType::I64 && (from == DType::I64 || from == DType::I32 || from == DType::Bool);
  if (!(ok(from) || from == DType::I64) || !(ok(to) || to_i64)) return false;
  // The IR target as ops/convert.cpp's plan_to reads it (type_as: the other's dtype).
  const DType self_ir = gpu_ir_input_dtype(c, 0);
  DType want = self_ir;
  if (c.node->op_type == "aten.type_as.default") {
    if (c.in.size() < 2) return false;
    want = gpu_ir_input_dtype(c, 1);
  } else if (c.node->op_type != "aten.clone.default" && c.node->op_type != "aten.contiguous.default") {
    want = c.dtype("dtype").value_or(self_ir);
  }
  const char* round = gpu_round_op(want, self_ir);
  g.dispatches.push_back(gpu_elementwise(round ? round : "copy", {c.in[0]}, c.out[0]));
  return true;
}

// view / reshape / flatten / unflatten: a view when the planner could alias
// (nothing to run), else a copy of the input into the contiguous output, read
// in the input's own shape (a reshape keeps the row-major element order).
bool lower_reshape(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (y.buffer == x.buffer) return true;
  if (x.dtype != y.dtype || !y.is_contiguous() || x.numel() == 0) return x.numel() == 0;
  g.dispatches.push_back(gpu_elementwise("copy", {x}, y.view_as(x.shape, contiguous_strides(x.shape), y.offset)));
  return true;
}

}  // namespace

TIR_REGISTER_WEBGPU(
    {"aten.relu.default", lower_relu}, {"aten.relu_.default", lower_relu},
    {"aten.sigmoid.default", lower_sigmoid}, {"aten.sigmoid_.default", lower_sigmoid},
    {"aten.tanh.default", lower_tanh}, {"aten.tanh_.default", lower_tanh},
    {"aten.silu.default", lower_silu}, {"aten.silu_.default", lower_silu},
    {"aten.gelu.default", lower_gelu}, {"aten.gelu_.default", lower_gelu},
    {"aten.hardswish.default", lower_hardswish}, {"aten.hardswish_.default", lower_hardswish},
    {"aten.hardsigmoid.default", lower_hardsigmoid}, {"aten.hardsigmoid_.default", lower_hardsigmoid},
    {"aten.hardtanh.default", lower_hardtanh}, {"aten.hardtanh_.default", lower_hardtanh},
    {"aten.relu6.default", lower_relu6},
    {"aten.leaky_relu.default", lower_leaky_relu}, {"aten.leaky_relu_.default", lower_leaky_relu},
    {"aten.softplus.default", lower_softplus}, {"aten.mish.default", lower_mish},
    {"aten.clamp.default", lower_clamp}, {"aten.clamp_.default", lower_clamp},
    {"aten.neg.default", lower_neg}, {"aten.abs.default", lower_abs},
    {"aten.exp.default", lower_exp}, {"aten.log.default", lower_log},
    {"aten.sqrt.default", lower_sqrt}, {"aten.rsqrt.default", lower_rsqrt},
    {"aten.erf.default", lower_erf}, {"aten.reciprocal.default", lower_reciprocal},
    {"aten.sin.default", lower_sin}, {"aten.cos.default", lower_cos},
    {"aten.tan.default", lower_tan}, {"aten.asin.default", lower_asin}, {"aten.acos.default", lower_acos},
    {"aten.atan.default", lower_atan}, {"aten.sinh.default", lower_sinh}, {"aten.cosh.default", lower_cosh},
    {"aten.asinh.default", lower_asinh}, {"aten.acosh.default", lower_acosh}, {"aten.atanh.default", lower_atanh},
    {"aten.exp2.default", lower_exp2}, {"aten.log10.default", lower_log10}, {"aten.frac.default", lower_frac},
    {"aten.sgn.default", lower_sgn}, {"aten.erfc.default", lower_erfc}, {"aten.hardshrink.default", lower_hardshrink},
    {"aten.softshrink.default", lower_softshrink}, {"aten.threshold.default", lower_threshold},
    {"aten.rrelu.default", lower_rrelu},
    {"aten.atan2.default", lower_atan2}, {"aten.hypot.default", lower_hypot}, {"aten.copysign.Tensor", lower_copysign},
    {"aten.addcmul.default", lower_addcmul}, {"aten.addcmul_.default", lower_addcmul},
    {"aten.addcdiv.default", lower_addcdiv}, {"aten.addcdiv_.default", lower_addcdiv},
    {"aten.lerp.Scalar", lower_lerp}, {"aten.lerp.Tensor", lower_lerp}, {"aten.lerp_.Scalar", lower_lerp},
    {"aten.lerp_.Tensor", lower_lerp},
    {"aten.pow.Tensor_Scalar", lower_pow_scalar},
    {"aten.add.Tensor", lower_add}, {"aten.add_.Tensor", lower_add}, {"aten.add.Scalar", lower_add},
    {"aten.sub.Tensor", lower_sub}, {"aten.sub_.Tensor", lower_sub}, {"aten.sub.Scalar", lower_sub},
    {"aten.mul.Tensor", lower_mul}, {"aten.mul_.Tensor", lower_mul}, {"aten.mul.Scalar", lower_mul},
    {"aten.div.Tensor", lower_div}, {"aten.true_divide.Tensor", lower_div}, {"aten.div_.Tensor", lower_div},
    {"aten.div.Scalar", lower_div},
    {"aten.maximum.default", lower_maximum}, {"aten.minimum.default", lower_minimum},
    {"aten.max.other", lower_maximum}, {"aten.min.other", lower_minimum},
    {"aten.rsub.Scalar", lower_rsub_scalar},
    {"aten.where.self", lower_where},
    {"aten.masked_fill.Scalar", lower_masked_fill}, {"aten.masked_fill_.Scalar", lower_masked_fill},
    {"aten.clone.default", lower_copy}, {"aten.contiguous.default", lower_copy},
    {"aten._to_copy.default", lower_copy}, {"aten.to.dtype", lower_copy}, {"aten.type_as.default", lower_copy},
    {"aten.view.default", lower_reshape}, {"aten._unsafe_view.default", lower_reshape},
    {"aten.reshape.default", lower_reshape}, {"aten.flatten.using_ints", lower_reshape},
    {"aten.unflatten.int", lower_reshape}, {"aten.reshape_as.default", lower_reshape},
    {"aten.view_as.default", lower_reshape});

}  // namespace tir
