// Scalar reference rows of PyTorch's affine quantization (see quantize.h).
#include "kernels/quantize.h"

#include <cmath>

#include "core/half.h"

namespace tir {
namespace {

// torch.round: half to even (the default rounding mode; WASM's f32.nearest).
template <typename C> C round_half_even(C v) { return std::nearbyint(v); }

template <typename C, typename X, typename Q>
void quantize_row_t(const X* x, int64_t xs, const double* inv, const double* zp, int64_t ps, int64_t n,
                    const QuantizeRowSpec& spec, Q* out, int64_t os) {
  const C lo = C(spec.qmin), hi = C(spec.qmax);
  if (ps == 0 && xs == 1 && os == 1) {  // one block's contiguous run: the loop the compiler vectorizes
    const C s = C(inv[0]), z = zp ? C(zp[0]) : C(0);
    const bool round_first = spec.order == QuantOrder::RoundThenAddZeroPoint;
    for (int64_t i = 0; i < n; ++i) {
      const C v = C(x[i]) * s;
      C r = round_first ? round_half_even(v) + z : round_half_even(v + z);
      r = r < lo ? lo : r;
      r = r > hi ? hi : r;
      out[i] = Q(r == r ? r : C(0));  // inside Q's range; NaN gives 0
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    const C z = zp ? C(zp[i * ps]) : C(0);
    const C v = C(x[i * xs]) * C(inv[i * ps]);
    C r = spec.order == QuantOrder::RoundThenAddZeroPoint ? round_half_even(v) + z : round_half_even(v + z);
    // torch.clamp: NaN stays NaN
    if (r < lo) r = lo;
    if (r > hi) r = hi;
    out[i * os] = quantized_cast<Q>(double(r));  // r is inside [qmin, qmax], a subrange of Q
  }
}

template <typename C, typename X>
void quantize_row_x(const X* x, int64_t xs, const double* inv, const double* zp, int64_t ps, int64_t n,
                    const QuantizeRowSpec& spec, void* out, int64_t os) {
  switch (spec.out) {
    case DType::U8: return quantize_row_t<C>(x, xs, inv, zp, ps, n, spec, static_cast<uint8_t*>(out), os);
    case DType::I8: return quantize_row_t<C>(x, xs, inv, zp, ps, n, spec, static_cast<int8_t*>(out), os);
    case DType::I16: return quantize_row_t<C>(x, xs, inv, zp, ps, n, spec, static_cast<int16_t*>(out), os);
    case DType::I32: return quantize_row_t<C>(x, xs, inv, zp, ps, n, spec, static_cast<int32_t*>(out), os);
    case DType::I64: return quantize_row_t<C>(x, xs, inv, zp, ps, n, spec, static_cast<int64_t*>(out), os);
    default: return;  // the op checks the dtype at plan
  }
}

template <typename T> double load_element(const void* p, int64_t i) { return double(static_cast<const T*>(p)[i]); }

// q - zero_point as torch computes it in the promoted integer type (wrapping).
int64_t saturate_int64(double v) {
  if (!(v > -9.2233720368547758e18)) return INT64_MIN;  // NaN too
  if (v >= 9.2233720368547758e18) return INT64_MAX;
  return int64_t(v);
}

double integer_difference(double q, double z, DType t) {
  // in unsigned arithmetic: torch's int64 subtraction wraps
  const int64_t d = int64_t(uint64_t(saturate_int64(q)) - uint64_t(saturate_int64(z)));
  switch (t) {
    case DType::U8: return double(uint8_t(d));
    case DType::I8: return double(int8_t(d));
    case DType::I16: return double(int16_t(d));
    case DType::I32: return double(int32_t(d));
    case DType::I64: return double(d);
    default: return q - z;  // a float zero point
  }
}

// One block's contiguous run of Q values, subtracting in C (exact for 8/16-bit data).
template <typename C, typename Q, typename O>
void dequantize_run(const Q* q, C s, C z, int64_t n, O* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = O((C(q[i]) - z) * s);
}

template <typename C, typename O>
void dequantize_row_t(const void* q, int64_t qs, const double* scale, const double* zp, int64_t ps, int64_t n,
                      const DequantizeRowSpec& spec, O* out, int64_t os) {
  const bool wraps = !spec.subtract_in_float && (spec.diff == DType::I8 || spec.diff == DType::U8);
  if (ps == 0 && qs == 1 && os == 1 && spec.product == DType::F32 && !wraps &&
      (spec.in == DType::I8 || spec.in == DType::U8)) {
    // int8/uint8 minus an integer zero point, in a type that does not wrap: the same value
    // whichever way it is subtracted
    const double z = zp ? zp[0] : 0.0;
    if (z == std::nearbyint(z) && std::fabs(z) < 65536) {
      if (spec.in == DType::I8) return dequantize_run<C>(static_cast<const int8_t*>(q), C(scale[0]), C(z), n, out);
      return dequantize_run<C>(static_cast<const uint8_t*>(q), C(scale[0]), C(z), n, out);
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    const double qv = load_as_double(q, spec.in, i * qs);
    const double z = zp ? zp[i * ps] : 0.0;
    // Both forms are exact for the integer ranges of 8/16-bit data; they differ
    // (as in PyTorch) only where a float32 cannot hold q or the zero point.
    const C d = spec.subtract_in_float ? C(qv) - C(z) : C(integer_difference(qv, z, spec.diff));
    const C y = d * C(scale[i * ps]);
    out[i * os] = spec.product == DType::F32 ? O(y) : O(round_to_precision(float(y), spec.product));
  }
}

}  // namespace

double load_as_double(const void* p, DType d, int64_t i) {
  switch (d) {
    case DType::U8: return load_element<uint8_t>(p, i);
    case DType::I8: return load_element<int8_t>(p, i);
    case DType::I16: return load_element<int16_t>(p, i);
    case DType::I32: return load_element<int32_t>(p, i);
    case DType::I64: return load_element<int64_t>(p, i);
    case DType::F32: return load_element<float>(p, i);
    case DType::F64: return load_element<double>(p, i);
    default: return 0;
  }
}

void quantize_row(const void* x, bool x_f64, int64_t xs, const double* inv_scale, const double* zero_point,
                  int64_t ps, int64_t n, const QuantizeRowSpec& spec, void* out, int64_t os) {
  if (x_f64) return quantize_row_x<double>(static_cast<const double*>(x), xs, inv_scale, zero_point, ps, n, spec, out, os);
  const float* xf = static_cast<const float*>(x);
  if (spec.compute_f64) return quantize_row_x<double>(xf, xs, inv_scale, zero_point, ps, n, spec, out, os);
  quantize_row_x<float>(xf, xs, inv_scale, zero_point, ps, n, spec, out, os);
}

void dequantize_row(const void* q, int64_t qs, const double* scale, const double* zero_point, int64_t ps,
                    int64_t n, const DequantizeRowSpec& spec, void* out, int64_t os) {
  if (spec.out == DType::F64) {
    if (spec.compute_f64) return dequantize_row_t<double>(q, qs, scale, zero_point, ps, n, spec, static_cast<double*>(out), os);
    return dequantize_row_t<float>(q, qs, scale, zero_point, ps, n, spec, static_cast<double*>(out), os);
  }
  if (spec.compute_f64) return dequantize_row_t<double>(q, qs, scale, zero_point, ps, n, spec, static_cast<float*>(out), os);
  dequantize_row_t<float>(q, qs, scale, zero_point, ps, n, spec, static_cast<float*>(out), os);
}

void minmax_row(const void* x, bool x_f64, int64_t xs, int64_t n, double* mn, double* mx, int64_t ps) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x_f64 ? static_cast<const double*>(x)[i * xs] : double(static_cast<const float*>(x)[i * xs]);
    double& lo = mn[i * ps];
    double& hi = mx[i * ps];
    if (std::isnan(v) || std::isnan(lo)) lo = std::isnan(v) ? v : lo;
    else if (v < lo) lo = v;
    if (std::isnan(v) || std::isnan(hi)) hi = std::isnan(v) ? v : hi;
    else if (v > hi) hi = v;
  }
}

void choose_per_tensor_affine(float lo, float hi, int64_t qmin, int64_t qmax, float eps, double* scale,
                              int64_t* zero_point) {
  const float min_neg = std::fmin(lo, 0.0f), max_pos = std::fmax(hi, 0.0f);
  float s = (max_pos - min_neg) / float(qmax - qmin);
  if (s < eps) s = eps;  // torch.max(scale, eps)
  float z = float(qmin) - std::nearbyint(min_neg / s);
  z = std::fmin(std::fmax(z, float(qmin)), float(qmax));
  *scale = double(s);
  *zero_point = int64_t(z);
}

}  // namespace tir
