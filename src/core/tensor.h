// A tensor is a strided view on a shared Buffer. Views (view/permute/slice/...)
// share the Buffer, so writes through a view land in the base. During compile
// the Buffer of a fresh value has no memory yet; the memory planner later points
// it into the arena, and every view made from it follows automatically.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"

namespace tir {

struct Buffer {
  enum class Kind { Arena, Weight, Input, Scratch };
  Kind kind = Kind::Scratch;
  uint8_t* data = nullptr;     // null until planned/bound
  size_t nbytes = 0;
  std::vector<uint8_t> owned;  // used by Scratch/Weight buffers that own their bytes
  std::shared_ptr<const void> keepalive;  // e.g. the mapped weights file `data` points into
  std::string label;           // value/weight name, for errors and debugging
  int id = -1;                 // planner id (Arena buffers)
};

struct Tensor {
  std::shared_ptr<Buffer> buffer;
  DType dtype = DType::F32;
  Shape shape;
  Strides strides;       // in elements
  int64_t offset = 0;    // in elements

  int64_t dim() const { return int64_t(shape.size()); }
  int64_t numel() const { return shape_numel(shape); }
  int64_t size(int64_t d) const;   // negative d allowed
  bool defined() const { return buffer != nullptr; }
  bool is_contiguous() const;
  size_t nbytes() const;  // overflow-checked (ExecutionError past size_t)
  uint8_t* raw() const { return buffer->data + offset * int64_t(dtype_size(dtype)); }
  template <typename T> T* data() const { return reinterpret_cast<T*>(raw()); }

  // A view with new metadata on the same buffer.
  Tensor view_as(Shape new_shape, Strides new_strides, int64_t new_offset) const;
  bool same_storage(const Tensor& o) const { return buffer == o.buffer; }
};

// New tensor with its own zero-filled memory (for scratch and tests).
Tensor make_owned(DType dtype, const Shape& shape);
// Contiguous tensor whose buffer is not yet allocated (the planner places it).
Tensor make_unplanned(DType dtype, const Shape& shape, const std::string& label);
// Throws ExecutionError naming `what` unless every element the view (shape,
// strides, offset) can reach lies inside its buffer's nbytes: for tensors that
// come from outside (weights, constants, fed inputs) before they are read.
void check_view_in_buffer(const Tensor& t, const std::string& what);
// Strides that show `t` with shape `target` (t broadcastable to it: numpy's
// right-aligned rule): stride 0 on stretched and leading dims.
Strides broadcast_strides(const Tensor& t, const Shape& target);
// `t` seen with shape `target`: same buffer, broadcast_strides.
Tensor broadcast_view(const Tensor& t, const Shape& target);
// Contiguous copy (same dtype) unless already contiguous, then returns t itself.
Tensor contiguous_or_self(const Tensor& t);
// Copies src into dst elementwise (shapes equal; strides arbitrary; dtypes may differ: cast).
void copy_into(const Tensor& dst, const Tensor& src);
// New owned contiguous tensor of `dtype` holding src's values.
Tensor to_dtype_owned(const Tensor& src, DType dtype);
// A complex64/complex128 tensor seen as float32/float64 with a trailing dim of
// 2 (real, imaginary): torch.view_as_real, on the same buffer.
Tensor complex_as_real(const Tensor& t);
// The inverse (torch.view_as_complex): t is float32/float64 with a last dim of
// 2 at stride 1, every other stride and the offset even; throws ExecutionError
// with the reason otherwise.
Tensor real_as_complex(const Tensor& t);

}  // namespace tir
