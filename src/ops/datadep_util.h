// Helpers of the ops whose output sizes depend on the data (nonzero,
// masked_select, where(cond), unique, ...; datadep.cpp, unique.cpp).
//
// Data-dependent sizes as the IR records them: the IR's shapes are static
// (pytorch-ir writes the concrete sizes of the export's example run), so plan()
// takes such a size from the node's output metadata (checking rank and the
// sizes that do not depend on data) and run() checks that the data gives the
// same size, failing with a message naming the node, the output and both sizes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/strided.h"
#include "ops/op.h"

namespace tir {
namespace datadep {

constexpr int64_t kDataDependent = -1;

// The IR's shape of output k (or the runtime's OpCall::run_shapes[k] in a
// run whose data gives other sizes); `expect` gives its rank and the static
// sizes (kDataDependent where the size depends on the data). Marks the call
// data-dependent.
inline Shape recorded_shape(OpCall& call, size_t k, const Shape& expect) {
  call.check(k < call.num_ir_outputs(), "the IR lists " + std::to_string(call.num_ir_outputs()) +
                                            " outputs; output " + std::to_string(k) + " is needed");
  call.data_dependent = true;
  const Shape& meta = k < call.run_shapes.size() ? call.run_shapes[k] : call.node->outputs[k].shape;
  bool ok = meta.size() == expect.size();
  for (size_t d = 0; ok && d < meta.size(); ++d)
    ok = expect[d] == kDataDependent ? meta[d] >= 0 : meta[d] == expect[d];
  if (!ok) {
    std::string want = "[";
    for (size_t d = 0; d < expect.size(); ++d)
      want += (d ? ", " : "") + (expect[d] == kDataDependent ? std::string("n") : std::to_string(expect[d]));
    call.fail("output '" + call.node->outputs[k].name + "' has a data-dependent size; " +
              (k < call.run_shapes.size() ? "the data gives shape " : "the IR records shape ") +
              shape_to_string(meta) + " but the op gives " + want + "]");
  }
  return meta;
}

// Run time: the data gave `actual` for dim `dim` of output k.
inline void check_size(const OpCall& call, size_t k, size_t dim, int64_t actual, const std::string& what) {
  const int64_t recorded = call.out[k].shape[dim];
  if (actual == recorded) return;
  call.fail("data-dependent size: the input has " + std::to_string(actual) + " " + what + " but the IR records " +
            std::to_string(recorded) + " (output '" + call.node->outputs[k].name + "' " +
            shape_to_string(call.out[k].shape) +
            "); the compiled graph fixes the size the export's example input gave");
}

// Element offsets of a view (shape, strides) in row-major order.
inline std::vector<int64_t> rowmajor_offsets(const Shape& shape, const Strides& strides, int64_t base) {
  std::vector<int64_t> off;
  off.reserve(size_t(shape_numel(shape)));
  for_each_row<1>(shape, {strides.data()}, {base}, [&](std::array<int64_t, 1> o, int64_t n, std::array<int64_t, 1> st) {
    for (int64_t k = 0; k < n; ++k) off.push_back(o[0] + k * st[0]);
  });
  return off;
}

}  // namespace datadep
}  // namespace tir
