// The integer forms that the quantization lowering (runtime/quant_lowering.cpp) switches a
// step to (OpTraits::quantized_form): aten.linear (ops/linear_int8.cpp) and aten.conv2d
// (ops/conv_int8.cpp), over the shared int8 GEMM plumbing below.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/gemm_s8.h"
#include "ops/op.h"

namespace tir {

const OpDef* linear_int8_def();
const OpDef* linear_8da4w_def();
const OpDef* conv2d_int8_def();

// The int8 weight [N, K] packed once for gemm_s8, with its per-column terms (padded to whole
// panels; kernels/gemm_s8.h).
struct QuantizedWeights {
  std::shared_ptr<const std::vector<uint16_t>> packed;  // int16 panels, shared by tied weights
  std::vector<float> col_scale, bias;
  std::vector<int32_t> col_sum, col_zero;
  bool has_col_zero = false;
  int32_t a_offset = 128;  // QGemmEpilogue::a_offset of the activations' range
};

// Whether the int8 GEMM's int32 sums hold for this call: K <= 32768 and the activation's static
// zero point inside its 8-bit range (the plan fails otherwise: the step keeps the reference ops).
void check_quantized_gemm_range(const OpCall& call, int64_t K);

// Packs the int8 rows wd + n * ldw (n < N, K values each) with the operands' scales and zero
// points; the pack is shared per (weight tensor, layout) by tied weights.
// col_scales, when given, are the weight's scales (zero points 0) instead of the operands'.
void prepare_quantized_weights(OpCall& call, const QuantizedOperands& q, const Tensor& weight, const std::string& layout,
                               const int8_t* wd, int64_t N, int64_t K, int64_t ldw, QuantizedWeights* out,
                               const float* col_scales = nullptr);

// The activation's (scale, zero point): the static ones, or chosen from x[0, n) as
// quantized_decomposed.choose_qparams.tensor does (errors name the node).
void activation_qparams(const OpCall& call, const QuantizedOperands& q, const float* x, int64_t n, double* scale,
                        int64_t* zero_point);

// quantize_per_tensor's arithmetic on n floats into int16 out[i * out_stride] (values in
// [qmin, qmax]).
void quantize_activation(const QuantizedOperands& q, double scale, int64_t zero_point, const float* x, int64_t n,
                         int16_t* out, int64_t out_stride = 1);

// QuantizedOperands::activation_per_row: each of the M rows of x (K floats) gets its own
// (scale, zero point) by choose_qparams.tensor's rule and is quantized into A + m * lda.
void quantize_activation_rows(const OpCall& call, const QuantizedOperands& q, const float* x, int64_t M, int64_t K,
                              int16_t* A, int64_t lda, float* row_scale, int32_t* row_zero);

// Symmetric quantization of a float32 weight at prepare (QuantizedOperands::weight_from_float),
// per block of n contiguous values: scale = max(max |w| / ((qmax - qmin) / 2), float32 eps),
// q = clamp(round(w * (1 / scale)), qmin, qmax) in quantize_per_channel's arithmetic.
void quantize_weight_block(const float* w, int64_t n, int64_t qmin, int64_t qmax, int8_t* q, float* scale);

// The gemm_s8 epilogue for activations whose rows' scales and zero points are filled in.
QGemmEpilogue rows_epilogue(const QuantizedWeights& w, int64_t M, const float* row_scale, const int32_t* row_zero,
                            int32_t* row_sum, const int16_t* A, int64_t lda, int64_t K, const float* bias);

// The gemm_s8 epilogue for per-tensor activations: every row's (scale, zero point) into the
// arrays given (M entries each), columns from the prepared weights, bias (padded) or null. With
// asymmetric weights, row_sum[m] must hold sum_k A[m, k] of the rows of A (lda apart).
QGemmEpilogue quantized_epilogue(const QuantizedWeights& w, int64_t M, double scale, int64_t zero_point,
                                 float* row_scale, int32_t* row_zero, int32_t* row_sum, const int16_t* A,
                                 int64_t lda, int64_t K, const float* bias);

}  // namespace tir
