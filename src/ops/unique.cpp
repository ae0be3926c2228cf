// The unique family: _unique2 (torch.unique without dim: sorted distinct
// values, inverse indices in self's shape, counts) and unique_consecutive
// (runs of equal neighbours, flattened or along a dim). The number of distinct
// values depends on the data: its size is the one the IR records (see
// ops/datadep_util.h). NaN never equals anything, so every NaN is its own value
// (sorted last), as in torch's CPU kernels.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>

#include "core/dispatch.h"
#include "ops/datadep_util.h"
#include "ops/op.h"

namespace tir {
namespace {

using namespace datadep;

template <typename T> bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// Outputs (values, inverse, counts) given the group structure: `order` lists
// the flattened elements (row-major positions) group by group; group g holds
// order[start[g] .. start[g+1]).
struct Groups {
  std::vector<int64_t> order, start;
  int64_t count() const { return int64_t(start.size()) - 1; }
};

// Inverse and counts are computed when asked for, and also when the IR records
// them at full size without being asked (LibTorch 1.13 returns them anyway for
// some argument combinations); otherwise they are empty [0].
void plan_outputs(OpCall& call, const Shape& values_expect, const Shape& inverse_shape) {
  const Shape values = recorded_shape(call, 0, values_expect);
  call.fresh(0, call.in[0].dtype, values);
  const bool inverse = call.b("return_inverse", false), counts = call.b("return_counts", false);
  const bool inv_full = inverse || (call.num_ir_outputs() > 1 && call.node->outputs[1].shape == inverse_shape &&
                                    inverse_shape != Shape{0});
  const bool cnt_full = counts || (call.num_ir_outputs() > 2 && call.node->outputs[2].shape.size() == 1 &&
                                   call.node->outputs[2].shape[0] > 0);
  call.fresh(1, DType::I64, recorded_shape(call, 1, inv_full ? inverse_shape : Shape{0}));
  call.fresh(2, DType::I64, recorded_shape(call, 2, cnt_full ? Shape{kDataDependent} : Shape{0}));
}

void write_index_outputs(OpCall& call, const Groups& g) {
  if (call.out[1].numel() > 0) {
    int64_t* inv = call.out[1].data<int64_t>();
    for (int64_t k = 0; k < g.count(); ++k)
      for (int64_t j = g.start[size_t(k)]; j < g.start[size_t(k) + 1]; ++j) inv[g.order[size_t(j)]] = k;
  }
  if (call.out[2].numel() > 0 || call.b("return_counts", false)) {
    check_size(call, 2, 0, g.count(), "distinct values");
    int64_t* c = call.out[2].data<int64_t>();
    for (int64_t k = 0; k < g.count(); ++k) c[k] = g.start[size_t(k) + 1] - g.start[size_t(k)];
  }
}

// --- _unique2(self, sorted=True, return_inverse=False, return_counts=False) --
// Always sorted (torch's CPU kernel sorts for sorted=False too).
void plan_unique2(OpCall& call) {
  call.expect_inputs(1, 1);
  plan_outputs(call, {kDataDependent}, call.in[0].shape);
}

void run_unique2(OpCall& call) {
  const Tensor& self = call.in[0];
  const auto off = rowmajor_offsets(self.shape, self.strides, 0);
  Groups g;
  dispatch_compute(self.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* p = self.data<T>();
    std::vector<T> v(off.size());
    for (size_t j = 0; j < off.size(); ++j) v[j] = p[off[j]];
    g.order.resize(v.size());
    std::iota(g.order.begin(), g.order.end(), int64_t(0));
    std::stable_sort(g.order.begin(), g.order.end(), [&](int64_t a, int64_t b) {
      const T x = v[size_t(a)], y = v[size_t(b)];
      return is_nan(y) ? !is_nan(x) : x < y;
    });
    for (size_t j = 0; j < g.order.size(); ++j)
      if (j == 0 || !(v[size_t(g.order[j])] == v[size_t(g.order[j - 1])])) g.start.push_back(int64_t(j));
    g.start.push_back(int64_t(g.order.size()));
    check_size(call, 0, 0, g.count(), "distinct values");
    T* out = call.out[0].data<T>();
    for (int64_t k = 0; k < g.count(); ++k) out[k] = v[size_t(g.order[size_t(g.start[size_t(k)])])];
  });
  write_index_outputs(call, g);
}

// --- unique_consecutive(self, return_inverse=False, return_counts=False, int? dim=None)
void plan_unique_consecutive(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& self = call.in[0];
  if (!call.has("dim")) {
    plan_outputs(call, {kDataDependent}, self.shape);
    return;
  }
  const int64_t dim = call.wrap_sized_dim(call.i("dim"), self.dim(), "unique_consecutive");
  Shape values = self.shape;
  values[size_t(dim)] = kDataDependent;
  plan_outputs(call, values, {self.shape[size_t(dim)]});
}

void run_unique_consecutive(OpCall& call) {
  const Tensor& self = call.in[0];
  // Flattened: one slice per element. Along dim: slice j is self.select(dim, j).
  const bool along = call.has("dim");
  const size_t dim = along ? size_t(call.wrap_sized_dim(call.i("dim"), self.dim(), "unique_consecutive")) : 0;
  Shape slice_shape;
  Strides slice_strides;
  std::vector<int64_t> slice_base;
  if (along) {
    slice_shape = self.shape;
    slice_strides = self.strides;
    slice_shape.erase(slice_shape.begin() + std::ptrdiff_t(dim));
    slice_strides.erase(slice_strides.begin() + std::ptrdiff_t(dim));
    for (int64_t j = 0; j < self.shape[dim]; ++j) slice_base.push_back(j * self.strides[dim]);
  } else {
    slice_base = rowmajor_offsets(self.shape, self.strides, 0);
  }
  const auto inner = rowmajor_offsets(slice_shape, slice_strides, 0);
  Groups g;
  dispatch_compute(self.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* p = self.data<T>();
    auto same = [&](int64_t a, int64_t b) {
      for (int64_t o : inner)
        if (!(p[a + o] == p[b + o])) return false;
      return true;
    };
    for (size_t j = 0; j < slice_base.size(); ++j) {
      g.order.push_back(int64_t(j));
      if (j == 0 || !same(slice_base[j], slice_base[j - 1])) g.start.push_back(int64_t(j));
    }
    g.start.push_back(int64_t(slice_base.size()));
    const Tensor& out = call.out[0];
    check_size(call, 0, dim, g.count(), along ? "distinct slices along dim " + std::to_string(dim)
                                               : std::string("distinct runs"));
    if (!along) {
      T* o = out.data<T>();
      for (int64_t k = 0; k < g.count(); ++k) o[k] = p[slice_base[size_t(g.start[size_t(k)])]];
      return;
    }
    Strides out_st = out.strides;
    out_st.erase(out_st.begin() + std::ptrdiff_t(dim));
    const auto out_inner = rowmajor_offsets(slice_shape, out_st, 0);
    T* o = out.data<T>();
    for (int64_t k = 0; k < g.count(); ++k) {
      const int64_t src = slice_base[size_t(g.start[size_t(k)])];
      for (size_t e = 0; e < inner.size(); ++e) o[k * out.strides[dim] + out_inner[e]] = p[src + inner[e]];
    }
  });
  write_index_outputs(call, g);
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False)
    //   -> (Tensor, Tensor, Tensor)
    {"aten._unique2.default", {plan_unique2, run_unique2}},
    // aten::unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False,
    //   int? dim=None) -> (Tensor, Tensor, Tensor)
    {"aten.unique_consecutive.default", {plan_unique_consecutive, run_unique_consecutive}});

}  // namespace tir
