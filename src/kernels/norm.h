// Normalization kernels over contiguous data. Scalar reference code;
// statistics are accumulated in double (two passes) so they stay within
// float rounding of torch's. Instantiated for float and double.
#pragma once
#include <cstdint>

namespace tir {

// Rows of length n: y = (x - mean) * rstd * w + b, rstd = 1/sqrt(biased var + eps).
// w, b (length n) may be null; mean/rstd (one per row) may be null. y may equal x.
template <typename T>
void layer_norm_rows(const T* x, const T* w, const T* b, T* y, T* mean, T* rstd, int64_t rows, int64_t n,
                     double eps);

// Rows of length n: y = x * rsqrt(mean(x^2) + eps) * w; w may be null.
template <typename T>
void rms_norm_rows(const T* x, const T* w, T* y, int64_t rows, int64_t n, double eps);

// x, y [N, C, inner]: y = x * scale[c] + shift[c].
template <typename T>
void channel_affine(const T* x, const T* scale, const T* shift, T* y, int64_t N, int64_t C, int64_t inner);

// Per-channel mean and biased variance of x [N, C, inner] over N and inner.
template <typename T>
void channel_moments(const T* x, int64_t N, int64_t C, int64_t inner, double* mean, double* var);

// x, y [N, C, HxW]; statistics per (n, group of C/G channels); w, b per channel
// (may be null); mean/rstd [N*G] may be null.
template <typename T>
void group_norm(const T* x, const T* w, const T* b, T* y, T* mean, T* rstd, int64_t N, int64_t C, int64_t HxW,
                int64_t G, double eps);

}  // namespace tir
