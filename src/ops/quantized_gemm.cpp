// The int8 GEMM plumbing the integer forms share (ops/quantized_forms.h).
#include <cmath>
#include <limits>
#include <string>

#include "kernels/quantize.h"
#include "ops/quantized_forms.h"

namespace tir {

namespace {
// A constant parameter tensor's value for channel n (one value: for every channel).
double param_at(const Tensor& t, int64_t n) {
  const int64_t i = t.numel() == 1 ? 0 : n;
  return load_as_double(t.raw(), t.dtype, t.dim() == 0 ? 0 : i * t.strides.back());
}
}  // namespace

void check_quantized_gemm_range(const OpCall& call, int64_t K) {
  const QuantizedOperands& q = *call.quantized;
  call.check(K <= 32768, "K = " + std::to_string(K) + " is past the int8 GEMM's exact int32 range");
  // an int8 or a uint8 range (the relaxed-SIMD kernel takes the values as bytes: gemm_s8_a_offset)
  const bool int8_range = q.qmin >= -128 && q.qmax <= 127, uint8_range = q.qmin >= 0 && q.qmax <= 255;
  call.check((int8_range || uint8_range) && q.zero_point >= -255 && q.zero_point <= 255,
             "the activation's quantization range or zero point is past the int8 GEMM's");
}

void prepare_quantized_weights(OpCall& call, const QuantizedOperands& q, const Tensor& weight, const std::string& layout,
                               const int8_t* wd, int64_t N, int64_t K, int64_t ldw, QuantizedWeights* out,
                               const float* col_scales) {
  const int64_t nr = gemm_s8_nr();
  const int64_t npad = (N + nr - 1) / nr * nr;
  out->packed = call.prepare_ctx->derived_half(weight, layout + std::to_string(nr), [&](std::vector<uint16_t>& v) {
    v.assign(size_t(std::max<int64_t>(packed_b_s8_size(K, N), 1)), 0);
    pack_b_s8(K, N, wd, ldw, reinterpret_cast<int16_t*>(v.data()));
  });
  out->col_scale.assign(size_t(npad), 0.0f);
  out->col_sum.assign(size_t(npad), 0);
  out->col_zero.assign(size_t(npad), 0);
  out->bias.assign(size_t(npad), 0.0f);
  out->has_col_zero = false;
  out->a_offset = gemm_s8_a_offset(q.qmin);
  for (int64_t n = 0; n < N; ++n) {
    int32_t s = 0;
    for (int64_t k = 0; k < K; ++k) s += wd[n * ldw + k];
    out->col_sum[size_t(n)] = s;
    // dequantize_per_channel multiplies by the scale in its own dtype: a float32 one as is
    out->col_scale[size_t(n)] = col_scales ? col_scales[n]
                                : float(q.weight_scale.defined() ? param_at(q.weight_scale, n) : q.weight_scale_value);
    const double z = col_scales                    ? 0.0
                     : q.weight_zero_point.defined() ? param_at(q.weight_zero_point, n)
                                                     : double(q.weight_zero_point_value);
    // the int32 sums hold for zero points of 8-bit data
    call.check(z >= -255 && z <= 255, "weight zero point " + std::to_string(z) + " of channel " + std::to_string(n) +
                                          " is outside the integer kernel's range [-255, 255]");
    out->col_zero[size_t(n)] = int32_t(z);
    out->has_col_zero = out->has_col_zero || z != 0;
  }
}

void activation_qparams(const OpCall& call, const QuantizedOperands& q, const float* x, int64_t n, double* scale,
                        int64_t* zero_point) {
  *scale = q.scale;
  *zero_point = q.zero_point;
  // run-time checks build their message only on failure: a run allocates nothing
  if (q.dynamic) {  // choose_qparams.tensor: the min and max of the whole input
    if (n <= 0) call.fail("cannot choose quantization parameters for an empty input (torch.aminmax fails)");
    float lo, hi;
    minmax_f32(x, n, &lo, &hi);
    if (!std::isfinite(lo) || !std::isfinite(hi))
      call.fail("cannot choose quantization parameters: the input holds NaN or infinity");
    choose_per_tensor_affine(lo, hi, q.qmin, q.qmax, float(q.eps), scale, zero_point);
  }
  if (*scale == 0) call.fail("scale is 0 (PyTorch raises ZeroDivisionError for 1.0 / scale)");
}

void quantize_activation(const QuantizedOperands& q, double scale, int64_t zero_point, const float* x, int64_t n,
                         int16_t* out, int64_t out_stride) {
  // clamp(round(x * float32(1.0 / scale)) + zero_point), quantize_per_tensor's float32 arithmetic
  if (out_stride == 1)
    return quantize_f32_i16(x, n, float(1.0 / scale), float(zero_point), float(q.qmin), float(q.qmax), out);
  QuantizeRowSpec spec;
  spec.qmin = double(q.qmin);
  spec.qmax = double(q.qmax);
  spec.out = DType::I16;
  const double inv = 1.0 / scale, z = double(zero_point);
  quantize_row(x, false, 1, &inv, &z, 0, n, spec, out, out_stride);
}

void quantize_activation_rows(const OpCall& call, const QuantizedOperands& q, const float* x, int64_t M, int64_t K,
                              int16_t* A, int64_t lda, float* row_scale, int32_t* row_zero) {
  for (int64_t m = 0; m < M; ++m) {
    float lo, hi;
    minmax_f32(x + m * K, K, &lo, &hi);
    if (!std::isfinite(lo) || !std::isfinite(hi))
      call.fail("cannot quantize row " + std::to_string(m) + " of the input: it holds NaN or infinity");
    double scale;
    int64_t zero;
    choose_per_tensor_affine(lo, hi, q.qmin, q.qmax, float(q.eps), &scale, &zero);
    quantize_activation(q, scale, zero, x + m * K, K, A + m * lda);
    if (lda > K) A[m * lda + K] = 0;  // the last pair's second half
    row_scale[m] = float(scale);
    row_zero[m] = int32_t(zero);
  }
}

void quantize_weight_block(const float* w, int64_t n, int64_t qmin, int64_t qmax, int8_t* q, float* scale) {
  float amax = 0;
  for (int64_t i = 0; i < n; ++i) amax = std::fmax(amax, std::fabs(w[i]));
  const float s = std::fmax(amax / (float(qmax - qmin) / 2.0f), std::numeric_limits<float>::epsilon());
  QuantizeRowSpec spec;
  spec.qmin = double(qmin);
  spec.qmax = double(qmax);
  spec.out = DType::I8;
  const double inv = 1.0 / double(s);
  quantize_row(w, false, 1, &inv, nullptr, 0, n, spec, q, 1);
  *scale = s;
}

QGemmEpilogue quantized_epilogue(const QuantizedWeights& w, int64_t M, double scale, int64_t zero_point,
                                 float* row_scale, int32_t* row_zero, int32_t* row_sum, const int16_t* A,
                                 int64_t lda, int64_t K, const float* bias) {
  for (int64_t m = 0; m < M; ++m) {
    row_scale[m] = float(scale);  // dequantize_per_tensor multiplies by float32(scale)
    row_zero[m] = int32_t(zero_point);
  }
  return rows_epilogue(w, M, row_scale, row_zero, row_sum, A, lda, K, bias);
}

QGemmEpilogue rows_epilogue(const QuantizedWeights& w, int64_t M, const float* row_scale, const int32_t* row_zero,
                            int32_t* row_sum, const int16_t* A, int64_t lda, int64_t K, const float* bias) {
  for (int64_t m = 0; m < M; ++m) {
    if (w.has_col_zero) {
      int32_t s = 0;
      for (int64_t k = 0; k < K; ++k) s += A[m * lda + k];
      row_sum[m] = s;
    }
  }
  QGemmEpilogue e;
  e.row_scale = row_scale;
  e.row_zero = row_zero;
  e.row_sum = row_sum;
  e.col_scale = w.col_scale.data();
  e.col_sum = w.col_sum.data();
  e.col_zero = w.has_col_zero ? w.col_zero.data() : nullptr;
  e.bias = bias;
  e.a_offset = w.a_offset;
  return e;
}

}  // namespace tir
