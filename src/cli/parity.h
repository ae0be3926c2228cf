// Native-vs-LibTorch comparison for the CLI (`verify --backend libtorch`, `parity`).
// Without LibTorch these report that the backend is not built.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "ir/model.h"
#include "runtime/session.h"
#include "core/tensor.h"
#include "weights/tensor_map.h"

namespace tir::cli {

struct ParityOptions {
  double rtol = 1e-4;
  double atol = 1e-4;
  std::string device = "cpu";
  Limits limits;  // for the native session
};

std::vector<Tensor> run_reference(const Model& model, const TensorMap& weights, const TensorMap& constants,
                                  const std::vector<Tensor>& inputs, const std::string& device);
// Runs both backends, prints per-node max differences, names the first node
// beyond tolerance. Returns the exit code (0: no divergence).
int run_parity(const Model& model, const TensorMap& weights, const TensorMap& constants,
               const std::vector<Tensor>& inputs, const ParityOptions& options, std::ostream& out);

}  // namespace tir::cli
