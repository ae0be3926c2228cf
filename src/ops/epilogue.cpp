#include "ops/epilogue.h"

#include <cmath>

namespace tir {

namespace {
std::vector<double> channel_values(const Tensor& t, int64_t channels, double missing) {
  std::vector<double> v(size_t(channels), missing);
  if (!t.defined()) return v;
  const float* p = t.data<float>();
  for (int64_t c = 0; c < channels; ++c) v[size_t(c)] = p[c * t.strides[0]];
  return v;
}
}  // namespace

void fill_batch_norm_affine(const FusedEpilogue& e, int64_t channels, float* dst) {
  const auto w = channel_values(e.bn_weight, channels, 1.0), b = channel_values(e.bn_bias, channels, 0.0);
  const auto mean = channel_values(e.bn_mean, channels, 0.0), var = channel_values(e.bn_var, channels, 1.0);
  for (size_t c = 0; c < size_t(channels); ++c) {
    const double alpha = w[c] / std::sqrt(var[c] + e.bn_eps);
    dst[c] = float(alpha);
    dst[size_t(channels) + c] = float(b[c] - mean[c] * alpha);
  }
}

GemmEpilogue gemm_epilogue(const FusedEpilogue& e, int64_t residual_offset, int64_t ldr) {
  GemmEpilogue g;
  if (e.residual.defined()) {
    g.residual = e.residual.data<float>() + residual_offset;
    g.ldr = ldr;
  }
  if (e.act == FusedEpilogue::Act::Relu) g.act = GemmAct::Relu;
  if (e.act == FusedEpilogue::Act::Clamp) {
    g.act = GemmAct::Clamp;
    g.lo = float(e.lo);
    g.hi = float(e.hi);
  }
  return g;
}

void apply_epilogue(const FusedEpilogue& e, const Tensor& y) {
  if (e.empty()) return;
  float* p = y.data<float>();
  const int64_t n = y.numel();
  if (e.has_bn) {
    const int64_t C = y.shape[1], inner = n / std::max<int64_t>(y.shape[0] * C, 1);
    const float* scale = e.bn_affine.data<float>();
    const float* shift = scale + C;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = (i / inner) % C;
      p[i] = p[i] * scale[c] + shift[c];
    }
  }
  const GemmEpilogue g = gemm_epilogue(e, 0, n);
  apply_gemm_epilogue_ref(1, n, p, n, g);
  apply_unary_activation(e, y);
}

const char* epilogue_unary_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Gelu: return "gelu";
    case UnaryOp::GeluTanh: return "gelu_tanh";
    case UnaryOp::Silu: return "silu";
    case UnaryOp::Sigmoid: return "sigmoid";
    case UnaryOp::Tanh: return "tanh";
    case UnaryOp::Hardswish: return "hardswish";
    case UnaryOp::Hardsigmoid: return "hardsigmoid";
    default: return nullptr;
  }
}

void apply_unary_activation(const FusedEpilogue& e, const Tensor& y) {
  if (e.act == FusedEpilogue::Act::Unary) unary_kernel(e.unary, y, y);
}

UnaryRowF32 unary_activation_row(const FusedEpilogue& e) {
  return e.act == FusedEpilogue::Act::Unary ? unary_row_f32(e.unary) : nullptr;
}

}  // namespace tir
