// Composite elementwise ops: addcmul / addcdiv (and their in-place forms),
// lerp (Scalar and Tensor weight, lerp_), and the deterministic inference
// paths of stochastic ops: rrelu / rrelu_with_noise(_functional) (training=False),
// native_dropout (train=False).
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

struct TernaryState {
  DType compute;
  Shape shape;
  Scalar value;                // addcmul/addcdiv's value; lerp.Scalar's weight
  bool scalar_weight = false;  // lerp.Scalar
};

// Fresh output, or (in place) input 0 aliased after torch's shape/cast checks.
void plan_output(OpCall& call, const TernaryState& st, bool inplace) {
  if (inplace) {
    const Tensor& self = call.in[0];
    call.check(st.shape == self.shape, "output with shape " + shape_to_string(self.shape) +
                                           " doesn't match the broadcast shape " + shape_to_string(st.shape));
    ew::check_inplace_cast(call, st.compute, self.dtype);
    call.alias(0, self);
  } else {
    call.fresh(0, st.compute, st.shape);
  }
}

// addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1): self + value * t1 * t2;
// addcdiv: self + value * t1 / t2.
void plan_addc(OpCall& call, bool divide, bool inplace) {
  call.expect_inputs(3, 3);
  auto st = std::make_shared<TernaryState>();
  std::vector<PromotionOperand> promo;
  Shape shape;
  for (const auto& t : call.in) {
    call.check(!is_complex(t.dtype), "complex tensors are not supported by this op");
    promo.push_back(PromotionOperand::of(t));
    shape = ew::broadcast_or_fail(call, shape, t.shape);
  }
  const DType result = result_type(promo);
  if (divide) {
    const auto integral = [](DType d) { return is_integral(d) || d == DType::Bool; };
    call.check(!(integral(call.in[1].dtype) && integral(call.in[2].dtype)),
               "Integer division with addcdiv is no longer supported, and in a future release addcdiv will "
               "perform a true division of tensor1 and tensor2. Use true division (tensor1 / tensor2) instead");
  }
  call.check(result != DType::Bool, std::string(divide ? "addcdiv" : "addcmul") + " is not implemented for bool tensors");
  st->compute = compute_dtype(result);
  st->shape = shape;
  st->value = call.scalar("value", Scalar::of_int(1));
  plan_output(call, *st, inplace);
  call.state = st;
}

// View of input i read while out is written, in the compute dtype, broadcast.
Tensor operand(const OpCall& call, size_t i, const TernaryState& st) {
  return broadcast_view(ew::as_dtype(ew::read_safe(call.in[i], call.out[0]), st.compute), st.shape);
}

// Runs f(dst) into out, or into a temporary then cast (in place into a narrower dtype).
template <typename F> void into_out(OpCall& call, const TernaryState& st, F f) {
  const Tensor& out = call.out[0];
  if (out.dtype == st.compute) return f(out);
  Tensor tmp = make_owned(st.compute, st.shape);
  f(tmp);
  copy_into(out, tmp);
}

void run_addc(OpCall& call, bool divide) {
  auto& st = call.state_as<TernaryState>();
  const Tensor s = operand(call, 0, st), a = operand(call, 1, st), b = operand(call, 2, st);
  into_out(call, st, [&](const Tensor& dst) { addc_kernel(divide, dst, s, a, b, st.value); });
}

OpDef addc(bool divide, bool inplace) {
  return {[=](OpCall& c) { plan_addc(c, divide, inplace); }, [=](OpCall& c) { run_addc(c, divide); }};
}

// lerp.Scalar(Tensor self, Tensor end, Scalar weight); lerp.Tensor(Tensor self, Tensor end, Tensor weight).
// No type promotion: end (and a tensor weight) must have self's dtype, a floating one.
void plan_lerp(OpCall& call, bool scalar_weight, bool inplace) {
  call.expect_inputs(2, scalar_weight ? 2 : 3);
  auto st = std::make_shared<TernaryState>();
  const Tensor& self = call.in[0];
  call.check(!is_complex(self.dtype), "complex tensors are not supported by lerp here");
  call.check(is_floating(self.dtype), std::string("\"lerp\" not implemented for ") + dtype_name(self.dtype) + " tensors");
  Shape shape = self.shape;
  const char* names[] = {"self", "end", "weight"};
  for (size_t i = 1; i < call.in.size(); ++i) {
    call.check(call.in[i].dtype == self.dtype, std::string("expected dtype ") + dtype_name(self.dtype) + " for `" +
                                                   names[i] + "` but got dtype " + dtype_name(call.in[i].dtype));
    shape = ew::broadcast_or_fail(call, shape, call.in[i].shape);
  }
  st->scalar_weight = scalar_weight || call.in.size() == 2;
  if (st->scalar_weight) st->value = call.scalar("weight");
  st->compute = compute_dtype(self.dtype);
  st->shape = shape;
  plan_output(call, *st, inplace);
  call.state = st;
}

void run_lerp(OpCall& call) {
  auto& st = call.state_as<TernaryState>();
  const Tensor s = operand(call, 0, st), e = operand(call, 1, st);
  const Tensor w = st.scalar_weight ? broadcast_view(scalar_tensor(st.value, st.compute), st.shape)
                                    : operand(call, 2, st);
  into_out(call, st, [&](const Tensor& dst) { lerp_kernel(dst, s, e, w); });
}

OpDef lerp(bool scalar_weight, bool inplace) {
  return {[=](OpCall& c) { plan_lerp(c, scalar_weight, inplace); }, run_lerp};
}

// rrelu(Tensor self, Scalar lower=0.125, Scalar upper=1/3, bool training=False, Generator? generator=None):
// at inference leaky_relu with slope (lower + upper) / 2.
// rrelu_with_noise(Tensor self, Tensor noise, ...) (1.13's decomposition of rrelu) reads
// noise only in training; rrelu_with_noise_functional also returns noise (unchanged).
void plan_rrelu(OpCall& call, bool noise, bool functional) {
  call.expect_inputs(noise ? 2 : 1, noise ? 2 : 1);
  const Tensor& self = call.in[0];
  call.check(!call.b("training", false),
             "rrelu with training=True draws random slopes and cannot be reproduced; export the model in eval mode");
  call.check(is_floating(self.dtype), std::string("\"leaky_relu\" not implemented for ") + dtype_name(self.dtype) +
                                          " tensors (rrelu)");
  auto st = std::make_shared<UnaryParams>();
  st->a = (call.f("lower", 0.125) + call.f("upper", 1.0 / 3.0)) / 2;
  call.fresh(0, compute_dtype(self.dtype), self.shape);
  if (functional) call.fresh(1, compute_dtype(call.in[1].dtype), call.in[1].shape);
  call.state = st;
}

void run_rrelu(OpCall& call) {
  unary_kernel(UnaryOp::LeakyRelu, call.out[0], ew::as_dtype(call.in[0], call.out[0].dtype),
               call.state_as<UnaryParams>());
  if (call.out.size() > 1) copy_into(call.out[1], call.in[1]);
}

OpDef rrelu(bool noise, bool functional) {
  return {[=](OpCall& c) { plan_rrelu(c, noise, functional); }, run_rrelu};
}

// native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor): with train=False,
// (a copy of input, an all-true bool mask). train=None means training, as in torch; then
// only p=0 (keep all) and p=1 (drop all: input * 0) are deterministic.
struct DropoutState {
  bool drop_all = false;
};

void plan_native_dropout(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& x = call.in[0];
  const double p = call.f("p");
  const bool train = call.b("train", true);
  auto st = std::make_shared<DropoutState>();
  if (train && x.numel() > 0) {
    call.check(p == 0.0 || (p == 1.0 && is_floating(x.dtype)),
               "native_dropout with train=True (or None) and p=" + std::to_string(p) +
                   " is random and cannot be reproduced; export the model in eval mode");
    st->drop_all = p == 1.0;
  }
  call.fresh(0, compute_dtype(x.dtype), x.shape);
  // torch returns an empty mask of input's dtype for 0-element inputs.
  call.fresh(1, x.numel() == 0 ? compute_dtype(x.dtype) : DType::Bool, x.shape);
  call.state = st;
}

void run_native_dropout(OpCall& call) {
  if (call.out[0].numel() == 0) return;
  const Tensor x = ew::as_dtype(call.in[0], call.out[0].dtype);
  if (call.state_as<DropoutState>().drop_all) {  // input * mask(0) * scale(0), as torch: NaN/inf give NaN
    const Tensor zero = broadcast_view(scalar_tensor(Scalar::of_double(0.0), x.dtype), x.shape);
    binary_kernel(BinaryOp::Mul, call.out[0], x, zero);
    binary_kernel(BinaryOp::Mul, call.out[0], call.out[0], zero);
    fill_kernel(call.out[1], Scalar::of_bool(false));
  } else {
    copy_into(call.out[0], x);
    fill_kernel(call.out[1], Scalar::of_bool(true));
  }
}

}  // namespace

TIR_REGISTER_OPS(
    // addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor
    {"aten.addcmul.default", addc(false, false)},
    // addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)
    {"aten.addcmul_.default", addc(false, true)},
    // addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor
    {"aten.addcdiv.default", addc(true, false)},
    // addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)
    {"aten.addcdiv_.default", addc(true, true)},
    // lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor
    {"aten.lerp.Scalar", lerp(true, false)},
    // lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor
    {"aten.lerp.Tensor", lerp(false, false)},
    // lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)
    {"aten.lerp_.Scalar", lerp(true, true)},
    // rrelu(Tensor self, Scalar lower=0.125, Scalar upper=1/3, bool training=False, Generator? generator=None)
    {"aten.rrelu.default", rrelu(false, false)},
    // rrelu_with_noise(Tensor self, Tensor noise, Scalar lower=0.125, Scalar upper=1/3, bool training=False,
    //   Generator? generator=None) -> Tensor
    {"aten.rrelu_with_noise.default", rrelu(true, false)},
    // rrelu_with_noise_functional(Tensor self, Tensor noise, ...) -> (Tensor, Tensor noise_out)
    {"aten.rrelu_with_noise_functional.default", rrelu(true, true)},
    // native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)
    {"aten.native_dropout.default", {plan_native_dropout, run_native_dropout}});

}  // namespace tir
