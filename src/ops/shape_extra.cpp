// More view/shape ops: atleast_2d, broadcast_to, diagonal (a strided view) and
// diagonal_copy, diag, column_stack, take_along_dim, tensor_split, meshgrid,
// channel_shuffle and view.dtype. Views alias their input (no run step), as
// torch returns views; the others copy through copy_into, so strided inputs
// need no copy first.
#include <algorithm>
#include <string>

#include "core/checked.h"
#include "core/dispatch.h"
#include "ops/common.h"
#include "ops/index_util.h"
#include "ops/op.h"
#include "ops/view_util.h"

namespace tir {
namespace {

// 0-d -> [1, 1], 1-D [n] -> [1, n] (a view), else x itself.
void plan_atleast_2d(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  if (x.dim() == 0) return c.alias(0, x.view_as({1, 1}, {1, 1}, x.offset));
  if (x.dim() == 1) return c.alias(0, x.view_as({1, x.shape[0]}, {x.shape[0] * x.strides[0], x.strides[0]}, x.offset));
  c.alias(0, x);
}

void plan_broadcast_to(OpCall& c) {
  c.expect_inputs(1, 1);
  c.alias(0, expand_view(c, c.in[0], c.ints("size")));
}

// --- diagonal ----------------------------------------------------------------
// The view torch's diagonal(x, offset, dim1, dim2) gives: dims dim1/dim2 removed,
// the diagonal appended as the last dim (stride = sum of both strides).
Tensor diagonal_view(const OpCall& c, const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  c.check(x.dim() >= 2, "diagonal expects a tensor with at least 2 dimensions, got " + std::to_string(x.dim()) + "-D");
  const int64_t d1 = c.wrap_dim(dim1, x.dim()), d2 = c.wrap_dim(dim2, x.dim());
  c.check(d1 != d2, "diagonal dimensions cannot be identical " + std::to_string(dim1) + ", " + std::to_string(dim2));
  const int64_t s1 = x.shape[size_t(d1)], s2 = x.shape[size_t(d2)];
  const int64_t n = std::max<int64_t>(0, offset >= 0 ? std::min(s1, s2 - offset) : std::min(s1 + offset, s2));
  int64_t start = x.offset;
  if (n > 0) start += offset >= 0 ? offset * x.strides[size_t(d2)] : -offset * x.strides[size_t(d1)];
  Shape shape;
  Strides strides;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d == d1 || d == d2) continue;
    shape.push_back(x.shape[size_t(d)]);
    strides.push_back(x.strides[size_t(d)]);
  }
  shape.push_back(n);
  strides.push_back(x.strides[size_t(d1)] + x.strides[size_t(d2)]);
  return x.view_as(shape, strides, start);
}

Tensor diagonal_by_attrs(const OpCall& c, const Tensor& x) {
  return diagonal_view(c, x, c.i("offset", 0), c.i("dim1", 0), c.i("dim2", 1));
}

void plan_diagonal(OpCall& c) {
  c.expect_inputs(1, 1);
  c.alias(0, diagonal_by_attrs(c, c.in[0]));
}

void plan_diagonal_copy(OpCall& c) {
  c.expect_inputs(1, 1);
  c.fresh(0, c.in[0].dtype, diagonal_by_attrs(c, c.in[0]).shape);
}

void run_diagonal_copy(OpCall& c) { copy_into(c.out[0], diagonal_by_attrs(c, c.in[0])); }

// diag: 1-D [n] -> [n+|k|, n+|k|] with x on diagonal k (zeros elsewhere); 2-D -> its diagonal k (a copy).
void plan_diag(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  c.check(x.dim() == 1 || x.dim() == 2, "diag(): Supports 1D or 2D tensors. Got " + std::to_string(x.dim()) + "D");
  const int64_t k = c.i("diagonal", 0);
  if (x.dim() == 2) return (void)c.fresh(0, x.dtype, diagonal_view(c, x, k, 0, 1).shape);
  const int64_t n = checked_add(x.shape[0], k < 0 ? checked_mul(-1, k, "diag size") : k, "diag size");
  c.fresh(0, x.dtype, {n, n});
}

void run_diag(OpCall& c) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  const int64_t k = c.i("diagonal", 0);
  if (x.dim() == 2) return copy_into(y, diagonal_view(c, x, k, 0, 1));
  std::fill(y.raw(), y.raw() + y.nbytes(), uint8_t(0));
  if (x.shape[0] > 0) copy_into(diagonal_view(c, y, k, 0, 1), x);
}

// --- column_stack: 0-d/1-D inputs become [n, 1] columns, then cat along dim 1 ---
std::vector<Tensor> columns(const OpCall& c) {
  c.check(!c.in.empty(), "column_stack expects a non-empty TensorList");
  std::vector<Tensor> cols;
  for (const Tensor& t : c.in) {
    if (t.dim() == 0) cols.push_back(t.view_as({1, 1}, {1, 1}, t.offset));
    else if (t.dim() == 1) cols.push_back(t.view_as({t.shape[0], 1}, {t.strides[0], 1}, t.offset));
    else cols.push_back(t);
  }
  return cols;
}

void plan_column_stack(OpCall& c) {
  const std::vector<Tensor> cols = columns(c);
  std::vector<PromotionOperand> ops;
  for (const Tensor& t : c.in) ops.push_back(PromotionOperand::of(t));
  Shape out = cols[0].shape;
  out[1] = 0;
  for (size_t k = 0; k < cols.size(); ++k) {
    const Tensor& t = cols[k];
    bool ok = t.dim() == int64_t(out.size());
    for (size_t d = 0; ok && d < out.size(); ++d) ok = d == 1 || t.shape[d] == out[d];
    c.check(ok, "column_stack: tensor " + std::to_string(k) + " has shape " + shape_to_string(t.shape) +
                    ", expected " + shape_to_string(cols[0].shape) + " except in dimension 1");
    out[1] = checked_add(out[1], t.shape[1], "column_stack output size");
  }
  c.fresh(0, compute_dtype(result_type(ops)), out);
}

void run_column_stack(OpCall& c) {
  const Tensor& y = c.out[0];
  int64_t pos = 0;
  for (const Tensor& t : columns(c)) {
    Shape s = y.shape;
    s[1] = t.shape[1];
    if (s[1] > 0) copy_into(y.view_as(s, y.strides, y.offset + pos * y.strides[1]), t);
    pos += s[1];
  }
}

// --- take_along_dim ------------------------------------------------------------
// dim None: self.flatten().gather(0, indices.flatten()); else self and indices
// broadcast against each other except along dim, then gather (as torch).
struct TakeAlong {
  bool flat = false;
  int64_t dim = 0;
  Shape self_shape, idx_shape;  // the broadcast shapes
};

TakeAlong take_along_plan(const OpCall& c) {
  const Tensor &x = c.in[0], &idx = c.in[1];
  c.check(idx.dtype == DType::I64, std::string("torch.take_along_dim(): dtype of indices should be Long but got ") +
                                       dtype_name(idx.dtype));
  TakeAlong p;
  if (!c.has("dim")) {
    p.flat = true;
    p.self_shape = {x.numel()};
    p.idx_shape = {idx.numel()};
    return p;
  }
  c.check(x.dim() == idx.dim(), "torch.take_along_dim(): input and indices should have the same number of dimensions, "
                                "but got " + std::to_string(x.dim()) + " dimensions for input, and " +
                                    std::to_string(idx.dim()) + " dimensions for indices");
  p.dim = c.wrap_sized_dim(c.i("dim"), x.dim(), "take_along_dim");
  Shape xs = x.shape, is = idx.shape;
  xs[size_t(p.dim)] = idx.shape[size_t(p.dim)];
  is[size_t(p.dim)] = x.shape[size_t(p.dim)];
  auto bi = broadcast_shapes(xs, idx.shape), bx = broadcast_shapes(is, x.shape);
  c.check(bi && bx, "take_along_dim: indices " + shape_to_string(idx.shape) + " and input " +
                        shape_to_string(x.shape) + " cannot be broadcast except along dim " + std::to_string(p.dim));
  p.idx_shape = *bi;
  p.self_shape = *bx;
  return p;
}

void plan_take_along_dim(OpCall& c) {
  c.expect_inputs(2, 2);
  c.fresh(0, c.in[0].dtype, take_along_plan(c).idx_shape);
}

void run_take_along_dim(OpCall& c) {
  const TakeAlong p = take_along_plan(c);
  const Tensor &x = c.in[0], &idx = c.in[1], &y = c.out[0];
  const int64_t n = y.numel();
  if (n == 0) return;
  // Self's element strides over its broadcast shape (a flat view reads x row-major).
  const Tensor xc = p.flat ? contiguous_or_self(x) : x;
  const Strides xs = p.flat ? Strides{1} : broadcast_strides(x, p.self_shape);
  const std::vector<int64_t> ids =
      p.flat ? indexing::read_indices(idx) : indexing::read_indices(idx, p.idx_shape, broadcast_strides(idx, p.idx_shape));
  const size_t nd = p.idx_shape.size();
  const int64_t size = p.self_shape[p.flat ? 0 : size_t(p.dim)];
  std::vector<int64_t> offs(static_cast<size_t>(n));
  std::vector<int64_t> coord(nd, 0);
  for (int64_t e = 0; e < n; ++e) {
    const int64_t v = ids[size_t(e)];
    c.check(v >= 0 && v < size, "take_along_dim: index " + std::to_string(v) + " is out of bounds for dimension " +
                                        std::to_string(p.dim) + " with size " + std::to_string(size));
    int64_t off = 0;
    for (size_t d = 0; d < nd; ++d) off += (int64_t(d) == p.dim ? v : coord[d]) * xs[d];
    offs[size_t(e)] = off;
    for (size_t d = nd; d-- > 0;) {
      if (++coord[d] < p.idx_shape[d]) break;
      coord[d] = 0;
    }
  }
  dispatch_compute(y.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* src = xc.data<T>();
    T* dst = y.data<T>();
    for (int64_t e = 0; e < n; ++e) dst[e] = src[offs[size_t(e)]];
  });
}

// --- tensor_split.sections: `sections` views, the first size % sections one longer ---
void plan_tensor_split(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  c.check(x.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  const int64_t dim = c.wrap_dim(c.i("dim", 0), x.dim());
  const int64_t sections = c.i("sections");
  c.check(sections > 0, "number of sections must be larger than 0, got " + std::to_string(sections));
  c.check(uint64_t(sections) == c.num_ir_outputs(), "tensor_split gives " + std::to_string(sections) +
                                                        " pieces but the IR lists " + std::to_string(c.num_ir_outputs()));
  const int64_t size = x.shape[size_t(dim)], base = size / sections, extra = size % sections;
  int64_t start = 0;
  for (int64_t k = 0; k < sections; ++k) {
    const int64_t len = base + (k < extra ? 1 : 0);
    c.alias(size_t(k), slice_view(x, dim, start, len, 1));
    start += len;
  }
}

// --- meshgrid.indexing: output k is input k (0-d or 1-D) expanded over the grid ---
void plan_meshgrid(OpCall& c) {
  c.check(!c.in.empty(), "torch.meshgrid: Expected at least one tensor");
  const std::string indexing = c.str("indexing", "ij");
  c.check(indexing == "ij" || indexing == "xy",
          "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: " + indexing);
  const size_t n = c.in.size();
  c.check(c.num_ir_outputs() == n, "meshgrid of " + std::to_string(n) + " tensors, but the IR lists " +
                                       std::to_string(c.num_ir_outputs()) + " outputs");
  for (size_t k = 0; k < n; ++k) {
    c.check(c.in[k].dim() <= 1, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: " +
                                    shape_to_string(c.in[k].shape));
    c.check(c.in[k].dtype == c.in[0].dtype, "torch.meshgrid: expects all tensors to have the same dtype");
  }
  // "xy" swaps the first two axes: input k lies along grid axis pos[k].
  std::vector<size_t> pos(n);
  for (size_t k = 0; k < n; ++k) pos[k] = k;
  if (indexing == "xy" && n >= 2) std::swap(pos[0], pos[1]);
  Shape shape(n);
  for (size_t k = 0; k < n; ++k) shape[pos[k]] = c.in[k].numel();
  for (size_t k = 0; k < n; ++k) {
    const Tensor& t = c.in[k];
    Strides st(n, 0);
    st[pos[k]] = t.dim() == 1 ? t.strides[0] : 0;
    c.alias(k, t.view_as(shape, st, t.offset));
  }
}

// --- channel_shuffle(x [N, C, *], groups): channel g*(C/G)+j moves to j*G+g ---
Tensor shuffled_input(const OpCall& c) {
  const Tensor& x = c.in[0];
  const int64_t g = c.i("groups");
  c.check(g > 0, "Number of groups to divide channels in must be positive. Value of groups:" + std::to_string(g));
  c.check(x.dim() > 2, "channel_shuffle expects input to have at least 3 dimensions, but got input with sizes " +
                           shape_to_string(x.shape));
  const int64_t ch = x.shape[1];
  c.check(ch % g == 0, "Number of channels must be divisible by groups. Got " + std::to_string(ch) +
                           " channels and " + std::to_string(g) + " groups.");
  // x seen as [N, C/G, G, *] with channel index g*(C/G)+j at (j, g).
  Shape s = x.shape;
  Strides st = x.strides;
  s[1] = ch / g;
  s.insert(s.begin() + 2, g);
  st.insert(st.begin() + 2, x.strides[1] * (ch / g));
  return x.view_as(s, st, x.offset);
}

void plan_channel_shuffle(OpCall& c) {
  c.expect_inputs(1, 1);
  shuffled_input(c);
  c.fresh(0, c.in[0].dtype, c.in[0].shape);
}

void run_channel_shuffle(OpCall& c) {
  const Tensor v = shuffled_input(c);
  copy_into(c.out[0].view_as(v.shape, contiguous_strides(v.shape), c.out[0].offset), v);
}

// --- view.dtype: the same bytes read as another dtype -----------------------
// Same element size: shape and strides kept. Otherwise the last dim (stride 1)
// shrinks or grows by the size ratio, as torch does. f16/bf16 are held as f32
// in the engine (compute dtype), so their bytes cannot be reinterpreted.
void plan_view_dtype(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  const DType to = c.dtype("dtype").value_or(x.dtype);
  c.check(to != DType::F16 && to != DType::BF16 && x.dtype != DType::F16 && x.dtype != DType::BF16 &&
              !is_complex(to) && !is_complex(x.dtype),
          std::string("view(dtype) between ") + dtype_name(x.dtype) + " and " + dtype_name(to) +
              " is not supported: the engine holds float16/bfloat16 values as float32, so their bytes differ from torch's");
  const int64_t from_size = int64_t(dtype_size(x.dtype)), to_size = int64_t(dtype_size(to));
  const std::string what = std::string(" to view ") + dtype_name(x.dtype) + " as " + dtype_name(to) +
                           " (different element sizes)";
  Tensor y = x;
  y.dtype = to;
  if (from_size == to_size) return c.alias(0, y);
  c.check(x.dim() > 0, "self.dim() cannot be 0" + what);
  c.check(x.strides.back() == 1 || x.shape.back() == 1,
          "self.stride(-1) must be 1" + what + ", but got " + std::to_string(x.strides.back()));
  if (to_size > from_size) {
    const int64_t r = to_size / from_size;
    c.check(x.shape.back() % r == 0, "self.size(-1) must be divisible by " + std::to_string(r) + what +
                                         ", but got " + std::to_string(x.shape.back()));
    c.check(x.offset % r == 0, "self.storage_offset() must be divisible by " + std::to_string(r) + what +
                                   ", but got " + std::to_string(x.offset));
    for (size_t d = 0; d + 1 < x.strides.size(); ++d)
      c.check(x.strides[d] % r == 0, "self.stride(" + std::to_string(d) + ") must be divisible by " +
                                         std::to_string(r) + what + ", but got " + std::to_string(x.strides[d]));
    for (size_t d = 0; d + 1 < x.strides.size(); ++d) y.strides[d] /= r;
    y.shape.back() /= r;
    y.strides.back() = 1;
    y.offset = x.offset / r;
  } else {
    const int64_t r = from_size / to_size;
    for (size_t d = 0; d + 1 < x.strides.size(); ++d) y.strides[d] *= r;
    y.shape.back() *= r;
    y.strides.back() = 1;
    y.offset = x.offset * r;
  }
  c.alias(0, y);
}

OpDef view_op(void (*plan)(OpCall&)) { return {plan, nullptr}; }

}  // namespace

TIR_REGISTER_OPS(
    // atleast_2d(Tensor self) -> Tensor
    {"aten.atleast_2d.default", view_op(plan_atleast_2d)},
    // broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)
    {"aten.broadcast_to.default", view_op(plan_broadcast_to)},
    // diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)
    {"aten.diagonal.default", view_op(plan_diagonal)},
    // diagonal_copy(Tensor self, int offset=0, int dim1=0, int dim2=1) -> Tensor
    {"aten.diagonal_copy.default", {plan_diagonal_copy, run_diagonal_copy}},
    // diag(Tensor self, int diagonal=0) -> Tensor
    {"aten.diag.default", {plan_diag, run_diag}},
    // column_stack(Tensor[] tensors) -> Tensor
    {"aten.column_stack.default", {plan_column_stack, run_column_stack}},
    // take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor
    {"aten.take_along_dim.default", {plan_take_along_dim, run_take_along_dim}},
    // tensor_split.sections(Tensor(a -> *) self, SymInt sections, int dim=0) -> Tensor(a)[]
    {"aten.tensor_split.sections", view_op(plan_tensor_split)},
    // meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]
    {"aten.meshgrid.indexing", view_op(plan_meshgrid)},
    // channel_shuffle(Tensor self, SymInt groups) -> Tensor; native_channel_shuffle (same)
    {"aten.channel_shuffle.default", {plan_channel_shuffle, run_channel_shuffle}},
    {"aten.native_channel_shuffle.default", {plan_channel_shuffle, run_channel_shuffle}},
    // view.dtype(Tensor(a) self, ScalarType dtype) -> Tensor(a)
    {"aten.view.dtype", view_op(plan_view_dtype)});

}  // namespace tir
