// EmbeddingBag: _embedding_bag (core IR) and embedding_bag.padding_idx
// (training IR). Inputs [weight, indices, offsets (, per_sample_weights)];
// indices are 1-d (F.embedding_bag flattens 2-d input before the op).
// Output 0 ([bags, D]) is exact. Outputs 1-3 (offset2bag, bag_size,
// max_indices) are backward bookkeeping whose shapes differ between torch
// versions; their shapes come from the IR's output metadata when present and
// their values follow LibTorch 1.13 on CPU (sum mode reports bag_size 0).
#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/gather.h"
#include "ops/index_util.h"
#include "ops/op.h"

namespace tir {
namespace {

using namespace indexing;

struct BagArgs {
  int mode = 0;
  bool include_last = false;
  int64_t padding_idx = -1;  // < 0 or out of range: none
  int64_t bags = 0;
  bool psw = false;
};

BagArgs bag_args(const OpCall& call, bool wrap_padding) {
  call.expect_inputs(3, 4);
  const Tensor &w = call.in[0], &idx = call.in[1], &off = call.in[2];
  BagArgs a;
  a.mode = int(call.i("mode", 0));
  call.check(a.mode >= 0 && a.mode <= 2, "mode must be 0 (sum), 1 (mean) or 2 (max), got " + std::to_string(a.mode));
  a.include_last = call.b("include_last_offset", false);
  a.psw = call.in.size() == 4;
  call.check(w.dim() == 2, "weight must be 2-D, got " + shape_to_string(w.shape));
  // _embedding_bag takes padding_idx as is (negative: none); embedding_bag.padding_idx
  // wraps a negative one (None: none), as torch does.
  a.padding_idx = call.i("padding_idx", -1);
  if (wrap_padding && call.has("padding_idx")) {
    const int64_t nw = w.shape[0];
    call.check(a.padding_idx >= -nw && a.padding_idx < nw,
               "padding_idx must be within the number of embeddings, -" + std::to_string(nw) + " through " +
                   std::to_string(nw - 1) + ", but got " + std::to_string(a.padding_idx));
    if (a.padding_idx < 0) a.padding_idx += nw;
  }
  call.check(w.dtype == DType::F32 || w.dtype == DType::F64,
             std::string("weight must be floating point, got ") + dtype_name(w.dtype));
  check_index_dtype(call, idx);
  check_index_dtype(call, off);
  call.check(idx.dim() == 1, "indices must be 1-D, got " + shape_to_string(idx.shape));
  call.check(off.dim() == 1, "offsets must be 1-D, got " + shape_to_string(off.shape));
  a.bags = off.shape[0] - (a.include_last ? 1 : 0);
  call.check(a.bags >= 0, "include_last_offset needs at least one offset");
  if (a.psw) {
    const Tensor& p = call.in[3];
    call.check(a.mode == 0, "per_sample_weights is only supported for mode='sum' (0), got mode " +
                                std::to_string(a.mode));
    call.check(p.shape == idx.shape, "per_sample_weights " + shape_to_string(p.shape) +
                                         " must have the shape of indices " + shape_to_string(idx.shape));
    call.check(p.dtype == w.dtype, "per_sample_weights must have the weight's dtype");
  }
  return a;
}

// Shape of extra output k (1..3): the IR's when it has the expected rank, else LibTorch 1.13's.
Shape extra_shape(const OpCall& call, const BagArgs& a, size_t k) {
  const int64_t n = call.in[1].numel(), D = call.in[0].shape[1];
  Shape def;
  if (k == 1) def = {a.mode == 0 && call.in[0].dtype == DType::F32 && a.padding_idx < 0 ? 0 : n};
  else if (k == 2 || a.mode != 2) def = {a.bags};
  else def = {a.bags, D};
  if (k < call.num_ir_outputs() && call.node->outputs[k].shape.size() == def.size())
    return call.node->outputs[k].shape;
  return def;
}

void plan_embedding_bag(OpCall& call) {
  const BagArgs a = bag_args(call, call.node->op_type == "aten.embedding_bag.padding_idx");
  call.fresh(0, call.in[0].dtype, {a.bags, call.in[0].shape[1]});
  for (size_t k = 1; k < 4; ++k) call.fresh(k, call.in[1].dtype, extra_shape(call, a, k));
}

// Writes int64 values into an int64/int32 output, zero past the end of `v`.
void store_ints(const Tensor& t, const std::vector<int64_t>& v) {
  const size_t n = size_t(t.numel());
  if (t.dtype == DType::I64) {
    int64_t* p = t.data<int64_t>();
    for (size_t j = 0; j < n; ++j) p[j] = j < v.size() ? v[j] : 0;
  } else {
    int32_t* p = t.data<int32_t>();
    for (size_t j = 0; j < n; ++j) p[j] = j < v.size() ? int32_t(v[j]) : 0;
  }
}

void run_embedding_bag(OpCall& call) {
  const BagArgs a = bag_args(call, call.node->op_type == "aten.embedding_bag.padding_idx");
  const Tensor &w = call.in[0], &out = call.out[0];
  const auto idx = read_indices(call.in[1]);
  const auto off = read_indices(call.in[2]);
  const int64_t n = int64_t(idx.size()), nw = w.shape[0], D = w.shape[1];
  // Bag b covers [start[b], start[b+1]); without include_last_offset the last bag ends at n.
  std::vector<int64_t> start(size_t(a.bags) + 1);
  for (int64_t b = 0; b <= a.bags; ++b) start[size_t(b)] = size_t(b) < off.size() ? off[size_t(b)] : n;
  if (!off.empty())
    call.check(off[0] == 0, "offsets[0] has to be 0, got " + std::to_string(off[0]));
  for (int64_t b = 0; b < a.bags; ++b)
    call.check(start[size_t(b)] <= start[size_t(b) + 1] && start[size_t(b) + 1] <= n,
               "offsets must be non-decreasing and at most the number of indices (" + std::to_string(n) +
                   "), got offsets[" + std::to_string(b) + "] = " + std::to_string(start[size_t(b)]) + " then " +
                   std::to_string(start[size_t(b) + 1]));
  std::vector<int64_t> rows(static_cast<size_t>(n)), offset2bag(size_t(n), 0), bag_size(size_t(a.bags), 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = checked_index(call, idx[size_t(i)], nw, 0, false);
    rows[size_t(i)] = r == a.padding_idx ? -1 : r;
  }
  for (int64_t b = 0; b < a.bags; ++b)
    for (int64_t i = start[size_t(b)]; i < start[size_t(b) + 1]; ++i) {
      offset2bag[size_t(i)] = b;
      if (a.mode != 0 && rows[size_t(i)] >= 0) ++bag_size[size_t(b)];
    }
  std::vector<int64_t> max_idx(a.mode == 2 ? size_t(a.bags * D) : 0);
  const Tensor psw = a.psw ? contiguous_or_self(call.in[3]) : Tensor();
  embedding_bag_reduce(w.dtype, a.mode, w.raw(), w.strides[0], w.strides[1], D, rows.data(), start.data(), a.bags,
                       a.psw ? psw.raw() : nullptr, out.raw(), a.mode == 2 ? max_idx.data() : nullptr);
  store_ints(call.out[1], offset2bag);
  store_ints(call.out[2], bag_size);
  store_ints(call.out[3], a.mode == 2 ? max_idx : bag_size);
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::_embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False,
    //   int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False,
    //   int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)
    {"aten._embedding_bag.default", {plan_embedding_bag, run_embedding_bag}},
    // aten::embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq,
    //   int mode, bool sparse, Tensor? per_sample_weights, bool include_last_offset, int? padding_idx)
    //   -> (Tensor, Tensor, Tensor, Tensor)
    {"aten.embedding_bag.padding_idx", {plan_embedding_bag, run_embedding_bag}});

}  // namespace tir
