// Shared by the reduction op files: which dims a reduction's `dim` argument
// names, and the resulting output shape (keepdim or not).
#pragma once
#include <string>
#include <vector>

#include "ops/op.h"

namespace tir {

// How an op names its reduced dims.
enum class DimArg {
  List,       // int[1]? dim: null or [] = all dims
  ListOrAll,  // int[1] dim=[] (amax/amin, norm): [] = all dims
  Single,     // int dim (required)
  OptSingle,  // int? dim=None: null = all dims, flattened (argmax)
  All,        // no dim argument: full reduction
};

struct ReducedDims {
  std::vector<bool> rd;  // rd[d]: dim d is reduced
  Shape out_shape;       // kept dims in order (1 for reduced ones when keepdim)
  int64_t count = 1;     // elements per reduced group
};

// Reads attr "dim" as `how` says; `keepdim` applies unless `how` is All.
inline ReducedDims reduced_dims(const OpCall& call, const Shape& shape, DimArg how, bool keepdim) {
  const int64_t nd = int64_t(shape.size());
  ReducedDims r;
  r.rd.assign(size_t(nd), false);
  std::vector<int64_t> dims;
  bool all = false;
  switch (how) {
    case DimArg::List: {
      auto d = call.opt_ints("dim");
      all = !d || d->empty();
      if (d) dims = *d;
      break;
    }
    case DimArg::ListOrAll:
      dims = call.ints("dim", std::vector<int64_t>{});
      all = dims.empty();
      break;
    case DimArg::Single: dims = {call.i("dim")}; break;
    case DimArg::OptSingle:
      all = !call.has("dim");
      if (!all) dims = {call.i("dim")};
      break;
    case DimArg::All: all = true; break;
  }
  if (all) {
    r.rd.assign(size_t(nd), true);
  } else {
    for (int64_t d : dims) {
      const int64_t w = call.wrap_dim(d, nd);
      if (nd == 0) continue;
      call.check(!r.rd[size_t(w)], "dim " + std::to_string(w) + " appears multiple times in the list of dims");
      r.rd[size_t(w)] = true;
    }
  }
  if (how == DimArg::All) keepdim = false;
  for (int64_t d = 0; d < nd; ++d) {
    if (r.rd[size_t(d)]) {
      r.count *= shape[size_t(d)];
      if (keepdim) r.out_shape.push_back(1);
    } else {
      r.out_shape.push_back(shape[size_t(d)]);
    }
  }
  return r;
}

}  // namespace tir
