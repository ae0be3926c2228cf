// Index addressing shared by the gathers (index.cpp) and the scatters
// (index_put.cpp): reading index tensors, range checks, and the advanced
// indexing layout of index.Tensor / index_put (docs/spec/OPS.md §3.10).
#pragma once
#include <cstdint>
#include <vector>

#include "ops/op.h"

namespace tir {
namespace indexing {

// Int64 (and, when allowed, int32) index tensors only; bool/uint8 masks are
// rejected with a message saying why.
void check_index_dtype(const OpCall& call, const Tensor& idx, bool allow_int32 = true);

// Index values of `t` seen with `shape`/`strides` (broadcast allowed), row-major.
std::vector<int64_t> read_indices(const Tensor& t, const Shape& shape, const Strides& strides);
inline std::vector<int64_t> read_indices(const Tensor& t) { return read_indices(t, t.shape, t.strides); }

// Range check naming the node; `wrap` allows negative indices (as index.Tensor).
int64_t checked_index(const OpCall& call, int64_t v, int64_t size, int64_t dim, bool wrap);

// The entries of a Tensor?[] argument held in call.in[first, first + count):
// one per list entry, null for None (attrs._tensor_list_none_masks[mask_list]).
std::vector<const Tensor*> tensor_list(const OpCall& call, size_t first, size_t count, size_t mask_list = 0);

// Advanced indexing with one int index tensor (or None) per leading dim of self.
struct IndexPlan {
  std::vector<const Tensor*> idx;  // per indexed dim: the index tensor, or null for None
  Shape bshape;                    // broadcast shape of the index tensors
  std::vector<size_t> rest;        // self dims kept as slices, in order
  size_t bpos = 0;                 // where the broadcast dims go in the result
  Shape out;                       // shape of self[indices]
};
IndexPlan plan_index(const OpCall& call, const Shape& self_shape, std::vector<const Tensor*> idx);

// Element offsets pairing self[indices] with a result-shaped tensor: for each
// broadcast position b, the block at self_off[b] (walked with self_st) is the
// block at res_off[b] (walked with res_st) of a tensor of shape plan.out with
// strides `res_strides`. Indices are range-checked (negative ones wrap).
struct IndexAddressing {
  Shape block;
  Strides self_st, res_st;
  std::vector<int64_t> self_off, res_off;
  int64_t count() const { return int64_t(self_off.size()); }
};
IndexAddressing address_index(const OpCall& call, const IndexPlan& plan, const Tensor& self,
                              const Strides& res_strides);

// Boolean (or uint8) mask indices: a k-d mask covers k dims of self.
inline bool is_mask(const Tensor& t) { return t.dtype == DType::Bool || t.dtype == DType::U8; }
// The mask's sizes must equal self's dims [first_dim, first_dim + mask.dim()).
void check_mask(const OpCall& call, const Tensor& mask, const Shape& self_shape, size_t first_dim);
// Per-dim int64 index tensors: each k-d mask becomes k tensors holding the
// coordinates of its true elements in row-major order (torch's nonzero()).
// `owned` holds the coordinate tensors that per_dim points to. Needs data (run time).
void expand_masks(const OpCall& call, const std::vector<const Tensor*>& entries, const Shape& self_shape,
                  std::vector<Tensor>* owned, std::vector<const Tensor*>* per_dim);
// Plan-time stand-in for expand_masks: each k-d mask becomes k int64 [1]
// metadata-only tensors (in `owned`), so plan_index can place the dims.
void mask_placeholders(const OpCall& call, const std::vector<const Tensor*>& entries, const Shape& self_shape,
                       std::vector<Tensor>* owned, std::vector<const Tensor*>* per_dim);

// Shape/strides with dim `i` removed.
template <typename V>
std::vector<V> drop(const std::vector<V>& v, size_t i) {
  std::vector<V> r = v;
  r.erase(r.begin() + std::ptrdiff_t(i));
  return r;
}

// Offsets for whole slices along one dim: slice j of `other` (offset
// j * other_stride) pairs with slice index[j] of self (index[j] * self_stride).
// index is 0-D or 1-D; values range-checked against self_size without wrapping.
void along_offsets(const OpCall& call, const Tensor& index, int64_t dim, int64_t self_size,
                   int64_t self_stride, int64_t other_stride, std::vector<int64_t>* self_off,
                   std::vector<int64_t>* other_off);

// Index ops that treat a 0-d tensor as a 1-element vector.
inline Tensor as_1d(const Tensor& t) { return t.dim() == 0 ? t.view_as({1}, {1}, t.offset) : t; }

// Plan of the write-into-self ops (index_put, index_copy, scatter, index_fill, ...): in-place
// forms alias self, the others get a fresh tensor of self's dtype and shape.
inline void plan_target(OpCall& call, bool inplace) {
  if (inplace) call.alias(0, call.in[0]);
  else call.fresh(0, call.in[0].dtype, call.in[0].shape);
}

// The registration of a write-into-self op: the out-of-place forms rewrite
// a copy of self (OpTraits::rewrites_self).
inline OpDef target_def(OpDef def, bool inplace) {
  def.traits.rewrites_self = !inplace;
  return def;
}

// Run: the tensor to write into (for out-of-place forms, self copied into the
// output first, unless the runtime planned the output in self's memory).
inline const Tensor& prepare_target(OpCall& call, bool inplace) {
  if (!inplace && call.out[0].raw() != call.in[0].raw()) copy_into(call.out[0], call.in[0]);
  return call.out[0];
}

}  // namespace indexing
}  // namespace tir
