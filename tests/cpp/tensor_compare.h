// Element-wise tensor comparison with gtest messages, shared by the unit and
// parity suites (torch-free).
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "core/tensor.h"

namespace tir::test {

// One output: shape, compute dtype, then values (integers exactly, floats
// within atol + rtol * |expected|, NaN equal to NaN, complex as (re, im)
// pairs); `what` names it in the message.
::testing::AssertionResult compare_tensors(const Tensor& expected, const Tensor& actual, double rtol,
                                           double atol, const std::string& what);

}  // namespace tir::test
