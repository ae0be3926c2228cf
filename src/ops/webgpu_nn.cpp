// WebGPU lowerings of the matmul family, convolution, pooling, upsampling, normalization,
// softmax, cat and attention (f32). Parameters are the
// ones the CPU op files read, with their defaults; every layout a kernel does
// not take (a strided weight, rank past the kernel's) declines the node.
#include <algorithm>
#include <cmath>

#include "ops/webgpu.h"

namespace tir {
namespace {

bool all_f32(const OpCall& c) {
  for (const auto& t : c.in)
    if (t.defined() && t.dtype != DType::F32) return false;
  for (const auto& t : c.out)
    if (t.defined() && t.dtype != DType::F32) return false;
  return true;
}

bool dense_at_zero(const Tensor& t) { return !t.defined() || (t.offset == 0 && t.is_contiguous()); }

// The tiled kernels' (matmul.wgsl, conv2d_gemm.wgsl) output tile T x T on S x S invocations:
// 64 x 64 on 16 x 16 (4 x 4 outputs each, the most reuse) when that gives at least 64
// workgroups, else 16 x 16 on 8 x 8. Measured on an H100 (bench/gpu/tiles.mjs, docs/webgpu.md):
// over BERT-base's GEMMs and ResNet-50's convolutions this rule picked the fastest tile in all 12
// shapes (32 x 32 on 8 x 8 was never the fastest); the 64 x 64 tiles alone left BERT's [128, 768]
// outputs 24 workgroups for 132 SMs and ran them 2.0-2.2x slower.
struct GemmTile {
  int64_t tile, threads;
};

GemmTile gemm_tile(int64_t rows, int64_t cols, int64_t batch) {
  const int64_t workgroups64 = ((rows + 63) / 64) * ((cols + 63) / 64) * batch;
  return workgroups64 >= 64 ? GemmTile{64, 16} : GemmTile{16, 8};
}

void gemm_grid(GpuDispatch& d, int64_t rows, int64_t cols, int64_t batch) {
  gpu_need(batch <= 65535, "a GEMM batch past 65535");
  const GemmTile t = gemm_tile(rows, cols, batch);
  d.subst.emplace_back("TILE", std::to_string(t.tile));
  d.subst.emplace_back("THREADS", std::to_string(t.threads));
  d.workgroups[0] = (cols + t.tile - 1) / t.tile;
  d.workgroups[1] = (rows + t.tile - 1) / t.tile;
  gpu_need(d.workgroups[0] <= 65535 && d.workgroups[1] <= 65535, "a GEMM past 65535 tiles a side");
  d.workgroups[2] = batch;
}

// The stride that walks dims `sizes` (outermost first; strides `strides`) as one evenly spaced
// run, or -1 when they are not (size-1 dims do not matter).
int64_t even_stride(const Shape& sizes, const Strides& strides) {
  int64_t inner = -1, span = 1;  // the innermost kept dim's stride; elements walked so far
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (inner < 0) {
      inner = strides[i];
    } else if (strides[i] != inner * span) {
      return -1;
    }
    span *= sizes[i];
  }
  return inner < 0 ? 0 : inner;
}

// y[batch..., M, N] = alpha * a[batch..., M, K] @ b[batch..., K, N] + beta * c
// (batch dims broadcast; c broadcast to y; y contiguous at offset 0). When b is the same matrix
// for every batch (a linear layer's weight) and the rows of a and c are evenly spaced across the
// batch dims, the batch folds into M: one GEMM of batch * M rows. That is linear's common case
// of an input [S, 1, D] that is a transposed view (nn.MultiheadAttention's in_proj), which
// would otherwise run as S batches of one row each: S GEMVs re-reading the whole weight.
// M == 1 takes the GEMV kernel (decode).
GpuDispatch gpu_matmul(const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& y, double alpha,
                       double beta) {
  gpu_need(dense_at_zero(y), "a strided matmul output");
  const size_t r = y.shape.size();
  gpu_need(r >= 2 && r <= 6, "matmul rank");
  Shape batch(y.shape.begin(), y.shape.end() - 2);
  int64_t M = y.shape[r - 2];
  const int64_t N = y.shape[r - 1], K = a.shape.back();
  auto batch_strides = [&](const Tensor& t) -> Strides {
    Tensor bt = t;
    bt.shape.assign(t.shape.begin(), t.shape.end() - 2);
    bt.strides.assign(t.strides.begin(), t.strides.end() - 2);
    return gpu_broadcast_strides(bt, batch);
  };
  Strides a_bs = batch_strides(a);
  const Strides b_bs = batch_strides(b);
  int64_t a_rs = a.strides[a.strides.size() - 2];
  Strides c_all = c.defined() ? gpu_broadcast_strides(c, y.shape) : Strides(r, 0);
  Strides c_bs(c_all.begin(), c_all.end() - 2);
  int64_t c_rs = c_all[r - 2];
  int64_t nb = 1;
  for (int64_t d : batch) nb *= d;
  if (nb > 1 && std::all_of(b_bs.begin(), b_bs.end(), [](int64_t s) { return s == 0; })) {
    Shape rows = batch;
    rows.push_back(M);
    Strides ar = a_bs, cr = c_bs;
    ar.push_back(a_rs);
    cr.push_back(c_rs);
    const int64_t as = even_stride(rows, ar), cs = even_stride(rows, cr);
    if (as >= 0 && cs >= 0) {
      M *= nb;
      nb = 1;
      batch.clear();
      a_bs.clear();
      c_bs.clear();
      a_rs = as;
      c_rs = cs;
    }
  }
  const Strides b_batch = batch.empty() ? Strides{} : b_bs;
  GpuDispatch d;
  const bool gemv = M == 1;
  d.kernel = gemv ? "gemv" : "matmul";
  d.meta.u("m", M).u("n", N).u("k", K).u("batch_rank", int64_t(batch.size())).us("batch_shape", batch, 4);
  d.meta.u("a_off", a.offset).u("a_rs", a_rs).u("a_cs", a.strides.back());
  d.meta.us("a_bs", a_bs, 4);
  d.meta.u("b_off", b.offset).u("b_rs", b.strides[b.strides.size() - 2]).u("b_cs", b.strides.back());
  d.meta.us("b_bs", b_batch, 4);
  d.meta.f("alpha", alpha).f("beta", beta).u("has_c", c.defined() ? 1 : 0);
  if (c.defined()) {
    d.meta.u("c_off", c.offset).u("c_rs", c_rs).u("c_cs", c_all[r - 1]);
    d.meta.us("c_bs", c_bs, 4);
  }
  d.bindings = {y, a, b, c};
  d.names = {"Y", "A", "B", "C"};
  d.takes_epilogue = true;
  if (gemv) {
    d.meta.u("batch", nb);
    gpu_grid(d, nb * N);
  } else {
    gemm_grid(d, M, N, nb);
  }
  return d;
}

// t's last two dims swapped (a view: strides only).
Tensor transposed(const Tensor& t) {
  Tensor v = t;
  const size_t r = t.shape.size();
  std::swap(v.shape[r - 1], v.shape[r - 2]);
  std::swap(v.strides[r - 1], v.strides[r - 2]);
  return v;
}

// A 1-d operand as a matrix: [1, K] (lhs) or [K, 1] (rhs).
Tensor as_matrix(const Tensor& t, bool lhs) {
  if (t.dim() != 1) return t;
  return lhs ? t.view_as({1, t.shape[0]}, {0, t.strides[0]}, t.offset)
             : t.view_as({t.shape[0], 1}, {t.strides[0], 0}, t.offset);
}

// y viewed with the matmul's full [batch..., M, N] shape (y is contiguous).
Tensor full_output(const Tensor& y, const Tensor& a, const Tensor& b) {
  Shape s = y.shape;
  if (a.dim() == 1) s.insert(s.end() - (b.dim() == 1 ? 0 : 1), 1);
  if (b.dim() == 1) s.push_back(1);
  return y.view_as(s, contiguous_strides(s), y.offset);
}

bool lower_mm(const OpCall& c, GpuLowering& g) {
  if (!all_f32(c) || c.in.size() != 2) return false;
  const Tensor& a = c.in[0];
  const Tensor& b = c.in[1];
  g.dispatches.push_back(gpu_matmul(as_matrix(a, true), as_matrix(b, false), Tensor{}, full_output(c.out[0], a, b), 1, 0));
  g.dispatches.back().gemm_weight = 2;  // B
  return true;
}

// bmm: the CPU never packs its operands (ops/matmul.cpp), so neither is a GEMM weight here.
bool lower_bmm(const OpCall& c, GpuLowering& g) {
  if (!lower_mm(c, g)) return false;
  for (auto& d : g.dispatches) d.gemm_weight = -1;
  return true;
}

bool lower_linear(const OpCall& c, GpuLowering& g) {
  if (!all_f32(c) || c.in.size() < 2 || c.in[1].dim() != 2) return false;
  const Tensor& x = c.in[0];
  const Tensor bias = c.in.size() > 2 ? c.in[2] : Tensor{};
  const Tensor wt = transposed(c.in[1]);
  g.dispatches.push_back(gpu_matmul(as_matrix(x, true), wt, bias, full_output(c.out[0], x, wt), 1, 1));
  g.dispatches.back().gemm_weight = 2;  // B = W^T
  return true;
}

// addmm / baddbmm: beta * self + alpha * (a @ b), self broadcast to the output.
bool lower_addmm(const OpCall& c, GpuLowering& g) {
  if (!all_f32(c) || c.in.size() != 3) return false;
  const double beta = c.scalar("beta", Scalar::of_int(1)).f, alpha = c.scalar("alpha", Scalar::of_int(1)).f;
  g.dispatches.push_back(gpu_matmul(c.in[1], c.in[2], beta == 0 ? Tensor{} : c.in[0], c.out[0], alpha, beta));
  g.dispatches.back().gemm_weight = 2;  // B = mat2
  return true;
}

// y = conv2d(x, w, bias) on [N, C, H, W] with 2-element stride, padding, dilation.
bool conv2d(GpuLowering& g, const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y,
            const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
            const std::vector<int64_t>& dilation, int64_t groups) {
  if (x.dim() != 4 || w.dim() != 4 || !dense_at_zero(w) || !dense_at_zero(bias) || !dense_at_zero(y)) return false;
  const int64_t n = x.shape[0], cin = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t cout = w.shape[0], kh = w.shape[2], kw = w.shape[3], oh = y.shape[2], ow = y.shape[3];
  if (y.numel() == 0) return true;
  const bool pointwise = kh == 1 && kw == 1 && stride[0] == 1 && stride[1] == 1 && padding[0] == 0 &&
                         padding[1] == 0 && groups == 1;
  if (pointwise && x.strides[2] == x.strides[3] * wd) {
    // 1x1: y[n] = W[cout, cin] @ x[n][cin, h*w] (+ bias per row).
    const Tensor a = w.view_as({cout, cin}, {cin, 1}, 0);
    const Tensor b = x.view_as({n, cin, h * wd}, {x.strides[0], x.strides[1], x.strides[3]}, x.offset);
    const Tensor cb = bias.defined() ? bias.view_as({cout, 1}, {1, 0}, 0) : Tensor{};
    const Tensor yv = y.view_as({n, cout, oh * ow}, contiguous_strides({n, cout, oh * ow}), 0);
    g.dispatches.push_back(gpu_matmul(a, b, cb, yv, 1, 1));
    return true;
  }
  GpuDispatch d;
  // Ungrouped: an implicit GEMM (conv2d_gemm.wgsl); grouped and depthwise: the direct kernel.
  d.kernel = groups == 1 ? "conv2d_gemm" : "conv2d";
  d.meta.u("numel", y.numel()).u("n", n).u("cin", cin).u("h", h).u("w", wd).u("cout", cout).u("oh", oh).u("ow", ow);
  d.meta.u("kh", kh).u("kw", kw).u("sh", stride[0]).u("sw", stride[1]).u("ph", padding[0]).u("pw", padding[1]);
  d.meta.u("dh", dilation[0]).u("dw", dilation[1]).u("groups", groups).u("has_b", bias.defined() ? 1 : 0);
  d.meta.u("x_off", x.offset).us("x_strides", x.strides);
  d.bindings = {y, x, w, bias};
  d.names = {"Y", "X", "W", "Bias"};
  d.takes_epilogue = true;
  if (groups == 1) {
    gemm_grid(d, cout, oh * ow, n);
  } else {
    gpu_grid(d, (y.numel() + 63) / 64);
  }
  g.dispatches.push_back(d);
  return true;
}

bool lower_conv2d(const OpCall& c, GpuLowering& g) {
  if (!all_f32(c) || c.in.size() < 2) return false;
  const Tensor bias = c.in.size() > 2 ? c.in[2] : Tensor{};
  const auto stride = c.ints("stride", std::vector<int64_t>{1, 1}, 2);
  const auto padding = c.ints("padding", std::vector<int64_t>{0, 0}, 2);
  const auto dilation = c.ints("dilation", std::vector<int64_t>{1, 1}, 2);
  return conv2d(g, c.in[0], c.in[1], bias, c.out[0], stride, padding, dilation, c.i("groups", 1));
}

// conv1d on [N, C, L]: conv2d over [N, C, 1, L] views (H = 1), the same kernel.
bool lower_conv1d(const OpCall& c, GpuLowering& g) {
  if (!all_f32(c) || c.in.size() < 2) return false;
  const Tensor& x = c.in[0];
  const Tensor& w = c.in[1];
  const Tensor& y = c.out[0];
  if (x.dim() != 3 || w.dim() != 3 || y.dim() != 3) return false;
  const Attr* pad = c.attr("padding");
  if (pad && pad->kind == Attr::Kind::String) return false;  // "same" / "valid": CPU
  const Tensor bias = c.in.size() > 2 ? c.in[2] : Tensor{};
  const int64_t stride = c.ints("stride", std::vector<int64_t>{1}, 1)[0];
  const int64_t padding = c.ints("padding", std::vector<int64_t>{0}, 1)[0];
  const int64_t dilation = c.ints("dilation", std::vector<int64_t>{1}, 1)[0];
  const auto as2d = [](const Tensor& t) {
    return t.view_as({t.shape[0], t.shape[1], 1, t.shape[2]}, {t.strides[0], t.strides[1], t.strides[2] * t.shape[2], t.strides[2]},
                     t.offset);
  };
  return conv2d(g, as2d(x), as2d(w), bias, as2d(y), {1, stride}, {0, padding}, {1, dilation}, c.i("groups", 1));
}

bool lower_convolution(const OpCall& c, GpuLowering& g) {
  if (c.b("transposed", false)) return false;
  if (c.in[0].dim() == 3) return lower_conv1d(c, g);
  return lower_conv2d(c, g);
}

// max_pool2d (mode 0), avg_pool2d (1), adaptive_avg_pool2d (2) on [N, C, H, W]. The kernel
// does not make max_pool2d_with_indices' indices: the plan keeps that node on WASM when they
// are read (torch 1.13's decompositions read only the values).
bool pool(const OpCall& c, GpuLowering& g, int mode) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (x.dtype != DType::F32 || y.dtype != DType::F32 || x.dim() != 4 || c.out.size() > (mode == 0 ? 2u : 1u)) return false;
  if (!dense_at_zero(y)) return false;
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
  if (!all_f32(c) || c.in.size() != 1 || c.in[0].dim() != 4 || !dense_at_zero(c.out[0])) return false;
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
  if (!all_f32(c) || c.in.size() != 5 || c.b("training", false)) return false;
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (x.dim() < 2 || !dense_at_zero(x) || !dense_at_zero(y)) return false;
  for (size_t i = 1; i < 5; ++i)
    if (!dense_at_zero(c.in[i])) return false;
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
  gpu_need(dense_at_zero(y), "a strided rowwise output");
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
  if (!all_f32(c) || c.b("half_to_float", false)) return false;
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
  if (!all_f32(c)) return false;
  const Tensor& x = c.in[0];
  const Tensor w = c.in.size() > 1 ? c.in[1] : Tensor{};
  const Tensor b = c.in.size() > 2 ? c.in[2] : Tensor{};
  if (!dense_at_zero(w) || !dense_at_zero(b) || x.numel() == 0) return x.numel() == 0;
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
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4 || !dense_at_zero(o)) return false;
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
    {"aten.mm.default", lower_mm}, {"aten.bmm.default", lower_bmm}, {"aten.matmul.default", lower_mm},
    {"aten.linear.default", lower_linear}, {"aten.addmm.default", lower_addmm},
    {"aten.baddbmm.default", lower_addmm},
    {"aten.conv2d.default", lower_conv2d}, {"aten.conv1d.default", lower_conv1d}, {"aten.convolution.default", lower_convolution},
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
