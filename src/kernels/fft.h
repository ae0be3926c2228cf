// Discrete Fourier transforms of one line, any length, computed in double:
// mixed radix (Stockham autosort; radix 4 and 2 butterflies, a generic
// small-prime butterfly for 3, 5, 7, ...) and Bluestein's chirp-z algorithm
// for lengths with a prime factor above kFftMaxRadix. A plan holds every
// twiddle (computed once, from exact integer angles), so executing it
// allocates nothing. fft_reference is the direct O(n^2) DFT for tests.
#pragma once
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/tensor.h"

namespace tir {

using cd = std::complex<double>;

// Largest prime factor done by the generic butterfly; above it: Bluestein.
constexpr int64_t kFftMaxRadix = 31;

struct FftPlan {
  int64_t n = 0;
  bool inverse = false;  // exp(+2 pi i jk / n), unnormalized
  // Mixed radix: radix of each stage, its twiddles ((p-1) * m per stage) and
  // the radix's own roots exp(-+2 pi i r / p), r < p.
  std::vector<int64_t> radix;
  std::vector<std::vector<cd>> twiddles;
  std::vector<std::vector<cd>> roots;
  // Bluestein (when `sub` is set): chirp w_j = exp(-+pi i j^2 / n), the
  // forward transform of the convolution kernel, and the length-m plans.
  std::vector<cd> chirp, kernel;
  std::unique_ptr<FftPlan> sub, sub_inv;
};

FftPlan make_fft_plan(int64_t n, bool inverse);
// Complex doubles of scratch fft_execute needs besides the data line.
int64_t fft_scratch_size(const FftPlan& plan);
// In-place transform of data[0..n) (unnormalized); scratch holds fft_scratch_size(plan).
void fft_execute(const FftPlan& plan, cd* data, cd* scratch);

// Direct DFT in double: out[k] = sum_j in[j] exp(-+2 pi i jk / n).
void fft_reference(const cd* in, cd* out, int64_t n, bool inverse);

// Transforms along one dim of strided tensors, line by line. `buf` holds
// fft_line_buffer(plan) complex doubles; every result is multiplied by `scale`.
int64_t fft_line_buffer(const FftPlan& plan);
// Complex -> complex (c64/c128; out may be in itself): plan.n = in.size(dim).
void fft_c2c_lines(const Tensor& in, const Tensor& out, int64_t dim, const FftPlan& plan, double scale, cd* buf);
// Real (f32/f64) -> complex: the first out.size(dim) bins of the length-n transform.
void fft_r2c_lines(const Tensor& in, const Tensor& out, int64_t dim, const FftPlan& plan, double scale, cd* buf);
// Complex -> real, inverse of a one-sided spectrum: out.size(dim) = plan.n;
// bins past in.size(dim) (at most n / 2 + 1 are read) are conj-symmetric or 0.
void fft_c2r_lines(const Tensor& in, const Tensor& out, int64_t dim, const FftPlan& plan, double scale, cd* buf);
// Short-time transform of real frames: out[b, f, t] (complex, f < out.size(1))
// = sum_k in[b, t * hop + k] * window[k] * exp(-2 pi i f k / n); in is [B, L];
// window (f32/f64, 1-d, at most plan.n entries: centered, zeros around it, as
// torch.stft's win_length) or undefined (all ones).
void stft_lines(const Tensor& in, const Tensor& window, const Tensor& out, int64_t hop, const FftPlan& plan,
                double scale, cd* buf);

}  // namespace tir
