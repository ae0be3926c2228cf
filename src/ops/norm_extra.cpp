// Weight-rescaling ops that models carry into their graphs:
//   _weight_norm(v, g, dim) = v * (g / norm_except_dim(v, 2, dim)), from
//     nn.utils.weight_norm; dim == -1 means the norm of the whole tensor (what
//     weight_norm(dim=None) passes), any other dim keeps that dim.
//   _weight_norm_interface: the same, plus the norms as a second output.
//   embedding_renorm_(self, indices, max_norm, norm_type): each row referenced by
//     indices (each distinct index once, in sorted order, as torch) whose p-norm
//     exceeds max_norm is scaled by max_norm / (norm + 1e-7); in place.
//     embedding_renorm is the same on a copy.
// Norms accumulate in double.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "ops/common.h"
#include "ops/index_util.h"
#include "ops/op.h"

namespace tir {
namespace {

// --- _weight_norm ---------------------------------------------------------------
struct WeightNorm {
  int64_t dim = -1;  // -1: one norm over everything
  Shape norm_shape;  // v's rank, 1 except at dim (0-d for the whole tensor)
  Shape out;
};

WeightNorm weight_norm_plan(const OpCall& c) {
  const Tensor &v = c.in[0], &g = c.in[1];
  c.check(is_floating(compute_dtype(v.dtype)) && is_floating(compute_dtype(g.dtype)),
          std::string("_weight_norm expects floating point v and g, got ") + dtype_name(v.dtype) + " and " +
              dtype_name(g.dtype));
  WeightNorm p;
  const int64_t dim = c.i("dim", 0);
  if (dim != -1) {
    p.dim = c.wrap_dim(dim, v.dim());
    if (v.dim() > 0) {
      p.norm_shape.assign(size_t(v.dim()), 1);
      p.norm_shape[size_t(p.dim)] = v.shape[size_t(p.dim)];
    } else {
      p.dim = -1;
    }
  }
  auto gn = broadcast_shapes(g.shape, p.norm_shape);
  auto out = gn ? broadcast_shapes(v.shape, *gn) : std::nullopt;
  c.check(out.has_value(), "_weight_norm: g of shape " + shape_to_string(g.shape) + " does not broadcast with v " +
                               shape_to_string(v.shape) + " and its norm " + shape_to_string(p.norm_shape));
  p.out = *out;
  return p;
}

void plan_weight_norm(OpCall& c, bool interface) {
  c.expect_inputs(2, 2);
  const WeightNorm p = weight_norm_plan(c);
  const DType dt = compute_dtype(promote_types(c.in[0].dtype, c.in[1].dtype));
  c.fresh(0, dt, p.out);
  if (interface) c.fresh(1, compute_dtype(c.in[0].dtype), p.norm_shape);  // the norms, keepdim
}

void run_weight_norm(OpCall& c) {
  const WeightNorm p = weight_norm_plan(c);
  const Tensor &v = c.in[0], &g = c.in[1], &y = c.out[0];
  // Norms: one per index along dim (or one), from v's own elements.
  const int64_t nn = p.dim < 0 ? 1 : v.shape[size_t(p.dim)];
  std::vector<double> norm(size_t(nn), 0.0);
  dispatch_compute(v.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* d = v.data<T>();
    std::vector<int64_t> coord(size_t(v.dim()), 0);
    for (int64_t e = 0, n = v.numel(); e < n; ++e) {
      int64_t off = 0;
      for (size_t k = 0; k < coord.size(); ++k) off += coord[k] * v.strides[k];
      const double x = double(d[off]);
      norm[size_t(p.dim < 0 ? 0 : coord[size_t(p.dim)])] += x * x;
      for (size_t k = coord.size(); k-- > 0;) {
        if (++coord[k] < v.shape[k]) break;
        coord[k] = 0;
      }
    }
  });
  for (double& n : norm) n = std::sqrt(n);
  if (c.out.size() > 1)
    dispatch_compute(c.out[1].dtype, [&](auto tag) {
      using T = decltype(tag);
      for (int64_t k = 0; k < c.out[1].numel(); ++k) c.out[1].data<T>()[k] = T(norm[size_t(k)]);
    });
  // y = v * (g / norm), each broadcast to y's shape.
  const Strides vs = broadcast_strides(v, p.out), gs = broadcast_strides(g, p.out);
  const size_t nd = p.out.size();
  const size_t norm_axis = p.dim < 0 ? nd : nd - size_t(v.dim()) + size_t(p.dim);
  dispatch_compute(y.dtype, [&](auto yt) {
    using Y = decltype(yt);
    dispatch_compute(v.dtype, [&](auto vt) {
      using V = decltype(vt);
      dispatch_compute(g.dtype, [&](auto gt) {
        using G = decltype(gt);
        const V* vd = v.data<V>();
        const G* gd = g.data<G>();
        Y* out = y.data<Y>();
        std::vector<int64_t> coord(nd, 0);
        for (int64_t e = 0, n = y.numel(); e < n; ++e) {
          int64_t vo = 0, go = 0;
          for (size_t k = 0; k < nd; ++k) vo += coord[k] * vs[k], go += coord[k] * gs[k];
          const double nv = norm[size_t(norm_axis < nd && nn > 1 ? coord[norm_axis] : 0)];
          const Y scale = Y(Y(gd[go]) / Y(nv));
          out[e] = Y(Y(vd[vo]) * scale);
          for (size_t k = nd; k-- > 0;) {
            if (++coord[k] < p.out[k]) break;
            coord[k] = 0;
          }
        }
      });
    });
  });
}

// --- embedding_renorm(_) -------------------------------------------------------------
void plan_renorm(OpCall& c, bool in_place) {
  c.expect_inputs(2, 2);
  const Tensor &w = c.in[0], &idx = c.in[1];
  c.check(w.dim() == 2, "embedding_renorm_: self must be 2-D, got " + shape_to_string(w.shape));
  c.check(is_floating(compute_dtype(w.dtype)), std::string("embedding_renorm_: self must be floating point, got ") +
                                                   dtype_name(w.dtype));
  indexing::check_index_dtype(c, idx);
  c.f("max_norm");
  c.f("norm_type");
  if (in_place) c.alias(0, w);
  else c.fresh(0, w.dtype, w.shape);
}

double row_norm(const std::vector<double>& row, double p) {
  double acc = 0;
  if (std::isinf(p)) {
    acc = p > 0 ? 0 : std::numeric_limits<double>::infinity();
    for (double x : row) acc = p > 0 ? std::max(acc, std::abs(x)) : std::min(acc, std::abs(x));
    return row.empty() ? 0 : acc;
  }
  if (p == 0) {
    for (double x : row) acc += x != 0;
    return acc;
  }
  for (double x : row) acc += std::pow(std::abs(x), p);
  return std::pow(acc, 1.0 / p);
}

void run_renorm(OpCall& c) {
  const Tensor &w = c.in[0], &y = c.out[0];
  if (!y.same_storage(w) || y.offset != w.offset) copy_into(y, w);
  const double max_norm = c.f("max_norm"), p = c.f("norm_type");
  std::vector<int64_t> ids = indexing::read_indices(c.in[1]);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  const int64_t rows = y.shape[0], cols = y.shape[1];
  dispatch_compute(y.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* d = y.data<T>();
    std::vector<double> row(static_cast<size_t>(cols));
    for (int64_t i : ids) {
      c.check(i >= 0 && i < rows, "embedding_renorm_: index " + std::to_string(i) + " is out of range for " +
                                      std::to_string(rows) + " rows");
      T* r = d + i * y.strides[0];
      for (int64_t j = 0; j < cols; ++j) row[size_t(j)] = double(r[j * y.strides[1]]);
      const double norm = double(T(row_norm(row, p)));
      if (norm > max_norm) {
        const T scale = T(max_norm / (norm + 1e-7));
        for (int64_t j = 0; j < cols; ++j) r[j * y.strides[1]] = T(r[j * y.strides[1]] * scale);
      }
    }
  });
}

}  // namespace

TIR_REGISTER_OPS(
    // _weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor
    {"aten._weight_norm.default", {[](OpCall& c) { plan_weight_norm(c, false); }, run_weight_norm}},
    // _weight_norm_interface(Tensor v, Tensor g, int dim=0) -> (Tensor, Tensor): also the norms
    // (v's rank, 1 except at dim); what torch 1.13's decomposed graphs call for dim 0 / last.
    {"aten._weight_norm_interface.default", {[](OpCall& c) { plan_weight_norm(c, true); }, run_weight_norm}},
    // embedding_renorm(Tensor self, Tensor indices, float max_norm, float norm_type) -> Tensor
    {"aten.embedding_renorm.default", {[](OpCall& c) { plan_renorm(c, false); }, run_renorm}},
    // embedding_renorm_(Tensor(a!) self, Tensor indices, float max_norm, float norm_type) -> Tensor(a!)
    {"aten.embedding_renorm_.default", {[](OpCall& c) { plan_renorm(c, true); }, run_renorm}});

}  // namespace tir
