// Normalization ops: layer_norm, native_layer_norm, rms_norm, batch_norm and
// its native/_legit forms, _batch_norm_{no,with}_update, group_norm, native_group_norm,
// instance_norm.
#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/norm.h"
#include "ops/common.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"

namespace tir {
namespace {

DType float_dtype(const OpCall& call, DType d) {
  d = compute_dtype(d);
  call.check(d == DType::F32 || d == DType::F64,
             std::string("normalization is only implemented for float32/float64 inputs, got ") + dtype_name(d));
  return d;
}

// Contiguous data of `t` in dtype d.
Tensor dense(const Tensor& t, DType d) { return contiguous_or_self(ew::as_dtype(t, d)); }

template <typename T> const T* data_or_null(const std::vector<Tensor>& in, int idx, Tensor& keep, DType d) {
  if (idx < 0) return nullptr;
  return ew::dense_ref(in[size_t(idx)], d, keep).data<T>();
}

template <typename F> void dispatch_float(DType d, F&& f) {
  if (d == DType::F64) f(double{});
  else f(float{});
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Number of outputs to produce: what the IR lists (at least the main one).
size_t num_outputs(const OpCall& call, size_t full) {
  const size_t n = call.num_ir_outputs();
  return n == 0 ? 1 : std::min(n, full);
}

void check_numel(const OpCall& call, const std::vector<Tensor>& in, int idx, int64_t n, const char* what) {
  if (idx < 0) return;
  call.check(in[size_t(idx)].numel() == n, std::string(what) + " must have " + std::to_string(n) +
                                               " elements, got shape " + shape_to_string(in[size_t(idx)].shape));
}

// Which inputs fill the optional (weight, bias) slots when only one is present:
// the IR cannot say (docs/spec/OPS.md §1.7); the placeholder name tells, else weight.
std::array<int, 2> affine_inputs(const OpCall& call, size_t first) {
  const size_t k = call.in.size() - first;
  if (k >= 2) return {int(first), int(first + 1)};
  if (k == 1) {
    if (first < call.node->inputs.size() && ends_with(call.node->inputs[first].name, "bias"))
      return {-1, int(first)};
    return {int(first), -1};
  }
  return {-1, -1};
}

// ---- layer_norm / native_layer_norm / rms_norm ----

struct RowNormState {
  DType dt;
  int64_t rows = 1, n = 1;
  std::array<int, 2> wb{-1, -1};
  double eps;
};

void plan_row_norm(OpCall& call, bool native, bool rms) {
  call.expect_inputs(1, rms ? 2 : 3);
  const Tensor& x = call.in[0];
  auto st = std::make_shared<RowNormState>();
  st->dt = float_dtype(call, x.dtype);
  const auto shape = call.ints("normalized_shape");
  const int64_t axis = x.dim() - int64_t(shape.size());
  bool ok = axis >= 0;
  for (size_t i = 0; ok && i < shape.size(); ++i) ok = x.shape[size_t(axis) + i] == shape[i];
  call.check(ok, "given normalized_shape=" + shape_to_string(shape) + ", expected input with shape [*, " +
                     shape_to_string(shape).substr(1) + ", but got input of size " + shape_to_string(x.shape));
  for (int64_t d = 0; d < x.dim(); ++d) (d < axis ? st->rows : st->n) *= x.shape[size_t(d)];
  st->wb = affine_inputs(call, 1);
  if (rms) {
    st->wb = {call.in.size() > 1 ? 1 : -1, -1};
    if (call.has("eps")) {
      st->eps = call.f("eps");
    } else {  // torch: finfo(input.dtype).eps, by the IR's dtype (f16 computes here as f32)
      const DType ir = call.node->inputs.empty() ? x.dtype : call.node->inputs[0].dtype;
      st->eps = ir == DType::F16 ? 0.0009765625 : ir == DType::BF16 ? 0.0078125
                : ir == DType::F64 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
    }
  } else {
    st->eps = call.f("eps", 1e-5);
  }
  check_numel(call, call.in, st->wb[0], st->n, "weight");
  check_numel(call, call.in, st->wb[1], st->n, "bias");
  call.fresh(0, st->dt, x.shape);
  if (native) {
    Shape stat_shape(x.shape.begin(), x.shape.begin() + axis);
    stat_shape.resize(x.shape.size(), 1);
    for (size_t k = 1; k < num_outputs(call, 3); ++k) call.fresh(k, st->dt, stat_shape);
  }
  call.state = st;
}

// The operands every affine norm kernel takes: x densified to the compute dtype, optional
// weight/bias, the output and the optional saved mean/rstd outputs of the native_* forms.
template <typename T> struct AffineNormArgs {
  const T* x;
  const T* w;
  const T* b;
  T* y;
  T* mean;
  T* rstd;
};

template <typename F> void run_affine_norm(OpCall& call, DType dt, const std::array<int, 2>& wb, F&& kernel) {
  dispatch_float(dt, [&](auto tag) {
    using T = decltype(tag);
    Tensor keep[3];  // converted or contiguous copies, when an operand needs one
    const Tensor& x = ew::dense_ref(call.in[0], dt, keep[0]);
    const AffineNormArgs<T> a{x.data<T>(),
                              data_or_null<T>(call.in, wb[0], keep[1], dt),
                              data_or_null<T>(call.in, wb[1], keep[2], dt),
                              call.out[0].data<T>(),
                              call.out.size() > 1 ? call.out[1].data<T>() : nullptr,
                              call.out.size() > 2 ? call.out[2].data<T>() : nullptr};
    kernel(a);
  });
}

void run_row_norm(OpCall& call, bool rms) {
  const auto& st = call.state_as<RowNormState>();
  run_affine_norm(call, st.dt, st.wb, [&](const auto& a) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(a.x)>>;
    if (rms) return rms_norm_rows<T>(a.x, a.w, a.y, st.rows, st.n, st.eps);
    layer_norm_rows<T>(a.x, a.w, a.b, a.y, a.mean, a.rstd, st.rows, st.n, st.eps);
  });
}

OpDef row_norm(bool native, bool rms) {
  return {[=](OpCall& c) { plan_row_norm(c, native, rms); }, [=](OpCall& c) { run_row_norm(c, rms); }};
}

// ---- batch norm family ----

enum class Bn { BatchNorm, NativeBatchNorm, LegitNoTraining, Legit, LegitNoStats, LegitFunctional, InstanceNorm,
                NoUpdate, WithUpdate };

struct BnState {
  Bn kind;
  DType dt;
  int w = -1, b = -1, rm = -1, rv = -1;
  bool batch_stats;
  double eps, momentum;
  int64_t N, C, inner;
};

// Fills the optional slots (weight, bias, running_mean, running_var) from in[1..]:
// all four, or by placeholder names (p_*_weight, b_*_running_mean, ...), or by
// docs/spec/OPS.md §1.7's rule: two extras are the running stats when `two_are_stats`.
void bn_inputs(const OpCall& call, BnState& st, bool two_are_stats, bool stats_required) {
  const size_t k = call.in.size() - 1;
  if (k == 4) {
    st.w = 1, st.b = 2, st.rm = 3, st.rv = 4;
    return;
  }
  std::array<int, 4> r{-1, -1, -1, -1};
  bool named = k > 0 && call.node->inputs.size() >= call.in.size();
  for (size_t i = 1; named && i < call.in.size() && i < call.node->inputs.size(); ++i) {
    const std::string& n = call.node->inputs[i].name;
    const int slot = n.find("running_mean") != std::string::npos  ? 2
                     : n.find("running_var") != std::string::npos ? 3
                     : ends_with(n, "weight")                      ? 0
                     : ends_with(n, "bias")                        ? 1
                                                                   : -1;
    named = slot >= 0 && r[size_t(slot)] < 0;
    if (named) r[size_t(slot)] = int(i);
  }
  if (!named) {
    r = {-1, -1, -1, -1};
    if (k == 2 && two_are_stats) r = {-1, -1, 1, 2};
    else if (k == 2) r = {1, 2, -1, -1};
    else if (k == 3 && stats_required) r = {1, -1, 2, 3};
    else if (k == 1 && !stats_required) r = {1, -1, -1, -1};
    else if (k != 0)
      call.fail("cannot tell which of weight, bias, running_mean, running_var the " + std::to_string(k) +
                " extra inputs are");
  }
  st.w = r[0], st.b = r[1], st.rm = r[2], st.rv = r[3];
}

void plan_bn(OpCall& call, Bn kind) {
  call.expect_inputs(1, 5);
  const Tensor& x = call.in[0];
  auto st = std::make_shared<BnState>();
  st->kind = kind;
  st->dt = float_dtype(call, x.dtype);
  call.check(x.dim() >= 2, "expected an input with at least 2 dims (N, C, ...), got shape " + shape_to_string(x.shape));
  st->eps = call.f("eps", 1e-5);
  st->momentum = call.f("momentum", 0.1);
  switch (kind) {
    case Bn::BatchNorm:
    case Bn::NativeBatchNorm:
      st->batch_stats = call.b("training");
      bn_inputs(call, *st, !st->batch_stats, false);
      break;
    case Bn::InstanceNorm:
      st->batch_stats = call.b("use_input_stats");
      bn_inputs(call, *st, !st->batch_stats, false);
      break;
    case Bn::LegitNoTraining:
    case Bn::NoUpdate:
      st->batch_stats = false;
      bn_inputs(call, *st, true, true);
      break;
    case Bn::Legit:
    case Bn::LegitFunctional:
      st->batch_stats = call.b("training");
      bn_inputs(call, *st, true, true);
      break;
    case Bn::WithUpdate:
      st->batch_stats = true;
      bn_inputs(call, *st, true, true);
      call.check(st->rm >= 0 && st->rv >= 0, "_batch_norm_with_update needs running_mean and running_var");
      break;
    case Bn::LegitNoStats:
      st->batch_stats = true;
      bn_inputs(call, *st, false, false);
      break;
  }
  if (!st->batch_stats)
    call.check(st->rm >= 0 && st->rv >= 0, "running_mean and running_var must be given in evaluation mode");
  // instance_norm: statistics per (n, c), i.e. batch norm of a [1, N*C, ...] view.
  const bool per_instance = kind == Bn::InstanceNorm && st->batch_stats;
  st->C = x.shape[1];
  st->N = x.shape[0];
  st->inner = 1;
  for (int64_t d = 2; d < x.dim(); ++d) st->inner *= x.shape[size_t(d)];
  check_numel(call, call.in, st->w, st->C, "weight");
  check_numel(call, call.in, st->b, st->C, "bias");
  check_numel(call, call.in, st->rm, st->C, "running_mean");
  check_numel(call, call.in, st->rv, st->C, "running_var");
  if (per_instance) call.check(st->inner > 0 || x.numel() == 0, "instance_norm needs spatial dims");
  call.fresh(0, st->dt, x.shape);
  // Extra outputs (saved mean/invstd, updated running stats) take the IR's shapes:
  // torch returns empty ones in eval mode, and which depends on the version.
  // _batch_norm_{no,with}_update add a 4th, the empty uint8 cuDNN reserve.
  const bool four = kind == Bn::NoUpdate || kind == Bn::WithUpdate;
  const size_t nout = kind == Bn::LegitFunctional ? 5 : four ? 4 : (kind == Bn::BatchNorm || kind == Bn::InstanceNorm) ? 1 : 3;
  for (size_t k = 1; k < num_outputs(call, nout); ++k) {
    const bool reserve = four && k == 3;
    Shape s = k < call.num_ir_outputs() ? call.node->outputs[k].shape
                                         : Shape{!reserve && (st->batch_stats || k >= 3) ? st->C : 0};
    call.fresh(k, reserve ? DType::U8 : st->dt, s);
  }
  call.state = st;
}

// Writes per-channel values into an extra output, or zeros when its shape does not hold C values.
void write_channels(const Tensor& out, const std::vector<double>& v) {
  dispatch_float(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    const bool fits = out.numel() == int64_t(v.size());
    for (int64_t i = 0; i < out.numel(); ++i) p[i] = fits ? T(v[size_t(i)]) : T(0);
  });
}

std::vector<double> as_doubles(const Tensor& t) {
  const Tensor d = dense(t, DType::F64);
  return std::vector<double>(d.data<double>(), d.data<double>() + d.numel());
}

void run_bn(OpCall& call) {
  auto& st = call.state_as<BnState>();
  const bool per_instance = st.kind == Bn::InstanceNorm && st.batch_stats;
  // Per instance: channels are the N*C (n, c) pairs of a batch of one.
  const int64_t N = per_instance ? 1 : st.N, C = per_instance ? st.N * st.C : st.C;
  const Tensor x = dense(call.in[0], st.dt);
  const size_t nc = size_t(C);
  std::vector<double> mean(nc), var(nc);
  dispatch_float(st.dt, [&](auto tag) {
    using T = decltype(tag);
    if (st.batch_stats) channel_moments<T>(x.data<T>(), N, C, st.inner, mean.data(), var.data());
  });
  if (!st.batch_stats) {
    mean = as_doubles(call.in[size_t(st.rm)]);
    var = as_doubles(call.in[size_t(st.rv)]);
  }
  const std::vector<double> w = st.w >= 0 ? as_doubles(call.in[size_t(st.w)]) : std::vector<double>();
  const std::vector<double> b = st.b >= 0 ? as_doubles(call.in[size_t(st.b)]) : std::vector<double>();
  std::vector<double> invstd(nc), scale(nc), shift(nc);
  for (int64_t c = 0; c < C; ++c) {
    const size_t ci = size_t(c), pc = size_t(c % st.C);  // per-instance: params repeat per n
    invstd[ci] = 1.0 / std::sqrt(var[ci] + st.eps);
    scale[ci] = invstd[ci] * (w.empty() ? 1.0 : w[pc]);
    shift[ci] = (b.empty() ? 0.0 : b[pc]) - mean[ci] * scale[ci];
  }
  dispatch_float(st.dt, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> sc(scale.begin(), scale.end()), sh(shift.begin(), shift.end());
    channel_affine<T>(x.data<T>(), sc.data(), sh.data(), call.out[0].data<T>(), N, C, st.inner);
  });
  if (call.out.size() > 1) write_channels(call.out[1], mean);
  if (call.out.size() > 2) write_channels(call.out[2], invstd);
  if ((st.kind == Bn::NoUpdate || st.kind == Bn::WithUpdate) && call.out.size() > 3 && call.out[3].numel() > 0)
    std::fill(call.out[3].raw(), call.out[3].raw() + call.out[3].nbytes(), uint8_t(0));
  if (call.out.size() > 4) {  // _functional: updated running stats (unbiased batch variance)
    std::vector<double> rm = as_doubles(call.in[size_t(st.rm)]), rv = as_doubles(call.in[size_t(st.rv)]);
    if (st.batch_stats) {
      const double n = double(N * st.inner), m = st.momentum;
      for (size_t c = 0; c < rm.size(); ++c) {
        rm[c] = (1 - m) * rm[c] + m * mean[c];
        rv[c] = (1 - m) * rv[c] + m * var[c] * (n > 1 ? n / (n - 1) : 1.0);
      }
    }
    write_channels(call.out[3], rm);
    write_channels(call.out[4], rv);
  }
}

// An eval batch norm as a fused epilogue's part (OpTraits::epilogue_part):
// batch statistics (training) cannot be folded into weights.
bool batch_norm_part(const OpCall& call, EpiloguePart* part) {
  const auto& st = call.state_as<BnState>();
  part->bn_eps = st.eps;
  return !st.batch_stats;
}

OpDef bn(Bn kind) {
  OpDef def{[=](OpCall& c) { plan_bn(c, kind); }, run_bn};
  // The forms whose inputs are (x, weight, bias, running_mean, running_var).
  if (kind == Bn::BatchNorm || kind == Bn::NativeBatchNorm || kind == Bn::LegitNoTraining) {
    def.traits.epilogue = EpilogueRole::BatchNorm;
    def.traits.epilogue_part = batch_norm_part;
  }
  return def;
}

// ---- group norm ----

struct GroupNormState {
  DType dt;
  int64_t N, C, HxW, G;
  std::array<int, 2> wb;
  double eps;
};

void plan_group_norm(OpCall& call, bool native) {
  call.expect_inputs(1, 3);
  const Tensor& x = call.in[0];
  auto st = std::make_shared<GroupNormState>();
  st->dt = float_dtype(call, x.dtype);
  st->eps = call.f("eps", 1e-5);
  st->wb = affine_inputs(call, 1);
  if (native) {
    st->N = call.i("N");
    st->C = call.i("C");
    st->HxW = call.i("HxW");
    st->G = call.i("group");
    call.check(st->N * st->C * st->HxW == x.numel(), "N*C*HxW does not match the input's size " +
                                                         shape_to_string(x.shape));
  } else {
    call.check(x.dim() >= 2, "expected an input with at least 2 dims (N, C, ...), got " + shape_to_string(x.shape));
    st->N = x.shape[0];
    st->C = x.shape[1];
    st->HxW = st->C ? x.numel() / std::max<int64_t>(st->N * st->C, 1) : 0;
    st->G = call.i("num_groups");
  }
  call.check(st->G > 0 && st->C % st->G == 0, "expected number of channels " + std::to_string(st->C) +
                                                   " to be divisible by num_groups " + std::to_string(st->G));
  check_numel(call, call.in, st->wb[0], st->C, "weight");
  check_numel(call, call.in, st->wb[1], st->C, "bias");
  call.fresh(0, st->dt, x.shape);
  if (native)
    for (size_t k = 1; k < num_outputs(call, 3); ++k) call.fresh(k, st->dt, {st->N, st->G});
  call.state = st;
}

void run_group_norm(OpCall& call) {
  const auto& st = call.state_as<GroupNormState>();
  run_affine_norm(call, st.dt, st.wb, [&](const auto& a) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(a.x)>>;
    group_norm<T>(a.x, a.w, a.b, a.y, a.mean, a.rstd, st.N, st.C, st.HxW, st.G, st.eps);
  });
}

OpDef gn(bool native) {
  return {[=](OpCall& c) { plan_group_norm(c, native); }, run_group_norm};
}

}  // namespace

TIR_REGISTER_OPS(
    // layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None,
    //   float eps=1e-05, bool cudnn_enable=True) -> Tensor
    {"aten.layer_norm.default", row_norm(false, false)},
    // native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps)
    //   -> (Tensor, Tensor, Tensor)
    {"aten.native_layer_norm.default", row_norm(true, false)},
    // rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor
    {"aten.rms_norm.default", row_norm(false, true)},
    // batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var,
    //   bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor
    {"aten.batch_norm.default", bn(Bn::BatchNorm)},
    // native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var,
    //   bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)
    {"aten.native_batch_norm.default", bn(Bn::NativeBatchNorm)},
    // _native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean,
    //   Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)
    {"aten._native_batch_norm_legit_no_training.default", bn(Bn::LegitNoTraining)},
    // _native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean,
    //   Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)
    // (running stats are not updated in place: inference only)
    {"aten._native_batch_norm_legit.default", bn(Bn::Legit)},
    // _native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, bool training,
    //   float momentum, float eps) -> (Tensor, Tensor, Tensor)
    {"aten._native_batch_norm_legit.no_stats", bn(Bn::LegitNoStats)},
    // _native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean,
    //   Tensor running_var, bool training, float momentum, float eps)
    //   -> (Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)
    {"aten._native_batch_norm_legit_functional.default", bn(Bn::LegitFunctional)},
    // _batch_norm_no_update(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
    //   Tensor? running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)
    // (eval: running stats; outputs 1-3 empty, as torch 2.x on CPU)
    {"aten._batch_norm_no_update.default", bn(Bn::NoUpdate)},
    // _batch_norm_with_update(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean,
    //   Tensor(b!) running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor)
    // (train: batch stats; outputs save_mean, save_invstd [C], empty uint8 reserve; the running
    // stats are not updated in place, as for _native_batch_norm_legit: inference only)
    {"aten._batch_norm_with_update.default", bn(Bn::WithUpdate)},
    // instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var,
    //   bool use_input_stats, float momentum, float eps, bool cudnn_enabled) -> Tensor
    {"aten.instance_norm.default", bn(Bn::InstanceNorm)},
    // group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05,
    //   bool cudnn_enabled=True) -> Tensor
    {"aten.group_norm.default", gn(false)},
    // native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group,
    //   float eps) -> (Tensor, Tensor, Tensor)
    {"aten.native_group_norm.default", gn(true)});

}  // namespace tir
