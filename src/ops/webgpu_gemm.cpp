// WebGPU lowerings of the matmul family (mm, bmm, matmul, linear, addmm, baddbmm) and
// convolution (1-d and 2-d; 1x1 as a GEMM, ungrouped as an implicit GEMM, grouped, depthwise and
// transposed 2-d direct), f32: the tiled kernels (matmul.wgsl, conv2d_gemm.wgsl), their tile and split-K
// choices, and the GEMV for M = 1. Parameters are the ones the CPU op files read, with their
// defaults; a layout a kernel does not take (a strided weight, a rank past the kernel's)
// declines the node.
#include <algorithm>
#include <memory>

#include "ops/matmul_util.h"
#include "ops/webgpu.h"

namespace tir {
namespace {

// The tiled kernels' (matmul.wgsl, conv2d_gemm.wgsl) output tile T x T on S x S invocations:
// 64 x 64 on 16 x 16 (4 x 4 outputs each, the most reuse) when the output has at least 8 such
// tiles, else 16 x 16 on 8 x 8; split-K (below) makes up the workgroups the big tiles lack. The
// H200 sweep of 2026-11-28 (bench/gpu/tiles.mjs, docs/webgpu.md) over BERT-base's GEMMs and
// ResNet-50's convolutions: with split-K the 64 tiles were the fastest or within 15% on every
// shape but the stem (K 147, not split); without it, 64 tiles on outputs of few tiles (24
// workgroups for 132 SMs) ran 1.5-2x slower than 16 tiles.
struct GemmTile {
  int64_t tile, threads;
};

GemmTile gemm_tile(int64_t rows, int64_t cols, int64_t batch) {
  const int64_t workgroups64 = ((rows + 63) / 64) * ((cols + 63) / 64) * batch;
  return workgroups64 >= 8 ? GemmTile{64, 16} : GemmTile{16, 8};
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

// Split-K: where an output has too few tiles to keep a GPU busy and K is long (>= 512), K splits
// into 2, 4 or 8 chunks (k_chunk: at least 64 of K, a multiple of the kernels' K step of 16)
// whose partial sums run as separate workgroups, and a second dispatch (split_k_sum.wgsl) adds
// them up with the rest of the epilogue: the most chunks that keep the invocations within
// 131072 (about 32 warps per SM of a 132-SM GPU). Unsplit, such GEMMs ran latency-bound on an
// H200: ResNet-50's 3x3 convolutions at 7 x 7 (K 4608) took 0.52-0.69 ms, 0.09-0.11 ms in 8
// chunks; BERT's FFN down-projection (K 3072) 0.14-0.21 ms, 0.06 ms in 8 (bench/gpu/tiles.mjs).
struct KSplit {
  int64_t chunks = 1, chunk = 0;  // chunk 0: no split
};

KSplit gemm_k_split(int64_t rows, int64_t cols, int64_t batch, int64_t K) {
  constexpr int64_t kMaxInvocations = 131072, kMinK = 512, kMinChunk = 64, kMaxChunks = 8, kStep = 16;
  if (K < kMinK) return {};
  const GemmTile t = gemm_tile(rows, cols, batch);
  const int64_t invocations =
      ((rows + t.tile - 1) / t.tile) * ((cols + t.tile - 1) / t.tile) * batch * t.threads * t.threads;
  int64_t want = 1;
  while (want * 2 <= kMaxChunks && K / (want * 2) >= kMinChunk && invocations * want * 2 <= kMaxInvocations) want *= 2;
  if (want < 2) return {};
  const int64_t chunk = ((K + want - 1) / want + kStep - 1) / kStep * kStep;
  const int64_t chunks = (K + chunk - 1) / chunk;
  if (chunks < 2 || batch * chunks > 65535) return {};
  return {chunks, chunk};
}

// y[batch..., M, N] = alpha * a[batch..., M, K] @ b[batch..., K, N] + beta * c
// (batch dims broadcast; c broadcast to y). y is contiguous at offset 0, or (one batch of rows)
// a column window of a wider matrix: rows y_rs apart from y_off (a split weight's part, below).
// When b is the same matrix for every batch (a linear layer's weight) and the rows of a, c and y
// are evenly spaced across the batch dims, the batch folds into M: one GEMM of batch * M rows.
// That is linear's common case of an input [S, 1, D] that is a transposed view
// (nn.MultiheadAttention's in_proj), which would otherwise run as S batches of one row each: S
// GEMVs re-reading the whole weight. M == 1 takes the GEMV kernel (decode); a long K over few
// tiles splits (gemm_k_split). gemm_weight: the binding of b when it is a GEMM weight
// (GpuDispatch::gemm_weight), or -1.
void gpu_matmul(GpuLowering& g, const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& y, double alpha,
                double beta, int gemm_weight) {
  const size_t r = y.shape.size();
  gpu_need(r >= 2 && r <= 6, "matmul rank");
  const bool y_dense = gpu_dense_at_zero(y);
  gpu_need(y_dense || y.strides[r - 1] == 1, "a strided matmul output");
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
  int64_t y_rs = y_dense ? N : y.strides[r - 2];
  int64_t nb = 1;
  for (int64_t d : batch) nb *= d;
  if (nb > 1 && std::all_of(b_bs.begin(), b_bs.end(), [](int64_t s) { return s == 0; })) {
    Shape rows = batch;
    rows.push_back(M);
    Strides ar = a_bs, cr = c_bs, yr(y.strides.begin(), y.strides.end() - 1);
    ar.push_back(a_rs);
    cr.push_back(c_rs);
    int64_t as = 0, cs = 0, ys = 0;
    if (even_stride(rows.data(), ar.data(), rows.size(), &as) && even_stride(rows.data(), cr.data(), rows.size(), &cs) &&
        (y_dense || even_stride(rows.data(), yr.data(), rows.size(), &ys))) {
      M *= nb;
      nb = 1;
      batch.clear();
      a_bs.clear();
      c_bs.clear();
      a_rs = as;
      c_rs = cs;
      if (!y_dense) y_rs = ys;
    }
  }
  gpu_need(y_dense || nb == 1, "a strided batched matmul output");
  const Strides b_batch = batch.empty() ? Strides{} : b_bs;
  GpuDispatch d;
  const bool gemv = M == 1;
  d.kernel = gemv ? "gemv" : "matmul";
  d.meta.u("m", M).u("n", N).u("k", K).u("batch_rank", int64_t(batch.size())).us("batch_shape", batch, 4);
  d.meta.u("a_off", a.offset).u("a_rs", a_rs).u("a_cs", a.strides.back());
  d.meta.us("a_bs", a_bs, 4);
  const int64_t b_rs = b.strides[b.strides.size() - 2], b_cs = b.strides.back();
  d.meta.u("b_off", b.offset).u("b_rs", b_rs).u("b_cs", b_cs);
  if (!gemv) d.meta.u("b_kfast", b_rs == 1 && b_cs != 1 ? 1 : 0);  // W^T: load its tile k fastest
  d.meta.us("b_bs", b_batch, 4);
  d.names = {"Y", "A", "B", "C"};
  d.gemm_weight = gemm_weight;
  auto c_meta = [&](GpuMeta& meta) {
    meta.f("beta", beta).u("has_c", c.defined() ? 1 : 0);
    if (!c.defined()) return;
    meta.u("c_off", c.offset).u("c_rs", c_rs).u("c_cs", c_all[r - 1]);
    meta.us("c_bs", c_bs, 4);
  };
  // The split's sum writes y flat: only a dense y splits K.
  const KSplit split = gemv || !y_dense ? KSplit{} : gemm_k_split(M, N, nb, K);
  if (split.chunks > 1) {
    const Tensor parts = gpu_scratch(DType::F32, split.chunks * nb * M * N, "split-K partial sums");
    d.meta.f("alpha", 1).f("beta", 0).u("has_c", 0).u("k_chunk", split.chunk).u("y_rs", N);
    d.bindings = {parts, a, b, Tensor{}};
    gemm_grid(d, M, N, nb * split.chunks);
    g.dispatches.push_back(d);
    GpuDispatch sum = gpu_sum_partials(y, parts, split.chunks, M, N, alpha, Tensor{});
    c_meta(sum.meta);
    sum.meta.u("batch_rank", int64_t(batch.size())).us("batch_shape", batch, 4);
    sum.bindings[2] = c;
    g.dispatches.push_back(sum);
    return;
  }
  d.meta.f("alpha", alpha).u("y_off", y_dense ? 0 : y.offset).u("y_rs", y_rs);
  c_meta(d.meta);
  d.bindings = {y, a, b, c};
  // A fused epilogue indexes the output flat from 0.
  d.takes_epilogue = y_dense;
  if (gemv) {
    d.meta.u("batch", nb);
    gpu_grid(d, nb * N);
  } else {
    gemm_grid(d, M, N, nb);
  }
  g.dispatches.push_back(d);
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

// y = alpha * a @ w^T + beta * c (c broadcast to y) for a weight w [N, K]: one GEMM (B = W^T by
// strides), or, for a weight larger than the device's largest storage binding (GPT-2's tied
// lm_head on a 128 MiB device), one GEMM per part of its rows (gpu_weight_parts), each writing
// its window of y's columns.
void gemm_over_weight(GpuLowering& g, const Tensor& a, const Tensor& w, const Tensor& c, const Tensor& y,
                      double alpha = 1, double beta = 1) {
  const auto parts = gpu_weight_parts(w, g.max_binding_bytes);
  if (parts.size() == 1) {
    gpu_matmul(g, a, transposed(w), c, y, alpha, beta, 2);
    return;
  }
  const Strides cs = c.defined() ? gpu_broadcast_strides(c, y.shape) : Strides{};
  gpu_need(gpu_dense_at_zero(y), "a strided output of a split weight's GEMM");
  const int64_t K = w.shape[1];
  for (const auto& [first, rows] : parts) {
    const Tensor wp = w.view_as({rows, K}, {K, 1}, 0);  // offsets count from the part
    Shape ys = y.shape;
    ys.back() = rows;
    const Tensor yp = y.view_as(ys, y.strides, first);
    const Tensor cp = c.defined() ? c.view_as(ys, cs, c.offset + first * cs.back()) : Tensor{};
    gpu_matmul(g, a, transposed(wp), cp, yp, alpha, beta, 2);  // one dispatch: a column window never splits K
    GpuDispatch& d = g.dispatches.back();
    d.parts.push_back({2, first * K, rows * K});
    d.takes_epilogue = true;  // its Y index is the flat one of the whole (contiguous) output
  }
}

// Whether b (a GEMM's second operand, 2-d) is the transpose of a whole weight [N, K] past the
// device's largest binding (a decomposed graph's linear: mm(x, t(W)), addmm(bias, x, t(W))):
// the GEMM then splits as linear's does (gemm_over_weight).
bool big_transposed_weight(const GpuLowering& g, const Tensor& b) {
  return b.dim() == 2 && b.buffer->kind == Buffer::Kind::Weight &&
         b.buffer->nbytes / dtype_size(b.dtype) * 4 > g.max_binding_bytes && gpu_dense_at_zero(transposed(b));
}

// mm / matmul.
bool lower_mm(const OpCall& c, GpuLowering& g) {
  if (!gpu_all_f32(c) || c.in.size() != 2) return false;
  const Tensor& a = c.in[0];
  const Tensor& b = c.in[1];
  const Tensor bm = as_matrix(b, false);
  if (big_transposed_weight(g, b)) {
    gemm_over_weight(g, as_matrix(a, true), transposed(bm), Tensor{}, full_output(c.out[0], a, b));
    return true;
  }
  gpu_matmul(g, as_matrix(a, true), bm, Tensor{}, full_output(c.out[0], a, b), 1, 0, 2);  // B
  return true;
}

// bmm: the CPU never packs its operands (ops/matmul.cpp), so neither is a GEMM weight here.
bool lower_bmm(const OpCall& c, GpuLowering& g) {
  if (!lower_mm(c, g)) return false;
  for (auto& d : g.dispatches) d.gemm_weight = -1;
  return true;
}

bool lower_linear(const OpCall& c, GpuLowering& g) {
  if (!gpu_all_f32(c) || c.in.size() < 2 || c.in[1].dim() != 2) return false;
  const Tensor& x = c.in[0];
  const Tensor& w = c.in[1];
  const Tensor bias = c.in.size() > 2 ? c.in[2] : Tensor{};
  gemm_over_weight(g, as_matrix(x, true), w, bias, full_output(c.out[0], x, transposed(w)));
  return true;
}

// addmm / baddbmm: beta * self + alpha * (a @ b), self broadcast to the output.
bool lower_addmm(const OpCall& c, GpuLowering& g) {
  if (!gpu_all_f32(c) || c.in.size() != 3) return false;
  const double beta = c.scalar("beta", Scalar::of_int(1)).f, alpha = c.scalar("alpha", Scalar::of_int(1)).f;
  const Tensor self = beta == 0 ? Tensor{} : c.in[0];
  if (c.in[2].dim() == 2 && big_transposed_weight(g, c.in[2])) {  // addmm(bias, x, t(W))
    gemm_over_weight(g, c.in[1], transposed(c.in[2]), self, c.out[0], alpha, beta);
    return true;
  }
  gpu_matmul(g, c.in[1], c.in[2], self, c.out[0], alpha, beta, 2);  // B = mat2
  return true;
}

// y = conv2d(x, w, bias) on [N, C, H, W] with 2-element stride, padding, dilation; with
// `transposed`, conv_transpose2d (w [cin, cout / groups, kh, kw]; its output_padding is in y's
// shape) on the direct kernel.
bool conv2d(GpuLowering& g, const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& y,
            const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
            const std::vector<int64_t>& dilation, int64_t groups, bool transposed = false) {
  if (x.dim() != 4 || w.dim() != 4 || y.dim() != 4 || !gpu_dense_at_zero(w) || !gpu_dense_at_zero(bias) ||
      !gpu_dense_at_zero(y))
    return false;
  const int64_t n = x.shape[0], cin = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const int64_t cout = y.shape[1], kh = w.shape[2], kw = w.shape[3], oh = y.shape[2], ow = y.shape[3];
  if (y.numel() == 0) return true;
  const bool pointwise = !transposed && kh == 1 && kw == 1 && stride[0] == 1 && stride[1] == 1 &&
                         padding[0] == 0 && padding[1] == 0 && groups == 1;
  if (pointwise && x.strides[2] == x.strides[3] * wd) {
    // 1x1: y[n] = W[cout, cin] @ x[n][cin, h*w] (+ bias per row).
    const Tensor a = w.view_as({cout, cin}, {cin, 1}, 0);
    const Tensor b = x.view_as({n, cin, h * wd}, {x.strides[0], x.strides[1], x.strides[3]}, x.offset);
    const Tensor cb = bias.defined() ? bias.view_as({cout, 1}, {1, 0}, 0) : Tensor{};
    const Tensor yv = y.view_as({n, cout, oh * ow}, contiguous_strides({n, cout, oh * ow}), 0);
    gpu_matmul(g, a, b, cb, yv, 1, 1, -1);
    return true;
  }
  GpuDispatch d;
  // Ungrouped: an implicit GEMM (conv2d_gemm.wgsl); grouped, depthwise and transposed: the
  // direct kernel.
  const bool gemm = groups == 1 && !transposed;
  d.kernel = gemm ? "conv2d_gemm" : "conv2d";
  if (transposed) d.meta.u("transposed", 1);
  d.meta.u("numel", y.numel()).u("n", n).u("cin", cin).u("h", h).u("w", wd).u("cout", cout).u("oh", oh).u("ow", ow);
  d.meta.u("kh", kh).u("kw", kw).u("sh", stride[0]).u("sw", stride[1]).u("ph", padding[0]).u("pw", padding[1]);
  d.meta.u("dh", dilation[0]).u("dw", dilation[1]).u("groups", groups);
  d.meta.u("x_off", x.offset).us("x_strides", x.strides);
  d.names = {"Y", "X", "W", "Bias"};
  const KSplit split = gemm ? gemm_k_split(cout, oh * ow, n, cin * kh * kw) : KSplit{};
  if (split.chunks > 1) {  // the partial sums, then their sum with the bias
    const Tensor parts = gpu_scratch(DType::F32, split.chunks * y.numel(), "split-K partial sums");
    d.meta.u("has_b", 0).u("k_chunk", split.chunk);
    d.bindings = {parts, x, w, Tensor{}};
    gemm_grid(d, cout, oh * ow, n * split.chunks);
    g.dispatches.push_back(d);
    g.dispatches.push_back(gpu_sum_partials(y, parts, split.chunks, cout, oh * ow, 1, bias));
    return true;
  }
  d.meta.u("has_b", bias.defined() ? 1 : 0);
  d.bindings = {y, x, w, bias};
  d.takes_epilogue = true;
  if (gemm) {
    gemm_grid(d, cout, oh * ow, n);
  } else {
    gpu_grid(d, (y.numel() + 63) / 64);
  }
  g.dispatches.push_back(d);
  return true;
}

// conv2d, or conv_transpose2d (and convolution with `transposed` set: its output_padding is in
// y's shape), from the call's attributes with the CPU op's defaults.
bool lower_conv2d_call(const OpCall& c, GpuLowering& g, bool transposed) {
  if (!gpu_all_f32(c) || c.in.size() < 2) return false;
  const Tensor bias = c.in.size() > 2 ? c.in[2] : Tensor{};
  const auto stride = c.ints("stride", std::vector<int64_t>{1, 1}, 2);
  const auto padding = c.ints("padding", std::vector<int64_t>{0, 0}, 2);
  const auto dilation = c.ints("dilation", std::vector<int64_t>{1, 1}, 2);
  return conv2d(g, c.in[0], c.in[1], bias, c.out[0], stride, padding, dilation, c.i("groups", 1), transposed);
}

bool lower_conv2d(const OpCall& c, GpuLowering& g) { return lower_conv2d_call(c, g, false); }
bool lower_conv_transpose2d(const OpCall& c, GpuLowering& g) { return lower_conv2d_call(c, g, true); }

// conv1d on [N, C, L]: conv2d over [N, C, 1, L] views (H = 1), the same kernel.
bool lower_conv1d(const OpCall& c, GpuLowering& g) {
  if (!gpu_all_f32(c) || c.in.size() < 2) return false;
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
  if (c.b("transposed", false)) return c.in[0].dim() == 4 && lower_conv_transpose2d(c, g);
  if (c.in[0].dim() == 3) return lower_conv1d(c, g);
  return lower_conv2d(c, g);
}

}  // namespace

TIR_REGISTER_WEBGPU(
    {"aten.mm.default", lower_mm}, {"aten.bmm.default", lower_bmm}, {"aten.matmul.default", lower_mm},
    {"aten.linear.default", lower_linear}, {"aten.addmm.default", lower_addmm},
    {"aten.baddbmm.default", lower_addmm},
    {"aten.conv2d.default", lower_conv2d}, {"aten.conv1d.default", lower_conv1d}, {"aten.convolution.default", lower_convolution},
    {"aten.conv_transpose2d.input", lower_conv_transpose2d});

}  // namespace tir
