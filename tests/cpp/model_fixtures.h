// Discovery of whole-model fixtures: every tests/fixtures/models/<model>/<flavor>/model.json,
// with weights.safetensors + io.safetensors beside it or, for large models, in the
// generated-fixtures dir at the same relative path (tools/make_fixtures.sh).
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace tir::test {

struct ModelFixture {
  std::string id;        // "<model>/<flavor>"
  std::string ir;        // model.json
  std::string weights;   // weights.safetensors ("" when not generated)
  std::string io;        // io.safetensors ("" when not generated)
};

std::vector<ModelFixture> model_fixtures();
// GoogleTest prints the id instead of the struct's bytes.
inline void PrintTo(const ModelFixture& f, std::ostream* os) { *os << f.id; }
// Test-name-safe id.
std::string fixture_test_name(const ModelFixture& f);

}  // namespace tir::test
