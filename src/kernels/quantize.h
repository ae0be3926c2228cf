// Affine quantization as PyTorch's quantization ops compute it (torch.ao's
// quantized_decomposed.* and torchao's *_affine): the scalar reference rows that
// ops/quantize.cpp walks over blocks of a tensor. Every element reads its block's
// parameters through a parameter stride (0: the row shares one block).
//
// The rounding is torch.round's (half to even); the compute precision and the
// order of the steps follow each PyTorch op, since they decide ties:
//   quantize_per_tensor / per_channel / quantize_affine:
//       q = clamp(round(x * inv_scale) + zero_point, qmin, qmax)
//   quantize_per_token / per_channel_group:
//       q = clamp(round(x * inv_scale + zero_point), qmin, qmax)
// inv_scale is 1 / scale as PyTorch forms it (in float32 when the scale is a
// float32 tensor or a Python float used on a float32 tensor), precomputed by the
// caller. A NaN that reaches the integer cast gives 0 (what x86 and Arm
// conversions give for int8/uint8/int16 in PyTorch; C++ leaves it undefined).
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/dtype.h"

namespace tir {

enum class QuantOrder : uint8_t { RoundThenAddZeroPoint, AddZeroPointThenRound };

// Element i of an integer or floating array of dtype d, as float64 (exact for float32 and for
// integers below 2^53); 0 for other dtypes.
double load_as_double(const void* p, DType d, int64_t i);

// float -> integer as torch's .to() gives it for values inside T's range; NaN gives 0 and values
// past T's range saturate (C++ leaves both undefined).
template <typename T> T quantized_cast(double v) {
  if (std::isnan(v)) return T(0);
  if (v <= double(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (v >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return T(v);
}

struct QuantizeRowSpec {
  QuantOrder order = QuantOrder::RoundThenAddZeroPoint;
  bool compute_f64 = false;  // float64 arithmetic (a float64 scale promotes the product)
  double qmin = 0, qmax = 0;
  DType out = DType::I8;     // U8, I8, I16, I32, I64
};

// n elements: x[i * xs] (float32 or float64: x_f64), parameters inv_scale[i * ps] and
// zero_point[i * ps] (zero_point may be null: 0), out[i * os].
void quantize_row(const void* x, bool x_f64, int64_t xs, const double* inv_scale, const double* zero_point,
                  int64_t ps, int64_t n, const QuantizeRowSpec& spec, void* out, int64_t os);

struct DequantizeRowSpec {
  // q - zero_point in the compute type (torchao and dequantize_per_tensor convert
  // q first) or exactly (the per-channel/token/group ops subtract integers), then
  // times the scale, in float64 (compute_f64) or float32.
  bool subtract_in_float = false;
  bool compute_f64 = false;
  DType in = DType::I8;   // U8, I8, I16, I32, I64 (or F32: already float)
  DType out = DType::F32; // F32 or F64
  // The integer subtraction's type (torch's promotion of q and the zero point: int8 - int8
  // wraps in int8); F64 when the zero point is a float.
  DType diff = DType::I64;
  // F16/BF16: the product is rounded to that precision (a half scale times integers stays half).
  DType product = DType::F32;
};

void dequantize_row(const void* q, int64_t qs, const double* scale, const double* zero_point, int64_t ps,
                    int64_t n, const DequantizeRowSpec& spec, void* out, int64_t os);

// Running min and max per block: x[i * xs] into mn[i * ps] / mx[i * ps] (NaN
// propagates, as in torch.amin/amax).
void minmax_row(const void* x, bool x_f64, int64_t xs, int64_t n, double* mn, double* mx, int64_t ps);

// The SIMD rows of a dynamic int8 activation (kernels/quantize_simd.cpp), the same bits as the
// rows above on contiguous float32: the min and max of x (both NaN when x holds a NaN), and
// clamp(round(x * inv_scale) + zero_point, qmin, qmax) in float32 arithmetic as int16 (NaN -> 0).
void minmax_f32(const float* x, int64_t n, float* lo, float* hi);
void quantize_f32_i16(const float* x, int64_t n, float inv_scale, float zero_point, float qmin, float qmax,
                      int16_t* out);
// The same into int8, uint8 or int16 (false for another dtype): quantize_row's float32
// round-then-add-zero-point rows on contiguous data, as SIMD.
bool quantize_f32_row(const float* x, int64_t n, float inv_scale, float zero_point, float qmin, float qmax, DType out,
                      void* dst);
// minmax_row on one contiguous float32 run into one (mn, mx) pair, as SIMD.
void minmax_f32_into(const float* x, int64_t n, double* mn, double* mx);

// quantized_decomposed.choose_qparams.tensor's rule (torch.ao's determine_qparams, per tensor
// affine) from the input's min and max (finite; float32 arithmetic): the scale as the float64
// PyTorch returns and the zero point.
void choose_per_tensor_affine(float lo, float hi, int64_t qmin, int64_t qmax, float eps, double* scale,
                              int64_t* zero_point);

}  // namespace tir
