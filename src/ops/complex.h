// Complex tensors in ops that are otherwise real: an op whose real definition
// lives elsewhere (abs in elementwise_unary.cpp, mul in elementwise_binary.cpp)
// registers complex_or(real_def, complex_xxx()) so complex inputs reach the
// definition here and every other input the real one.
#pragma once
#include "ops/op.h"

namespace tir {

// Picks `cplx` at plan time when any tensor input is complex, else `real`.
OpDef complex_or(OpDef real, OpDef cplx);

// abs of complex: |z| (hypot), complex64 -> float32, complex128 -> float64.
OpDef complex_abs();
// mul.Tensor with a complex operand: complex * complex or complex * real.
OpDef complex_mul();

}  // namespace tir
