// More creation ops: eye, empty_strided / empty_permuted, lift_fresh, resize_.
// dtype attrs may be strings or ScalarType ints; device/layout/pin_memory are
// ignored; f16/bf16 requests give f32 tensors (the engine's compute dtype).
// torch leaves empty_* memory uninitialized: here it is zero-filled (any value
// is torch-correct; zeros make runs reproducible). Their strides (a permuted or
// explicit layout) change no values, so the output is planned contiguous.
#include <algorithm>
#include <cstring>
#include <string>

#include "core/checked.h"
#include "core/dispatch.h"
#include "ops/op.h"

namespace tir {
namespace {

DType out_dtype(const OpCall& c) { return compute_dtype(c.dtype("dtype").value_or(DType::F32)); }

Shape checked_size(const OpCall& c, const std::string& attr) {
  Shape s = c.ints(attr);
  for (int64_t d : s) c.check(d >= 0, "Trying to create tensor with negative dimension " + std::to_string(d) + ": " +
                                          shape_to_string(s));
  return s;
}

void zero_fill(OpCall& c) {
  const Tensor& y = c.out[0];
  if (y.numel() > 0) std::memset(y.raw(), 0, y.nbytes());
}

// eye(n) / eye.m(n, m): ones on the main diagonal of an [n, m] matrix.
void plan_eye(OpCall& c) {
  c.expect_inputs(0, 0);
  const int64_t n = c.i("n"), m = c.has("m") ? c.i("m") : n;
  c.check(n >= 0, "n must be greater or equal to 0, got " + std::to_string(n));
  c.check(m >= 0, "m must be greater or equal to 0, got " + std::to_string(m));
  c.fresh(0, out_dtype(c), {n, m});
}

void run_eye(OpCall& c) {
  zero_fill(c);
  const Tensor& y = c.out[0];
  const int64_t n = y.shape[0], m = y.shape[1];
  dispatch_compute(y.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = y.data<T>();
    for (int64_t i = 0; i < std::min(n, m); ++i) p[i * m + i] = T(1);
  });
}

// empty_strided(size, stride): the strides must match the size's rank.
void plan_empty_strided(OpCall& c) {
  c.expect_inputs(0, 0);
  const Shape size = checked_size(c, "size");
  const Strides stride = c.ints("stride");
  c.check(size.size() == stride.size(), "mismatch in length of strides and shape: size " + shape_to_string(size) +
                                            ", stride " + shape_to_string(stride));
  for (int64_t s : stride) c.check(s >= 0, "empty_strided: negative stride in " + shape_to_string(stride));
  c.fresh(0, out_dtype(c), size);
}

// empty_permuted(size, physical_layout): physical_layout must be a permutation of the dims.
void plan_empty_permuted(OpCall& c) {
  c.expect_inputs(0, 0);
  const Shape size = checked_size(c, "size");
  const std::vector<int64_t> layout = c.ints("physical_layout");
  c.check(layout.size() == size.size(), "Number of dimensions in size does not match the length of the physical_layout; "
                                        "i.e. len(size) = " + std::to_string(size.size()) + " is not equal to "
                                        "len(physical_layout) = " + std::to_string(layout.size()));
  std::vector<bool> seen(size.size(), false);
  for (int64_t d : layout) {
    c.check(d >= 0 && d < int64_t(size.size()) && !seen[size_t(d)],
            "physical_layout " + shape_to_string(layout) + " is not a permutation of the dims");
    seen[size_t(d)] = true;
  }
  c.fresh(0, out_dtype(c), size);
}

// lift_fresh(Tensor(a) self) -> Tensor(a): the constant itself.
void plan_lift_fresh(OpCall& c) {
  c.expect_inputs(1, 1);
  c.alias(0, c.in[0]);
}

// resize_(self, size): torch keeps self's storage and gives it contiguous
// strides for the new size. Well-defined (and supported) when the new size
// fits the storage self already has: the result is then a view of that
// storage, read row-major from self's offset. Growing would read memory torch
// leaves uninitialized, and channels_last strides are not planned: both fail.
void plan_resize(OpCall& c) {
  c.expect_inputs(1, 1);
  const Tensor& x = c.in[0];
  const Shape size = checked_size(c, "size");
  if (c.has("memory_format")) {
    const std::string mf = c.str("memory_format");
    c.check(mf.find("contiguous_format") != std::string::npos || mf.find("preserve_format") != std::string::npos,
            "resize_ with memory_format " + mf + " is not supported (only contiguous_format)");
  }
  const int64_t n = checked_numel(size, "resize_");
  const int64_t storage = int64_t(x.buffer->nbytes / dtype_size(x.dtype));
  c.check(n == 0 || n <= storage - x.offset,
          "resize_ to " + shape_to_string(size) + " needs " + std::to_string(n) + " elements from offset " +
              std::to_string(x.offset) + ", but the storage holds " + std::to_string(storage) +
              ": growing a tensor leaves its new elements uninitialized in torch and is not supported");
  c.alias(0, x.view_as(size, contiguous_strides(size), x.offset));
}

}  // namespace

TIR_REGISTER_OPS(
    // eye(SymInt n, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None)
    {"aten.eye.default", {plan_eye, run_eye}},
    // eye.m(SymInt n, SymInt m, *, ScalarType? dtype=None, ...) -> Tensor
    {"aten.eye.m", {plan_eye, run_eye}},
    // empty_strided(SymInt[] size, SymInt[] stride, *, ScalarType? dtype=None, ...) -> Tensor
    {"aten.empty_strided.default", {plan_empty_strided, zero_fill}},
    // empty_permuted(SymInt[] size, int[] physical_layout, *, ScalarType? dtype=None, ...) -> Tensor
    {"aten.empty_permuted.default", {plan_empty_permuted, zero_fill}},
    // lift_fresh(Tensor(a) self) -> Tensor(a)
    {"aten.lift_fresh.default", {plan_lift_fresh, nullptr}},
    // resize_(Tensor(a!) self, SymInt[] size, *, MemoryFormat? memory_format=None) -> Tensor(a!)
    {"aten.resize_.default", {plan_resize, nullptr}});

}  // namespace tir
