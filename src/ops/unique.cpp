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
bool inverse_full(const OpCall& call, const Shape& inverse_shape) {
  return call.b("return_inverse", false) ||
         (call.num_ir_outputs() > 1 && call.node->outputs[1].shape == inverse_shape && inverse_shape != Shape{0});
}
bool counts_full(const OpCall& call) {
  return call.b("return_counts", false) || (call.num_ir_outputs() > 2 && call.node->outputs[2].shape.size() == 1 &&
                                            call.node->outputs[2].shape[0] > 0);
}

// Inverse and counts are computed when asked for, and also when the IR records
// them at full size without being asked (LibTorch 1.13 returns them anyway for
// some argument combinations); otherwise they are empty [0].
void plan_outputs(OpCall& call, const Shape& values_expect, const Shape& inverse_shape) {
  call.fresh(0, call.in[0].dtype, recorded_shape(call, 0, values_expect));
  call.fresh(1, DType::I64, recorded_shape(call, 1, inverse_full(call, inverse_shape) ? inverse_shape : Shape{0}));
  call.fresh(2, DType::I64, recorded_shape(call, 2, counts_full(call) ? Shape{kDataDependent} : Shape{0}));
}

std::vector<Shape> output_shapes(const OpCall& call, const Shape& values, const Shape& inverse_shape, int64_t u) {
  return {values, inverse_full(call, inverse_shape) ? inverse_shape : Shape{0},
          counts_full(call) ? Shape{u} : Shape{0}};
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
Groups sorted_groups(const Tensor& self) {
  const auto off = rowmajor_offsets(self.shape, self.strides, 0);
  Groups g;
  dispatch_compute(self.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* p = self.data<T>();
    g.order.resize(off.size());
    std::iota(g.order.begin(), g.order.end(), int64_t(0));
    auto at = [&](int64_t j) { return p[off[size_t(j)]]; };
    std::stable_sort(g.order.begin(), g.order.end(), [&](int64_t a, int64_t b) {
      const T x = at(a), y = at(b);
      return is_nan(y) ? !is_nan(x) : x < y;
    });
    for (size_t j = 0; j < g.order.size(); ++j)
      if (j == 0 || !(at(g.order[j]) == at(g.order[j - 1]))) g.start.push_back(int64_t(j));
  });
  g.start.push_back(int64_t(g.order.size()));
  return g;
}

void plan_unique2(OpCall& call) {
  call.expect_inputs(1, 1);
  plan_outputs(call, {kDataDependent}, call.in[0].shape);
}

std::vector<Shape> infer_unique2(const OpCall& call) {
  const int64_t u = sorted_groups(call.in[0]).count();
  return output_shapes(call, {u}, call.in[0].shape, u);
}

void run_unique2(OpCall& call) {
  const Tensor& self = call.in[0];
  const Groups g = sorted_groups(self);
  check_size(call, 0, 0, g.count(), "distinct values");
  const auto off = rowmajor_offsets(self.shape, self.strides, 0);
  const size_t es = dtype_size(self.dtype);
  for (int64_t k = 0; k < g.count(); ++k)
    std::memcpy(call.out[0].raw() + k * int64_t(es), self.raw() + off[size_t(g.order[size_t(g.start[size_t(k)])])] * int64_t(es), es);
  write_index_outputs(call, g);
}

// --- unique_consecutive(self, return_inverse=False, return_counts=False, int? dim=None)
// Slices compared: one per element (flattened), or self.select(dim, j).
struct Slices {
  bool along = false;
  size_t dim = 0;
  Shape shape;                // one slice's shape
  Strides strides;            // ... and strides in self
  std::vector<int64_t> base;  // each slice's offset in self
  std::vector<int64_t> inner; // element offsets within a slice
};

Slices slices_of(const OpCall& call, const Tensor& self) {
  Slices s;
  s.along = call.has("dim");
  if (s.along) {
    s.dim = size_t(call.wrap_sized_dim(call.i("dim"), self.dim(), "unique_consecutive"));
    s.shape = self.shape;
    s.strides = self.strides;
    s.shape.erase(s.shape.begin() + std::ptrdiff_t(s.dim));
    s.strides.erase(s.strides.begin() + std::ptrdiff_t(s.dim));
    for (int64_t j = 0; j < self.shape[s.dim]; ++j) s.base.push_back(j * self.strides[s.dim]);
  } else {
    s.base = rowmajor_offsets(self.shape, self.strides, 0);
  }
  s.inner = rowmajor_offsets(s.shape, s.strides, 0);
  return s;
}

Groups consecutive_groups(const Tensor& self, const Slices& s) {
  Groups g;
  dispatch_compute(self.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* p = self.data<T>();
    auto same = [&](int64_t a, int64_t b) {
      for (int64_t o : s.inner)
        if (!(p[a + o] == p[b + o])) return false;
      return true;
    };
    for (size_t j = 0; j < s.base.size(); ++j) {
      g.order.push_back(int64_t(j));
      if (j == 0 || !same(s.base[j], s.base[j - 1])) g.start.push_back(int64_t(j));
    }
  });
  g.start.push_back(int64_t(s.base.size()));
  return g;
}

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

std::vector<Shape> infer_unique_consecutive(const OpCall& call) {
  const Tensor& self = call.in[0];
  const Slices s = slices_of(call, self);
  const int64_t u = consecutive_groups(self, s).count();
  if (!s.along) return output_shapes(call, {u}, self.shape, u);
  Shape values = self.shape;
  values[s.dim] = u;
  return output_shapes(call, values, {self.shape[s.dim]}, u);
}

void run_unique_consecutive(OpCall& call) {
  const Tensor &self = call.in[0], &out = call.out[0];
  const Slices s = slices_of(call, self);
  const Groups g = consecutive_groups(self, s);
  check_size(call, 0, s.dim, g.count(), s.along ? "distinct slices along dim " + std::to_string(s.dim)
                                                : std::string("distinct runs"));
  Strides out_st = out.strides;
  if (s.along) out_st.erase(out_st.begin() + std::ptrdiff_t(s.dim));
  const auto out_inner = rowmajor_offsets(s.shape, out_st, 0);
  const int64_t out_step = s.along ? out.strides[s.dim] : 1;
  const int64_t es = int64_t(dtype_size(self.dtype));
  for (int64_t k = 0; k < g.count(); ++k) {
    const int64_t src = s.base[size_t(g.start[size_t(k)])];
    for (size_t e = 0; e < s.inner.size(); ++e)
      std::memcpy(out.raw() + (k * out_step + out_inner[e]) * es, self.raw() + (src + s.inner[e]) * es, size_t(es));
  }
  write_index_outputs(call, g);
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False)
    //   -> (Tensor, Tensor, Tensor)
    {"aten._unique2.default", {plan_unique2, run_unique2, nullptr, {}, infer_unique2}},
    // aten::unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False,
    //   int? dim=None) -> (Tensor, Tensor, Tensor)
    {"aten.unique_consecutive.default", {plan_unique_consecutive, run_unique_consecutive, nullptr, {}, infer_unique_consecutive}});

}  // namespace tir
