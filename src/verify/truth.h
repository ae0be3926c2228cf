// Fidelity against float64 truth (tools/fixture_truth.py: the same module, weights and inputs
// computed in float64). Per floating output:
//   error(x) = max_i |x_i - truth_i|   (equal infinities count 0; a NaN or a mismatched
//                                        infinity makes it inf)
//   scale    = max_i |truth_i| over finite truth values
//   ok       = error(ours) <= 2 * error(PyTorch float32) + 1e-6 * scale
// so a miss of rtol/atol against PyTorch's float32 outputs that comes only from summation order
// (reassociation) is told apart from an inaccurate kernel. Non-floating outputs are not judged
// here (verify_outputs compares them exactly).
#pragma once
#include <string>
#include <vector>

#include "core/tensor.h"

namespace tir {

struct TruthOutput {
  size_t index = 0;
  bool judged = false;   // false: not a floating output
  double ours = 0;       // our max abs error vs truth
  double torch = 0;      // PyTorch float32's max abs error vs truth
  double scale = 0;      // max |truth|
  double bound = 0;      // 2 * torch + 1e-6 * scale
  bool ok = false;
};

struct TruthReport {
  bool ok = false;
  std::vector<TruthOutput> outputs;
  std::string error_message;  // count/shape mismatch
};

constexpr double kTruthFactor = 2.0;     // ours may be this many times PyTorch's error...
constexpr double kTruthScaleTol = 1e-6;  // ...plus this fraction of the output's scale

// actual: our outputs; expected: PyTorch float32 outputs; truth: float64 outputs.
TruthReport compare_with_truth(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected,
                               const std::vector<Tensor>& truth);
// max |a - t| with the rules above (a and t of the same shape).
double max_error_vs_truth(const Tensor& a, const Tensor& truth);
// max |t_i| over the finite values of t.
double max_abs_finite(const Tensor& t);

// Per-node parity against float64 (`torchir parity --criterion truth64`): one node output as
// computed by ours (native, CPU), by LibTorch on the device under test, by the yardstick
// (LibTorch on CPU at the graph's own dtypes: the "PyTorch float32" of the rule above) and by
// LibTorch in float64 over the same graph. With bound = 2 * error(yardstick) + 1e-6 * scale,
//   ok = error(ours) <= bound and error(device) <= bound
// so a node passes when neither ours nor the device is further from float64 than reassociation
// explains. On CPU the device run is the yardstick, and this is compare_with_truth's rule.
struct NodeTruth {
  bool judged = false;  // false: not floating, or shapes differ (then `note` says why)
  double ours = 0, device = 0, yardstick = 0, scale = 0, bound = 0;
  bool ok = false;
  // Not ok only because the device is outside the bound while ours is within: the device's
  // kernel is less accurate there than the yardstick's (reported, not a divergence of ours).
  bool device_only = false;
  std::string note;
};
NodeTruth judge_node(const Tensor& ours, const Tensor& device, const Tensor& yardstick, const Tensor& truth);
// The CLI's lines: per output ours vs truth, PyTorch vs truth, ratio, verdict. `rtol_failed`: the
// rtol/atol check failed, so say whether that failure is only reassociation.
std::string format_truth_report(const TruthReport& r, bool rtol_failed);

}  // namespace tir
