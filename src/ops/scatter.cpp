// Element scatters: scatter (src / value), scatter_add, scatter_reduce.two,
// index_fill, one_hot.
// As in index_put.cpp, out-of-place forms copy self into a fresh output and
// in-place forms (`op_`) alias self and write through its strides. The ops
// turn index values into element offsets (range-checked, so errors name the
// node) and kernels/gather.h moves or adds the elements.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <string>

#include "core/dispatch.h"
#include "kernels/elementwise.h"
#include "kernels/gather.h"
#include "core/strided.h"
#include "ops/elementwise_util.h"
#include "ops/index_util.h"
#include "ops/op.h"

namespace tir {
namespace {

using namespace indexing;

// A one-element tensor of `dtype` holding a Scalar attr or a 0-d tensor's value.
Tensor fill_value(const OpCall& call, const Tensor* value, DType dtype) {
  if (value) return to_dtype_owned(*value, dtype);
  return scalar_tensor(call.scalar("value"), dtype);
}

// --- scatter / scatter_add ------------------------------------------------
// Inputs [self, index] (+ src for the .src forms and scatter_add); 0-d self,
// index and src act as 1-element 1-D tensors.
void plan_scatter(OpCall& call, bool inplace, bool has_src) {
  call.expect_inputs(has_src ? 3 : 2, has_src ? 3 : 2);
  const Tensor &self = call.in[0], &index = call.in[1];
  call.check(index.dtype == DType::I64,
             std::string("scatter(): Expected dtype int64 for index, got ") + dtype_name(index.dtype));
  const int64_t dim = call.wrap_dim(call.i("dim"), self.dim());
  const Tensor s1 = as_1d(self), i1 = as_1d(index);
  call.check(i1.dim() == s1.dim(), "index " + shape_to_string(index.shape) + " must have the same rank as self " +
                                       shape_to_string(self.shape));
  if (index.numel() > 0)
    for (int64_t d = 0; d < s1.dim(); ++d)
      call.check(d == dim || i1.shape[size_t(d)] <= s1.shape[size_t(d)],
                 "index " + shape_to_string(index.shape) + " is larger than self " + shape_to_string(self.shape) +
                     " outside dim " + std::to_string(dim));
  if (has_src) {
    const Tensor &src = call.in[2], src1 = as_1d(src);
    call.check(src.dtype == self.dtype, std::string("expected self.dtype (") + dtype_name(self.dtype) +
                                            ") to be equal to src.dtype (" + dtype_name(src.dtype) + ")");
    call.check(src1.dim() == s1.dim(), "src " + shape_to_string(src.shape) + " must have the same rank as self " +
                                           shape_to_string(self.shape));
    if (index.numel() > 0)
      for (int64_t d = 0; d < s1.dim(); ++d)
        call.check(i1.shape[size_t(d)] <= src1.shape[size_t(d)], "index " + shape_to_string(index.shape) +
                                                                     " is larger than src " +
                                                                     shape_to_string(src.shape));
  }
  plan_target(call, inplace);
}

// Element offsets: each position p of index (row-major) writes target[p with
// p[dim] = index[p]] from src[p] (src_strides over index's shape; all 0 for a value).
void scatter_offsets(const OpCall& call, const Tensor& target, const Tensor& index, const Strides& src_strides,
                     size_t dim, std::vector<int64_t>* dst_off, std::vector<int64_t>* src_off) {
  const auto vals = read_indices(index);
  Strides pos_st = target.strides;
  pos_st[dim] = 0;
  dst_off->reserve(vals.size());
  src_off->reserve(vals.size());
  for_each_row<2>(index.shape, {pos_st.data(), src_strides.data()}, {0, 0},
                  [&](std::array<int64_t, 2> off, int64_t n, std::array<int64_t, 2> st) {
                    for (int64_t k = 0; k < n; ++k) {
                      const int64_t v =
                          checked_index(call, vals[dst_off->size()], target.shape[dim], int64_t(dim), false);
                      dst_off->push_back(off[0] + k * st[0] + v * target.strides[dim]);
                      src_off->push_back(off[1] + k * st[1]);
                    }
                  });
}

void run_scatter(OpCall& call, bool inplace, bool has_src, bool add) {
  const Tensor& target = prepare_target(call, inplace);
  const Tensor t1 = as_1d(target), i1 = as_1d(call.in[1]);
  const size_t dim = size_t(call.wrap_dim(call.i("dim"), target.dim()));
  Tensor src;
  Strides src_st(size_t(i1.dim()), 0);
  if (has_src) {
    src = as_1d(ew::read_safe(call.in[2], target));
    src_st = src.strides;
  } else {
    src = fill_value(call, nullptr, target.dtype);
  }
  std::vector<int64_t> dst_off, src_off;
  scatter_offsets(call, t1, i1, src_st, dim, &dst_off, &src_off);
  if (add)
    add_blocks(target.dtype, 1.0, {}, src.raw(), {}, src_off.data(), t1.raw(), {}, dst_off.data(),
               int64_t(dst_off.size()));
  else
    copy_blocks(dtype_size(target.dtype), {}, src.raw(), {}, src_off.data(), t1.raw(), {}, dst_off.data(),
                int64_t(dst_off.size()));
}

// --- scatter_reduce.two: reduce src into self at index (sum, prod, mean, amax,
// amin), torch's semantics: include_self=false first sets every position that
// receives a value to the reduction's identity; mean divides by the number of
// values received (+1 with include_self; floor division for integers); NaN
// wins amax/amin; positions nothing is scattered to keep self.
enum class Reduce { Sum, Prod, Mean, Amax, Amin };

Reduce parse_reduce(const OpCall& call) {
  const std::string r = call.str("reduce");
  if (r == "sum") return Reduce::Sum;
  if (r == "prod") return Reduce::Prod;
  if (r == "mean") return Reduce::Mean;
  if (r == "amax") return Reduce::Amax;
  if (r == "amin") return Reduce::Amin;
  call.fail("reduce argument must be either sum, prod, mean, amax or amin, got " + r);
}

void plan_scatter_reduce(OpCall& call) {
  parse_reduce(call);
  plan_scatter(call, false, true);
  call.check(call.in[0].dtype != DType::Bool, "scatter_reduce is not implemented for bool tensors");
}

template <typename T>
void reduce_into(Reduce op, bool include_self, T* o, const T* s, const std::vector<int64_t>& dst,
                 const std::vector<int64_t>& src) {
  constexpr bool kFloat = std::is_floating_point_v<T>;
  if (!include_self) {
    T init = T(0);
    if (op == Reduce::Prod) init = T(1);
    if (op == Reduce::Amax) init = kFloat ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
    if (op == Reduce::Amin) init = kFloat ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
    for (int64_t d : dst) o[d] = init;
  }
  auto isnan_ = [](T v) {
    if constexpr (kFloat) return std::isnan(v);
    else return false;
  };
  for (size_t j = 0; j < dst.size(); ++j) {
    T& a = o[dst[j]];
    const T v = s[src[j]];
    switch (op) {
      case Reduce::Sum:
      case Reduce::Mean: a = T(a + v); break;
      case Reduce::Prod: a = T(a * v); break;
      case Reduce::Amax: a = isnan_(v) ? v : std::max(a, v); break;
      case Reduce::Amin: a = isnan_(v) ? v : std::min(a, v); break;
    }
  }
  if (op != Reduce::Mean) return;
  std::unordered_map<int64_t, int64_t> count;
  for (int64_t d : dst) ++count[d];
  for (const auto& kv : count) {
    const int64_t c = kv.second + (include_self ? 1 : 0);
    T& a = o[kv.first];
    if constexpr (kFloat) {
      a = a / T(c);
    } else {
      const int64_t x = int64_t(a), q = x / c;
      a = T(q - ((x % c != 0) && (x < 0) ? 1 : 0));
    }
  }
}

void run_scatter_reduce(OpCall& call) {
  const Reduce op = parse_reduce(call);
  const bool include_self = call.b("include_self", true);
  const Tensor& target = prepare_target(call, false);
  const Tensor t1 = as_1d(target), i1 = as_1d(call.in[1]);
  const size_t dim = size_t(call.wrap_dim(call.i("dim"), target.dim()));
  const Tensor src = as_1d(ew::read_safe(call.in[2], target));
  std::vector<int64_t> dst_off, src_off;
  scatter_offsets(call, t1, i1, src.strides, dim, &dst_off, &src_off);
  dispatch_compute(target.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) reduce_into<T>(op, include_self, t1.data<T>(), src.data<T>(), dst_off, src_off);
  });
}

// --- index_fill: whole slices along dim set to a value ----------------------
// Inputs [self, index] (+ a 0-d value tensor for .int_Tensor). Negative indices wrap.
void plan_index_fill(OpCall& call, bool inplace, bool value_tensor) {
  call.expect_inputs(value_tensor ? 3 : 2, value_tensor ? 3 : 2);
  const Tensor &self = call.in[0], &index = call.in[1];
  call.check(index.dtype == DType::I64,
             std::string("index_fill_(): Expected dtype int64 for index, got ") + dtype_name(index.dtype));
  call.check(index.dim() <= 1, "index has to be a vector or a scalar, got " + shape_to_string(index.shape));
  call.wrap_dim(call.i("dim"), self.dim());
  if (value_tensor)
    call.check(call.in[2].dim() == 0, "index_fill only supports a 0-dimensional value tensor, got " +
                                          shape_to_string(call.in[2].shape));
  plan_target(call, inplace);
}

void run_index_fill(OpCall& call, bool inplace, bool value_tensor) {
  const Tensor& target = prepare_target(call, inplace);
  const Tensor t1 = as_1d(target);
  const size_t dim = size_t(call.wrap_dim(call.i("dim"), target.dim()));
  const Tensor value = fill_value(call, value_tensor ? &call.in[2] : nullptr, target.dtype);
  const auto vals = read_indices(call.in[1]);
  std::vector<int64_t> dst_off(vals.size()), src_off(vals.size(), 0);
  for (size_t j = 0; j < vals.size(); ++j)
    dst_off[j] = checked_index(call, vals[j], t1.shape[dim], int64_t(dim), true) * t1.strides[dim];
  const Shape block = drop(t1.shape, dim);
  copy_blocks(dtype_size(target.dtype), block, value.raw(), Strides(block.size(), 0), src_off.data(), t1.raw(),
              drop(t1.strides, dim), dst_off.data(), int64_t(vals.size()));
}

// --- one_hot: int64 [..., num_classes] ----------------------------------------
// num_classes = -1 means max(self) + 1, which needs data: take it from the
// IR's output metadata (torch.export records the concrete shape).
int64_t one_hot_classes(const OpCall& call) {
  const int64_t n = call.i("num_classes", -1);
  if (n != -1) {
    call.check(n >= 0, "num_classes should be -1 or non-negative, got " + std::to_string(n));
    return n;
  }
  const Tensor& self = call.in[0];
  const bool meta = call.num_ir_outputs() > 0 && call.node->outputs[0].shape.size() == size_t(self.dim() + 1);
  call.check(meta, "num_classes=-1 infers the class count from the data (max + 1); it needs the IR output "
                   "shape, which does not have rank " + std::to_string(self.dim() + 1));
  return call.node->outputs[0].shape.back();
}

void plan_one_hot(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  call.check(self.dtype == DType::I64,
             std::string("one_hot is only applicable to index tensors (int64), got ") + dtype_name(self.dtype));
  Shape out = self.shape;
  out.push_back(one_hot_classes(call));
  call.fresh(0, DType::I64, out);
}

void run_one_hot(OpCall& call) {
  const Tensor& out = call.out[0];
  const int64_t classes = out.shape.back();
  const auto vals = read_indices(call.in[0]);
  int64_t* o = out.data<int64_t>();
  std::memset(o, 0, out.nbytes());
  for (size_t j = 0; j < vals.size(); ++j) {
    call.check(vals[j] >= 0, "class values must be non-negative, got " + std::to_string(vals[j]));
    call.check(vals[j] < classes, "class values must be smaller than num_classes (" + std::to_string(classes) +
                                      "), got " + std::to_string(vals[j]));
    o[int64_t(j) * classes + vals[j]] = 1;
  }
}

template <bool Inplace, bool Src, bool Add>
OpDef scatter_def() {
  return target_def(
      {[](OpCall& c) { plan_scatter(c, Inplace, Src); }, [](OpCall& c) { run_scatter(c, Inplace, Src, Add); }},
      Inplace);
}
template <bool Inplace, bool ValueTensor>
OpDef index_fill_def() {
  return target_def({[](OpCall& c) { plan_index_fill(c, Inplace, ValueTensor); },
                     [](OpCall& c) { run_index_fill(c, Inplace, ValueTensor); }},
                    Inplace);
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
    {"aten.scatter.src", scatter_def<false, true, false>()},
    // aten::scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor
    {"aten.scatter.value", scatter_def<false, false, false>()},
    // aten::scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)
    {"aten.scatter_.src", scatter_def<true, true, false>()},
    // aten::scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)
    {"aten.scatter_.value", scatter_def<true, false, false>()},
    // aten::scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
    {"aten.scatter_add.default", scatter_def<false, true, true>()},
    // aten::scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)
    {"aten.scatter_add_.default", scatter_def<true, true, true>()},
    // aten::scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *,
    //   bool include_self=True) -> Tensor
    {"aten.scatter_reduce.two", {plan_scatter_reduce, run_scatter_reduce}},
    // aten::index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor
    {"aten.index_fill.int_Scalar", index_fill_def<false, false>()},
    // aten::index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor
    {"aten.index_fill.int_Tensor", index_fill_def<false, true>()},
    // aten::index_fill_.int_Scalar(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)
    {"aten.index_fill_.int_Scalar", index_fill_def<true, false>()},
    // aten::index_fill_.int_Tensor(Tensor(a!) self, int dim, Tensor index, Tensor value) -> Tensor(a!)
    {"aten.index_fill_.int_Tensor", index_fill_def<true, true>()},
    // aten::one_hot(Tensor self, int num_classes=-1) -> Tensor
    {"aten.one_hot.default", {plan_one_hot, run_one_hot}});

}  // namespace tir
