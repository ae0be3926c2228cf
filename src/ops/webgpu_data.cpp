// WebGPU lowerings of data movement and the remaining table ops: fills,
// constant padding, slice_scatter, comparisons, group norm. Each is one or two
// dispatches of the generated elementwise kernel (or rowwise for group norm).
#include "ops/view_util.h"
#include "ops/webgpu.h"

namespace tir {
namespace {

// fill(self, value 0-d tensor): the value broadcast over the output.
bool lower_fill_tensor(const OpCall& c, GpuLowering& g) {
  if (c.in.size() != 2 || c.in[1].dim() != 0 || c.out[0].dtype != DType::F32 || c.in[1].dtype != DType::F32) return false;
  if (c.out[0].numel() == 0) return true;
  g.dispatches.push_back(gpu_elementwise("copy", {c.in[1]}, c.out[0]));
  return true;
}

bool lower_fill_scalar(const OpCall& c, GpuLowering& g) {
  if (c.out[0].dtype != DType::F32) return false;
  if (c.out[0].numel() == 0) return true;
  g.dispatches.push_back(gpu_elementwise("full", {}, c.out[0], c.scalar("value").f));
  return true;
}

// lift_fresh_copy / alias copies: out = in.
bool lower_plain_copy(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (y.buffer == x.buffer || y.numel() == 0) return true;
  if (x.dtype != y.dtype || x.dtype == DType::I64) return false;
  g.dispatches.push_back(gpu_elementwise("copy", {x}, y));
  return true;
}

// constant_pad_nd / pad(mode="constant") with non-negative pads: fill, then the
// input copied into the interior.
bool lower_constant_pad(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  if (c.node->op_type == "aten.pad.default" && c.str("mode", std::string("constant")) != "constant") return false;
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

// group_norm(x [N, C, *] contiguous, num_groups, weight?, bias?): rows (n, group).
bool lower_group_norm(const OpCall& c, GpuLowering& g) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  const Tensor w = c.in.size() > 1 ? c.in[1] : Tensor{};
  const Tensor b = c.in.size() > 2 ? c.in[2] : Tensor{};
  for (const Tensor* t : {&x, &y, &w, &b})
    if (t->defined() && (t->dtype != DType::F32 || t->offset != 0 || !t->is_contiguous())) return false;
  if (x.dim() < 2 || c.out.size() != 1) return false;
  const int64_t n = x.shape[0], ch = x.shape[1], groups = c.i("num_groups");
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
    {"aten.slice_scatter.default", lower_slice_scatter},
    {"aten.eq.Tensor", lower_eq}, {"aten.eq.Scalar", lower_eq}, {"aten.ne.Tensor", lower_ne},
    {"aten.ne.Scalar", lower_ne}, {"aten.lt.Tensor", lower_lt}, {"aten.lt.Scalar", lower_lt},
    {"aten.le.Tensor", lower_le}, {"aten.le.Scalar", lower_le}, {"aten.gt.Tensor", lower_gt},
    {"aten.gt.Scalar", lower_gt}, {"aten.ge.Tensor", lower_ge}, {"aten.ge.Scalar", lower_ge},
    {"aten.logical_not.default", lower_logical_not}, {"aten.bitwise_not.default", lower_logical_not},
    {"aten.group_norm.default", lower_group_norm});

}  // namespace tir
