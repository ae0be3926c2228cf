// The Session's WebGPU entry points (docs/webgpu.md): the plan of a bound session, placement
// before bind (which weights the CPU still reads, so that the others stream to the GPU), and the
// failure of a GPU-placed step run on the CPU. The placement pass and the plan itself are
// runtime/webgpu_plan.cpp.
#include <memory>

#include "runtime/session_impl.h"

namespace tir {

std::string Session::webgpu_plan(WebGpuDevice device) const { return webgpu_plan(device, {}, {}); }

std::string Session::webgpu_plan(WebGpuDevice device, const std::vector<size_t>& gpu_inputs,
                                 const std::vector<size_t>& gpu_outputs) const {
  if (!impl_->bound && !impl_->weights.empty()) throw ExecutionError("webgpu_plan() before bind(): weights are not loaded");
  if (!impl_->prepared) impl_->prepare();
  return impl_->webgpu_plan_json(device, gpu_inputs, gpu_outputs);
}

std::vector<std::string> Session::place_for_webgpu(WebGpuDevice device, const std::vector<size_t>& gpu_inputs,
                                                   const std::vector<size_t>& gpu_outputs) {
  Impl& s = *impl_;
  if (s.bound) throw ExecutionError("place_for_webgpu() after bind(): place first, then bind the weights");
  auto placed = std::make_unique<GpuPlacement>();
  s.webgpu_plan_json(device, gpu_inputs, gpu_outputs, placed.get());
  std::vector<std::string> keys;
  // Every name bind() may find such a weight under (runtime/binder.cpp).
  for (const auto& kv : s.weights) {
    if (!placed->cpu_read_weights.count(kv.second.tensor.buffer.get())) continue;
    keys.push_back(kv.first);
    for (const auto& p : s.model_index.placeholders_of(kv.first)) keys.push_back(p);
    keys.push_back(kv.second.first_placeholder);
  }
  s.placed = std::move(placed);
  return keys;
}

size_t Session::weight_bytes(bool streamed) const {
  size_t n = 0;
  for (const auto& kv : impl_->weights)
    if (kv.second.streamed == streamed) n += kv.second.tensor.buffer->nbytes;
  return n;
}

void Session::Impl::fail_gpu_only(const Step& step) const {
  throw ExecutionError("node '" + step.node->name + "' (" + step.node->op_type +
                       "): placed on the GPU, whose weights were streamed there (not kept in this memory); "
                       "it runs only through the model's WebGPU plan");
}

}  // namespace tir
