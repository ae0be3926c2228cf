// Quantization parameters chosen from the data, as PyTorch's dynamic
// quantization does at run time: quantized_decomposed.choose_qparams(_symmetric).tensor
// (per tensor, torch.ao's determine_qparams), choose_qparams_per_token(_asymmetric)
// and torchao's choose_qparams_affine (any block layout). Min and max per block,
// then each op's formula in its own precision (float32 for a float32 input).
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "core/half.h"
#include "kernels/quantize.h"
#include "ops/op.h"
#include "ops/quantize_util.h"
#include "ops/webgpu.h"

namespace tir {
namespace {

using namespace quant;

enum class Rule : uint8_t {
  PerTensorAffine,     // choose_qparams.tensor
  PerTensorSymmetric,  // choose_qparams_symmetric.tensor
  PerTokenSymmetric,   // choose_qparams_per_token
  PerTokenAsymmetric,  // choose_qparams_per_token_asymmetric
  Affine,              // torchao, mapping_type ASYMMETRIC
  AffineSymmetric,     // SYMMETRIC
  AffineNoClipErr,     // SYMMETRIC_NO_CLIPPING_ERR
};

struct ChooseState {
  BlockLayout layout;
  Rule rule = Rule::PerTensorAffine;
  int64_t qmin = -128, qmax = 127;
  float eps = 0;
  DType qdtype = DType::I8;
  DType scale_ir = DType::F32;  // the scale output's IR dtype (half: rounded after)
  // float16/bfloat16 inputs: PyTorch's tensor arithmetic on them rounds every step to that
  // precision (a step with a float32 tensor, like torch.max(scale, eps), promotes instead).
  DType work = DType::F32;
  int mn_ws = -1, mx_ws = -1;
};

void store(const Tensor& t, int64_t k, double v) {
  switch (t.dtype) {
    case DType::F32: t.data<float>()[k] = float(v); break;
    case DType::F64: t.data<double>()[k] = v; break;
    case DType::I64: t.data<int64_t>()[k] = quantized_cast<int64_t>(v); break;
    case DType::I32: t.data<int32_t>()[k] = quantized_cast<int32_t>(v); break;
    case DType::I16: t.data<int16_t>()[k] = quantized_cast<int16_t>(v); break;
    case DType::I8: t.data<int8_t>()[k] = quantized_cast<int8_t>(v); break;
    case DType::U8: t.data<uint8_t>()[k] = quantized_cast<uint8_t>(v); break;
    default: break;
  }
}

void run_choose(OpCall& call) {
  const auto& st = call.state_as<ChooseState>();
  const Tensor& x = call.in[0];
  const int64_t np = st.layout.num_params();
  double* mn = call.workspace[size_t(st.mn_ws)].data<double>();
  double* mx = call.workspace[size_t(st.mx_ws)].data<double>();
  for (int64_t k = 0; k < np; ++k) {
    mn[k] = std::numeric_limits<double>::infinity();
    mx[k] = -std::numeric_limits<double>::infinity();
  }
  const bool x_f64 = x.dtype == DType::F64;
  st.layout.for_each_row(x, [&](int64_t xo, int64_t xs, int64_t po, int64_t ps, int64_t n) {
    if (!x_f64 && xs == 1 && ps == 0) return minmax_f32_into(x.data<float>() + xo, n, mn + po, mx + po);
    minmax_row(x.raw() + xo * int64_t(dtype_size(x.dtype)), x_f64, xs, n, mn + po, mx + po, ps);
  });
  const Tensor& scale_out = call.out[0];
  const Tensor& zp_out = call.out[1];
  const float qmin = float(st.qmin), qmax = float(st.qmax);
  auto R = [&](float v) { return round_to_precision(v, st.work); };
  for (int64_t k = 0; k < np; ++k) {
    const float lo = float(mn[k]), hi = float(mx[k]);
    if (st.rule == Rule::PerTensorAffine || st.rule == Rule::PerTensorSymmetric)
      call.check(std::isfinite(lo) && std::isfinite(hi),
                 "cannot choose quantization parameters: the input holds NaN or infinity");
    const float min_neg = std::fmin(lo, 0.0f) , max_pos = std::fmax(hi, 0.0f);
    // fmin/fmax drop a NaN; torch.min/max keep it
    const float mneg = std::isnan(lo) ? lo : min_neg, mpos = std::isnan(hi) ? hi : max_pos;
    float scale = 0, zp = 0;
    switch (st.rule) {
      case Rule::PerTensorAffine:
        if (st.work == DType::F32) {  // the formula the lowered linear shares (kernels/quantize.h)
          double sd;
          int64_t zi;
          choose_per_tensor_affine(lo, hi, st.qmin, st.qmax, st.eps, &sd, &zi);
          scale = float(sd);
          zp = float(zi);
          break;
        }
        [[fallthrough]];
      case Rule::Affine: {
        scale = R(R(mpos - mneg) / float(st.qmax - st.qmin));
        // torch.max with the float32 eps tensor promotes (per tensor); torchao clamps in place
        const float eps = st.rule == Rule::Affine ? R(st.eps) : st.eps;
        if (!(scale >= eps) && !std::isnan(scale)) scale = eps;
        zp = st.rule == Rule::Affine ? R(qmin - std::nearbyint(R(mneg / scale))) : qmin - std::nearbyint(mneg / scale);
        zp = std::isnan(zp) ? zp : std::fmin(std::fmax(zp, qmin), qmax);
        break;
      }
      case Rule::PerTensorSymmetric:
      case Rule::AffineSymmetric: {
        const float m = std::isnan(mneg) || std::isnan(mpos) ? std::numeric_limits<float>::quiet_NaN()
                                                              : std::fmax(-mneg, mpos);
        scale = R(m / float(double(st.qmax - st.qmin) / 2));
        const float eps = st.rule == Rule::AffineSymmetric ? R(st.eps) : st.eps;
        if (!(scale >= eps) && !std::isnan(scale)) scale = eps;
        if (st.rule == Rule::PerTensorSymmetric) zp = st.qdtype == DType::U8 ? 128.0f : 0.0f;
        else zp = float(int64_t(double(st.qmax + st.qmin + 1) / 2));  // Python int() truncates
        break;
      }
      case Rule::AffineNoClipErr: {
        const float smin = R(mneg / qmin), smax = R(mpos / qmax);
        scale = smin > smax ? smin : smax;
        if (!(scale >= R(st.eps)) && !std::isnan(scale)) scale = R(st.eps);
        zp = float(int64_t(double(st.qmax + st.qmin + 1) / 2));
        break;
      }
      case Rule::PerTokenSymmetric: {
        float a = std::isnan(lo) || std::isnan(hi) ? std::numeric_limits<float>::quiet_NaN()
                                                    : std::fmax(std::fabs(lo), std::fabs(hi));
        // float16 maxima are widened to float32 first (PyTorch avoids f16 overflow); bfloat16 stays
        const auto Rt = [&](float v) { return st.work == DType::F16 ? v : R(v); };
        if (a < Rt(1e-5f)) a = Rt(1e-5f);  // clamp(min=1e-5)
        scale = Rt(a / 127.0f);
        zp = 0;
        break;
      }
      case Rule::PerTokenAsymmetric: {
        // XNNPACK's rule, as torch.ao writes it (qmin -128, qmax 127)
        scale = R(R(mpos - mneg) / 255.0f);
        if (scale < R(st.eps)) scale = R(st.eps);
        const float dmin = R(mneg / scale), dmax = R(mpos / scale);
        const float from_min = R(-128.0f + dmin), from_max = R(127.0f + dmax);
        zp = R(from_min + from_max) > 0 ? R(-128.0f - dmin) : R(127.0f - dmax);
        if (zp < -128.0f) zp = -128.0f;
        if (zp > 127.0f) zp = 127.0f;
        zp = std::nearbyint(zp);
        break;
      }
    }
    store(scale_out, k, double(scale));
    store(zp_out, k, double(zp));
  }
  round_output_to_half(scale_out, st.scale_ir);
}

std::shared_ptr<ChooseState> plan_choose_common(OpCall& call, BlockLayout layout, Rule rule) {
  call.expect_inputs(1, 1);
  const Tensor& x = call.in[0];
  call.check(x.dtype == DType::F32 || x.dtype == DType::F64,
             std::string("expects a floating input, got ") + dtype_name(call.node->inputs[0].dtype));
  auto st = std::make_shared<ChooseState>();
  st->work = call.node->inputs.empty() ? x.dtype : call.node->inputs[0].dtype;
  st->layout = std::move(layout);
  st->rule = rule;
  const int64_t np = st->layout.num_params();
  st->mn_ws = int(call.add_workspace(DType::F64, {std::max<int64_t>(np, 1)}));
  st->mx_ws = int(call.add_workspace(DType::F64, {std::max<int64_t>(np, 1)}));
  return st;
}

// choose_qparams.tensor(Tensor input, int quant_min, int quant_max, float eps, ScalarType dtype) -> (Tensor, Tensor)
void plan_choose_per_tensor(OpCall& call, bool symmetric) {
  auto st = plan_choose_common(call, BlockLayout::per_tensor(call.in.empty() ? Shape{} : call.in[0].shape),
                               symmetric ? Rule::PerTensorSymmetric : Rule::PerTensorAffine);
  call.check(call.in[0].numel() > 0, "cannot choose quantization parameters for an empty input (torch.aminmax fails)");
  call.check(call.in[0].dtype == DType::F32, "expects a float32, float16 or bfloat16 input, got float64");
  st->qdtype = dtype_attr(call, "dtype");
  check_quant_dtype(call, st->qdtype, "dtype");
  st->qmin = call.i("quant_min");
  st->qmax = call.i("quant_max");
  call.check(st->qmin <= 0 && 0 <= st->qmax, "the quantization range [quant_min, quant_max] must include 0");
  call.check(st->qmin < st->qmax, "quant_min must be strictly less than quant_max");
  st->eps = float(call.f("eps"));
  call.fresh(0, DType::F64, {1});
  call.fresh(1, DType::I64, {1});
  call.state = std::move(st);
}

// choose_qparams_per_token(Tensor input, ScalarType dtype); the _asymmetric form: (float64, int64) results
void plan_choose_per_token(OpCall& call, bool asymmetric) {
  const Shape& xs = call.in.empty() ? Shape{} : call.in[0].shape;
  auto st = plan_choose_common(call, BlockLayout::per_token(xs),
                               asymmetric ? Rule::PerTokenAsymmetric : Rule::PerTokenSymmetric);
  call.check(xs.empty() || xs.back() > 0, "cannot choose quantization parameters over an empty last dim");
  st->qdtype = dtype_attr(call, "dtype");
  if (!asymmetric)
    call.check(st->qdtype == DType::I8, std::string("unsupported dtype in choose_qparams_per_token: ") +
                                            dtype_name(st->qdtype));
  st->eps = std::numeric_limits<float>::epsilon();
  Shape ps = xs;
  if (!ps.empty()) ps.back() = 1;
  // float64 scales and int64 zero points: what the op's meta kernel (so the IR) declares; the
  // eager symmetric kernel returns float32 scales and zeros of the same values
  call.fresh(0, DType::F64, ps);
  call.fresh(1, DType::I64, ps);
  call.state = std::move(st);
}

// torchao choose_qparams_affine(Tensor input, str mapping_type, SymInt[] block_size, ScalarType target_dtype,
//   Scalar? quant_min=None, Scalar? quant_max=None, float? eps=None, ScalarType? scale_dtype=None,
//   ScalarType? zero_point_dtype=None, bool keepdim=False) -> (Tensor, Tensor)
void plan_choose_affine(OpCall& call) {
  call.expect_inputs(1, 1);
  const std::string mapping = call.str("mapping_type");
  Rule rule;
  if (mapping == "ASYMMETRIC") rule = Rule::Affine;
  else if (mapping == "SYMMETRIC") rule = Rule::AffineSymmetric;
  else if (mapping == "SYMMETRIC_NO_CLIPPING_ERR") rule = Rule::AffineNoClipErr;
  else call.fail("unsupported mapping_type '" + mapping + "' (expected ASYMMETRIC, SYMMETRIC or SYMMETRIC_NO_CLIPPING_ERR)");
  const Shape& xs = call.in[0].shape;
  auto st = plan_choose_common(call, BlockLayout::affine(call, xs, call.ints("block_size")), rule);
  call.check(st->layout.num_params() == 0 || call.in[0].numel() > 0,
             "cannot choose quantization parameters over empty blocks");
  st->qdtype = dtype_attr(call, "target_dtype");
  std::tie(st->qmin, st->qmax) = affine_range(call, st->qdtype);
  const DType in_ir = call.node->inputs.empty() ? call.in[0].dtype : call.node->inputs[0].dtype;
  // eps=None: the input dtype's smallest normal number
  const double smallest_normal = in_ir == DType::F16 ? 6.103515625e-05
                                 : in_ir == DType::F64 ? std::numeric_limits<double>::min()
                                                       : double(std::numeric_limits<float>::min());
  st->eps = float(call.has("eps") ? call.f("eps") : smallest_normal);
  const DType scale_dtype = call.dtype("scale_dtype").value_or(in_ir);
  call.check(is_floating(scale_dtype), std::string("scale_dtype must be floating, got ") + dtype_name(scale_dtype));
  // ASYMMETRIC defaults its zero point to int32; the symmetric rules keep the scale's float dtype.
  const DType zp_dtype = call.dtype("zero_point_dtype").value_or(rule == Rule::Affine ? DType::I32 : in_ir);
  st->scale_ir = scale_dtype;
  const Shape ps = call.b("keepdim", false) ? st->layout.param_shape_keepdim() : st->layout.param_shape();
  call.fresh(0, compute_dtype(scale_dtype), ps);
  call.fresh(1, compute_dtype(zp_dtype), ps);
  call.state = std::move(st);
}

bool describe_choose(const OpCall& call, QuantDesc* d) {
  const auto& st = call.state_as<ChooseState>();
  d->granularity = st.rule == Rule::PerTensorAffine || st.rule == Rule::PerTensorSymmetric
                       ? QuantDesc::Granularity::PerTensor
                       : QuantDesc::Granularity::Other;
  d->per_tensor_affine_choice = st.rule == Rule::PerTensorAffine && st.work == DType::F32;
  d->qmin = st.qmin;
  d->qmax = st.qmax;
  d->qdtype = st.qdtype;
  d->eps = double(st.eps);
  return true;
}

// WebGPU (choose_qparams_rows.wgsl): torchao's ASYMMETRIC rule on float32 rows (blocks of
// consecutive elements), the per-token choice of 8da4w's activations. The same float32 steps as
// run_choose; WGSL's division may differ from IEEE by an ulp on some GPUs (lavapipe's does not).
bool webgpu_choose_affine(const OpCall& call, GpuLowering& g) {
  const auto& st = call.state_as<ChooseState>();
  gpu_need(st.rule == Rule::Affine && st.work == DType::F32 && st.scale_ir == DType::F32,
           "only ASYMMETRIC on float32 runs on the GPU");
  const Tensor &x = call.in[0], &scale = call.out[0], &zp = call.out[1];
  const int64_t block = st.layout.consecutive_block();
  gpu_need(block > 0 && x.dtype == DType::F32 && x.is_contiguous(), "blocks that are not whole rows of a contiguous input");
  gpu_need(scale.dtype == DType::F32 && gpu_dense_at_zero(scale) && gpu_dense_at_zero(zp), "strided parameters");
  if (x.numel() == 0) return true;
  g.dispatches.push_back(
      gpu_choose_rows(scale, zp, x, x.numel() / block, block, double(st.qmin), double(st.qmax), double(st.eps)));
  return true;
}

OpDef choose_def(std::function<void(OpCall&)> plan) {
  OpDef def = foldable({std::move(plan), run_choose});
  def.traits.quant_role = QuantRole::ChooseQparams;
  def.traits.describe_quant = describe_choose;
  return def;
}

}  // namespace

TIR_REGISTER_OPS(
    {"quantized_decomposed.choose_qparams.tensor", choose_def([](OpCall& c) { plan_choose_per_tensor(c, false); })},
    {"quantized_decomposed.choose_qparams_symmetric.tensor", choose_def([](OpCall& c) { plan_choose_per_tensor(c, true); })},
    {"quantized_decomposed.choose_qparams_per_token.default", choose_def([](OpCall& c) { plan_choose_per_token(c, false); })},
    {"quantized_decomposed.choose_qparams_per_token_asymmetric.default",
     choose_def([](OpCall& c) { plan_choose_per_token(c, true); })},
    {"torchao.choose_qparams_affine.default", [] {
       OpDef def = choose_def(plan_choose_affine);
       def.traits.webgpu = webgpu_choose_affine;
       return def;
     }()});

}  // namespace tir
