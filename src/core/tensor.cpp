#include "core/tensor.h"

#include <cstring>
#include <limits>

#include "core/checked.h"
#include "core/errors.h"
#include "core/dispatch.h"
#include "core/strided.h"

namespace tir {

Strides contiguous_strides(const Shape& shape) {
  Strides st(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    st[i] = s;
    // Saturate: only a shape whose element count overflows gets here, and
    // checked_numel refuses that one wherever it is materialized.
    if (!mul_ok(s, shape[i] > 0 ? shape[i] : 1, &s)) s = std::numeric_limits<int64_t>::max();
  }
  return st;
}

int64_t checked_mul(int64_t a, int64_t b, const std::string& what) {
  int64_t r;
  if (!mul_ok(a, b, &r))
    throw ExecutionError(what + ": " + std::to_string(a) + " * " + std::to_string(b) + " overflows int64");
  return r;
}

int64_t checked_add(int64_t a, int64_t b, const std::string& what) {
  int64_t r;
  if (!add_ok(a, b, &r))
    throw ExecutionError(what + ": " + std::to_string(a) + " + " + std::to_string(b) + " overflows int64");
  return r;
}

int64_t checked_numel(const Shape& shape, const std::string& what) {
  int64_t n = 1;
  bool overflow = false;
  for (auto d : shape) {
    if (d < 0) throw ExecutionError(what + ": negative dim in shape " + shape_to_string(shape));
    // Keep scanning after an overflow: a later 0 makes the product 0.
    if (!overflow && !mul_ok(n, d, &n)) overflow = true;
    if (d == 0) return 0;
  }
  if (overflow)
    throw ExecutionError(what + ": shape " + shape_to_string(shape) + " has more elements than int64 holds");
  return n;
}

size_t checked_nbytes(int64_t numel, size_t itemsize, const std::string& what) {
  if (numel < 0) throw ExecutionError(what + ": negative element count " + std::to_string(numel));
  const uint64_t max = std::numeric_limits<size_t>::max();
  if (itemsize != 0 && uint64_t(numel) > max / itemsize)
    throw ExecutionError(what + ": " + std::to_string(numel) + " elements of " + std::to_string(itemsize) +
                         " bytes exceed the " + std::to_string(sizeof(size_t) * 8) + "-bit address space");
  return size_t(numel) * itemsize;
}

int64_t shape_numel(const Shape& shape) { return checked_numel(shape, "tensor"); }

std::string shape_to_string(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(s[i]);
  }
  return out + "]";
}

int64_t Tensor::size(int64_t d) const {
  if (d < 0) d += dim();
  if (d < 0 || d >= dim()) throw ExecutionError("dimension out of range");
  return shape[size_t(d)];
}

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 1) continue;
    if (strides[i] != expected) return shape_numel(shape) == 0;
    if (!mul_ok(expected, shape[i], &expected)) return shape_numel(shape) == 0;
  }
  return true;
}

size_t Tensor::nbytes() const { return checked_nbytes(numel(), dtype_size(dtype), "tensor"); }

void check_view_in_buffer(const Tensor& t, const std::string& what) {
  const auto fail = [&](const std::string& why) {
    throw ExecutionError(what + ": view with shape " + shape_to_string(t.shape) + ", strides " +
                         shape_to_string(t.strides) + " and offset " + std::to_string(t.offset) + " " + why);
  };
  if (!t.buffer) fail("has no storage");
  if (t.strides.size() != t.shape.size()) fail("does not have one stride per dim");
  const int64_t numel = checked_numel(t.shape, what);
  if (t.offset < 0) fail("starts before its storage");
  if (numel == 0) return;
  // Lowest and highest element index the view touches, overflow-checked.
  int64_t lo = t.offset, hi = t.offset;
  for (size_t d = 0; d < t.shape.size(); ++d) {
    int64_t span;
    if (!mul_ok(t.shape[d] - 1, t.strides[d], &span)) fail("overflows int64");
    if (!add_ok(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) fail("overflows int64");
  }
  const uint64_t item = dtype_size(t.dtype);
  if (lo < 0) fail("reaches before its storage");
  if (uint64_t(hi) >= t.buffer->nbytes / item)
    fail("reaches element " + std::to_string(hi) + " of a storage of " + std::to_string(t.buffer->nbytes / item) +
         " elements (" + std::to_string(t.buffer->nbytes) + " bytes)");
}

Tensor Tensor::view_as(Shape new_shape, Strides new_strides, int64_t new_offset) const {
  Tensor t;
  t.buffer = buffer;
  t.dtype = dtype;
  t.shape = std::move(new_shape);
  t.strides = std::move(new_strides);
  t.offset = new_offset;
  return t;
}

Tensor make_owned(DType dtype, const Shape& shape) {
  Tensor t;
  t.buffer = std::make_shared<Buffer>();
  t.buffer->kind = Buffer::Kind::Scratch;
  const size_t n = checked_nbytes(checked_numel(shape, "new tensor"), dtype_size(dtype), "new tensor");
  t.buffer->owned.assign(n ? n : 1, 0);
  t.buffer->data = t.buffer->owned.data();
  t.buffer->nbytes = n;
  t.dtype = dtype;
  t.shape = shape;
  t.strides = contiguous_strides(shape);
  return t;
}

Strides broadcast_strides(const Tensor& t, const Shape& target) {
  Strides st(target.size(), 0);
  const size_t lead = target.size() - t.shape.size();
  for (size_t i = 0; i < t.shape.size(); ++i)
    st[lead + i] = t.shape[i] == 1 && target[lead + i] != 1 ? 0 : t.strides[i];
  return st;
}

Tensor broadcast_view(const Tensor& t, const Shape& target) {
  return t.view_as(target, broadcast_strides(t, target), t.offset);
}

Tensor make_unplanned(DType dtype, const Shape& shape, const std::string& label) {
  Tensor t;
  t.buffer = std::make_shared<Buffer>();
  t.buffer->kind = Buffer::Kind::Arena;
  t.buffer->nbytes = checked_nbytes(checked_numel(shape, "value '" + label + "'"), dtype_size(dtype),
                                    "value '" + label + "'");
  t.buffer->label = label;
  t.dtype = dtype;
  t.shape = shape;
  t.strides = contiguous_strides(shape);
  return t;
}

Tensor complex_as_real(const Tensor& t) {
  Shape shape = t.shape;
  Strides strides = t.strides;
  // A stride that addresses nothing (size-1 dim, empty tensor) may hold any
  // value, one too big to double included (as_strided takes it as given):
  // those become 0. Every other stride and the offset lie inside the buffer,
  // so doubling them cannot overflow.
  const bool empty = shape_numel(shape) == 0;
  for (size_t i = 0; i < strides.size(); ++i) strides[i] = empty || shape[i] == 1 ? 0 : strides[i] * 2;
  shape.push_back(2);
  strides.push_back(1);
  Tensor r = t.view_as(shape, strides, empty ? 0 : t.offset * 2);
  r.dtype = t.dtype == DType::C128 ? DType::F64 : DType::F32;
  return r;
}

Tensor real_as_complex(const Tensor& t) {
  if (t.dtype != DType::F32 && t.dtype != DType::F64)
    throw ExecutionError(std::string("view_as_complex is only supported for float and double tensors, got ") +
                         dtype_name(t.dtype));
  if (t.shape.empty() || t.shape.back() != 2)
    throw ExecutionError("view_as_complex needs a last dimension of size 2, got shape " + shape_to_string(t.shape));
  if (t.strides.back() != 1) throw ExecutionError("view_as_complex needs the last dimension to have stride 1");
  Shape shape(t.shape.begin(), t.shape.end() - 1);
  Strides strides(t.strides.begin(), t.strides.end() - 1);
  for (int64_t& s : strides) {
    if (s % 2 != 0) throw ExecutionError("view_as_complex needs every stride but the last to be even");
    s /= 2;
  }
  if (t.offset % 2 != 0) throw ExecutionError("view_as_complex needs an even storage offset");
  Tensor c = t.view_as(shape, strides, t.offset / 2);
  c.dtype = t.dtype == DType::F64 ? DType::C128 : DType::C64;
  return c;
}

void copy_into(const Tensor& dst, const Tensor& src) {
  if (dst.shape != src.shape)
    throw ExecutionError("copy: shape " + shape_to_string(src.shape) + " does not match " +
                         shape_to_string(dst.shape));
  if (is_complex(dst.dtype) || is_complex(src.dtype)) {
    // Complex copies and casts go through (re, im) pairs; real -> complex is not a copy.
    if (!is_complex(dst.dtype) || !is_complex(src.dtype))
      throw ExecutionError(std::string("copy: cannot copy ") + dtype_name(src.dtype) + " into " +
                           dtype_name(dst.dtype));
    copy_into(complex_as_real(dst), complex_as_real(src));
    return;
  }
  if (dst.dtype == src.dtype && dst.is_contiguous() && src.is_contiguous()) {
    if (dst.raw() != src.raw()) std::memmove(dst.raw(), src.raw(), dst.nbytes());
    return;
  }
  // Merge dims that are contiguous in both tensors (and drop size-1 dims), so
  // rows are as long as possible: copying an expanded KV cache ([2,1->4,128,32]
  // into [8,128,32], GQA's repeat_kv) then moves 16 KiB rows, not 32-element ones.
  DimVec shape = dst.shape, ds = dst.strides, ss = src.strides;
  coalesce_in_place<DimVec, 2>(shape, {&ds, &ss});
  if (dst.dtype == src.dtype && !shape.empty() && ds.back() == 1 && ss.back() == 1) {
    const size_t item = dtype_size(dst.dtype);
    uint8_t* d = dst.raw();
    const uint8_t* s = src.raw();
    for_each_row<2>(shape, {ds.data(), ss.data()}, {0, 0}, [&](std::array<int64_t, 2> off, int64_t n, std::array<int64_t, 2>) {
      std::memmove(d + off[0] * int64_t(item), s + off[1] * int64_t(item), size_t(n) * item);
    });
    return;
  }
  dispatch_storage(dst.dtype, [&](auto dtag) {
    using D = decltype(dtag);
    dispatch_storage(src.dtype, [&](auto stag) {
      using S = decltype(stag);
      D* d = dst.data<D>();
      const S* s = src.data<S>();
      for_each_row<2>(shape, {ds.data(), ss.data()}, {0, 0},
                      [&](std::array<int64_t, 2> off, int64_t n, std::array<int64_t, 2> st) {
                        for (int64_t k = 0; k < n; ++k) {
                          if constexpr (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>)
                            d[off[0] + k * st[0]] = store_as<D>(load_as<float>(s[off[1] + k * st[1]]));
                          else
                            d[off[0] + k * st[0]] = store_as<D>(s[off[1] + k * st[1]]);
                        }
                      });
    });
  });
}

Tensor contiguous_or_self(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor c = make_owned(t.dtype, t.shape);
  copy_into(c, t);
  return c;
}

Tensor to_dtype_owned(const Tensor& src, DType dtype) {
  Tensor c = make_owned(dtype, src.shape);
  copy_into(c, src);
  return c;
}

}  // namespace tir
