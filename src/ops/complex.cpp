// Complex tensors: view_as_real / view_as_complex (views on the same buffer),
// and the complex forms of abs and mul (reached through complex_or from their
// real op files). View ops (view, permute, slice, ...) and copies (clone,
// contiguous, cat) carry complex tensors as they are; other ops refuse them.
#include "ops/complex.h"

#include <cmath>
#include <complex>
#include <functional>
#include <vector>
#include <memory>
#include <string>

#include "core/errors.h"
#include "ops/common.h"
#include "ops/op.h"

namespace tir {
namespace {

struct Picked {
  bool cplx = false;
  std::shared_ptr<void> inner;
};

// Runs `f` (an OpDef member) with the picked definition's own state in call.state.
void with_inner(OpCall& call, const OpDef& real, const OpDef& cplx,
                std::function<void(OpCall&)> OpDef::*member) {
  auto picked = std::static_pointer_cast<Picked>(call.state);
  const OpDef& def = picked->cplx ? cplx : real;
  if (!(def.*member)) return;
  call.state = picked->inner;
  try {
    (def.*member)(call);
  } catch (...) {
    picked->inner = call.state;
    call.state = picked;
    throw;
  }
  picked->inner = call.state;
  call.state = picked;
}

DType real_of(DType d) { return d == DType::C128 ? DType::F64 : DType::F32; }

// --- view_as_real / view_as_complex ------------------------------------------------
void plan_view_as_real(OpCall& call) {
  call.expect_inputs(1, 1);
  call.check(is_complex(call.in[0].dtype),
             std::string("view_as_real is only supported for complex tensors, got ") + dtype_name(call.in[0].dtype));
  call.alias(0, complex_as_real(call.in[0]));
}

void plan_view_as_complex(OpCall& call) {
  call.expect_inputs(1, 1);
  try {
    call.alias(0, real_as_complex(call.in[0]));
  } catch (const ExecutionError& e) {
    call.fail(e.what());
  }
}

// --- abs ---------------------------------------------------------------------------
void plan_abs(OpCall& call) {
  call.expect_inputs(1, 1);
  call.fresh(0, real_of(call.in[0].dtype), call.in[0].shape);
}

template <typename R>
void abs_lines(const Tensor& in, const Tensor& out) {
  // (re, im) pairs in, magnitudes out: hypot in double is correctly rounded to float.
  const Tensor ri = complex_as_real(in);
  const R* src = ri.data<R>() - ri.offset;
  R* dst = out.data<R>() - out.offset;
  const Strides& is = ri.strides;
  const int64_t nd = out.dim();
  if (out.numel() == 0) return;
  std::vector<int64_t> idx(size_t(nd), 0);
  int64_t io = ri.offset, oo = out.offset;
  for (int64_t e = 0, total = out.numel(); e < total; ++e) {
    dst[oo] = R(std::hypot(double(src[io]), double(src[io + 1])));
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[size_t(d)] < out.shape[size_t(d)]) {
        io += is[size_t(d)], oo += out.strides[size_t(d)];
        break;
      }
      io -= is[size_t(d)] * (out.shape[size_t(d)] - 1), oo -= out.strides[size_t(d)] * (out.shape[size_t(d)] - 1);
      idx[size_t(d)] = 0;
    }
  }
}

void run_abs(OpCall& call) {
  if (call.out[0].dtype == DType::F64) abs_lines<double>(call.in[0], call.out[0]);
  else abs_lines<float>(call.in[0], call.out[0]);
}

// --- mul ---------------------------------------------------------------------------
struct MulState {
  Shape shape;
  DType dtype;
};

void plan_mul(OpCall& call) {
  call.check(call.in.size() == 2, "mul of a complex tensor and a Python scalar is not supported");
  const Tensor &a = call.in[0], &b = call.in[1];
  const DType result = result_type({PromotionOperand::of(a), PromotionOperand::of(b)});
  call.check(result == DType::C64 || result == DType::C128,
             std::string("complex mul with result dtype ") + dtype_name(result) + " is not supported");
  for (const Tensor* t : {&a, &b})
    call.check(is_complex(t->dtype) || t->dtype == DType::F32 || t->dtype == DType::F64,
               std::string("complex mul with a ") + dtype_name(t->dtype) + " operand is not supported");
  auto shape = broadcast_shapes(a.shape, b.shape);
  call.check(shape.has_value(), "shapes " + shape_to_string(a.shape) + " and " + shape_to_string(b.shape) +
                                    " cannot be broadcast");
  auto st = std::make_shared<MulState>();
  st->shape = *shape;
  st->dtype = result;
  call.fresh(0, result, *shape);
  call.state = st;
}

void run_mul(OpCall& call) {
  auto& st = call.state_as<MulState>();
  const Tensor& out = call.out[0];
  const int64_t total = out.numel();
  if (total == 0) return;
  auto value = [&](const Tensor& t, const Strides& s, const std::vector<int64_t>& idx) {
    int64_t off = t.offset;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * s[d];
    std::complex<double> v;
    switch (t.dtype) {
      case DType::C64: v = {double(reinterpret_cast<const float*>(t.buffer->data)[2 * off]),
                            double(reinterpret_cast<const float*>(t.buffer->data)[2 * off + 1])}; break;
      case DType::C128: v = {reinterpret_cast<const double*>(t.buffer->data)[2 * off],
                             reinterpret_cast<const double*>(t.buffer->data)[2 * off + 1]}; break;
      case DType::F64: v = {reinterpret_cast<const double*>(t.buffer->data)[off], 0.0}; break;
      default: v = {double(reinterpret_cast<const float*>(t.buffer->data)[off]), 0.0}; break;  // F32
    }
    return v;
  };
  const Strides sa = broadcast_strides(call.in[0], st.shape), sb = broadcast_strides(call.in[1], st.shape);
  std::vector<int64_t> idx(st.shape.size(), 0);
  const Tensor ro = complex_as_real(out);
  for (int64_t e = 0; e < total; ++e) {
    const std::complex<double> x = value(call.in[0], sa, idx), y = value(call.in[1], sb, idx);
    // torch multiplies in the operands' precision: (ac - bd) + (ad + bc)i.
    if (st.dtype == DType::C64) {
      const float a = float(x.real()), b = float(x.imag()), c = float(y.real()), d = float(y.imag());
      float* o = ro.data<float>() + 2 * e;
      o[0] = a * c - b * d;
      o[1] = a * d + b * c;
    } else {
      double* o = ro.data<double>() + 2 * e;
      o[0] = x.real() * y.real() - x.imag() * y.imag();
      o[1] = x.real() * y.imag() + x.imag() * y.real();
    }
    for (int64_t d = int64_t(idx.size()) - 1; d >= 0; --d) {
      if (++idx[size_t(d)] < st.shape[size_t(d)]) break;
      idx[size_t(d)] = 0;
    }
  }
}

}  // namespace

OpDef complex_or(OpDef real, OpDef cplx) {
  OpDef def;
  // Both forms are as pure as each other; state is wrapped (Picked), so no epilogue part.
  def.traits.constant_foldable = real.traits.constant_foldable && cplx.traits.constant_foldable;
  def.plan = [real, cplx](OpCall& call) {
    bool any = false;
    for (const Tensor& t : call.in) any = any || (t.defined() && is_complex(t.dtype));
    auto picked = std::make_shared<Picked>();
    picked->cplx = any;
    call.state = nullptr;
    (any ? cplx : real).plan(call);
    picked->inner = call.state;
    call.state = picked;
  };
  def.run = [real, cplx](OpCall& call) { with_inner(call, real, cplx, &OpDef::run); };
  def.prepare = [real, cplx](OpCall& call) { with_inner(call, real, cplx, &OpDef::prepare); };
  return def;
}

OpDef complex_abs() { return foldable({plan_abs, run_abs}); }
OpDef complex_mul() { return foldable({plan_mul, run_mul}); }

TIR_REGISTER_OPS(
    // view_as_real(Tensor(a) self) -> Tensor(a)
    {"aten.view_as_real.default", {plan_view_as_real, nullptr}},
    // view_as_complex(Tensor(a) self) -> Tensor(a)
    {"aten.view_as_complex.default", {plan_view_as_complex, nullptr}});

}  // namespace tir
