// WebGPU lowerings of the reductions over dims (f32 in): sum, mean, amax/amin
// (max/min over everything), var/std with correction, argmax/argmin (max.dim
// and min.dim with their values too), the 2-norm (linalg_vector_norm), and topk.
// Each is one dispatch of reduce.wgsl; the dims read as the CPU op files read
// them (reduce_util.h), and must be adjacent and merge into one stride.
#include <cmath>

#include "ops/reduce_util.h"
#include "ops/webgpu.h"

namespace tir {
namespace {

// reduce.wgsl's MODE.
enum ReduceMode { kSum = 0, kMean, kAmax, kAmin, kVar, kStd, kArgmax, kArgmin, kNorm2 };

// x reduced over the dims `rd` marks into y (values, dense; keepdim or not; undefined for
// argmax/argmin alone) and idx (arg modes: int64 indices, held as i32 on the GPU).
// Returns false for a reduction over no elements (torch's empty-group results stay on the CPU).
bool gpu_reduce(GpuLowering& g, ReduceMode mode, const Tensor& x, const std::vector<bool>& rd, const Tensor& y,
                const Tensor& idx = Tensor{}, double correction = 0) {
  // argmax/argmin (and max.dim's values) of integers compare them as i32 (int64 is held as
  // int32); every other mode computes in f32.
  const bool arg = mode == kArgmax || mode == kArgmin;
  const bool integral = x.dtype == DType::I32 || x.dtype == DType::I64;
  gpu_need((x.dtype == DType::F32 || (arg && integral)) && (!y.defined() || y.dtype == x.dtype),
           "a reduction of these dtypes");
  gpu_need(gpu_dense_at_zero(y) && gpu_dense_at_zero(idx), "a strided reduction output");
  Shape keep;
  Strides ks;
  int64_t red = 1, last = -1;
  bool gap = false;  // a kept dim (size > 1) between two reduced ones
  for (int64_t i = 0; i < x.dim(); ++i) {
    const int64_t n = x.shape[size_t(i)];
    if (!rd[size_t(i)]) {
      keep.push_back(n);
      ks.push_back(x.strides[size_t(i)]);
      gap = gap || (last >= 0 && n != 1);
      continue;
    }
    if (n == 1) continue;  // adds nothing, whatever its stride
    // Reduced dims merge into one when adjacent with stride[prev] == stride[i] * shape[i] (H, W).
    gpu_need(last < 0 || (!gap && x.strides[size_t(last)] == x.strides[size_t(i)] * n),
             "reduced dims that do not merge into one stride");
    last = i;
    red *= n;
  }
  int64_t rows = 1;
  for (int64_t d : keep) rows *= d;
  if (rows == 0) return true;
  if (red == 0) return false;
  gpu_need(red <= int64_t(INT32_MAX), "a reduced dim past int32 indices");
  GpuDispatch d;
  d.kernel = "reduce";
  d.subst = {{"MODE", std::to_string(int(mode))}};
  const char* tx = integral ? "i32" : "f32";
  d.subst.emplace_back("TX", tx);
  d.subst.emplace_back("X_FLOAT", integral ? "false" : "true");
  d.types = {{"I", "i32"}, {"X", tx}, {"Y", tx}};
  d.meta.u("rows", rows).u("rank", int64_t(keep.size())).u("r", red);
  d.meta.u("r_stride", last >= 0 ? x.strides[size_t(last)] : 1).u("x_off", x.offset).f("correction", correction);
  d.meta.us("shape", keep, 6).us("x_strides", ks, 6);
  d.bindings = {y, x, idx};
  d.written = {0, 2};
  gpu_grid(d, rows);
  g.dispatches.push_back(d);
  return true;
}

bool reduce_values(const OpCall& c, GpuLowering& g, ReduceMode mode, DimArg how) {
  if (c.has("dtype") || c.out.size() != 1) return false;
  const ReducedDims r = reduced_dims(c, c.in[0].shape, how, c.b("keepdim", false));
  return gpu_reduce(g, mode, c.in[0], r.rd, c.out[0]);
}
bool lower_sum(const OpCall& c, GpuLowering& g) { return reduce_values(c, g, kSum, DimArg::List); }
bool lower_mean(const OpCall& c, GpuLowering& g) { return reduce_values(c, g, kMean, DimArg::List); }
bool lower_amax(const OpCall& c, GpuLowering& g) { return reduce_values(c, g, kAmax, DimArg::ListOrAll); }
bool lower_amin(const OpCall& c, GpuLowering& g) { return reduce_values(c, g, kAmin, DimArg::ListOrAll); }
bool lower_max_all(const OpCall& c, GpuLowering& g) { return reduce_values(c, g, kAmax, DimArg::All); }
bool lower_min_all(const OpCall& c, GpuLowering& g) { return reduce_values(c, g, kAmin, DimArg::All); }

// var/std: the .correction forms (correction, default 1) and the .dim forms (unbiased).
bool lower_var_std(const OpCall& c, GpuLowering& g, ReduceMode mode) {
  if (c.out.size() != 1) return false;
  const ReducedDims r = reduced_dims(c, c.in[0].shape, DimArg::List, c.b("keepdim", false));
  const auto corr = c.opt_scalar("correction");
  const double correction = c.has("unbiased") ? (c.b("unbiased", true) ? 1.0 : 0.0) : corr ? corr->f : 1.0;
  // torch divides by max(0, n - correction); the kernel by n - correction.
  if (correction < 0 || double(r.count) < correction) return false;
  return gpu_reduce(g, mode, c.in[0], r.rd, c.out[0], Tensor{}, correction);
}
bool lower_var(const OpCall& c, GpuLowering& g) { return lower_var_std(c, g, kVar); }
bool lower_std(const OpCall& c, GpuLowering& g) { return lower_var_std(c, g, kStd); }

// argmax/argmin(dim=None: over the flattened input, which must then be one stride).
bool lower_arg(const OpCall& c, GpuLowering& g, ReduceMode mode) {
  const ReducedDims r = reduced_dims(c, c.in[0].shape, DimArg::OptSingle, c.b("keepdim", false));
  return gpu_reduce(g, mode, c.in[0], r.rd, Tensor{}, c.out[0]);
}
bool lower_argmax(const OpCall& c, GpuLowering& g) { return lower_arg(c, g, kArgmax); }
bool lower_argmin(const OpCall& c, GpuLowering& g) { return lower_arg(c, g, kArgmin); }

// max.dim / min.dim: (values, indices) in one dispatch.
bool lower_max_min_dim(const OpCall& c, GpuLowering& g, ReduceMode mode) {
  if (c.out.size() != 2) return false;
  const ReducedDims r = reduced_dims(c, c.in[0].shape, DimArg::Single, c.b("keepdim", false));
  return gpu_reduce(g, mode, c.in[0], r.rd, c.out[0], c.out[1]);
}
bool lower_max_dim(const OpCall& c, GpuLowering& g) { return lower_max_min_dim(c, g, kArgmax); }
bool lower_min_dim(const OpCall& c, GpuLowering& g) { return lower_max_min_dim(c, g, kArgmin); }

// linalg_vector_norm with ord 2 (the common one); other orders stay on the CPU.
bool lower_vector_norm(const OpCall& c, GpuLowering& g) {
  const auto ord = c.opt_scalar("ord");
  if ((ord && ord->f != 2.0) || c.has("dtype") || c.out.size() != 1) return false;
  const ReducedDims r = reduced_dims(c, c.in[0].shape, DimArg::List, c.b("keepdim", false));
  return gpu_reduce(g, kNorm2, c.in[0], r.rd, c.out[0]);
}

// topk(k, dim, largest) of f32 (topk.wgsl): values and int64 indices in ops/sort.cpp's order.
// k rounds over the row, so it is meant for the small k of routers and samplers.
bool lower_topk(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor &y = c.out[0], &idx = c.out[1];
  if (x.dtype != DType::F32 || x.dim() == 0 || !gpu_dense_at_zero(y) || !gpu_dense_at_zero(idx)) return false;
  const int64_t dim = c.wrap_dim(c.i("dim", -1), x.dim());
  const int64_t k = c.i("k"), r = x.shape[size_t(dim)];
  if (k > 256 || r > int64_t(INT32_MAX)) return false;
  if (y.numel() == 0) return true;
  Shape keep;
  Strides ks, ys;
  for (int64_t i = 0; i < x.dim(); ++i) {
    if (i == dim) continue;
    keep.push_back(x.shape[size_t(i)]);
    ks.push_back(x.strides[size_t(i)]);
    ys.push_back(y.strides[size_t(i)]);
  }
  int64_t rows = 1;
  for (int64_t n : keep) rows *= n;
  GpuDispatch d;
  d.kernel = "topk";
  d.subst = {{"LARGEST", c.b("largest", true) ? "true" : "false"}};
  d.types = {{"Y", "f32"}, {"I", "i32"}, {"X", "f32"}};
  d.meta.u("rows", rows).u("rank", int64_t(keep.size())).u("r", r).u("r_stride", x.strides[size_t(dim)]);
  d.meta.u("x_off", x.offset).u("k", k).u("y_k_stride", y.strides[size_t(dim)]);
  d.meta.us("shape", keep, 6).us("x_strides", ks, 6).us("y_strides", ys, 6);
  d.bindings = {y, idx, x};
  d.written = {0, 1};
  gpu_grid(d, rows);
  g.dispatches.push_back(d);
  return true;
}

}  // namespace

TIR_REGISTER_WEBGPU(
    {"aten.sum.dim_IntList", lower_sum}, {"aten.mean.dim", lower_mean},
    {"aten.amax.default", lower_amax}, {"aten.amin.default", lower_amin},
    {"aten.max.default", lower_max_all}, {"aten.min.default", lower_min_all},
    {"aten.var.correction", lower_var}, {"aten.var.dim", lower_var},
    {"aten.std.correction", lower_std}, {"aten.std.dim", lower_std},
    {"aten.argmax.default", lower_argmax}, {"aten.argmin.default", lower_argmin},
    {"aten.max.dim", lower_max_dim}, {"aten.min.dim", lower_min_dim},
    {"aten.linalg_vector_norm.default", lower_vector_norm}, {"aten.topk.default", lower_topk});

}  // namespace tir
