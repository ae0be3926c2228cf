// LibTorch reference backend (native only). Executes IR nodes through the c10
// dispatcher (aten::<op>.<overload>), rebuilding each call's arguments from the
// node's tensor inputs + attrs + schema defaults, like pytorch-ir's executor.
// This header is free of LibTorch includes so callers compile fast.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ir/model.h"
#include "core/tensor.h"
#include "weights/tensor_map.h"

namespace tir {

class ReferenceRunner {
 public:
  // device: "cpu" or "cuda" (when LibTorch has CUDA; on CUDA, TF32 and reduced-precision
  // cuBLAS reductions are switched off first: see device_settings). Weights by original key;
  // constants by original name override the IR's `constants`. float64: every floating tensor
  // (weights, constants, inputs) is widened to float64 (complex to complex128), and so is every
  // floating dtype argument (to_copy, zeros, arange...): the same graph computed in float64,
  // the per-node truth of `torchir parity --criterion truth64`.
  ReferenceRunner(const Model& model, const TensorMap& weights, const TensorMap& constants,
                  const std::string& device = "cpu", bool float64 = false);
  ~ReferenceRunner();
  // Inputs in graph_inputs order; returns owned contiguous CPU outputs.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  // When kept, every node output after run(), by output name (CPU copies).
  void set_keep_intermediates(bool on);
  const Tensor* value(const std::string& name) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One node in isolation: `inputs` are its tensor inputs in IR order.
std::vector<Tensor> run_node_reference(const OpNode& node, const std::vector<Tensor>& inputs,
                                       const std::string& device = "cpu");

// Whether this LibTorch can run op_type (getitem, the RoPE higher-order ops, or an
// aten op it registers), so tests can skip ops newer than it (SDPA on 1.13).
bool reference_supports(const std::string& op_type);

// "1.13.1", "2.14.1", ...
std::string libtorch_version();

// Empty when LibTorch can run on `device` ("cpu", "cuda", "cuda:1"); else why not, starting
// "CUDA is not available to LibTorch <version>" for a CUDA device it cannot use. Checks
// torch::cuda::is_available() (a CPU-only LibTorch, no driver or no visible GPU) and the index.
std::string device_unavailable_reason(const std::string& device);

// One line on the numerics settings that matter on `device`, after ReferenceRunner set them:
// on CUDA "TF32 off (cuBLAS allow_tf32=0, cuDNN allow_tf32=0), ..."; on CPU "cpu".
std::string device_settings(const std::string& device);

}  // namespace tir
