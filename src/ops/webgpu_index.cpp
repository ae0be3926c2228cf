// WebGPU lowerings of the gathers (index_select.wgsl): index_select, embedding, gather,
// take_along_dim, and index.Tensor with one index tensor (two: index_multi.wgsl); and of
// scatter / scatter_add, in gather form (scatter.wgsl). Indices are int64 (held as int32 on the
// GPU) or int32; an index out of range cannot raise on the GPU and reads 0 (docs/webgpu.md,
// Limits).
#include "ops/common.h"
#include "ops/index_util.h"
#include "ops/webgpu.h"

namespace tir {
namespace {

// The WGSL element type of a gathered value (4-byte storage; int64 values are held as int32).
const char* gather_type(DType dtype) {
  switch (dtype) {
    case DType::F32: return "f32";
    case DType::Bool: return "u32";
    case DType::I32:
    case DType::I64: return "i32";
    default: gpu_unsupported(std::string("gathering ") + dtype_name(dtype));
  }
}

// y = x.index_select(dim, idx) for a 1-d (or flattened contiguous) idx. part_rows {first, count}
// (count != 0): x is that part of a table of `part_of` rows along dim (index_select.wgsl's row window).
GpuDispatch index_select(const Tensor& x, int64_t dim, const Tensor& idx, const Tensor& y,
                         std::pair<int64_t, int64_t> part_rows = {0, 0}, int64_t part_of = 0) {
  gpu_need(gpu_dense_at_zero(y), "a strided gather output");
  gpu_need(idx.dtype == DType::I64 || idx.dtype == DType::I32, "indices not int32/int64");
  GpuDispatch d;
  d.kernel = "index_select";
  d.subst = {{"MODE", "0"}};
  const char* t = gather_type(x.dtype);
  d.types = {{"Y", t}, {"X", t}, {"Idx", "i32"}};
  Shape shape = x.shape;
  shape[size_t(dim)] = idx.numel();
  d.meta.u("numel", y.numel()).u("rank", x.dim()).u("dim", dim);
  d.meta.u("x_dim_size", part_rows.second ? part_of : x.shape[size_t(dim)]);
  d.meta.u("row_first", part_rows.first).u("row_count", part_rows.second);
  d.meta.u("x_off", x.offset).us("shape", shape, 6).us("x_strides", x.strides, 6);
  d.meta.us("idx_strides", {idx.dim() ? idx.strides.back() : 1}, 6).u("idx_off", idx.offset);
  d.bindings = {y, x, idx};
  d.names = {"Y", "X", "Idx"};  // a float16 table converts to Y's f32 on the store
  gpu_grid(d, (y.numel() + 63) / 64);
  return d;
}

// A table larger than the device's largest storage binding (GPT-2's tied wte on a 128 MiB device)
// is read as parts of its rows (gpu_weight_parts), one dispatch each: each writes the rows its
// part holds (index_select.wgsl's row window).
bool lower_embedding(const OpCall& c, GpuLowering& g) {
  const Tensor& w = c.in[0];
  const Tensor& idx = c.in[1];
  if (w.dtype != DType::F32 || w.dim() != 2 || !idx.is_contiguous() || c.out[0].numel() == 0) return c.out[0].numel() == 0;
  const Tensor flat = idx.view_as({idx.numel()}, {1}, idx.offset);
  const Tensor y = c.out[0].view_as({idx.numel(), w.shape[1]}, contiguous_strides({idx.numel(), w.shape[1]}), 0);
  const auto parts = gpu_weight_parts(w, g.max_binding_bytes);
  if (parts.size() == 1) {
    g.dispatches.push_back(index_select(w, 0, flat, y));
    return true;
  }
  const int64_t D = w.shape[1];
  for (const auto& [first, rows] : parts) {
    GpuDispatch d = index_select(w.view_as({rows, D}, {D, 1}, 0), 0, flat, y, {first, rows}, w.shape[0]);
    d.parts.push_back({1, first * D, rows * D});
    g.dispatches.push_back(std::move(d));
  }
  return true;
}

bool lower_index_select(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  if (c.in[1].dim() > 1) return false;
  if (c.out[0].numel() == 0) return true;
  g.dispatches.push_back(index_select(x, c.wrap_dim(c.i("dim"), x.dim()), c.in[1], c.out[0]));
  return true;
}

// gather(x, dim, idx) (MODE 1): out has idx's shape; out[i] = x[i with dim := idx[i]]. x and
// idx are strided views over the output shape (stride 0 where take_along_dim broadcasts).
GpuDispatch gather(const Tensor& x, const Strides& x_strides, int64_t dim, const Tensor& idx, const Strides& idx_strides,
                   const Tensor& y) {
  gpu_need(gpu_dense_at_zero(y), "a strided gather output");
  gpu_need(idx.dtype == DType::I64 || idx.dtype == DType::I32, "indices not int32/int64");
  GpuDispatch d;
  d.kernel = "index_select";
  d.subst = {{"MODE", "1"}};
  const char* t = gather_type(x.dtype);
  d.types = {{"Y", t}, {"X", t}, {"Idx", "i32"}};
  d.meta.u("numel", y.numel()).u("rank", y.dim()).u("dim", dim).u("x_dim_size", x.shape[size_t(dim)]);
  d.meta.u("x_off", x.offset).us("shape", y.shape, 6).us("x_strides", x_strides, 6);
  d.meta.us("idx_strides", idx_strides, 6).u("idx_off", idx.offset);
  d.bindings = {y, x, idx};
  d.names = {"Y", "X", "Idx"};  // a float16 table converts to Y's f32 on the store
  gpu_grid(d, (y.numel() + 63) / 64);
  return d;
}

bool lower_gather(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& idx = c.in[1];
  const Tensor& y = c.out[0];
  if (x.dim() == 0 || idx.dim() != x.dim()) return false;
  if (y.numel() == 0) return true;
  g.dispatches.push_back(gather(x, x.strides, c.wrap_dim(c.i("dim"), x.dim()), idx, idx.strides, y));
  return true;
}

// take_along_dim(x, idx, dim): gather with x and idx broadcast to the output except along dim.
bool lower_take_along_dim(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& idx = c.in[1];
  const Tensor& y = c.out[0];
  if (y.numel() == 0) return true;
  if (!c.has("dim")) {  // over the flattened x and indices
    if (!x.is_contiguous() || !idx.is_contiguous()) return false;
    const Tensor xf = x.view_as({x.numel()}, {1}, x.offset), yf = y.view_as({y.numel()}, {1}, y.offset);
    g.dispatches.push_back(gather(xf, {1}, 0, idx, {1}, yf));
    return true;
  }
  if (x.dim() == 0 || idx.dim() != x.dim() || y.dim() != x.dim()) return false;
  const int64_t dim = c.wrap_dim(c.i("dim"), x.dim());
  Strides xs = gpu_broadcast_strides(x, y.shape), is = gpu_broadcast_strides(idx, y.shape);
  xs[size_t(dim)] = x.strides[size_t(dim)];
  g.dispatches.push_back(gather(x, xs, dim, idx, is, y));
  return true;
}

// index.Tensor with two index tensors (index_multi.wgsl), broadcast together: their dims take
// the indexed dims' place when those are adjacent, else they come first (torch's rule).
bool lower_index_two(const OpCall& c, const std::vector<const Tensor*>& entries, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  std::vector<int64_t> dims;  // the indexed dims of x
  Shape bcast;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (!entries[i]) continue;
    const Tensor& idx = *entries[i];
    if (int64_t(i) >= x.dim() || (idx.dtype != DType::I64 && idx.dtype != DType::I32)) return false;  // masks: CPU
    dims.push_back(int64_t(i));
    const auto both = broadcast_shapes(bcast, idx.shape);
    if (!both) return false;
    bcast = *both;
  }
  const bool adjacent = dims[1] == dims[0] + 1;
  // Output dims: (x dims before, broadcast dims, x dims after) or (broadcast dims, other x dims).
  Shape shape;
  Strides xs, s0, s1;
  const Strides b0 = gpu_broadcast_strides(*entries[size_t(dims[0])], bcast);
  const Strides b1 = gpu_broadcast_strides(*entries[size_t(dims[1])], bcast);
  auto add_bcast = [&]() {
    for (size_t d = 0; d < bcast.size(); ++d) {
      shape.push_back(bcast[d]);
      xs.push_back(0), s0.push_back(b0[d]), s1.push_back(b1[d]);
    }
  };
  if (!adjacent) add_bcast();
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d == dims[0] && adjacent) add_bcast();
    if (d == dims[0] || d == dims[1]) continue;
    shape.push_back(x.shape[size_t(d)]);
    xs.push_back(x.strides[size_t(d)]), s0.push_back(0), s1.push_back(0);
  }
  if (shape != y.shape || !gpu_dense_at_zero(y)) return false;
  if (y.numel() == 0) return true;
  const Tensor &i0 = *entries[size_t(dims[0])], &i1 = *entries[size_t(dims[1])];
  GpuDispatch d;
  d.kernel = "index_multi";
  const char* t = gather_type(x.dtype);
  d.types = {{"Y", t}, {"X", t}, {"I0", "i32"}, {"I1", "i32"}};
  d.meta.u("numel", y.numel()).u("rank", int64_t(shape.size())).us("shape", shape, 6);
  d.meta.u("x_off", x.offset).us("x_strides", xs, 6).u("i0_off", i0.offset).us("i0_strides", s0, 6);
  d.meta.u("i1_off", i1.offset).us("i1_strides", s1, 6);
  d.meta.u("n0", x.shape[size_t(dims[0])]).u("n1", x.shape[size_t(dims[1])]);
  d.meta.u("s0", x.strides[size_t(dims[0])]).u("s1", x.strides[size_t(dims[1])]);
  d.bindings = {y, x, i0, i1};
  d.names = {"Y", "X", "I0", "I1"};  // a float16 table converts to Y's f32 on the store
  gpu_grid(d, (y.numel() + 63) / 64);
  g.dispatches.push_back(d);
  return true;
}

// index.Tensor with one index tensor (the other entries None): index_select along its dim
// over the flattened indices; the output puts idx's dims in place of that dim.
bool lower_index_tensor(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  const auto entries = indexing::tensor_list(c, 1, c.in.size() - 1);  // per dim of x: the index, or null (None)
  int64_t dim = -1, count = 0;
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i] && count++ == 0) dim = int64_t(i);
  if (count == 2) return lower_index_two(c, entries, g);
  if (count != 1 || dim >= x.dim()) return false;
  const Tensor& idx = *entries[size_t(dim)];
  if (idx.dtype == DType::Bool || idx.dtype == DType::U8 || !idx.is_contiguous()) return false;  // masks: CPU
  if (y.numel() == 0) return true;
  Shape shape = x.shape;
  shape[size_t(dim)] = idx.numel();
  const Tensor flat = idx.view_as({idx.numel()}, {1}, idx.offset);
  g.dispatches.push_back(index_select(x, dim, flat, y.view_as(shape, contiguous_strides(shape), y.offset)));
  return true;
}

// scatter.src / scatter.value / scatter_add (out of place) in gather form (scatter.wgsl): every
// output element walks the index positions along dim that may write it, so its cost is
// numel x index.size(dim), bounded here.
bool lower_scatter(const OpCall& c, GpuLowering& g, int mode) {
  const Tensor &x = c.in[0], &idx = c.in[1], &y = c.out[0];
  if (x.dim() == 0 || idx.dim() != x.dim() || !gpu_dense_at_zero(y) || idx.dtype != DType::I64) return false;
  const int64_t dim = c.wrap_dim(c.i("dim"), x.dim());
  if (idx.shape[size_t(dim)] > 4096) return false;
  // Set: any element gather_type holds (int64 values move as int32); add: f32 or i32; value: f32.
  if (mode != 0 && x.dtype != DType::F32 && !(mode == 2 && x.dtype == DType::I32)) return false;
  if (y.numel() == 0) return true;
  const Tensor src = mode == 1 ? Tensor{} : c.in[2];
  GpuDispatch d;
  d.kernel = "scatter";
  d.subst = {{"MODE", std::to_string(mode)}};
  const char* t = gather_type(x.dtype);
  d.types = {{"Y", t}, {"X", t}, {"Idx", "i32"}, {"Src", t}};
  d.meta.u("numel", y.numel()).u("rank", x.dim()).u("dim", dim).u("dim_size", x.shape[size_t(dim)]);
  d.meta.f("value", mode == 1 ? c.scalar("value").f : 0.0).us("shape", y.shape, 6);
  d.meta.u("self_off", x.offset).us("self_strides", x.strides, 6);
  d.meta.u("idx_off", idx.offset).us("idx_shape", idx.shape, 6).us("idx_strides", idx.strides, 6);
  d.meta.u("src_off", src.defined() ? src.offset : 0).us("src_strides", src.defined() ? src.strides : Strides{}, 6);
  d.bindings = {y, x, idx, src};
  gpu_grid(d, (y.numel() + 63) / 64);
  g.dispatches.push_back(d);
  return true;
}
bool lower_scatter_src(const OpCall& c, GpuLowering& g) { return lower_scatter(c, g, 0); }
bool lower_scatter_value(const OpCall& c, GpuLowering& g) { return lower_scatter(c, g, 1); }
bool lower_scatter_add(const OpCall& c, GpuLowering& g) { return lower_scatter(c, g, 2); }

}  // namespace

TIR_REGISTER_WEBGPU(
    {"aten.embedding.default", lower_embedding}, {"aten.index_select.default", lower_index_select},
    {"aten.gather.default", lower_gather}, {"aten.take_along_dim.default", lower_take_along_dim},
    {"aten.index.Tensor", lower_index_tensor}, {"aten._unsafe_index.Tensor", lower_index_tensor},
    {"aten.scatter.src", lower_scatter_src}, {"aten.scatter.value", lower_scatter_value},
    {"aten.scatter_add.default", lower_scatter_add});

}  // namespace tir
