// aten.linear on torchao's 8da4w pattern, in integers: DQ_rows(qa) @ DQ_groups(W)^T + b, where qa
// is the activation torchao already quantized per row (choose_qparams_affine / quantize_affine
// keep running: their exact arithmetic stays theirs) and W is int4 in int8 storage with one
// scale (and zero point) per output channel and group of G k. The quantization lowering
// (runtime/quant_lowering.cpp) hands the step in[0] = qa, in[1] = W, the bias, and the row scales
// and zero points (QuantizedOperands says where). Prepare packs W to 4 bits, two per byte
// (kernels/gemm_s8w4.h), and the float copy of W is never made; run sums each group exactly in
// int32 and scales it, then the fused residual / activation follow in the gemm's blocks.
// Load-time quantization (SessionOptions::weight_quantization 'int4') uses the same form on a
// float32 linear: W quantized symmetrically per group at prepare, x quantized per row at run.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "kernels/gemm_s8w4.h"
#include "kernels/quantize.h"
#include "ops/epilogue.h"
#include "ops/quantized_forms.h"
#include "ops/webgpu.h"

namespace tir {
namespace {

struct Linear8da4wState {
  QuantizedOperands q;
  int64_t M = 0, K = 0, N = 0, G = 0, groups = 0, npad = 0;
  int bias_input = -1;
  int ws_a = -1, ws_row_scale = -1, ws_row_zero = -1, ws_row_sum = -1;
  std::shared_ptr<const std::vector<uint16_t>> packed;  // the 4-bit panels (bytes), shared by tied weights
  std::vector<float> col_scale, bias;
  std::vector<int32_t> col_sum, col_zero;
  bool has_col_zero = false;
};

void plan_linear_8da4w(OpCall& call) {
  call.check(call.quantized != nullptr && call.quantized->weight_group > 0,
             "the int4 linear needs the quantization lowering's operands");
  const QuantizedOperands& q = *call.quantized;
  const Tensor &x = call.in[0], &w = call.in[1];
  if (q.activation_per_row) call.check(x.dtype == DType::F32, "expects a float32 input");
  else call.check(x.dtype == DType::I8 || x.dtype == DType::U8, "expects an int8 or uint8 quantized activation");
  call.check(x.is_contiguous() && x.dim() >= 1, "expects a contiguous activation");
  call.check(w.dtype == (q.weight_from_float ? DType::F32 : DType::I8) && w.dim() == 2 && w.is_contiguous(),
             "expects a contiguous [out, in] weight of int8 (or float32 to quantize)");
  auto st = std::make_shared<Linear8da4wState>();
  st->q = q;
  st->K = w.shape[1];
  st->N = w.shape[0];
  st->G = q.weight_group;
  call.check(x.shape.back() == st->K, "input features " + std::to_string(x.shape.back()) + " do not match the weight's " +
                                          std::to_string(st->K));
  call.check(st->K > 0 && st->G % 4 == 0 && st->K % st->G == 0,
             "the int4 kernel needs groups of a multiple of 4 that divide K");
  st->groups = st->K / st->G;
  st->M = x.numel() / st->K;
  const int64_t nr = gemm_s8_nr();
  st->npad = (st->N + nr - 1) / nr * nr;
  // the weight's parameters: [N, K / G]; the activation's: one per row
  auto check_params = [&](const Tensor& t, int64_t count, bool floating, const char* what) {
    call.check(t.defined() && t.numel() == count && t.is_contiguous() &&
                   (floating ? t.dtype == DType::F32 : is_integral(t.dtype)),
               std::string(what) + " does not fit the int4 kernel");
  };
  if (!q.weight_from_float) {
    check_params(q.weight_scale, st->N * st->groups, true, "the weight scale");
    if (q.weight_zero_point.defined()) check_params(q.weight_zero_point, st->N * st->groups, false, "the weight zero point");
  }
  if (!q.activation_per_row) {
    call.check(q.activation_scale_input >= 0, "the int4 linear needs the activation's scales");
    check_params(call.in[size_t(q.activation_scale_input)], st->M, true, "the activation scale");
    if (q.activation_zero_point_input >= 0)
      check_params(call.in[size_t(q.activation_zero_point_input)], st->M, false, "the activation zero point");
  }
  const int used = std::max({1, q.activation_scale_input, q.activation_zero_point_input});
  if (int(call.in.size()) > used + 1) {
    st->bias_input = used + 1;
    const Tensor& b = call.in[size_t(st->bias_input)];
    call.check(b.dtype == DType::F32 && b.numel() == st->N && b.is_contiguous(),
               "expects a contiguous float32 bias of " + std::to_string(st->N) + " values");
  }
  if (call.out.empty() || !call.out[0].defined()) {
    Shape os = x.shape;
    os.back() = st->N;
    call.fresh(0, DType::F32, os);
  }
  const int64_t rows = std::max<int64_t>(st->M, 1);
  st->ws_a = int(call.add_workspace(DType::I16, {std::max<int64_t>(st->M * st->K, 1)}));
  st->ws_row_scale = int(call.add_workspace(DType::F32, {rows}));
  st->ws_row_zero = int(call.add_workspace(DType::I32, {rows}));
  st->ws_row_sum = int(call.add_workspace(DType::I32, {rows * st->groups}));
  call.state = std::move(st);
}

void prepare_linear_8da4w(OpCall& call) {
  auto& st = call.state_as<Linear8da4wState>();
  const Tensor& w = call.in[1];
  const int64_t N = st.N, K = st.K, G = st.G, groups = st.groups, npad = st.npad;
  // load-time quantization: int4 per group, symmetric (zero points 0)
  std::vector<int8_t> from_float;
  std::vector<float> float_scales;
  if (st.q.weight_from_float) {
    from_float.resize(size_t(N * K));
    float_scales.resize(size_t(N * groups));
    for (int64_t i = 0; i < N * groups; ++i)
      quantize_weight_block(w.data<float>() + i * G, G, -8, 7, from_float.data() + i * G, &float_scales[size_t(i)]);
  }
  const int8_t* wd = st.q.weight_from_float ? from_float.data() : w.data<int8_t>();
  // 4-bit storage holds -8..7: a range of 16 values elsewhere (uint4's 0..15) is stored shifted,
  // the shift folded into the zero points
  int lo = 127, hi = -128;
  for (int64_t i = 0; i < N * K; ++i) {
    lo = std::min<int>(lo, wd[i]);
    hi = std::max<int>(hi, wd[i]);
  }
  call.check(N * K == 0 || hi - lo <= 15, "weight values span [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                              "]: more than the 16 values of a 4-bit weight");
  const int shift = N * K == 0 || (lo >= -8 && hi <= 7) ? 0 : lo + 8;
  const std::string layout = std::string(st.q.weight_from_float ? "s4-from-f32-g" + std::to_string(G) : "s4") +
                             "-panels-" + std::to_string(gemm_s8_nr()) + "-" + std::to_string(shift);
  st.packed = call.prepare_ctx->derived_half(w, layout,
                                             [&](std::vector<uint16_t>& v) {
                                               std::vector<int8_t> shifted(wd, wd + N * K);
                                               for (auto& s : shifted) s = int8_t(s - shift);
                                               v.assign(size_t(std::max<int64_t>(packed_b_s4_size(K, N) / 2, 1)), 0);
                                               pack_b_s4(K, N, shifted.data(), K, reinterpret_cast<uint8_t*>(v.data()));
                                             });
  st.col_scale.assign(size_t(groups * npad), 0.0f);
  st.col_sum.assign(size_t(groups * npad), 0);
  st.col_zero.assign(size_t(groups * npad), 0);
  st.bias.assign(size_t(npad), 0.0f);
  st.has_col_zero = false;
  const Tensor& ws = st.q.weight_scale;
  const Tensor& wz = st.q.weight_zero_point;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t g = 0; g < groups; ++g) {
      const size_t c = size_t(s4_param_index(g, n, groups, gemm_s8_nr()));
      int32_t s = 0;
      for (int64_t k = g * G; k < g * G + G; ++k) s += wd[n * K + k] - shift;
      st.col_sum[c] = s;
      st.col_scale[c] = st.q.weight_from_float ? float_scales[size_t(n * groups + g)]
                                               : float(load_as_double(ws.raw(), ws.dtype, n * groups + g));
      const double z = wz.defined() && !st.q.weight_from_float ? load_as_double(wz.raw(), wz.dtype, n * groups + g) : 0.0;
      call.check(std::fabs(z) <= 255, "weight zero point " + std::to_string(z) + " of channel " + std::to_string(n) +
                                          " is outside the integer kernel's range [-255, 255]");
      st.col_zero[c] = int32_t(z) - shift;
      st.has_col_zero = st.has_col_zero || st.col_zero[c] != 0;
    }
}

void run_linear_8da4w(OpCall& call) {
  auto& st = call.state_as<Linear8da4wState>();
  const int64_t M = st.M, K = st.K, N = st.N, G = st.G, groups = st.groups;
  const Tensor& x = call.in[0];
  int16_t* a = call.workspace[size_t(st.ws_a)].data<int16_t>();
  int32_t* row_sum = call.workspace[size_t(st.ws_row_sum)].data<int32_t>();
  float* row_scale = call.workspace[size_t(st.ws_row_scale)].data<float>();
  int32_t* row_zero = call.workspace[size_t(st.ws_row_zero)].data<int32_t>();
  if (st.q.activation_per_row) quantize_activation_rows(call, st.q, x.data<float>(), M, K, a, K, row_scale, row_zero);
  else if (x.dtype == DType::I8) std::copy(x.data<int8_t>(), x.data<int8_t>() + M * K, a);
  else std::copy(x.data<uint8_t>(), x.data<uint8_t>() + M * K, a);
  if (st.has_col_zero)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t g = 0; g < groups; ++g) {
        int32_t s = 0;
        for (int64_t k = g * G; k < g * G + G; ++k) s += a[m * K + k];
        row_sum[m * groups + g] = s;
      }
  if (!st.q.activation_per_row) {
    const Tensor& sa = call.in[size_t(st.q.activation_scale_input)];
    std::copy(sa.data<float>(), sa.data<float>() + M, row_scale);
  }
  for (int64_t m = 0; m < M && !st.q.activation_per_row; ++m) {
    if (st.q.activation_zero_point_input < 0) {
      row_zero[m] = 0;
      continue;
    }
    const Tensor& za = call.in[size_t(st.q.activation_zero_point_input)];
    const double z = load_as_double(za.raw(), za.dtype, m);
    if (!(std::fabs(z) <= 255))  // the message only on failure: a run allocates nothing
      call.fail("activation zero point " + std::to_string(z) + " of row " + std::to_string(m) +
                " is outside the integer kernel's range [-255, 255]");
    row_zero[m] = int32_t(z);
  }
  QGemmEpilogue e;
  e.row_scale = row_scale;
  e.row_zero = row_zero;
  e.row_sum = row_sum;
  e.col_scale = st.col_scale.data();
  e.col_sum = st.col_sum.data();
  e.col_zero = st.has_col_zero ? st.col_zero.data() : nullptr;
  if (st.bias_input >= 0) {
    const float* b = call.in[size_t(st.bias_input)].data<float>();
    std::copy(b, b + N, st.bias.begin());
    e.bias = st.bias.data();
  }
  GemmEpilogue post = gemm_epilogue(call.epilogue, 0, N);
  post.act_row = unary_activation_row(call.epilogue);
  if (!post.trivial() || post.act_row) e.post = &post;
  gemm_s8w4(M, N, K, G, a, K, reinterpret_cast<const uint8_t*>(st.packed->data()), e, call.out[0].data<float>(), N);
  if (!post.act_row) apply_unary_activation(call.epilogue, call.out[0]);
}

// WebGPU (ops/webgpu.h gpu_qlinear): qlinear.wgsl reads qa, W and the zero points as bytes
// (GpuDispatch::packed_bytes) and sums each word's four products exactly in i32, as the CPU
// kernel sums its groups; the float steps after (group scale, row scale, bias) run in another
// order, so results agree to float rounding, not bit for bit. Load-time quantization keeps WASM:
// its int4 weights exist only in the CPU kernel's packed panels.
bool webgpu_linear_8da4w(const OpCall& call, GpuLowering& g) {
  const auto& st = call.state_as<Linear8da4wState>();
  gpu_need(!st.q.weight_from_float && !st.q.activation_per_row, "load-time int4 quantization (its weights are packed for the CPU)");
  const Tensor &x = call.in[0], &w = call.in[1], &y = call.out[0];
  gpu_need(gpu_dense_at_zero(y), "a strided output");
  gpu_need(x.offset % 4 == 0 && w.offset % 4 == 0, "an 8-bit operand that does not start at a whole word");
  if (y.numel() == 0) return true;
  const Tensor& ws = st.q.weight_scale;
  const Tensor& wz = st.q.weight_zero_point;
  const Tensor& as = call.in[size_t(st.q.activation_scale_input)];
  const Tensor az = st.q.activation_zero_point_input >= 0 ? call.in[size_t(st.q.activation_zero_point_input)] : Tensor{};
  GpuDispatch d;
  d.meta.u("k", st.K).u("g", st.G);
  d.meta.u("a_off", x.offset / 4).u("a_signed", x.dtype == DType::I8 ? 1 : 0).u("w_off", w.offset).u("w_signed", 1);
  d.packed_bytes = {1, 2};
  // torchao's int4 ([-8, 7] in int8 storage): the plan may hold it as nibbles (w_int4)
  if (st.q.weight_qmin >= -8 && st.q.weight_qmax <= 7 && st.K % 8 == 0 && w.offset % 8 == 0) d.nibbles = {{2, "w_int4"}};
  d.meta.u("ws_off", ws.offset).u("ws_n", st.groups).u("wz_kind", gpu_zero_point_kind(d, wz, 4));
  d.meta.u("wz_off", wz.defined() ? wz.offset : 0).u("wz_n", st.groups);
  d.meta.u("as_off", as.offset).u("as_rs", 1).u("az_kind", gpu_zero_point_kind(d, az, 6));
  d.meta.u("az_off", az.defined() ? az.offset : 0).u("az_rs", 1);
  d.bindings = {Tensor{}, x, w, ws, wz, as, az};
  gpu_qlinear(g, std::move(d), y, st.bias_input >= 0 ? call.in[size_t(st.bias_input)] : Tensor{}, !call.epilogue.empty(),
              st.M, st.N);
  return true;
}

}  // namespace

const OpDef* linear_8da4w_def() {
  static const OpDef def = [] {
    OpDef d{plan_linear_8da4w, run_linear_8da4w, prepare_linear_8da4w};
    d.traits.epilogue = EpilogueRole::Producer;
    d.traits.webgpu = webgpu_linear_8da4w;
    return d;
  }();
  return &def;
}

}  // namespace tir
