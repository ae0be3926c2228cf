// WebGPU lowering of the short-time Fourier transform (stft.wgsl, Whisper's log-mel front end).
// Its complex64 output lives on the GPU as float32 pairs (gpu_complex_as_pairs); the magnitude
// after it is abs's lowering (webgpu_elementwise.cpp).
#include <cmath>

#include "ops/webgpu.h"

namespace tir {
namespace {

// stft with stft.default's parameters and ops/fft.cpp's defaults (hop n_fft / 4, win_length
// n_fft, onesided, no normalization), float32 signals and windows.
bool lower_stft(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor w = c.in.size() > 1 ? c.in[1] : Tensor{};
  const Tensor& out = c.out[0];
  if (x.dtype != DType::F32 || (w.defined() && w.dtype != DType::F32)) return false;
  if (out.dtype != DType::C64 && out.dtype != DType::F32) return false;
  if (out.numel() == 0) return true;
  const int64_t n_fft = c.i("n_fft");
  gpu_need(n_fft < (int64_t(1) << 24), "an n_fft past 2^24");
  const int64_t hop = c.i("hop_length", n_fft / 4);
  const Tensor y = out.dtype == DType::C64 ? gpu_complex_as_pairs(out) : out;
  gpu_need(gpu_dense_at_zero(y), "a strided stft output");
  const bool batched = x.dim() == 2;
  const int64_t bins = y.shape[y.shape.size() - 3], frames = y.shape[y.shape.size() - 2];
  GpuDispatch d;
  d.kernel = "stft";
  d.meta.u("numel", y.numel() / 2).u("bins", bins).u("frames", frames).u("n_fft", n_fft).u("hop", hop);
  d.meta.u("x_off", x.offset).u("x_bs", batched ? x.strides[0] : 0).u("x_s", x.strides.back());
  if (w.defined()) {
    d.meta.u("has_w", 1).u("win", w.shape[0]).u("w_left", (n_fft - w.shape[0]) / 2).u("w_off", w.offset).u("w_s", w.strides[0]);
  }
  d.meta.f("scale", c.b("normalized", false) ? 1.0 / std::sqrt(double(n_fft)) : 1.0);
  d.bindings = {y, x, w};
  d.types = {{"Y", "f32"}, {"X", "f32"}, {"W", "f32"}};
  gpu_grid(d, (y.numel() / 2 + 63) / 64);
  g.dispatches.push_back(d);
  return true;
}

}  // namespace

TIR_REGISTER_WEBGPU({"aten.stft.default", lower_stft});

}  // namespace tir
