// View and bookkeeping ops. Views alias their input's Buffer (no run step), so
// in-place writes through them reach the base. reshape-like ops copy only when
// the strides make a view impossible, as torch does.
#include <algorithm>
#include <numeric>

#include "core/checked.h"
#include "ops/op.h"
#include "ops/view_util.h"

namespace tir {
namespace {

// ATen's computeStride: strides for viewing (shape, strides) as new_shape
// without copying, or nullopt when impossible.
std::optional<Strides> view_strides(const Shape& shape, const Strides& strides, const Shape& new_shape) {
  if (shape.empty() || shape_numel(shape) == 0) return contiguous_strides(new_shape);
  Strides out(new_shape.size(), 1);
  int64_t view_d = int64_t(new_shape.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= shape[size_t(d)];
    if (d == 0 || (shape[size_t(d - 1)] != 1 && strides[size_t(d - 1)] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[size_t(view_d)] == 1)) {
        out[size_t(view_d)] = view_numel * chunk_base_stride;
        view_numel *= new_shape[size_t(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[size_t(d - 1)];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

// Resolves one -1 entry from the element count (products overflow-checked).
Shape infer_size(const OpCall& c, Shape shape, int64_t numel) {
  const std::string bad = "shape " + shape_to_string(shape) + " is invalid for input of size " + std::to_string(numel);
  int64_t known = 1, infer_at = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      c.check(infer_at < 0, "only one dimension can be -1 in " + shape_to_string(shape));
      infer_at = int64_t(i);
    } else {
      c.check(shape[i] >= 0, "invalid size " + shape_to_string(shape));
      c.check(mul_ok(known, shape[i], &known), bad);
    }
  }
  if (infer_at >= 0) {
    c.check(known != 0 && numel % known == 0, bad);
    shape[size_t(infer_at)] = numel / known;
  }
  c.check(checked_numel(shape, "view") == numel, bad);
  return shape;
}

// View when strides allow, else a planned copy (run_reshape_copy fills it).
void reshape_to(OpCall& c, const Shape& requested) {
  const Tensor& x = c.in[0];
  const Shape shape = infer_size(c, requested, x.numel());
  if (auto st = view_strides(x.shape, x.strides, shape)) {
    c.alias(0, x.view_as(shape, *st, x.offset));
  } else {
    c.fresh(0, x.dtype, shape);
  }
}

void run_reshape_copy(OpCall& c) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (y.same_storage(x)) return;  // planned as a view
  copy_into(y.view_as(x.shape, contiguous_strides(x.shape), y.offset), x);
}

void plan_view(OpCall& c) {
  c.expect_inputs(1, 1);
  reshape_to(c, c.ints(c.has("size") ? "size" : "shape"));
}

void plan_flatten(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  if (x.dim() == 0) return reshape_to(c, {1});
  const int64_t start = c.wrap_dim(c.i("start_dim", 0), x.dim());
  const int64_t end = c.wrap_dim(c.i("end_dim", -1), x.dim());
  c.check(start <= end, "flatten() has invalid args: start_dim cannot come after end_dim");
  Shape shape(x.shape.begin(), x.shape.begin() + start);
  int64_t n = 1;
  for (int64_t d = start; d <= end; ++d) n = checked_mul(n, x.shape[size_t(d)], "flatten");
  shape.push_back(n);
  shape.insert(shape.end(), x.shape.begin() + end + 1, x.shape.end());
  reshape_to(c, shape);
}

void plan_unflatten(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  const int64_t dim = c.wrap_sized_dim(c.i("dim"), x.dim(), "unflatten");
  Shape sizes = infer_size(c, c.ints("sizes"), x.shape[size_t(dim)]);
  Shape shape(x.shape.begin(), x.shape.begin() + dim);
  shape.insert(shape.end(), sizes.begin(), sizes.end());
  shape.insert(shape.end(), x.shape.begin() + dim + 1, x.shape.end());
  reshape_to(c, shape);
}

void permute_to(OpCall& c, const std::vector<int64_t>& dims) {
  const Tensor& x = c.in[0];
  c.check(int64_t(dims.size()) == x.dim(), "number of dims don't match in permute");
  Shape shape;
  Strides strides;
  std::vector<bool> seen(dims.size(), false);
  for (int64_t d : dims) {
    const int64_t w = c.wrap_dim(d, x.dim());
    c.check(!seen[size_t(w)], "repeated dim in permute");
    seen[size_t(w)] = true;
    shape.push_back(x.shape[size_t(w)]);
    strides.push_back(x.strides[size_t(w)]);
  }
  c.alias(0, x.view_as(shape, strides, x.offset));
}

void plan_permute(OpCall& c) {
  c.expect_inputs(1, 1);
  permute_to(c, c.ints("dims"));
}

void transpose_dims(OpCall& c, int64_t dim0, int64_t dim1) {
  const int64_t n = c.in[0].dim();
  if (n == 0) return c.alias(0, c.in[0]);
  std::vector<int64_t> dims(static_cast<size_t>(n));
  std::iota(dims.begin(), dims.end(), 0);
  std::swap(dims[size_t(c.wrap_dim(dim0, n))], dims[size_t(c.wrap_dim(dim1, n))]);
  permute_to(c, dims);
}

void plan_transpose(OpCall& c) {
  c.expect_inputs(1, 1);
  transpose_dims(c, c.i("dim0"), c.i("dim1"));
}

void plan_swapaxes(OpCall& c) {
  c.expect_inputs(1, 1);
  transpose_dims(c, c.i("axis0"), c.i("axis1"));
}

void plan_mT(OpCall& c) {
  c.expect_inputs(1, 1);
  c.check(c.in[0].dim() >= 2, "tensor.mT is only supported on matrices or batches of matrices. Got " +
                                  std::to_string(c.in[0].dim()) + "-D tensor.");
  transpose_dims(c, -2, -1);
}

// numpy_T: all dims reversed.
void plan_numpy_T(OpCall& c) {
  c.expect_inputs(1, 1);
  std::vector<int64_t> dims(size_t(c.in[0].dim()));
  std::iota(dims.rbegin(), dims.rend(), 0);
  permute_to(c, dims);
}

// movedim.int: `source` ends up at `destination`, the other dims keep their order.
void plan_movedim(OpCall& c) {
  c.expect_inputs(1, 1);
  const int64_t n = c.in[0].dim();
  if (n == 0) return c.alias(0, c.in[0]);
  const int64_t src = c.wrap_dim(c.i("source"), n), dst = c.wrap_dim(c.i("destination"), n);
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < n; ++d)
    if (d != src) dims.push_back(d);
  dims.insert(dims.begin() + dst, src);
  permute_to(c, dims);
}

void plan_t(OpCall& c) {
  c.expect_inputs(1, 1);
  const int64_t n = c.in[0].dim();
  c.check(n <= 2, "t() expects a tensor with <= 2 dimensions, but self is " + std::to_string(n) + "D");
  if (n < 2) return c.alias(0, c.in[0]);
  permute_to(c, {1, 0});
}

void plan_unsqueeze(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  const int64_t d = c.wrap_dim(c.i("dim"), x.dim() + 1);
  Shape shape = x.shape;
  Strides strides = x.strides;
  const int64_t stride = d < x.dim() ? x.shape[size_t(d)] * x.strides[size_t(d)] : 1;
  shape.insert(shape.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  c.alias(0, x.view_as(shape, strides, x.offset));
}

// squeeze.default / .dim / .dims: drops the listed size-1 dims (all when none listed).
void plan_squeeze(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  std::vector<bool> drop(size_t(x.dim()), false);
  auto dims = c.opt_ints("dim");
  if (!dims) {
    for (int64_t d = 0; d < x.dim(); ++d) drop[size_t(d)] = x.shape[size_t(d)] == 1;
  } else {
    for (int64_t d : *dims) {
      if (x.dim() == 0) continue;
      const int64_t w = c.wrap_dim(d, x.dim());
      drop[size_t(w)] = x.shape[size_t(w)] == 1;
    }
  }
  Shape shape;
  Strides strides;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (drop[size_t(d)]) continue;
    shape.push_back(x.shape[size_t(d)]);
    strides.push_back(x.strides[size_t(d)]);
  }
  c.alias(0, x.view_as(shape, strides, x.offset));
}

void expand_to(OpCall& c, const std::vector<int64_t>& size) { c.alias(0, expand_view(c, c.in[0], size)); }

void plan_expand(OpCall& c) {
  c.expect_inputs(1, 1);
  expand_to(c, c.ints("size"));
}

void plan_slice(OpCall& c) {
  c.expect_inputs(1, 1);
  c.alias(0, slice_by_attrs(c, c.in[0]));
}

void plan_narrow(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  const int64_t dim = c.wrap_sized_dim(c.i("dim"), x.dim(), "narrow");
  int64_t start = c.i("start");
  const int64_t length = c.i("length");
  if (start < 0) start += x.shape[size_t(dim)];
  c.check(start >= 0 && length >= 0 && start <= x.shape[size_t(dim)] && length <= x.shape[size_t(dim)] - start,
          "start (" + std::to_string(start) + ") + length (" + std::to_string(length) + ") exceeds dimension size (" +
              std::to_string(x.shape[size_t(dim)]) + ")");
  c.alias(0, slice_view(x, dim, start, length, 1));
}

void plan_select(OpCall& c) {
  c.expect_inputs(1, 1);
  c.alias(0, select_by_attrs(c, c.in[0]));
}

void plan_unbind(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  const int64_t dim = c.wrap_sized_dim(c.i("dim", 0), x.dim(), "unbind");
  c.check(uint64_t(x.shape[size_t(dim)]) == c.num_ir_outputs(), "unbind: the IR lists " +
                                                                  std::to_string(c.num_ir_outputs()) + " outputs for size " +
                                                                  std::to_string(x.shape[size_t(dim)]));
  for (int64_t k = 0; k < x.shape[size_t(dim)]; ++k) c.alias(size_t(k), select_view(c, x, dim, k));
}

// Consecutive pieces of `sizes` along dim.
void split_into(OpCall& c, const std::vector<int64_t>& sizes, int64_t dim) {
  const Tensor& x = c.in[0];
  const int64_t total = x.shape[size_t(dim)];
  const std::string bad =
      "split sizes " + shape_to_string(sizes) + " do not add up to dimension size " + std::to_string(total);
  c.check(sizes.size() == c.num_ir_outputs(), "split gives " + std::to_string(sizes.size()) +
                                                  " pieces but the IR lists " + std::to_string(c.num_ir_outputs()));
  int64_t start = 0;
  for (int64_t s : sizes) {
    c.check(s >= 0, "split_with_sizes expects split_sizes to be non-negative, but got " + shape_to_string(sizes));
    c.check(s <= total - start, bad);
    start += s;
  }
  c.check(start == total, bad);
  start = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    c.alias(k, slice_view(x, dim, start, sizes[k], 1));
    start += sizes[k];
  }
}

// split.Tensor and chunk: equal pieces of split_size, the last one smaller.
// The piece count is checked against the IR before any piece is made, so a
// tiny split_size on a huge dim cannot loop.
void split_even(OpCall& c, int64_t dim, int64_t split_size) {
  const int64_t size = c.in[0].shape[size_t(dim)];
  c.check(split_size >= 0, "split expects split_size be non-negative, but got split_size=" + std::to_string(split_size));
  c.check(split_size > 0 || size == 0, "split_size can only be 0 if dimension size is 0, but got dimension size of " +
                                           std::to_string(size));
  std::vector<int64_t> sizes;
  if (split_size == 0) {
    sizes.assign(c.num_ir_outputs(), 0);
  } else {
    const int64_t pieces = size == 0 ? 1 : size / split_size + (size % split_size != 0);
    c.check(uint64_t(pieces) == c.num_ir_outputs(), "split gives " + std::to_string(pieces) +
                                                        " pieces but the IR lists " + std::to_string(c.num_ir_outputs()));
    for (int64_t s = 0; s < size; s += std::min(split_size, size - s)) sizes.push_back(std::min(split_size, size - s));
    if (sizes.empty()) sizes.push_back(0);
  }
  split_into(c, sizes, dim);
}

void plan_split(OpCall& c) {
  c.expect_inputs(1, 1);
  const int64_t dim = c.wrap_sized_dim(c.i("dim", 0), c.in[0].dim(), "split");
  split_even(c, dim, c.i("split_size"));
}

void plan_chunk(OpCall& c) {
  c.expect_inputs(1, 1);
  const int64_t dim = c.wrap_sized_dim(c.i("dim", 0), c.in[0].dim(), "chunk");
  const int64_t chunks = c.i("chunks");
  c.check(chunks > 0, "chunk expects `chunks` to be greater than 0");
  const int64_t size = c.in[0].shape[size_t(dim)];
  split_even(c, dim, size / chunks + (size % chunks != 0));
}

void plan_split_with_sizes(OpCall& c) {
  c.expect_inputs(1, 1);
  const int64_t dim = c.wrap_sized_dim(c.i("dim", 0), c.in[0].dim(), "split_with_sizes");
  split_into(c, c.ints("split_sizes"), dim);
}

// split.sizes: split_with_sizes under split's name, `split_size` being a list.
void plan_split_sizes(OpCall& c) {
  c.expect_inputs(1, 1);
  const int64_t dim = c.wrap_sized_dim(c.i("dim", 0), c.in[0].dim(), "split");
  split_into(c, c.ints("split_size"), dim);
}

// unfold(dimension, size, step): windows along `dimension` become a new last dim.
void plan_unfold(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  const int64_t dim = c.wrap_dim(c.i("dimension"), x.dim());
  const int64_t size = c.i("size"), step = c.i("step");
  const int64_t have = x.dim() == 0 ? 1 : x.shape[size_t(dim)];
  c.check(size >= 0 && size <= have, "maximum size for tensor at dimension " + std::to_string(dim) + " is " +
                                         std::to_string(have) + " but size is " + std::to_string(size));
  c.check(step > 0, "step is " + std::to_string(step) + " but must be > 0");
  Shape shape = x.shape;
  Strides strides = x.strides;
  if (x.dim() > 0) {
    strides.push_back(x.strides[size_t(dim)]);
    shape[size_t(dim)] = (have - size) / step + 1;
    strides[size_t(dim)] *= step;
  } else {
    strides.push_back(1);
  }
  shape.push_back(size);
  c.alias(0, x.view_as(shape, strides, x.offset));
}

// as_strided: indexes the input's whole storage (our Buffer), so the offset is
// absolute, defaulting to the input's own. Checked against the Buffer's size.
void plan_as_strided(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  const Shape size = c.ints("size");
  const Strides stride = c.ints("stride");
  const int64_t offset = c.has("storage_offset") ? c.i("storage_offset") : x.offset;
  c.check(size.size() == stride.size(), "as_strided: mismatch in length of strides (" + std::to_string(stride.size()) +
                                            ") and shape (" + std::to_string(size.size()) + ")");
  c.check(offset >= 0, "as_strided: negative storage offset " + std::to_string(offset));
  int64_t last = offset;  // highest element index touched
  bool empty = false;
  for (size_t d = 0; d < size.size(); ++d) {
    c.check(size[d] >= 0, "as_strided: negative size in " + shape_to_string(size));
    c.check(stride[d] >= 0, "as_strided: negative strides are not supported, got strides: " + shape_to_string(stride));
    empty = empty || size[d] == 0;
    if (size[d] > 0) last = checked_add(last, checked_mul(size[d] - 1, stride[d], "as_strided extent"), "as_strided extent");
  }
  const int64_t storage = int64_t(x.buffer->nbytes / dtype_size(x.dtype));
  c.check(empty || last < storage, "as_strided: sizes " + shape_to_string(size) + ", strides " +
                                       shape_to_string(stride) + " and storage offset " + std::to_string(offset) +
                                       " are out of bounds for storage of " + std::to_string(storage) + " elements");
  c.alias(0, x.view_as(size, stride, offset));
}

// expand_as / reshape_as / view_as: the size comes from the second input.
void plan_expand_as(OpCall& c) {
  c.expect_inputs(2, 2);
  expand_to(c, c.in[1].shape);
}

void plan_reshape_as(OpCall& c) {
  c.expect_inputs(2, 2);
  reshape_to(c, c.in[1].shape);
}

void plan_identity(OpCall& c) {
  c.expect_inputs(1, 1);
  c.alias(0, c.in[0]);
}

void plan_dropout(OpCall& c) {
  c.expect_inputs(1, 1);
  c.check(!c.b("train", false) || c.f("p", 0.5) == 0.0,
          "dropout with train=True is random and cannot be reproduced; export the model in eval mode");
  c.alias(0, c.in[0]);
}

// contiguous: the input itself when already contiguous (so later in-place ops
// mutate the original, as in eager mode), else a copy.
void plan_contiguous(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  if (x.is_contiguous()) c.alias(0, x);
  else c.fresh(0, x.dtype, x.shape);
}

void run_contiguous(OpCall& c) {
  if (!c.out[0].same_storage(c.in[0])) copy_into(c.out[0], c.in[0]);
}

void plan_assert_metadata(OpCall& c) {
  c.expect_inputs(1, 1);
  if (auto d = c.dtype("dtype"))
    c.check(compute_dtype(*d) == c.in[0].dtype,
            std::string("tensor dtype ") + dtype_name(c.in[0].dtype) + " differs from asserted " + dtype_name(*d));
  if (auto size = c.opt_ints("size"))
    c.check(*size == c.in[0].shape, "tensor shape " + shape_to_string(c.in[0].shape) + " differs from asserted " +
                                        shape_to_string(*size));
}

// getitem: inputs are all tensor outputs of the producer; attrs.index picks one.
void plan_getitem(OpCall& c) {
  const int64_t index = c.i("index");
  c.check(index >= 0 && size_t(index) < c.in.size(),
          "getitem index " + std::to_string(index) + " out of range for " + std::to_string(c.in.size()) + " inputs");
  c.alias(0, c.in[size_t(index)]);
}

OpDef view_op(void (*plan)(OpCall&)) { return {plan, nullptr}; }
OpDef tuple_access(OpDef def) {
  def.traits.reads_selected_input = true;
  return def;
}
OpDef view_when_aliased(OpDef def) {
  def.traits.view_when_aliased = true;
  return def;
}
OpDef reshape_op(void (*plan)(OpCall&)) { return view_when_aliased({plan, run_reshape_copy}); }

}  // namespace

TIR_REGISTER_OPS(
    // view(Tensor(a) self, SymInt[] size) -> Tensor(a)
    {"aten.view.default", reshape_op(plan_view)},
    // _unsafe_view(Tensor self, SymInt[] size) -> Tensor
    {"aten._unsafe_view.default", reshape_op(plan_view)},
    // reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)
    {"aten.reshape.default", reshape_op(plan_view)},
    // flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)
    {"aten.flatten.using_ints", reshape_op(plan_flatten)},
    // unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)
    {"aten.unflatten.int", reshape_op(plan_unflatten)},
    // permute(Tensor(a) self, int[] dims) -> Tensor(a)
    {"aten.permute.default", view_op(plan_permute)},
    // transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
    {"aten.transpose.int", view_op(plan_transpose)},
    // t(Tensor(a) self) -> Tensor(a)
    {"aten.t.default", view_op(plan_t)},
    // unsqueeze(Tensor(a) self, int dim) -> Tensor(a)
    {"aten.unsqueeze.default", view_op(plan_unsqueeze)},
    // squeeze(Tensor(a) self) / squeeze.dim(self, int dim) / squeeze.dims(self, int[] dim)
    {"aten.squeeze.default", view_op(plan_squeeze)},
    {"aten.squeeze.dim", view_op(plan_squeeze)},
    {"aten.squeeze.dims", view_op(plan_squeeze)},
    // expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)
    {"aten.expand.default", view_op(plan_expand)},
    // slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)
    {"aten.slice.Tensor", view_op(plan_slice)},
    // narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)
    {"aten.narrow.default", view_op(plan_narrow)},
    // select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)
    {"aten.select.int", view_op(plan_select)},
    // unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]
    {"aten.unbind.int", view_op(plan_unbind)},
    // split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]
    {"aten.split.Tensor", view_op(plan_split)},
    // split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]
    {"aten.split_with_sizes.default", view_op(plan_split_with_sizes)},
    // chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]
    {"aten.chunk.default", view_op(plan_chunk)},
    // split.sizes(Tensor(a -> *) self, SymInt[] split_size, int dim=0) -> Tensor(a)[]
    {"aten.split.sizes", view_op(plan_split_sizes)},
    // unsafe_split.Tensor(Tensor self, SymInt split_size, int dim=0) -> Tensor[]
    {"aten.unsafe_split.Tensor", view_op(plan_split)},
    // unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)
    {"aten.unfold.default", view_op(plan_unfold)},
    // as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)
    {"aten.as_strided.default", view_op(plan_as_strided)},
    // expand_as(Tensor(a) self, Tensor other) -> Tensor(a)
    {"aten.expand_as.default", view_op(plan_expand_as)},
    // reshape_as(Tensor(a) self, Tensor other) -> Tensor(a); view_as(Tensor(a) self, Tensor other) -> Tensor(a)
    {"aten.reshape_as.default", reshape_op(plan_reshape_as)},
    {"aten.view_as.default", reshape_op(plan_reshape_as)},
    // movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)
    {"aten.movedim.int", view_op(plan_movedim)},
    // swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)
    {"aten.swapaxes.default", view_op(plan_swapaxes)},
    // mT(Tensor(a) self) -> Tensor(a)
    {"aten.mT.default", view_op(plan_mT)},
    // numpy_T(Tensor(a) self) -> Tensor(a)
    {"aten.numpy_T.default", view_op(plan_numpy_T)},
    // In-place metadata ops: the output is the new view. Later readers of the
    // input's own name still see the old metadata (torch would show the new).
    // t_(Tensor(a!) self) -> Tensor(a!)
    {"aten.t_.default", view_op(plan_t)},
    // transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)
    {"aten.transpose_.default", view_op(plan_transpose)},
    // squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)
    {"aten.squeeze_.dim", view_op(plan_squeeze)},
    // unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)
    {"aten.unsqueeze_.default", view_op(plan_unsqueeze)},
    // alias(Tensor(a) self) -> Tensor(a); detach(Tensor(a) self); detach_(Tensor(a!) self)
    {"aten.alias.default", view_op(plan_identity)},
    {"aten.detach.default", view_op(plan_identity)},
    {"aten.detach_.default", view_op(plan_identity)},
    // dropout(Tensor input, float p, bool? train) -> Tensor  (eval: identity)
    {"aten.dropout.default", view_op(plan_dropout)},
    {"aten.dropout_.default", view_op(plan_dropout)},
    {"aten.feature_dropout.default", view_op(plan_dropout)},
    // contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)
    {"aten.contiguous.default", view_when_aliased({plan_contiguous, run_contiguous})},
    // _assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, ScalarType? dtype=None, ...) -> ()
    {"aten._assert_tensor_metadata.default", view_op(plan_assert_metadata)},
    // operator.getitem(outputs, int index) -> Tensor
    {"<built-in function getitem>", tuple_access(view_op(plan_getitem))});

}  // namespace tir
