// WebGPU lowerings of data movement and the remaining table ops: fills, constant
// padding, slice_scatter, roll, repeat, diag, eye, stack, channel_shuffle,
// im2col, tril/triu, comparisons, group norm. Each is one or a few dispatches
// of the generated elementwise kernel over views (or rowwise for group norm).
#include <algorithm>

#include "core/half.h"
#include "ops/view_util.h"
#include "ops/webgpu.h"

namespace tir {
namespace {

// fill(self, value 0-d tensor): the value broadcast over the output, rounded to self's precision
// when self is float16/bfloat16 in the IR (as the CPU op).
bool lower_fill_tensor(const OpCall& c, GpuLowering& g) {
  if (c.in.size() != 2 || c.in[1].dim() != 0 || c.out[0].dtype != DType::F32 || c.in[1].dtype != DType::F32) return false;
  if (c.out[0].numel() == 0) return true;
  const char* round = gpu_round_op(gpu_ir_input_dtype(c, 0), DType::F64);
  g.dispatches.push_back(gpu_elementwise(round ? round : "copy", {c.in[1]}, c.out[0]));
  return true;
}

bool lower_fill_scalar(const OpCall& c, GpuLowering& g) {
  if (c.out[0].dtype != DType::F32) return false;
  if (c.out[0].numel() == 0) return true;
  // The value as the CPU writes it: in f32, then rounded to self's float16/bfloat16 precision.
  const float v = round_to_precision(float(c.scalar("value").f), gpu_ir_input_dtype(c, 0));
  g.dispatches.push_back(gpu_elementwise("full", {}, c.out[0], v));
  return true;
}

// full / zeros / ones and their _like / new_ forms: the output filled with the value (float32,
// int32, bool; an int64 result stays on the CPU, where its values need no range).
bool fill_with(const OpCall& c, GpuLowering& g, double value) {
  const Tensor& y = c.out[0];
  if (y.dtype != DType::F32 && y.dtype != DType::I32 && y.dtype != DType::Bool) return false;
  if (y.numel() == 0) return true;
  g.dispatches.push_back(gpu_elementwise("full", {}, y, value));
  return true;
}
bool lower_full(const OpCall& c, GpuLowering& g) {
  const Scalar v = c.scalar("fill_value");
  // The value travels as an f32 parameter: integers must be exact there.
  if (c.out[0].dtype != DType::F32 && (v.kind == Scalar::Kind::Float || v.i > (1 << 24) || v.i < -(1 << 24))) return false;
  return fill_with(c, g, v.f);
}
bool lower_zeros(const OpCall& c, GpuLowering& g) { return fill_with(c, g, 0); }
bool lower_ones(const OpCall& c, GpuLowering& g) { return fill_with(c, g, 1); }

// lift_fresh_copy / alias copies: out = in.
bool lower_plain_copy(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (y.buffer == x.buffer || y.numel() == 0) return true;
  if (x.dtype != y.dtype) return false;
  g.dispatches.push_back(gpu_elementwise("copy", {x}, y));
  return true;
}

// pad in reflect (1), replicate (2) or circular (3) mode with non-negative pads `pad` (last dim
// first, ops/pad.cpp): pad.wgsl, one gather per output element.
bool lower_pad_mode(const OpCall& c, GpuLowering& g, int64_t mode, const std::vector<int64_t>& pad) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (x.dtype != y.dtype || !gpu_dense_at_zero(y) || pad.size() / 2 > size_t(x.dim())) return false;
  const char* t = x.dtype == DType::F32 ? "f32" : x.dtype == DType::Bool ? "u32"
                : x.dtype == DType::I32 || x.dtype == DType::I64 ? "i32" : nullptr;
  if (!t) return false;
  for (int64_t p : pad)
    if (p < 0) return false;  // cropping: left to the CPU
  if (y.numel() == 0) return true;
  std::vector<int64_t> left(size_t(x.dim()), 0);
  for (size_t k = 0; 2 * k < pad.size(); ++k) left[size_t(x.dim()) - 1 - k] = pad[2 * k];
  GpuDispatch d;
  d.kernel = "pad";
  d.subst = {{"MODE", std::to_string(mode)}};
  d.types = {{"Y", t}, {"X", t}};
  d.meta.u("numel", y.numel()).u("rank", y.dim()).us("shape", y.shape, 6).u("x_off", x.offset);
  d.meta.us("x_strides", x.strides, 6).us("x_shape", x.shape, 6).us("left", left, 6);
  d.bindings = {y, x};
  gpu_grid(d, (y.numel() + 63) / 64);
  g.dispatches.push_back(d);
  return true;
}

bool lower_reflection_pad(const OpCall& c, GpuLowering& g) { return lower_pad_mode(c, g, 1, c.ints("padding")); }
bool lower_replication_pad(const OpCall& c, GpuLowering& g) { return lower_pad_mode(c, g, 2, c.ints("padding")); }

// constant_pad_nd / pad(mode="constant") with non-negative pads: fill, then the
// input copied into the interior. pad's other modes: lower_pad_mode.
bool lower_constant_pad(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (c.node->op_type == "aten.pad.default") {
    const std::string mode = c.str("mode", std::string("constant"));
    if (mode != "constant") {
      const int64_t m = mode == "reflect" ? 1 : mode == "replicate" ? 2 : mode == "circular" ? 3 : 0;
      return m != 0 && lower_pad_mode(c, g, m, c.ints("pad"));
    }
  }
  if (x.dtype != DType::F32 || y.dtype != DType::F32) return false;
  const auto pad = c.ints("pad");
  for (int64_t p : pad)
    if (p < 0) return false;  // cropping: a slice, left to the CPU
  if (y.numel() == 0) return true;
  const double value = c.has("value") ? c.scalar("value").f : 0.0;
  g.dispatches.push_back(gpu_elementwise("full", {}, y, value));
  if (x.numel() == 0) return true;
  // pad lists (before, after) pairs from the last dim backwards.
  int64_t offset = y.offset;
  for (size_t k = 0; 2 * k < pad.size(); ++k) {
    const size_t d = y.shape.size() - 1 - k;
    offset += pad[2 * k] * y.strides[d];
  }
  g.dispatches.push_back(gpu_elementwise("copy", {x}, y.view_as(x.shape, y.strides, offset)));
  return true;
}

// slice_scatter(self, src): out = self with the slice the attrs name replaced by src.
bool lower_slice_scatter(const OpCall& c, GpuLowering& g) {
  const Tensor& self = c.in[0];
  const Tensor& src = c.in[1];
  const Tensor& y = c.out[0];
  if (self.dtype != DType::F32 || src.dtype != DType::F32 || y.numel() == 0) return y.numel() == 0;
  if (y.buffer != self.buffer) g.dispatches.push_back(gpu_elementwise("copy", {self}, y));
  if (src.numel() > 0) g.dispatches.push_back(gpu_elementwise("copy", {src}, slice_by_attrs(c, y)));
  return true;
}

// roll(x, shifts, dims): along each rolled dim the output is two slices of the input swapped,
// so the whole roll is one copy per combination of pieces (2^k for k rolled dims, at most 64).
bool lower_roll(const OpCall& c, GpuLowering& g) {
  const Tensor& x0 = c.in[0];
  const Tensor& y0 = c.out[0];
  if (y0.numel() == 0) return true;
  if (x0.dtype != y0.dtype || !y0.is_contiguous()) return false;
  const auto shifts = c.ints("shifts");
  auto dims = c.ints("dims", std::vector<int64_t>{});
  Tensor x = x0, y = y0;
  if (dims.empty()) {  // over the flattened tensor
    if (!x0.is_contiguous()) return false;
    x = x0.view_as({x0.numel()}, {1}, x0.offset);
    y = y0.view_as({y0.numel()}, {1}, y0.offset);
    dims = {0};
  }
  // Shifts along a repeated dim add up; each shift becomes s in [0, size).
  std::vector<int64_t> shift(size_t(x.dim()), 0);
  for (size_t k = 0; k < dims.size(); ++k) {
    const size_t d = size_t(c.wrap_dim(dims[k], x.dim()));
    shift[d] = ((shift[d] + shifts[k]) % x.shape[d] + x.shape[d]) % x.shape[d];
  }
  std::vector<size_t> rolled;
  for (size_t d = 0; d < shift.size(); ++d)
    if (shift[d] != 0) rolled.push_back(d);
  if (rolled.size() > 6) return false;
  // Piece bit k of combination m: 0 = out[s:] <- in[:n-s], 1 = out[:s] <- in[n-s:].
  for (size_t m = 0; m < (size_t(1) << rolled.size()); ++m) {
    Shape shape = x.shape;
    int64_t xo = x.offset, yo = y.offset;
    for (size_t k = 0; k < rolled.size(); ++k) {
      const size_t d = rolled[k];
      const int64_t n = x.shape[d], s = shift[d];
      const bool tail = (m >> k) & 1;
      shape[d] = tail ? s : n - s;
      xo += (tail ? n - s : 0) * x.strides[d];
      yo += (tail ? 0 : s) * y.strides[d];
    }
    g.dispatches.push_back(gpu_elementwise("copy", {x.view_as(shape, x.strides, xo)}, y.view_as(shape, y.strides, yo)));
  }
  return true;
}

// repeat(x, repeats): the output seen as [r0, s0, r1, s1, ...] takes x broadcast over the r
// dims (as the CPU op); dims with r = 1 or s = 1 fold away, so rank <= 6 covers most uses.
bool lower_repeat(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (y.numel() == 0) return true;
  if (x.dtype != y.dtype || !y.is_contiguous()) return false;
  const auto reps = c.ints("repeats");
  if (reps.size() < size_t(x.dim())) return false;
  const size_t lead = reps.size() - size_t(x.dim());
  Shape split;
  Strides xs, ys;
  int64_t ystride = y.numel();
  for (size_t i = 0; i < reps.size(); ++i) {
    const int64_t s = i < lead ? 1 : x.shape[i - lead], r = reps[i];
    ystride /= r * s;  // y is contiguous: the stride of output dim i
    if (r != 1) split.push_back(r), xs.push_back(0), ys.push_back(s * ystride);
    if (s != 1) split.push_back(s), xs.push_back(x.strides[i - lead]), ys.push_back(ystride);
  }
  g.dispatches.push_back(gpu_elementwise("copy", {x.view_as(split, xs, x.offset)}, y.view_as(split, ys, y.offset)));
  return true;
}

// diag(x, diagonal): a 1-d x becomes the diagonal of a zero matrix (fill, then a copy into the
// strided diagonal view); a 2-d x gives its diagonal (a copy of that view).
bool lower_diag(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (x.dtype != y.dtype || (x.dim() != 1 && x.dim() != 2)) return false;
  if (y.numel() == 0) return true;
  const int64_t k = c.i("diagonal", 0);
  if (x.dim() == 1) {
    const int64_t m = y.shape[1];
    g.dispatches.push_back(gpu_elementwise("full", {}, y, 0));
    if (x.numel() > 0) {
      const int64_t start = y.offset + (k >= 0 ? k : -k * m);
      g.dispatches.push_back(gpu_elementwise("copy", {x}, y.view_as(x.shape, {m + 1}, start)));
    }
    return true;
  }
  const int64_t start = x.offset + (k >= 0 ? k * x.strides[1] : -k * x.strides[0]);
  g.dispatches.push_back(gpu_elementwise("copy", {x.view_as(y.shape, {x.strides[0] + x.strides[1]}, start)}, y));
  return true;
}

// stack(tensors, dim): each input copied into its index along the new dim.
bool lower_stack(const OpCall& c, GpuLowering& g) {
  const Tensor& y = c.out[0];
  if (y.numel() == 0) return true;
  const int64_t dim = c.wrap_dim(c.i("dim", 0), y.dim());
  Strides st = y.strides;
  st.erase(st.begin() + dim);
  for (size_t i = 0; i < c.in.size(); ++i) {
    const Tensor& x = c.in[i];
    if (x.dtype != y.dtype) return false;
    g.dispatches.push_back(gpu_elementwise("copy", {x}, y.view_as(x.shape, st, y.offset + int64_t(i) * y.strides[size_t(dim)])));
  }
  return true;
}

// eye(n, m): zeros with ones on the diagonal view (stride m + 1).
bool lower_eye(const OpCall& c, GpuLowering& g) {
  const Tensor& y = c.out[0];
  if (y.dim() != 2 || (y.dtype != DType::F32 && y.dtype != DType::I32 && y.dtype != DType::Bool)) return false;
  if (y.numel() == 0) return true;
  g.dispatches.push_back(gpu_elementwise("full", {}, y, 0));
  const int64_t n = std::min(y.shape[0], y.shape[1]);
  g.dispatches.push_back(gpu_elementwise("full", {}, y.view_as({n}, {y.strides[0] + y.strides[1]}, y.offset), 1));
  return true;
}

// channel_shuffle(x [N, C, *], groups): channel j * groups + i of the output is channel
// i * (C / groups) + j of the input: one copy of x seen as [N, C/groups, groups, *].
bool lower_channel_shuffle(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  const int64_t groups = c.i("groups");
  if (x.dtype != y.dtype || x.dim() < 2 || groups <= 0 || x.shape[1] % groups != 0 || !y.is_contiguous()) return false;
  if (y.numel() == 0) return true;
  const int64_t per = x.shape[1] / groups;
  Shape shape = {x.shape[0], per, groups};
  Strides xs = {x.strides[0], x.strides[1], per * x.strides[1]};
  for (int64_t d = 2; d < x.dim(); ++d) shape.push_back(x.shape[size_t(d)]), xs.push_back(x.strides[size_t(d)]);
  g.dispatches.push_back(gpu_elementwise("copy", {x.view_as(shape, xs, x.offset)}, y.view_as(shape, contiguous_strides(shape), y.offset)));
  return true;
}

// im2col(x [N, C, H, W]) -> [N, C*kh*kw, OH*OW]: for each kernel tap (i, j) the output rows
// it fills are a strided view of x over the output positions whose source pixel is inside x;
// the rest (padding) is zero. One copy per tap, after a fill when there is padding.
bool lower_im2col(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (x.dim() != 4 || x.dtype != y.dtype || y.dtype == DType::I64 || !y.is_contiguous()) return false;
  const auto k = c.ints("kernel_size", std::nullopt, 2), dil = c.ints("dilation", std::nullopt, 2);
  const auto pad = c.ints("padding", std::nullopt, 2), st = c.ints("stride", std::nullopt, 2);
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  const int64_t OH = (H + 2 * pad[0] - dil[0] * (k[0] - 1) - 1) / st[0] + 1;
  const int64_t OW = (W + 2 * pad[1] - dil[1] * (k[1] - 1) - 1) / st[1] + 1;
  if (k[0] * k[1] > 64 || y.numel() != N * C * k[0] * k[1] * OH * OW) return false;
  if (y.numel() == 0) return true;
  if (pad[0] > 0 || pad[1] > 0) g.dispatches.push_back(gpu_elementwise("full", {}, y, 0));
  // The output positions o in [lo, hi) whose source o * s - p + tap * d is in [0, n).
  const auto range = [](int64_t n, int64_t out, int64_t s, int64_t p, int64_t at, int64_t* lo, int64_t* hi) {
    *lo = std::max<int64_t>(0, (p - at + s - 1) / s);
    *hi = std::min<int64_t>(out, n - 1 + p - at < 0 ? 0 : (n - 1 + p - at) / s + 1);
  };
  const int64_t L = OH * OW;
  for (int64_t i = 0; i < k[0]; ++i)
    for (int64_t j = 0; j < k[1]; ++j) {
      int64_t h0, h1, w0, w1;
      range(H, OH, st[0], pad[0], i * dil[0], &h0, &h1);
      range(W, OW, st[1], pad[1], j * dil[1], &w0, &w1);
      if (h1 <= h0 || w1 <= w0) continue;
      const Shape shape = {N, C, h1 - h0, w1 - w0};
      const int64_t xo = x.offset + (h0 * st[0] - pad[0] + i * dil[0]) * x.strides[2] + (w0 * st[1] - pad[1] + j * dil[1]) * x.strides[3];
      const Tensor src = x.view_as(shape, {x.strides[0], x.strides[1], st[0] * x.strides[2], st[1] * x.strides[3]}, xo);
      const int64_t yo = y.offset + (i * k[1] + j) * L + h0 * OW + w0;
      g.dispatches.push_back(gpu_elementwise("copy", {src}, y.view_as(shape, {C * k[0] * k[1] * L, k[0] * k[1] * L, OW, 1}, yo)));
    }
  return true;
}

// tril / triu(x, diagonal): elements off the kept triangle of the last two dims become 0.
bool tri(const OpCall& c, GpuLowering& g, const char* op) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (x.dim() < 2 || x.dtype != y.dtype) return false;
  if (y.numel() == 0) return true;
  const int64_t k = c.i("diagonal", 0);
  if (k > (1 << 24) || k < -(1 << 24)) return false;  // travels as an f32 parameter
  g.dispatches.push_back(gpu_elementwise(op, {x}, y, double(k)));
  return true;
}
bool lower_tril(const OpCall& c, GpuLowering& g) { return tri(c, g, "tril"); }
bool lower_triu(const OpCall& c, GpuLowering& g) { return tri(c, g, "triu"); }

// Comparisons: Tensor forms (two operands) and Scalar forms (`other` an attribute).
bool compare(const OpCall& c, GpuLowering& g, const char* op, const char* scalar_op) {
  const auto ok = [](DType d) { return d == DType::F32 || d == DType::I32 || d == DType::I64 || d == DType::Bool; };
  if (c.out[0].dtype != DType::Bool || !ok(c.in[0].dtype)) return false;
  if (c.out[0].numel() == 0) return true;
  if (c.in.size() == 2) {
    if (!ok(c.in[1].dtype)) return false;
    g.dispatches.push_back(gpu_elementwise(op, {c.in[0], c.in[1]}, c.out[0]));
    return true;
  }
  const Scalar other = c.scalar("other");
  // The scalar travels as an f32 parameter: integer operands need it exact there.
  if (c.in[0].dtype != DType::F32 && (other.kind == Scalar::Kind::Float || other.i > (1 << 24) || other.i < -(1 << 24)))
    return false;
  g.dispatches.push_back(gpu_elementwise(scalar_op, {c.in[0]}, c.out[0], other.f));
  return true;
}
bool lower_eq(const OpCall& c, GpuLowering& g) { return compare(c, g, "eq", "eq_scalar"); }
bool lower_ne(const OpCall& c, GpuLowering& g) { return compare(c, g, "ne", "ne_scalar"); }
bool lower_lt(const OpCall& c, GpuLowering& g) { return compare(c, g, "lt", "lt_scalar"); }
bool lower_le(const OpCall& c, GpuLowering& g) { return compare(c, g, "le", "le_scalar"); }
bool lower_gt(const OpCall& c, GpuLowering& g) { return compare(c, g, "gt", "gt_scalar"); }
bool lower_ge(const OpCall& c, GpuLowering& g) { return compare(c, g, "ge", "ge_scalar"); }

bool lower_logical_not(const OpCall& c, GpuLowering& g) {
  if (c.in[0].dtype != DType::Bool || c.out[0].dtype != DType::Bool) return false;  // bitwise_not of ints: CPU
  if (c.out[0].numel() == 0) return true;
  g.dispatches.push_back(gpu_elementwise("logical_not", {c.in[0]}, c.out[0]));
  return true;
}

// group_norm(x [N, C, *] contiguous, num_groups, weight?, bias?) and native_group_norm
// (x, weight?, bias?, N, C, HxW, group, eps): rows (n, group).
bool lower_group_norm(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  const Tensor w = c.in.size() > 1 ? c.in[1] : Tensor{};
  const Tensor b = c.in.size() > 2 ? c.in[2] : Tensor{};
  for (const Tensor* t : {&x, &y, &w, &b})
    if (t->defined() && (t->dtype != DType::F32 || t->offset != 0 || !t->is_contiguous())) return false;
  // native_group_norm's mean/rstd outputs are not made: the plan keeps the node on WASM when
  // they are read.
  const bool native = c.node->op_type == "aten.native_group_norm.default";
  if (x.dim() < 2 || c.out.size() != (native ? 3u : 1u) || (native && c.in.size() == 2)) return false;
  const int64_t n = x.shape[0], ch = x.shape[1], groups = c.i(native ? "group" : "num_groups");
  if (native && (c.i("N") != n || c.i("C") != ch)) return false;
  if (groups <= 0 || ch % groups != 0) return false;
  if (x.numel() == 0) return true;
  const int64_t hw = x.numel() / (n * ch), cpg = ch / groups, rows = n * groups, r = cpg * hw;
  GpuDispatch d;
  d.kernel = "rowwise";
  d.subst = {{"MODE", "2"}};
  d.meta.u("rows", rows).u("rank", 1).u("r", r).u("r_stride", 1).u("x_off", 0).f("eps", c.f("eps", 1e-5));
  d.meta.u("groups", groups).u("cpg", cpg).u("hw", hw).u("has_w", w.defined() ? 1 : 0).u("has_b", b.defined() ? 1 : 0);
  d.meta.us("shape", {rows}, 6).us("x_strides", {r}, 6).us("y_strides", {r}, 6);
  d.meta.u("y_r_stride", 1);
  d.bindings = {y, x, w, b};
  d.names = {"Y", "X", "W", "Bias"};  // rowwise.wgsl reads them through f32(...)
  gpu_grid(d, rows);
  g.dispatches.push_back(d);
  return true;
}

// index_copy(_)(self, dim, index, source): self's rows at `index` along dim
// take source's (KV cache updates). The functional form copies self first.
bool lower_index_copy(const OpCall& c, GpuLowering& g) {
  const Tensor& self = c.in[0];
  const Tensor& idx = c.in[1];
  const Tensor& src = c.in[2];
  const Tensor& y = c.out[0];
  if (self.dtype != DType::F32 || src.dtype != DType::F32 || idx.dim() > 1 || !idx.is_contiguous()) return false;
  if (idx.offset != 0 || y.offset != 0 || src.dim() == 0 || src.dim() > 6) return false;
  // In place: the same buffer, or one the in-place pass planned in self's memory (a donated cache).
  const bool in_place = y.buffer == self.buffer || (y.buffer->data && y.buffer->data == self.buffer->data && y.offset == self.offset);
  if (!in_place) {
    if (!y.is_contiguous()) return false;
    g.dispatches.push_back(gpu_elementwise("copy", {self}, y));
  }
  if (src.numel() == 0) return true;
  const int64_t dim = c.wrap_dim(c.i("dim"), self.dim());
  GpuDispatch d;
  d.kernel = "index_copy";
  d.types = {{"Idx", "i32"}};
  d.meta.u("numel", src.numel()).u("rank", src.dim()).u("dim", dim).u("dst_dim_size", y.shape[size_t(dim)]);
  d.meta.u("src_off", src.offset).us("shape", src.shape, 6).us("src_strides", src.strides, 6).us("dst_strides", y.strides, 6);
  d.bindings = {y, src, idx};
  gpu_grid(d, (src.numel() + 63) / 64);
  g.dispatches.push_back(d);
  return true;
}

}  // namespace

TIR_REGISTER_WEBGPU(
    {"aten.index_copy_.default", lower_index_copy}, {"aten.index_copy.default", lower_index_copy},
    {"aten.fill.Tensor", lower_fill_tensor}, {"aten.fill_.Tensor", lower_fill_tensor},
    {"aten.fill.Scalar", lower_fill_scalar}, {"aten.fill_.Scalar", lower_fill_scalar},
    {"aten.lift_fresh_copy.default", lower_plain_copy},
    {"aten.constant_pad_nd.default", lower_constant_pad}, {"aten.pad.default", lower_constant_pad},
    {"aten.reflection_pad1d.default", lower_reflection_pad}, {"aten.reflection_pad2d.default", lower_reflection_pad},
    {"aten.reflection_pad3d.default", lower_reflection_pad}, {"aten.replication_pad1d.default", lower_replication_pad},
    {"aten.replication_pad2d.default", lower_replication_pad}, {"aten.replication_pad3d.default", lower_replication_pad},
    {"aten.slice_scatter.default", lower_slice_scatter},
    {"aten.eq.Tensor", lower_eq}, {"aten.eq.Scalar", lower_eq}, {"aten.ne.Tensor", lower_ne},
    {"aten.ne.Scalar", lower_ne}, {"aten.lt.Tensor", lower_lt}, {"aten.lt.Scalar", lower_lt},
    {"aten.le.Tensor", lower_le}, {"aten.le.Scalar", lower_le}, {"aten.gt.Tensor", lower_gt},
    {"aten.gt.Scalar", lower_gt}, {"aten.ge.Tensor", lower_ge}, {"aten.ge.Scalar", lower_ge},
    {"aten.logical_not.default", lower_logical_not}, {"aten.bitwise_not.default", lower_logical_not},
    {"aten.group_norm.default", lower_group_norm}, {"aten.native_group_norm.default", lower_group_norm},
    {"aten.full.default", lower_full}, {"aten.full_like.default", lower_full}, {"aten.new_full.default", lower_full},
    {"aten.zeros.default", lower_zeros}, {"aten.zeros_like.default", lower_zeros},
    {"aten.new_zeros.default", lower_zeros}, {"aten.ones.default", lower_ones},
    {"aten.ones_like.default", lower_ones}, {"aten.new_ones.default", lower_ones},
    {"aten.diag.default", lower_diag}, {"aten.stack.default", lower_stack}, {"aten.eye.default", lower_eye}, {"aten.eye.m", lower_eye},
    {"aten.channel_shuffle.default", lower_channel_shuffle}, {"aten.im2col.default", lower_im2col},
    {"aten.roll.default", lower_roll}, {"aten.repeat.default", lower_repeat},
    {"aten.tril.default", lower_tril}, {"aten.triu.default", lower_triu},
    {"aten.tril_.default", lower_tril}, {"aten.triu_.default", lower_triu});

}  // namespace tir
