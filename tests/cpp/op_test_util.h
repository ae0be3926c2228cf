// Single-op test runner and attribute builders shared by the op unit tests.
#pragma once
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ops/op.h"

namespace tir::test {

inline Attr I(int64_t v) { return Attr::of_int(v); }
inline Attr F(double v) { return Attr::of_float(v); }
inline Attr B(bool v) { return Attr::of_bool(v); }
inline Attr S(const std::string& v) { return Attr::of_string(v); }
Attr ints(const std::vector<int64_t>& v);

// Any dtype from double values (row-major).
Tensor tensor_of(DType d, const Shape& shape, const std::vector<double>& v);
// A transposed (non-contiguous) view of a 2-D tensor.
Tensor transposed(const Tensor& t);

struct OpRun {
  OpNode node;
  std::vector<Tensor> out;
};

// Plans and runs one node through the registry; fresh outputs get
// garbage-filled memory (so ops must write every element). `names` are the
// inputs' IR names (placeholder names matter to some ops), `out_shapes` the
// IR's output shapes (for ops that read them).
OpRun run_op(const std::string& op_type, const std::vector<Tensor>& inputs, AttrMap attrs = {},
             size_t num_outputs = 1, const std::vector<std::string>& names = {},
             const std::vector<Shape>& out_shapes = {});

// The message of the exception f throws, or "(no error)".
std::string error_of(const std::function<void()>& f);

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();

inline Tensor tensor_b(const Shape& shape, const std::vector<double>& v) { return tensor_of(DType::Bool, shape, v); }
// Output 0 of a one-output op.
inline Tensor run1(const std::string& op, const std::vector<Tensor>& in, AttrMap attrs = {}) {
  return run_op(op, in, std::move(attrs)).out[0];
}

}  // namespace tir::test
