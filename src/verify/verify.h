// Output comparison with pytorch-ir's verify_ir semantics (docs/spec/IR_FORMAT.md):
// shapes must match exactly, values compared as float with torch.allclose
// (|a-e| <= atol + rtol*|e|, NaN never close).
#pragma once
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tir {

struct OutputReport {
  size_t index = 0;
  Shape shape;          // actual output shape
  bool is_close = false;
  double max_diff = 0;  // inf on shape mismatch
  double mean_diff = 0;
};

struct VerifyReport {
  bool is_valid = false;
  double max_diff = 0;   // max over outputs
  double mean_diff = 0;  // max of per-output means
  size_t num_outputs = 0;
  std::vector<OutputReport> outputs;
  std::string error_message;  // empty when valid
};

VerifyReport verify_outputs(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected,
                            double rtol = 1e-5, double atol = 1e-5);
// Human-readable report (CLI), and the same fields as JSON.
std::string format_report(const VerifyReport& r);
std::string report_to_json(const VerifyReport& r);

}  // namespace tir
