// Native-vs-LibTorch comparison for the CLI (`verify --backend libtorch`, `parity`).
// Without LibTorch these report that the backend is not built.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "ir/model.h"
#include "runtime/session.h"
#include "core/tensor.h"
#include "weights/tensor_map.h"

namespace tir::cli {

struct ParityOptions {
  double rtol = 1e-4;
  double atol = 1e-4;
  std::string device = "cpu";
  // "rtol": each node output within rtol/atol of LibTorch on `device`. "truth64": LibTorch also
  // runs the graph on CPU at its own dtypes (the yardstick) and in float64, and a floating node
  // output passes when ours and the device's are both within 2x the yardstick's error vs float64
  // + 1e-6 x scale (verify/truth.h judge_node); other outputs use rtol/atol. Empty: truth64 on a
  // non-CPU device, rtol on cpu.
  std::string criterion;
  Limits limits;  // for the native session
};

// A device LibTorch cannot use (`--device cuda` without CUDA): main exits kExitNoDevice.
struct DeviceUnavailableError : Error {
  using Error::Error;
  const char* kind() const override { return "DeviceUnavailableError"; }
};
constexpr int kExitNoDevice = 3;
// Throws DeviceUnavailableError when the reference backend cannot run on `device` (or an
// Error when this torchir has no LibTorch backend and `device` is not "cpu"). Call it before
// loading anything.
void require_device(const std::string& device);

// The criterion `o` asks for ("rtol" or "truth64"; empty: by device); UsageError otherwise.
std::string parity_criterion(const ParityOptions& o);

std::vector<Tensor> run_reference(const Model& model, const TensorMap& weights, const TensorMap& constants,
                                  const std::vector<Tensor>& inputs, const std::string& device);
// Runs both backends (and for truth64 the yardstick and float64 runs), prints one line per node
// output, names the first divergent node. Returns the exit code (0: no divergence).
int run_parity(const Model& model, const TensorMap& weights, const TensorMap& constants,
               const std::vector<Tensor>& inputs, const ParityOptions& options, std::ostream& out);

}  // namespace tir::cli
