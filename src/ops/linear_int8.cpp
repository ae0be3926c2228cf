// aten.linear on PyTorch's quantized pattern, in integers: DQ(Q(x)) @ DQ(W)^T + b, with x
// quantized per tensor (static parameters, or chosen per run as
// quantized_decomposed.choose_qparams.tensor does) and W int8 per output channel (PT2E's
// XNNPACK-style quantizer). The quantization lowering (runtime/quant_lowering.cpp) hands the step
// its QuantizedOperands: in[0] is the float x itself, in[1] the int8 weight [N, K]. Prepare packs
// W once; run quantizes x with the quantize op's own arithmetic, sums the int8 products exactly
// in int32 and dequantizes in the tile store (ops/quantized_forms.h); relu / residual of the
// fusion pass follow (ops/epilogue.h). Load-time quantization (SessionOptions::weight_quantization
// 'int8') uses the same form on a float32 weight, quantized per channel at prepare, with each
// row of x quantized on its own.
#include <algorithm>
#include <memory>
#include <string>

#include "ops/epilogue.h"
#include "ops/quantized_forms.h"
#include "ops/webgpu.h"

namespace tir {
namespace {

struct LinearInt8State {
  QuantizedOperands q;
  int64_t M = 0, K = 0, N = 0, lda = 0;
  int ws_a = -1, ws_row_scale = -1, ws_row_zero = -1, ws_row_sum = -1;
  QuantizedWeights w;
};

void plan_linear_int8(OpCall& call) {
  call.check(call.quantized != nullptr, "the integer linear needs the quantization lowering's operands");
  call.expect_inputs(2, 3);
  const Tensor &x = call.in[0], &w = call.in[1];
  const bool from_float = call.quantized->weight_from_float;
  call.check(x.dtype == DType::F32 && x.is_contiguous() && x.dim() >= 1, "expects a contiguous float32 input");
  call.check(w.dtype == (from_float ? DType::F32 : DType::I8) && w.dim() == 2 && w.is_contiguous(),
             from_float ? "expects a contiguous float32 [out, in] weight" : "expects a contiguous int8 [out, in] weight");
  call.check(x.shape.back() == w.shape[1], "input features " + std::to_string(x.shape.back()) +
                                               " do not match the weight's " + std::to_string(w.shape[1]));
  auto st = std::make_shared<LinearInt8State>();
  st->q = *call.quantized;
  st->K = w.shape[1];
  st->N = w.shape[0];
  st->M = st->K > 0 ? x.numel() / st->K : 0;
  st->lda = (st->K + 1) / 2 * 2;
  check_quantized_gemm_range(call, st->K);
  call.check(!st->q.activation_per_row || st->K > 0, "no features to quantize per row");
  if (call.in.size() == 3) {
    const Tensor& b = call.in[2];
    call.check(b.dtype == DType::F32 && b.numel() == st->N && b.is_contiguous(),
               "expects a contiguous float32 bias of " + std::to_string(st->N) + " values");
  }
  if (call.out.empty() || !call.out[0].defined()) {  // the lowering keeps the linear's planned output
    Shape os = x.shape;
    os.back() = st->N;
    call.fresh(0, DType::F32, os);
  }
  const int64_t rows = std::max<int64_t>(st->M, 1);
  st->ws_a = int(call.add_workspace(DType::I16, {std::max<int64_t>(st->M * st->lda, 1)}));
  st->ws_row_scale = int(call.add_workspace(DType::F32, {rows}));
  st->ws_row_zero = int(call.add_workspace(DType::I32, {rows}));
  st->ws_row_sum = int(call.add_workspace(DType::I32, {rows}));
  call.state = std::move(st);
}

void prepare_linear_int8(OpCall& call) {
  auto& st = call.state_as<LinearInt8State>();
  if (!st.q.weight_from_float)
    return prepare_quantized_weights(call, st.q, call.in[1], "s8-panels-", call.in[1].data<int8_t>(), st.N, st.K, st.K,
                                     &st.w);
  // load-time quantization: int8 per output channel, symmetric
  std::vector<int8_t> q(size_t(st.N * st.K));
  std::vector<float> scales(size_t(st.N));
  const float* w = call.in[1].data<float>();
  for (int64_t n = 0; n < st.N; ++n) quantize_weight_block(w + n * st.K, st.K, -128, 127, q.data() + n * st.K, &scales[size_t(n)]);
  prepare_quantized_weights(call, st.q, call.in[1], "s8-from-f32-panels-", q.data(), st.N, st.K, st.K, &st.w,
                            scales.data());
}

void run_linear_int8(OpCall& call) {
  auto& st = call.state_as<LinearInt8State>();
  const float* x = call.in[0].data<float>();
  const int64_t M = st.M, K = st.K, N = st.N;
  int16_t* a = call.workspace[size_t(st.ws_a)].data<int16_t>();
  float* row_scale = call.workspace[size_t(st.ws_row_scale)].data<float>();
  int32_t* row_zero = call.workspace[size_t(st.ws_row_zero)].data<int32_t>();
  int32_t* row_sum = call.workspace[size_t(st.ws_row_sum)].data<int32_t>();
  const bool has_bias = call.in.size() == 3;
  if (has_bias) std::copy(call.in[2].data<float>(), call.in[2].data<float>() + N, st.w.bias.begin());
  const float* bias = has_bias ? st.w.bias.data() : nullptr;
  QGemmEpilogue e;
  if (st.q.activation_per_row) {
    quantize_activation_rows(call, st.q, x, M, K, a, st.lda, row_scale, row_zero);
    e = rows_epilogue(st.w, M, row_scale, row_zero, row_sum, a, st.lda, K, bias);
  } else {
    double scale;
    int64_t zero;
    activation_qparams(call, st.q, x, M * K, &scale, &zero);
    for (int64_t m = 0; m < M; ++m) {
      quantize_activation(st.q, scale, zero, x + m * K, K, a + m * st.lda);
      if (st.lda > K) a[m * st.lda + K] = 0;  // the last pair's second half
    }
    e = quantized_epilogue(st.w, M, scale, zero, row_scale, row_zero, row_sum, a, st.lda, K, bias);
  }
  // The fused residual and activation run inside the gemm, block by block (a smooth one where it
  // has a row kernel; else after it).
  GemmEpilogue post = gemm_epilogue(call.epilogue, 0, N);
  post.act_row = unary_activation_row(call.epilogue);
  if (!post.trivial() || post.act_row) e.post = &post;
  gemm_s8(M, N, K, a, st.lda, reinterpret_cast<const int16_t*>(st.w.packed->data()), e, call.out[0].data<float>(), N);
  if (!post.act_row) apply_unary_activation(call.epilogue, call.out[0]);
}

// WebGPU: x is quantized into an int8 GPU scratch by quantize_blocks.wgsl, with PT2E's static
// parameters or, for the dynamic flow, those choose_qparams_rows.wgsl picks over the whole input
// (one row: choose_per_tensor_affine's float32 steps); then qlinear.wgsl (ops/webgpu.h
// gpu_qlinear) with the per-tensor activation and per-channel weight parameters. A NaN or
// infinity in x cannot fail a GPU run as it fails the CPU's: the outputs are NaN instead.
// Load-time quantization keeps WASM (its weights exist only in the CPU kernel's packed form).
bool webgpu_linear_int8(const OpCall& call, GpuLowering& g) {
  const auto& st = call.state_as<LinearInt8State>();
  const QuantizedOperands& q = st.q;
  gpu_need(!q.weight_from_float && !q.activation_per_row, "load-time int8 quantization (its weights are packed for the CPU)");
  const Tensor &x = call.in[0], &w = call.in[1], &y = call.out[0];
  gpu_need(gpu_dense_at_zero(y), "a strided output");
  gpu_need(st.K > 0 && st.K % 4 == 0 && w.offset % 4 == 0, "rows of 8-bit values that are not whole words");
  gpu_need(q.dynamic || q.scale != 0, "a static activation scale of 0 (the CPU raises)");
  const Tensor& ws = q.weight_scale;
  const Tensor& wz = q.weight_zero_point;
  gpu_need(ws.defined() && ws.dtype == DType::F32 && ws.is_contiguous() && (ws.numel() == st.N || ws.numel() == 1) &&
               (!wz.defined() || (wz.is_contiguous() && wz.numel() == ws.numel())),
           "weight parameters that are not float32 tensors per channel or per tensor");
  if (y.numel() == 0) return true;
  const int64_t numel = st.M * st.K;
  const Tensor qa = gpu_scratch(q.qdtype, numel, "quantized activation");
  const double qmin = double(q.qmin), qmax = double(q.qmax);
  GpuDispatch d;
  if (q.dynamic) {
    const Tensor scale = gpu_scratch(DType::F32, 1, "activation scale"), zero = gpu_scratch(DType::I32, 1, "activation zero point");
    g.dispatches.push_back(gpu_choose_rows(scale, zero, x, 1, numel, qmin, qmax, double(float(q.eps))));
    g.dispatches.push_back(gpu_quantize_blocks(qa, x, numel, qmin, qmax, scale, zero));
    d.meta.u("as_off", 0).u("as_rs", 0).u("az_kind", gpu_zero_point_kind(d, zero, 6)).u("az_off", 0).u("az_rs", 0);
    d.bindings = {Tensor{}, qa, w, ws, wz, scale, zero};
  } else {
    // quantize_per_tensor's float32(1.0 / scale) of a Python-float scale, formed in float64
    GpuDispatch quant = gpu_quantize_blocks(qa, x, numel, qmin, qmax, Tensor{}, Tensor{});
    quant.meta.u("params_meta", 1).f("inv", double(float(1.0 / q.scale))).f("zero", double(q.zero_point));
    g.dispatches.push_back(std::move(quant));
    d.meta.u("as_meta", 1).f("a_scale", double(float(q.scale))).u("az_kind", 4).f("a_zero", double(q.zero_point));
    d.bindings = {Tensor{}, qa, w, ws, wz, Tensor{}, Tensor{}};
  }
  d.meta.u("k", st.K).u("g", st.K).u("a_off", 0).u("a_signed", q.qdtype == DType::I8 ? 1 : 0);
  d.meta.u("w_off", w.offset).u("w_signed", 1);
  d.packed_bytes.push_back(1);
  d.packed_bytes.push_back(2);
  const int64_t per_channel = ws.numel() == 1 ? 0 : 1;
  d.meta.u("ws_off", ws.offset).u("ws_n", per_channel).u("wz_kind", gpu_zero_point_kind(d, wz, 4));
  d.meta.u("wz_off", wz.defined() ? wz.offset : 0).u("wz_n", per_channel);
  gpu_qlinear(g, std::move(d), y, call.in.size() == 3 ? call.in[2] : Tensor{}, !call.epilogue.empty(), st.M, st.N);
  return true;
}

}  // namespace

const OpDef* linear_int8_def() {
  static const OpDef def = [] {
    OpDef d{plan_linear_int8, run_linear_int8, prepare_linear_int8};
    d.traits.epilogue = EpilogueRole::Producer;
    d.traits.webgpu = webgpu_linear_int8;
    return d;
  }();
  return &def;
}

}  // namespace tir
