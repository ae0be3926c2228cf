// WebGPU lowerings of pooling, upsampling, normalization, softmax, cat and attention (f32;
// the matmul family and convolution: webgpu_gemm.cpp). Parameters are the ones the CPU op
// files read, with their defaults; every layout a kernel does not take (a strided weight, rank
// past the kernel's) declines the node.
#include <algorithm>
#include <cmath>

#include "ops/webgpu.h"

namespace tir {
namespace {

// max_pool2d (mode 0), avg_pool2d (1), adaptive_avg_pool2d (2) on [N, C, H, W]. The kernel
// does not make max_pool2d_with_indices' indices: the plan keeps that node on WASM when they
// are read (torch 1.13's decompositions read only the values).
bool pool(const OpCall& c, GpuLowering& g, int mode) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (x.dtype != DType::F32 || y.dtype != DType::F32 || x.dim() != 4 || c.out.size() > (mode == 0 ? 2u : 1u)) return false;
  if (!gpu_dense_at_zero(y)) return false;
  if (y.numel() == 0) return true;
  std::vector<int64_t> k{1, 1}, s{1, 1}, p{0, 0}, dil{1, 1};
  int64_t include_pad = 1, divisor = 0;
  if (mode != 2) {
    k = c.ints("kernel_size", std::nullopt, 2);
    s = c.ints("stride", std::vector<int64_t>{}, 2);
    if (s.empty()) s = k;
    p = c.ints("padding", std::vector<int64_t>{0, 0}, 2);
    if (mode == 0) dil = c.ints("dilation", std::vector<int64_t>{1, 1}, 2);
    if (mode == 1) {
      include_pad = c.b("count_include_pad", true) ? 1 : 0;
      if (c.has("divisor_override")) divisor = c.i("divisor_override");
    }
  }
  GpuDispatch d;
  d.kernel = "pool2d";
  d.subst = {{"MODE", std::to_string(mode)}};
  d.meta.u("numel", y.numel()).u("nc", x.shape[0] * x.shape[1]).u("c", x.shape[1]).u("h", x.shape[2]).u("w", x.shape[3]);
  d.meta.u("oh", y.shape[2]).u("ow", y.shape[3]).u("kh", k[0]).u("kw", k[1]).u("sh", s[0]).u("sw", s[1]);
  d.meta.u("ph", p[0]).u("pw", p[1]).u("dh", dil[0]).u("dw", dil[1]).u("count_include_pad", include_pad);
  d.meta.u("divisor", divisor).u("x_off", x.offset).us("x_strides", x.strides);
  d.bindings = {y, x};
  d.names = {"Y", "X"};
  gpu_grid(d, (y.numel() + 63) / 64);
  g.dispatches.push_back(d);
  return true;
}
bool lower_max_pool2d(const OpCall& c, GpuLowering& g) { return pool(c, g, 0); }
bool lower_avg_pool2d(const OpCall& c, GpuLowering& g) { return pool(c, g, 1); }
bool lower_adaptive_avg_pool2d(const OpCall& c, GpuLowering& g) { return pool(c, g, 2); }

// upsample_nearest2d / upsample_bilinear2d (and their .vec forms) on [N, C, H, W] float32:
// the scales as the CPU op files read them (scale_factors, or scales_h/scales_w, else in/out).
bool upsample(const OpCall& c, GpuLowering& g, int mode, bool vec) {
  if (!gpu_all_f32(c) || c.in.size() != 1 || c.in[0].dim() != 4 || !gpu_dense_at_zero(c.out[0])) return false;
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  double scale[2] = {0, 0};
  if (vec) {
    const Attr* sf = c.attr("scale_factors");
    if (sf) {
      if (sf->kind != Attr::Kind::List || sf->list.size() != 2) return false;
      for (size_t d = 0; d < 2; ++d) scale[d] = sf->list[d].as_double();
    }
  } else {
    scale[0] = c.has("scales_h") ? c.f("scales_h") : 0;
    scale[1] = c.has("scales_w") ? c.f("scales_w") : 0;
  }
  const bool align = mode == 1 && c.b("align_corners");
  float s[2];
  for (size_t d = 0; d < 2; ++d) {
    const int64_t in = x.shape[2 + d], out = y.shape[2 + d];
    if (in <= 0 || out <= 0) return y.numel() == 0;
    // torch's scales in f32 (kernels/upsample.cpp axis_scale, nearest_indices).
    if (align) s[d] = out > 1 ? float(in - 1) / float(out - 1) : 0.f;
    else s[d] = scale[d] > 0 ? float(1.0 / scale[d]) : float(in) / float(out);
  }
  if (y.numel() == 0) return true;
  GpuDispatch d;
  d.kernel = "upsample2d";
  d.subst = {{"MODE", std::to_string(mode)}};
  d.meta.u("numel", y.numel()).u("c", x.shape[1]).u("h", x.shape[2]).u("w", x.shape[3]);
  d.meta.u("oh", y.shape[2]).u("ow", y.shape[3]).f("scale_h", s[0]).f("scale_w", s[1]);
  d.meta.u("align_corners", align ? 1 : 0).u("x_off", x.offset).us("x_strides", x.strides);
  d.bindings = {y, x};
  gpu_grid(d, (y.numel() + 63) / 64);
  g.dispatches.push_back(d);
  return true;
}
bool lower_upsample_nearest(const OpCall& c, GpuLowering& g) { return upsample(c, g, 0, false); }
bool lower_upsample_nearest_vec(const OpCall& c, GpuLowering& g) { return upsample(c, g, 0, true); }
bool lower_upsample_bilinear(const OpCall& c, GpuLowering& g) { return upsample(c, g, 1, false); }
bool lower_upsample_bilinear_vec(const OpCall& c, GpuLowering& g) { return upsample(c, g, 1, true); }

// batch_norm / native_batch_norm / _native_batch_norm_legit_no_training in
// inference; the native forms' save_mean/save_invstd are not written (the
// placement pass keeps the node on WASM when something reads them).
bool lower_batch_norm(const OpCall& c, GpuLowering& g) {
  if (!gpu_all_f32(c) || c.in.size() != 5 || c.b("training", false)) return false;
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (x.dim() < 2 || !gpu_dense_at_zero(x) || !gpu_dense_at_zero(y)) return false;
  for (size_t i = 1; i < 5; ++i)
    if (!gpu_dense_at_zero(c.in[i])) return false;
  if (!c.in[3].defined() || !c.in[4].defined()) return false;
  if (y.numel() == 0) return true;
  GpuDispatch d;
  d.kernel = "batch_norm";
  int64_t hw = 1;
  for (size_t i = 2; i < x.shape.size(); ++i) hw *= x.shape[i];
  d.meta.u("numel", y.numel()).u("c", x.shape[1]).u("hw", hw).f("eps", c.f("eps", 1e-5));
  d.meta.u("has_w", c.in[1].defined() ? 1 : 0).u("has_b", c.in[2].defined() ? 1 : 0);
  d.bindings = {y, x, c.in[3], c.in[4], c.in[1], c.in[2]};
  d.names = {"Y", "X", "Mean", "Var", "W", "Bias"};
  gpu_grid(d, (y.numel() + 63) / 64);
  g.dispatches.push_back(d);
  return true;
}

// The rowwise kernel over x's dim `dim` (softmax 0, log_softmax 1, norm 2).
GpuDispatch rowwise(int mode, const Tensor& x, int64_t dim, const Tensor& y) {
  gpu_need(gpu_dense_at_zero(y), "a strided rowwise output");
  Shape keep;
  Strides xs, ys;
  for (int64_t i = 0; i < x.dim(); ++i) {
    if (i == dim) continue;
    keep.push_back(x.shape[size_t(i)]);
    xs.push_back(x.strides[size_t(i)]);
    ys.push_back(y.strides[size_t(i)]);
  }
  int64_t rows = 1;
  for (int64_t d : keep) rows *= d;
  GpuDispatch d;
  d.kernel = "rowwise";
  d.subst = {{"MODE", std::to_string(mode)}};
  d.meta.u("rows", rows).u("rank", int64_t(keep.size())).u("r", x.dim() ? x.shape[size_t(dim)] : 1);
  d.meta.u("r_stride", x.dim() ? x.strides[size_t(dim)] : 1).u("x_off", x.offset);
  d.meta.us("shape", keep, 6).us("x_strides", xs, 6).us("y_strides", ys, 6);
  d.meta.u("y_r_stride", x.dim() ? y.strides[size_t(dim)] : 1).u("groups", 1).u("cpg", 0).u("hw", 1);
  d.bindings = {y, x, Tensor{}, Tensor{}};
  d.names = {"Y", "X", "W", "Bias"};
  gpu_grid(d, rows);
  return d;
}

bool lower_softmax(const OpCall& c, GpuLowering& g, int mode) {
  if (!gpu_all_f32(c) || c.b("half_to_float", false)) return false;
  const Tensor& x = c.in[0];
  if (x.numel() == 0) return true;
  GpuDispatch d = rowwise(mode, x, x.dim() ? c.wrap_dim(c.i("dim"), x.dim()) : 0, c.out[0]);
  d.meta.f("eps", 0).u("has_w", 0).u("has_b", 0);
  g.dispatches.push_back(d);
  return true;
}
bool lower_softmax0(const OpCall& c, GpuLowering& g) { return lower_softmax(c, g, 0); }
bool lower_log_softmax(const OpCall& c, GpuLowering& g) { return lower_softmax(c, g, 1); }

// layer_norm; native_layer_norm's mean/rstd outputs are not written (see batch norm).
bool lower_layer_norm(const OpCall& c, GpuLowering& g) {
  if (!gpu_all_f32(c)) return false;
  const Tensor& x = c.in[0];
  const Tensor w = c.in.size() > 1 ? c.in[1] : Tensor{};
  const Tensor b = c.in.size() > 2 ? c.in[2] : Tensor{};
  if (!gpu_dense_at_zero(w) || !gpu_dense_at_zero(b) || x.numel() == 0) return x.numel() == 0;
  const int64_t k = int64_t(c.ints("normalized_shape").size()), r = x.dim();
  if (k < 1 || k > r) return false;
  int64_t inner = 1;
  for (int64_t i = r - k; i < r; ++i) {
    inner *= x.shape[size_t(i)];
    if (i + 1 < r && x.strides[size_t(i)] != x.strides[size_t(i + 1)] * x.shape[size_t(i + 1)]) return false;
  }
  Shape ms(x.shape.begin(), x.shape.end() - k);
  Strides mst(x.strides.begin(), x.strides.end() - k);
  ms.push_back(inner);
  mst.push_back(x.strides.back());
  const Tensor xm = x.view_as(ms, mst, x.offset);
  const Tensor ym = c.out[0].view_as(ms, contiguous_strides(ms), 0);
  GpuDispatch d = rowwise(2, xm, int64_t(ms.size()) - 1, ym);
  d.meta.f("eps", c.f("eps", 1e-5)).u("has_w", w.defined() ? 1 : 0).u("has_b", b.defined() ? 1 : 0);
  d.bindings = {ym, xm, w, b};
  g.dispatches.push_back(d);
  return true;
}

bool lower_cat(const OpCall& c, GpuLowering& g) {
  const Tensor& y = c.out[0];
  if (y.dtype != DType::F32 || y.dim() == 0) return false;
  const int64_t dim = c.wrap_dim(c.i("dim", 0), y.dim());
  int64_t at = 0;
  for (const Tensor& x : c.in) {
    if (x.dtype != DType::F32) return false;
    if (x.numel() == 0) continue;  // legacy empty 1-d inputs too
    const Tensor slice = y.view_as(x.shape, y.strides, y.offset + at * y.strides[size_t(dim)]);
    g.dispatches.push_back(gpu_elementwise("copy", {x}, slice));
    at += x.shape[size_t(dim)];
  }
  return true;
}

bool lower_sdpa(const OpCall& c, GpuLowering& g) {
  if (c.in.size() < 3 || c.out.size() != 1 || c.f("dropout_p", 0.0) != 0.0) return false;
  const Tensor &q = c.in[0], &k = c.in[1], &v = c.in[2];
  const Tensor mask = c.in.size() > 3 ? c.in[3] : Tensor{};
  const Tensor& o = c.out[0];
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4 || !gpu_dense_at_zero(o)) return false;
  for (const Tensor* t : {&q, &k, &v, &o})
    if (t->dtype != DType::F32) return false;
  if (mask.defined() && mask.dtype != DType::F32 && mask.dtype != DType::Bool) return false;
  const int64_t B = q.shape[0], HQ = q.shape[1], L = q.shape[2], D = q.shape[3];
  const int64_t HKV = k.shape[1], S = k.shape[2], DV = v.shape[3];
  if (D > 256 || DV > 256 || HKV == 0 || HQ % HKV != 0) return false;
  if (B * HQ * L == 0 || DV == 0) return true;
  GpuDispatch d;
  d.kernel = "sdpa";
  d.types = {{"Mask", mask.defined() && mask.dtype == DType::Bool ? "u32" : "f32"}};
  const double scale = c.has("scale") ? c.f("scale") : 1.0 / std::sqrt(double(D));
  d.meta.u("b", B).u("hq", HQ).u("hkv", HKV).u("l", L).u("s", S).u("d", D).u("dv", DV).f("scale", scale);
  d.meta.u("causal", c.b("is_causal", false) ? 1 : 0);
  d.meta.u("mask_mode", !mask.defined() ? 0 : mask.dtype == DType::Bool ? 2 : 1);
  d.meta.u("q_off", q.offset).us("q_strides", q.strides).u("k_off", k.offset).us("k_strides", k.strides);
  d.meta.u("v_off", v.offset).us("v_strides", v.strides);
  if (mask.defined()) d.meta.u("m_off", mask.offset).us("m_strides", gpu_broadcast_strides(mask, {B, HQ, L, S}));
  d.bindings = {o, q, k, v, mask};
  gpu_grid(d, B * HQ * L);
  g.dispatches.push_back(d);
  return true;
}

}  // namespace

TIR_REGISTER_WEBGPU(
    {"aten.max_pool2d.default", lower_max_pool2d}, {"aten.max_pool2d_with_indices.default", lower_max_pool2d},
    {"aten.avg_pool2d.default", lower_avg_pool2d},
    {"aten.adaptive_avg_pool2d.default", lower_adaptive_avg_pool2d},
    {"aten._adaptive_avg_pool2d.default", lower_adaptive_avg_pool2d},
    {"aten.upsample_nearest2d.default", lower_upsample_nearest}, {"aten.upsample_nearest2d.vec", lower_upsample_nearest_vec},
    {"aten.upsample_bilinear2d.default", lower_upsample_bilinear},
    {"aten.upsample_bilinear2d.vec", lower_upsample_bilinear_vec},
    {"aten.batch_norm.default", lower_batch_norm}, {"aten.native_batch_norm.default", lower_batch_norm},
    {"aten._native_batch_norm_legit_no_training.default", lower_batch_norm},
    {"aten.softmax.int", lower_softmax0}, {"aten._softmax.default", lower_softmax0},
    {"aten.log_softmax.int", lower_log_softmax}, {"aten._log_softmax.default", lower_log_softmax},
    {"aten.layer_norm.default", lower_layer_norm}, {"aten.native_layer_norm.default", lower_layer_norm},
    {"aten.cat.default", lower_cat},
    {"aten.scaled_dot_product_attention.default", lower_sdpa});

}  // namespace tir
