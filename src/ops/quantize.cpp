// PyTorch's quantization ops as pytorch-ir exports them: torch.ao's
// quantized_decomposed.* (PT2E: per tensor, per channel, per token, per channel
// group, choose_qparams*) and torchao's choose_qparams_affine / quantize_affine /
// dequantize_affine. Reference implementations with PyTorch's arithmetic
// (kernels/quantize.h); every granularity is a block layout over the tensor
// (torchao's block_size), so one walker serves them all. Dequantize ops are
// constant-foldable: a dequantized weight is computed once at prepare.
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/strided.h"
#include "kernels/parallel.h"
#include "kernels/quantize.h"
#include "ops/common.h"
#include "ops/op.h"
#include "ops/quantize_util.h"
#include "ops/webgpu.h"

namespace tir {
namespace {

using namespace quant;

// The per-tensor overloads' shared start: .default takes Python scalars (a Python float scale:
// 1.0 / scale in float64, then used as a float32), .tensor / .tensor2 one-element tensors read
// with .item() (.tensor2: quant_min/max as inputs 3 and 4 too).
template <typename State> std::shared_ptr<State> per_tensor_state(OpCall& call, int overload) {
  call.expect_inputs(overload == 0 ? 1 : 3, overload == 2 ? 5 : (overload == 0 ? 1 : 3));
  auto st = std::make_shared<State>();
  st->layout = BlockLayout::per_tensor(call.in[0].shape);
  st->granularity = QuantDesc::Granularity::PerTensor;
  if (overload == 0) {
    st->scale = ParamSource::attr(call, "scale");
    st->zero_point = ParamSource::attr(call, "zero_point");
  } else {
    st->scale = ParamSource::scalar_tensor(call, 1, "scale");
    st->zero_point = ParamSource::scalar_tensor(call, 2, "zero_point");
  }
  return st;
}

// ---- quantize ----

enum class QScale { Attr, Tensor };  // per_tensor.default takes Python scalars

struct QuantizeState {
  BlockLayout layout;
  QuantDesc::Granularity granularity = QuantDesc::Granularity::Other;
  int64_t axis = 0;
  QuantizeRowSpec spec;
  ParamSource scale, zero_point;  // zero_point.kind None: 0
  bool scale_is_f32 = true;       // 1 / scale formed in float32 (else float64)
  bool range_inputs = false;      // quant_min/max are inputs 3 and 4 (.tensor2)
  bool rejects_nan = false;       // PyTorch asserts the input has no NaN
  int inv_ws = -1, zp_ws = -1;
};

// Fills the workspace parameters and walks the blocks.
void run_quantize(OpCall& call) {
  auto& st = call.state_as<QuantizeState>();
  if (st.range_inputs) {
    const int64_t qmin = int_input_value(call, 3, "quant_min"), qmax = int_input_value(call, 4, "quant_max");
    check_quant_range(call, st.spec.out, qmin, qmax);
    st.spec.qmin = double(qmin);
    st.spec.qmax = double(qmax);
  }
  double* inv = call.workspace[size_t(st.inv_ws)].data<double>();
  double* zp = st.zero_point.present() ? call.workspace[size_t(st.zp_ws)].data<double>() : nullptr;
  const int64_t np = st.layout.num_params();
  load_params(call, st.scale, inv, np);
  // A Python float scale of 0: PyTorch's 1.0 / scale raises ZeroDivisionError.
  if (st.scale.kind != ParamSource::Kind::Tensor && np > 0)
    call.check(inv[0] != 0, "scale is 0 (PyTorch raises ZeroDivisionError for 1.0 / scale)");
  for (int64_t k = 0; k < np; ++k)
    inv[k] = st.scale_is_f32 ? double(1.0f / float(inv[k])) : 1.0 / inv[k];
  if (zp) load_params(call, st.zero_point, zp, np);
  const Tensor& x = call.in[0];
  const Tensor& q = call.out[0];
  const bool x_f64 = x.dtype == DType::F64;
  if (st.rejects_nan)  // quantize_per_channel_group: "to_quant must not contain NaNs"
    st.layout.for_each_row(x, [&](int64_t xo, int64_t xs, int64_t, int64_t, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const double v = x_f64 ? x.data<double>()[xo + i * xs] : double(x.data<float>()[xo + i * xs]);
        call.check(!std::isnan(v), "the input holds NaN, which quantize_per_channel_group refuses");
      }
    });
  // float32 arithmetic, rounding then adding the zero point: the SIMD row where the run is contiguous
  const bool simd = !x_f64 && !st.spec.compute_f64 && st.spec.order == QuantOrder::RoundThenAddZeroPoint;
  if (simd && np == 1 && x.is_contiguous() && q.is_contiguous() &&
      (st.spec.out == DType::I8 || st.spec.out == DType::U8 || st.spec.out == DType::I16)) {
    // One set of parameters over a contiguous tensor: chunks of the flat run across threads
    // (elementwise, so the same bits as one row), instead of one row call per innermost row
    // (56 values in ResNet-18's layer1). PT2E static models quantize every residual.
    const int64_t es = int64_t(dtype_size(q.dtype));
    parallel_for(x.numel(), grain_for(2), [&](int64_t i0, int64_t i1) {
      quantize_f32_row(x.data<float>() + i0, i1 - i0, float(inv[0]), zp ? float(zp[0]) : 0.0f, float(st.spec.qmin),
                       float(st.spec.qmax), st.spec.out, q.raw() + i0 * es);
    });
    return;
  }
  st.layout.for_each_row(x, q, [&](int64_t xo, int64_t xs, int64_t qo, int64_t qs, int64_t po, int64_t ps, int64_t n) {
    if (simd && xs == 1 && qs == 1 && ps == 0 &&
        quantize_f32_row(x.data<float>() + xo, n, float(inv[po]), zp ? float(zp[po]) : 0.0f, float(st.spec.qmin),
                         float(st.spec.qmax), st.spec.out, q.raw() + qo * int64_t(dtype_size(q.dtype))))
      return;
    quantize_row(x.raw() + xo * int64_t(dtype_size(x.dtype)), x_f64, xs, inv + po, zp ? zp + po : nullptr, ps, n,
                 st.spec, q.raw() + qo * int64_t(dtype_size(q.dtype)), qs);
  });
}

// The shared plan of every quantize op: x (float), block layout, qparams, out dtype.
void plan_quantize_common(OpCall& call, std::shared_ptr<QuantizeState> st, DType out, int64_t qmin, int64_t qmax,
                          bool allow_f64_input) {
  const Tensor& x = call.in[0];
  call.check(x.dtype == DType::F32 || (allow_f64_input && x.dtype == DType::F64),
             std::string("expects a float32 input, got ") + dtype_name(call.node->inputs[0].dtype));
  check_quant_dtype(call, out, "dtype");
  check_quant_range(call, out, qmin, qmax);
  st->spec.out = out;
  st->spec.qmin = double(qmin);
  st->spec.qmax = double(qmax);
  const int64_t np = st->layout.num_params();
  st->scale.check_count(call, np, "scale");
  if (st->zero_point.present()) st->zero_point.check_count(call, np, "zero_point");
  // 1 / scale is formed in float32 for a float32 scale tensor, in float64 for a Python float
  // (used as a float32 on a float32 input) or a float64 tensor (which promotes x * (1 / scale)).
  const bool tensor_scale = st->scale.kind == ParamSource::Kind::Tensor;
  st->scale_is_f32 = tensor_scale && st->scale.dtype != DType::F64;
  st->spec.compute_f64 = x.dtype == DType::F64 || (tensor_scale && st->scale.dtype == DType::F64);
  st->inv_ws = int(call.add_workspace(DType::F64, {std::max<int64_t>(np, 1)}));
  if (st->zero_point.present()) st->zp_ws = int(call.add_workspace(DType::F64, {std::max<int64_t>(np, 1)}));
  call.fresh(0, out, x.shape);
  call.state = std::move(st);
}

// quantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype)
// .tensor: scale and zero_point as one-element tensors; .tensor2: quant_min/max too.
void plan_quantize_per_tensor(OpCall& call, int overload) {
  auto st = per_tensor_state<QuantizeState>(call, overload);
  const DType out = dtype_attr(call, "dtype");
  check_quant_dtype(call, out, "dtype");
  st->range_inputs = overload == 2;  // read at run
  const int64_t qmin = st->range_inputs ? 0 : call.i("quant_min");
  const int64_t qmax = st->range_inputs ? 0 : call.i("quant_max");
  plan_quantize_common(call, st, out, qmin, qmax, false);
}

// quantize_per_channel(Tensor input, Tensor scales, Tensor zero_points, int axis, int quant_min, int quant_max, ScalarType dtype)
void plan_quantize_per_channel(OpCall& call) {
  call.expect_inputs(3, 3);
  auto st = std::make_shared<QuantizeState>();
  const int64_t axis = channel_axis(call, call.in[0]);
  st->layout = BlockLayout::per_axis(call.in[0].shape, axis);
  st->granularity = QuantDesc::Granularity::PerChannel;
  st->axis = axis;
  // scales of one element broadcast over the channels, as in PyTorch's formula
  st->scale = ParamSource::tensor(call, 1, "scales", true);
  st->zero_point = ParamSource::tensor(call, 2, "zero_points", true);
  plan_quantize_common(call, st, dtype_attr(call, "dtype"), call.i("quant_min"), call.i("quant_max"), false);
}

// quantize_per_token(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max, ScalarType dtype)
// quantize_per_channel_group(..., ScalarType dtype, int group_size): both add the zero point before rounding.
void plan_quantize_rows(OpCall& call, bool grouped) {
  call.expect_inputs(3, 3);
  auto st = std::make_shared<QuantizeState>();
  const Tensor& x = call.in[0];
  st->scale = ParamSource::tensor(call, 1, "scales");
  st->zero_point = ParamSource::tensor(call, 2, "zero_points");
  st->layout = grouped ? BlockLayout::channel_group(call, x.shape, call.i("group_size", 128), st->scale)
                       : BlockLayout::per_token(x.shape);
  st->spec.order = QuantOrder::AddZeroPointThenRound;
  st->rejects_nan = grouped;
  plan_quantize_common(call, st, dtype_attr(call, "dtype"), call.i("quant_min"), call.i("quant_max"), true);
}

// torchao quantize_affine(Tensor input, SymInt[] block_size, Tensor scale, Tensor? zero_point,
//   ScalarType output_dtype, Scalar? quant_min=None, Scalar? quant_max=None)
void plan_quantize_affine(OpCall& call) {
  call.expect_inputs(2, 3);
  auto st = std::make_shared<QuantizeState>();
  st->layout = BlockLayout::affine(call, call.in[0].shape, call.ints("block_size"));
  st->scale = ParamSource::tensor(call, 1, "scale");
  call.check(call.in.size() == 3 && call.in[2].numel() > 0,
             "quantize_affine needs a zero_point tensor (torchao adds it unconditionally)");
  st->zero_point = ParamSource::tensor(call, 2, "zero_point");
  const DType out = dtype_attr(call, "output_dtype");
  const auto [qmin, qmax] = affine_range(call, out);
  plan_quantize_common(call, st, out, qmin, qmax, false);
}

// ---- dequantize ----

struct DequantizeState {
  BlockLayout layout;
  QuantDesc::Granularity granularity = QuantDesc::Granularity::Other;
  int64_t axis = 0;
  int64_t qmin = 0, qmax = 0;  // as the attrs say (PyTorch does not use them in the arithmetic)
  DType qdtype = DType::I8;
  DequantizeRowSpec spec;
  ParamSource scale, zero_point;
  DType out_ir = DType::F32;  // float16/bfloat16 outputs are rounded after
  int scale_ws = -1, zp_ws = -1;
  int64_t row_group = 0;  // QuantDesc::row_group
};

void run_dequantize(OpCall& call) {
  auto& st = call.state_as<DequantizeState>();
  double* scale = call.workspace[size_t(st.scale_ws)].data<double>();
  double* zp = st.zero_point.present() ? call.workspace[size_t(st.zp_ws)].data<double>() : nullptr;
  const int64_t np = st.layout.num_params();
  load_params(call, st.scale, scale, np);
  if (zp) load_params(call, st.zero_point, zp, np);
  const Tensor& q = call.in[0];
  const Tensor& y = call.out[0];
  if (np == 1 && q.is_contiguous() && y.is_contiguous()) {
    // One set of parameters over contiguous tensors: chunks of the flat run across threads
    // (elementwise, so the same bits as one row).
    const int64_t qe = int64_t(dtype_size(q.dtype)), ye = int64_t(dtype_size(y.dtype));
    parallel_for(q.numel(), grain_for(2), [&](int64_t i0, int64_t i1) {
      dequantize_row(q.raw() + i0 * qe, 1, scale, zp, 0, i1 - i0, st.spec, y.raw() + i0 * ye, 1);
    });
    round_output_to_half(y, st.out_ir);
    return;
  }
  st.layout.for_each_row(q, y, [&](int64_t qo, int64_t qs, int64_t yo, int64_t ys, int64_t po, int64_t ps, int64_t n) {
    dequantize_row(q.raw() + qo * int64_t(dtype_size(q.dtype)), qs, scale + po, zp ? zp + po : nullptr, ps, n, st.spec,
                   y.raw() + yo * int64_t(dtype_size(y.dtype)), ys);
  });
  round_output_to_half(y, st.out_ir);
}

// in dtype == `dtype` attr (PyTorch asserts it), output dtype, compute precision.
void plan_dequantize_common(OpCall& call, std::shared_ptr<DequantizeState> st, const char* dtype_attr,
                            const char* out_attr, bool subtract_in_float) {
  const Tensor& q = call.in[0];
  const DType ir_in = call.node->inputs.empty() ? q.dtype : call.node->inputs[0].dtype;
  if (auto want = dtype_attr ? call.dtype(dtype_attr) : std::nullopt) {
    // torchao stores sub-byte values (int4 in int8 ranges) in int8/uint8 tensors.
    call.check(*want == ir_in, std::string("input has dtype ") + dtype_name(ir_in) + " but " + dtype_attr + " is " +
                                   dtype_name(*want));
  }
  call.check(is_integral(q.dtype) || q.dtype == DType::F32,
             std::string("expects an integer input, got ") + dtype_name(ir_in));
  DType out = DType::F32;
  if (out_attr)
    if (auto d = call.dtype(out_attr)) out = *d;
  call.check(is_floating(out), std::string(out_attr ? out_attr : "output dtype") + " must be a floating dtype, got " +
                                   dtype_name(out));
  st->out_ir = out;
  st->qmin = call.has("quant_min") ? call.i("quant_min") : 0;
  st->qmax = call.has("quant_max") ? call.i("quant_max") : 0;
  st->qdtype = ir_in;
  st->spec.in = q.dtype;
  st->spec.out = compute_dtype(out);
  st->spec.subtract_in_float = subtract_in_float;
  // A Python float scale (or .item() of a tensor) multiplies as a float32; a float64 tensor promotes.
  const bool scale_f64 = st->scale.kind == ParamSource::Kind::Tensor && st->scale.dtype == DType::F64;
  st->spec.compute_f64 = st->spec.out == DType::F64 || scale_f64;
  if (st->zero_point.kind == ParamSource::Kind::Tensor)
    st->spec.diff = is_integral(st->zero_point.dtype) && is_integral(ir_in) ? promote_types(ir_in, st->zero_point.dtype)
                                                                             : DType::F64;
  // integers times a float16/bfloat16 scale tensor multiply in that precision
  if (st->scale.kind == ParamSource::Kind::Tensor && !subtract_in_float &&
      (st->scale.dtype == DType::F16 || st->scale.dtype == DType::BF16))
    st->spec.product = st->scale.dtype;
  const int64_t np = st->layout.num_params();
  st->scale.check_count(call, np, "scale");
  if (st->zero_point.present()) st->zero_point.check_count(call, np, "zero_point");
  st->scale_ws = int(call.add_workspace(DType::F64, {std::max<int64_t>(np, 1)}));
  if (st->zero_point.present()) st->zp_ws = int(call.add_workspace(DType::F64, {std::max<int64_t>(np, 1)}));
  call.fresh(0, st->spec.out, q.shape);
  call.state = std::move(st);
}

// dequantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max,
//   ScalarType dtype, *, ScalarType? out_dtype=None); .tensor / .tensor2 as for quantize
void plan_dequantize_per_tensor(OpCall& call, int overload) {
  auto st = per_tensor_state<DequantizeState>(call, overload);
  check_quant_dtype(call, dtype_attr(call, "dtype"), "dtype");
  plan_dequantize_common(call, st, "dtype", "out_dtype", true);
}

// dequantize_per_channel(Tensor input, Tensor scales, Tensor? zero_points, int axis, int quant_min,
//   int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None)
void plan_dequantize_per_channel(OpCall& call) {
  call.expect_inputs(2, 3);
  auto st = std::make_shared<DequantizeState>();
  const int64_t axis = channel_axis(call, call.in[0]);
  st->layout = BlockLayout::per_axis(call.in[0].shape, axis);
  st->granularity = QuantDesc::Granularity::PerChannel;
  st->axis = axis;
  st->scale = ParamSource::tensor(call, 1, "scales", true);
  if (call.in.size() == 3) st->zero_point = ParamSource::tensor(call, 2, "zero_points", true);
  check_quant_range(call, dtype_attr(call, "dtype"), call.i("quant_min"), call.i("quant_max"));
  plan_dequantize_common(call, st, "dtype", "out_dtype", false);
}

// dequantize_per_token(Tensor input, Tensor scales, Tensor zero_points, int quant_min, int quant_max,
//   ScalarType dtype, ScalarType output_dtype); dequantize_per_channel_group(Tensor input, Tensor scales,
//   Tensor? zero_points, int quant_min, int quant_max, ScalarType dtype, int group_size, ScalarType output_dtype)
void plan_dequantize_rows(OpCall& call, bool grouped) {
  call.expect_inputs(grouped ? 2 : 3, 3);
  auto st = std::make_shared<DequantizeState>();
  st->scale = ParamSource::tensor(call, 1, "scales");
  if (call.in.size() == 3) st->zero_point = ParamSource::tensor(call, 2, "zero_points");
  st->layout = grouped ? BlockLayout::channel_group(call, call.in[0].shape, call.i("group_size", 128), st->scale)
                       : BlockLayout::per_token(call.in[0].shape);
  plan_dequantize_common(call, st, grouped ? nullptr : "dtype", "output_dtype", false);  // the group op does not check
}

// torchao dequantize_affine(Tensor input, SymInt[] block_size, Tensor scale, Tensor? zero_point,
//   ScalarType input_dtype, Scalar? quant_min=None, Scalar? quant_max=None, *, ScalarType output_dtype=float32)
void plan_dequantize_affine(OpCall& call) {
  call.expect_inputs(2, 3);
  auto st = std::make_shared<DequantizeState>();
  st->layout = BlockLayout::affine(call, call.in[0].shape, call.ints("block_size"));
  st->scale = ParamSource::tensor(call, 1, "scale");
  if (call.in.size() == 3) st->zero_point = ParamSource::tensor(call, 2, "zero_point");
  affine_range(call, dtype_attr(call, "input_dtype"));
  plan_dequantize_common(call, st, "input_dtype", "output_dtype", true);
  const DType out = call.state_as<DequantizeState>().out_ir;
  call.check(out == DType::F32 || out == DType::F16 || out == DType::BF16,
             std::string("unsupported output_dtype ") + dtype_name(out) + " (torchao: float32, float16 or bfloat16)");
  // block_size [1, ..., 1, G]: groups of G along each row (the lowering's QuantDesc::row_group)
  const Shape& qs = call.in[0].shape;
  const std::vector<int64_t> block = call.ints("block_size");
  if (!qs.empty() && block.size() == qs.size() && qs.back() > 0) {
    bool rows = true;
    for (size_t d = 0; d + 1 < qs.size(); ++d) rows = rows && (block[d] == 1 || qs[d] == 1);
    const int64_t g = block.back() <= 0 || block.back() >= qs.back() ? qs.back() : block.back();
    if (rows && qs.back() % g == 0) call.state_as<DequantizeState>().row_group = g;
  }
}

// ---- the quantization lowering's view (OpTraits::describe_quant) ----

void describe_params(const ParamSource& scale, const ParamSource& zp, QuantDesc* d) {
  d->static_params = scale.kind == ParamSource::Kind::Attr;
  d->scale = scale.attr_value;
  d->zero_point = zp.kind == ParamSource::Kind::Attr ? int64_t(zp.attr_value) : 0;
  if (!d->static_params) d->scale_input = int(scale.input);
  if (zp.kind == ParamSource::Kind::Tensor || zp.kind == ParamSource::Kind::TensorAsF64Scalar)
    d->zero_point_input = int(zp.input);
}

bool describe_quantize(const OpCall& call, QuantDesc* d) {
  const auto& st = call.state_as<QuantizeState>();
  if (st.range_inputs) return false;
  d->granularity = st.granularity;
  d->axis = st.axis;
  describe_params(st.scale, st.zero_point, d);
  d->qmin = int64_t(st.spec.qmin);
  d->qmax = int64_t(st.spec.qmax);
  d->qdtype = st.spec.out;
  d->rounds_then_adds = st.spec.order == QuantOrder::RoundThenAddZeroPoint;
  return true;
}

bool describe_dequantize(const OpCall& call, QuantDesc* d) {
  const auto& st = call.state_as<DequantizeState>();
  if (st.out_ir != DType::F32) return false;
  d->granularity = st.granularity;
  d->axis = st.axis;
  describe_params(st.scale, st.zero_point, d);
  d->qmin = st.qmin;
  d->qmax = st.qmax;
  d->qdtype = st.qdtype;
  d->row_group = st.row_group;
  return true;
}

// WebGPU (quantize_blocks.wgsl): a float32 tensor into int8 / uint8 bytes with one float32
// (scale, zero point) per block of consecutive elements (torchao's per-token and per-group
// layouts), in run_quantize's float32 arithmetic (1 / scale, round, add the zero point, clamp).
bool webgpu_quantize_affine(const OpCall& call, GpuLowering& g) {
  const auto& st = call.state_as<QuantizeState>();
  const Tensor &x = call.in[0], &y = call.out[0];
  const int64_t block = st.layout.consecutive_block();
  gpu_need(block > 0 && x.dtype == DType::F32 && x.is_contiguous() && gpu_ir_input_dtype(call, 0) == DType::F32,
           "blocks that are not consecutive elements of a contiguous float32 input");
  gpu_need(st.spec.order == QuantOrder::RoundThenAddZeroPoint && !st.spec.compute_f64 && st.scale_is_f32 &&
               st.scale.kind == ParamSource::Kind::Tensor && !st.range_inputs && !st.rejects_nan,
           "parameters the GPU kernel does not take");
  gpu_need((y.dtype == DType::I8 || y.dtype == DType::U8) && gpu_dense_at_zero(y), "an output that is not int8 or uint8");
  const Tensor& scale = call.in[st.scale.input];
  const Tensor zp = st.zero_point.present() ? call.in[st.zero_point.input] : Tensor{};
  gpu_need(scale.dtype == DType::F32 && scale.is_contiguous() && (!zp.defined() || zp.is_contiguous()),
           "strided parameters");
  if (x.numel() == 0) return true;
  g.dispatches.push_back(gpu_quantize_blocks(y, x, block, st.spec.qmin, st.spec.qmax, scale, zp));
  return true;
}

OpDef quantize_def(std::function<void(OpCall&)> plan) {
  OpDef def = foldable({std::move(plan), run_quantize});
  def.traits.quant_role = QuantRole::Quantize;
  def.traits.describe_quant = describe_quantize;
  return def;
}
OpDef dequantize_def(std::function<void(OpCall&)> plan) {
  OpDef def = foldable({std::move(plan), run_dequantize});
  def.traits.quant_role = QuantRole::Dequantize;
  def.traits.describe_quant = describe_dequantize;
  return def;
}

}  // namespace

TIR_REGISTER_OPS(
    {"quantized_decomposed.quantize_per_tensor.default", quantize_def([](OpCall& c) { plan_quantize_per_tensor(c, 0); })},
    {"quantized_decomposed.quantize_per_tensor.tensor", quantize_def([](OpCall& c) { plan_quantize_per_tensor(c, 1); })},
    {"quantized_decomposed.quantize_per_tensor.tensor2", quantize_def([](OpCall& c) { plan_quantize_per_tensor(c, 2); })},
    {"quantized_decomposed.dequantize_per_tensor.default", dequantize_def([](OpCall& c) { plan_dequantize_per_tensor(c, 0); })},
    {"quantized_decomposed.dequantize_per_tensor.tensor", dequantize_def([](OpCall& c) { plan_dequantize_per_tensor(c, 1); })},
    {"quantized_decomposed.dequantize_per_tensor.tensor2", dequantize_def([](OpCall& c) { plan_dequantize_per_tensor(c, 2); })},
    {"quantized_decomposed.quantize_per_channel.default", quantize_def(plan_quantize_per_channel)},
    {"quantized_decomposed.dequantize_per_channel.default", dequantize_def(plan_dequantize_per_channel)},
    {"quantized_decomposed.quantize_per_token.default", quantize_def([](OpCall& c) { plan_quantize_rows(c, false); })},
    {"quantized_decomposed.dequantize_per_token.default", dequantize_def([](OpCall& c) { plan_dequantize_rows(c, false); })},
    {"quantized_decomposed.quantize_per_channel_group.default", quantize_def([](OpCall& c) { plan_quantize_rows(c, true); })},
    {"quantized_decomposed.dequantize_per_channel_group.default", dequantize_def([](OpCall& c) { plan_dequantize_rows(c, true); })},
    {"torchao.quantize_affine.default", [] {
       OpDef def = quantize_def(plan_quantize_affine);
       def.traits.webgpu = webgpu_quantize_affine;
       return def;
     }()},
    {"torchao.dequantize_affine.default", dequantize_def(plan_dequantize_affine)});

}  // namespace tir
