// Elementwise-family ops that need more than a plain map: glu (halves along a
// dim), log_sigmoid_forward (two outputs), prelu (per-channel weight),
// cosine_similarity (reduces along a dim), and the inference no-op dropouts.
#include <memory>
#include <string>

#include "kernels/elementwise.h"
#include "kernels/elementwise_misc.h"
#include "ops/common.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"

namespace tir {
namespace {

void check_floating(const OpCall& call, DType d) {
  call.check(is_floating(d), std::string("not implemented for ") + dtype_name(d) + " tensors (floating point only)");
}

// glu(Tensor self, int dim=-1) -> Tensor: first half * sigmoid(second half).
void plan_glu(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  check_floating(call, self.dtype);
  call.check(self.dim() > 0, "glu does not support scalars because halving size must be even");
  const int64_t d = call.wrap_dim(call.i("dim", -1), self.dim());
  call.check(self.shape[size_t(d)] % 2 == 0, "Halving dimension must be even, but dimension " + std::to_string(d) +
                                                  " is size " + std::to_string(self.shape[size_t(d)]));
  Shape s = self.shape;
  s[size_t(d)] /= 2;
  call.fresh(0, compute_dtype(self.dtype), s);
  call.state = std::make_shared<int64_t>(d);
}

void run_glu(OpCall& call) {
  const int64_t d = call.state_as<int64_t>();
  const Tensor& x = call.in[0];
  const Tensor& out = call.out[0];
  const int64_t half = out.shape[size_t(d)];
  const Tensor a = x.view_as(out.shape, x.strides, x.offset);
  const Tensor b = x.view_as(out.shape, x.strides, x.offset + half * x.strides[size_t(d)]);
  binary_kernel(BinaryOp::MulSigmoid, out, a, b);
}

// log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer); torch's CPU
// kernel fills buffer with exp(-|x|) (same shape as self) in 1.13 and 2.x.
void plan_log_sigmoid_forward(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  check_floating(call, self.dtype);
  call.fresh(0, compute_dtype(self.dtype), self.shape);
  if (call.num_ir_outputs() > 1) call.fresh(1, compute_dtype(self.dtype), self.shape);
}

void run_log_sigmoid_forward(OpCall& call) {
  unary_kernel(UnaryOp::LogSigmoid, call.out[0], call.in[0]);
  if (call.out.size() > 1) unary_kernel(UnaryOp::ExpNegAbs, call.out[1], call.in[0]);
}

// prelu's weight (scalar, or one value per channel = dim 1, or dim 0 of 1-D input)
// seen with self's rank so it broadcasts: [C, 1, ..., 1] after the batch dim.
Tensor prelu_weight_view(const OpCall& call, const Tensor& self, const Tensor& w) {
  call.check(w.dim() <= 1, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = " +
                               std::to_string(w.dim()));
  if (w.numel() == 1) return w.view_as({}, {}, w.offset);
  call.check(self.dim() > 0, "Not allow zero-dim input tensor.");
  const int64_t channels = self.dim() > 1 ? self.shape[1] : 1;
  call.check(channels == w.numel(), "Mismatch of parameter numbers and input channel size. Found parameter numbers = " +
                                        std::to_string(w.numel()) + " and channel size = " + std::to_string(channels) + ".");
  Shape s(size_t(self.dim() - 1), 1);
  Strides st(s.size(), 0);
  s[0] = channels;
  st[0] = w.strides[0];
  return w.view_as(s, st, w.offset);
}

struct PreluState {
  bool reshape_weight;
  DType compute;
  Shape shape;
};

// prelu(Tensor self, Tensor weight); _prelu_kernel(Tensor self, Tensor weight): weight already broadcastable.
void plan_prelu(OpCall& call, bool reshape_weight) {
  call.expect_inputs(2, 2);
  const Tensor& self = call.in[0];
  const Tensor w = reshape_weight ? prelu_weight_view(call, self, call.in[1]) : call.in[1];
  auto st = std::make_shared<PreluState>();
  st->reshape_weight = reshape_weight;
  st->compute = compute_dtype(result_type({PromotionOperand::of(self), PromotionOperand::of(call.in[1])}));
  check_floating(call, st->compute);
  st->shape = ew::broadcast_or_fail(call, self.shape, w.shape);
  call.fresh(0, st->compute, st->shape);
  call.state = st;
}

void run_prelu(OpCall& call) {
  auto& st = call.state_as<PreluState>();
  const Tensor& self = call.in[0];
  const Tensor w = st.reshape_weight ? prelu_weight_view(call, self, call.in[1]) : call.in[1];
  binary_kernel(BinaryOp::Prelu, call.out[0], broadcast_view(ew::as_dtype(self, st.compute), st.shape),
                broadcast_view(ew::as_dtype(w, st.compute), st.shape));
}

// alpha_dropout / feature_alpha_dropout(Tensor input, float p, bool train); feature_dropout_(Tensor(a!) self, float p, bool train):
// identity at inference (torch returns the input itself).
void plan_dropout_identity(OpCall& call) {
  call.expect_inputs(1, 1);
  const double p = call.f("p");
  const bool train = call.b("train");
  call.check(!train || p == 0.0,
             "dropout with train=True is random and cannot be reproduced; export the model in eval mode");
  call.alias(0, call.in[0]);
}

struct CosineState {
  DType compute;
  Shape shape;  // broadcast shape (at least 1-D)
  int64_t dim;
};

// cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor
void plan_cosine_similarity(OpCall& call) {
  call.expect_inputs(2, 2);
  const Tensor& x1 = call.in[0];
  const Tensor& x2 = call.in[1];
  auto st = std::make_shared<CosineState>();
  const DType common = result_type({PromotionOperand::of(x1), PromotionOperand::of(x2)});
  call.check(is_floating(common), std::string("expected common dtype to be floating point, yet common dtype is ") +
                                      dtype_name(common));
  st->compute = compute_dtype(common);
  st->shape = ew::broadcast_or_fail(call, x1.shape, x2.shape);
  Shape out_shape = st->shape;
  if (st->shape.empty()) st->shape = {1};  // 0-d: one vector of length 1
  st->dim = call.wrap_dim(call.i("dim", 1), int64_t(out_shape.size()));
  if (!out_shape.empty()) out_shape.erase(out_shape.begin() + st->dim);
  call.f("eps", 1e-8);
  call.fresh(0, st->compute, out_shape);
  call.state = st;
}

void run_cosine_similarity(OpCall& call) {
  auto& st = call.state_as<CosineState>();
  auto view = [&](const Tensor& t) {
    Tensor c = ew::as_dtype(t, st.compute);
    if (c.dim() == 0) c = c.view_as({1}, {0}, c.offset);
    return broadcast_view(c, st.shape);
  };
  cosine_similarity_kernel(call.out[0], view(call.in[0]), view(call.in[1]), st.dim, call.f("eps", 1e-8));
}

}  // namespace

TIR_REGISTER_OPS(
    // glu(Tensor self, int dim=-1) -> Tensor
    {"aten.glu.default", {plan_glu, run_glu}},
    // log_sigmoid_forward(Tensor self) -> (Tensor output, Tensor buffer)
    {"aten.log_sigmoid_forward.default", {plan_log_sigmoid_forward, run_log_sigmoid_forward}},
    // prelu(Tensor self, Tensor weight) -> Tensor
    {"aten.prelu.default", {[](OpCall& c) { plan_prelu(c, true); }, run_prelu}},
    // _prelu_kernel(Tensor self, Tensor weight) -> Tensor
    {"aten._prelu_kernel.default", {[](OpCall& c) { plan_prelu(c, false); }, run_prelu}},
    // alpha_dropout(Tensor input, float p, bool train) -> Tensor
    {"aten.alpha_dropout.default", {plan_dropout_identity, nullptr}},
    // feature_alpha_dropout(Tensor input, float p, bool train) -> Tensor
    {"aten.feature_alpha_dropout.default", {plan_dropout_identity, nullptr}},
    // feature_dropout_(Tensor(a!) self, float p, bool train) -> Tensor(a!)
    {"aten.feature_dropout_.default", {plan_dropout_identity, nullptr}},
    // cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08) -> Tensor
    {"aten.cosine_similarity.default", {plan_cosine_similarity, run_cosine_similarity}});

}  // namespace tir
