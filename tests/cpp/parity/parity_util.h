// Parity harness: runs the engine (tir::Session) and the LibTorch reference
// backend on the same IR and inputs and compares the outputs. Free of LibTorch
// includes (the reference is reached through torch_backend/reference.h).
#pragma once
#include <gtest/gtest.h>

#include <cmath>  // NAN, INFINITY for explicit test values
#include <cstdint>
#include <string>
#include <vector>

#include "ir/model.h"
#include "core/tensor.h"
#include "weights/tensor_map.h"
#include "../tensor_compare.h"

namespace tir {

struct ParityInput {
  tir::DType dtype = tir::DType::F32;
  tir::Shape shape;
  double lo = -2.0, hi = 2.0;  // uniform random range; ints drawn in [lo, hi); bool 50/50
  bool transposed = false;     // fed through aten.transpose.int(dim0=-2, dim1=-1) so the op sees a
                               // non-contiguous view (shape given is the view's shape)
  bool as_weight = false;      // bound as weight (placeholder p_w<i>) instead of graph input
  std::vector<double> values;  // explicit values (row-major) instead of random
};

// Builds a one-node IR (plus transpose nodes) for op_type with attrs (JSON object text), runs
// LibTorch first (its outputs give the IR's output metas), then tir::Session; compares every
// output: same shape and dtype, allclose(rtol, atol) for floats (NaN==NaN positions must match),
// exact for ints/bool. f16/bf16 outputs compare against the engine's f32 compute dtype.
::testing::AssertionResult node_parity(const std::string& op_type, const std::vector<ParityInput>& inputs,
                                       const std::string& attrs_json = "{}", double rtol = 1e-5,
                                       double atol = 1e-5, uint64_t seed = 1);

// Whole model: runs Session and ReferenceRunner on the same inputs and compares outputs. With
// `truth` (the float64 outputs for these inputs), an output that misses rtol/atol passes when ours
// is as close to truth as LibTorch's (src/verify/truth.h: reassociation on large values).
::testing::AssertionResult model_parity(const tir::Model& model, const tir::TensorMap& weights,
                                        const tir::TensorMap& constants, const std::vector<tir::Tensor>& inputs,
                                        double rtol = 1e-5, double atol = 1e-5,
                                        const std::vector<tir::Tensor>* truth = nullptr);

namespace parity {

// The flat weight list of aten.{lstm,gru,rnn_*}.{input,data}: per layer and direction
// w_ih [G*H, in], w_hh [G*H, O], then b_ih, b_hh [G*H] with biases, then w_hr [P, H] with a
// projection (O = P or H; a layer's input is I, or D*O above the first). Appends them to `ins`
// and returns the attrs' `_tensor_list_sizes` value: [2, n] for LSTM (h and c), [n] otherwise.
std::string append_rnn_weights(std::vector<ParityInput>& ins, bool lstm, int64_t G, int64_t I, int64_t H,
                               int64_t P, int64_t layers, bool bidir, bool bias, tir::DType dt);

// ParityInput builders shared by the op parity suites.
ParityInput in(Shape s, DType d = DType::F32, double lo = -2, double hi = 2);  // random graph input
ParityInput tr(Shape s, DType d = DType::F32, double lo = -2, double hi = 2);  // non-contiguous (transposed) view
ParityInput wt(Shape s, double lo = -2, double hi = 2);                          // bound as a weight

// The tensor a ParityInput describes, in its base (un-transposed) layout.
Tensor make_input(const ParityInput& spec, uint64_t seed);
// One output: shape, compute dtype, then values (tests/cpp/tensor_compare.h).
using test::compare_tensors;
}  // namespace parity

}  // namespace tir

// Usable from tests at global scope without qualification.
using tir::ParityInput;
using tir::node_parity;
using tir::model_parity;
