// Discovery of whole-model fixtures: every tests/fixtures/models/<model>/<flavor>/model.json,
// with weights.safetensors + io.safetensors beside it or, for large models, in the
// generated-fixtures dir at the same relative path (tools/make_fixtures.sh), and the float64
// truth truth64.safetensors that make_fixtures.sh writes there for every fixture.
#pragma once
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tir::test {

struct ModelFixture {
  std::string id;        // "<model>/<flavor>"
  std::string ir;        // model.json
  std::string weights;   // weights.safetensors ("" when not generated)
  std::string io;        // io.safetensors ("" when not generated)
  std::string truth;     // truth64.safetensors (the path where it belongs, even when missing)
};

std::vector<ModelFixture> model_fixtures();
// GoogleTest prints the id instead of the struct's bytes.
inline void PrintTo(const ModelFixture& f, std::ostream* os) { *os << f.id; }
// Where make_fixtures.sh writes a fixture's float64 truth.
std::string truth_path(const std::string& rel);  // generated dir / rel / truth64.safetensors
// Test-name-safe id.
std::string fixture_test_name(const ModelFixture& f);
// The float64-truth criterion (src/verify/truth.h) for `ours` against `torch_f32` (PyTorch's or
// LibTorch's float32 outputs) and the truth file's outputs. Fails, with the report, when the file
// is missing (naming make_fixtures.sh) or the criterion does not hold. Tests whose rtol = atol =
// 1e-5 comparison fails accept the result when this holds: the difference is then reassociation.
::testing::AssertionResult within_truth(const std::string& truth_file, const std::vector<Tensor>& ours,
                                        const std::vector<Tensor>& torch_f32);

}  // namespace tir::test
