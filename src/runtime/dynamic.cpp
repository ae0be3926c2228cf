// Data-dependent sizes at run time. The IR's shapes are static: a
// data-dependent op (nonzero, masked_select, unique, a bool-mask index, ...)
// is planned with the size its export example gave, and so is everything
// computed from it. Compile marks those steps (Step::dynamic: the
// data-dependent ones and every step reading, directly or not, one of their
// outputs; fusion leaves them alone). A run walks the steps as planned until a
// data-dependent step's data gives other sizes (OpDef::infer_shapes); from
// there, each dynamic step that reads a re-sized value, or whose own sizes
// differ, is planned again on the actual inputs (OpCall::run_shapes carries
// the data's sizes), gets memory of its own outside the static arena
// (checked against the session's limits like any planned value), is
// prepared and run. Steps that read no re-sized value run on the static plan,
// whose memory stays valid (their values' lifetimes are unchanged). Graph
// outputs take the re-sized values for that run. Graphs without
// data-dependent ops never come here: their run path is unchanged.
#include <chrono>
#include <unordered_map>

#include "runtime/memory_plan.h"
#include "runtime/session_impl.h"

namespace tir {

void Session::Impl::mark_dynamic_region() {
  std::vector<bool> resized(graph.num_values(), false);  // values whose size may change per run
  for (size_t s = 0; s < steps.size(); ++s) {
    Step& step = *steps[s];
    bool dyn = step.call.data_dependent && step.def->infer_shapes;
    for (ValueId id : graph.inputs(s)) dyn = dyn || (id != kNoValue && resized[size_t(id)]);
    if (!dyn) continue;
    step.dynamic = has_dynamic = true;
    for (ValueId id : graph.outputs(s)) resized[size_t(id)] = true;
  }
}

void Session::Impl::run_step(OpCall& call, const Step& step) {
  if (!profiling) {
    step.def->run(call);
    return;
  }
  const auto t0 = std::chrono::steady_clock::now();
  step.def->run(call);
  const auto t1 = std::chrono::steady_clock::now();
  profile.push_back({step.node->name, step.node->op_type, std::chrono::duration<double, std::milli>(t1 - t0).count(),
                     call.epilogue.covers});
}

void Session::Impl::run_dynamic() {
  outputs = static_outputs;
  run_values.clear();
  std::unordered_map<ValueId, Tensor> resized;  // this run's re-planned values
  for (size_t s = 0; s < steps.size(); ++s) {
    Step& step = *steps[s];
    const std::vector<ValueId>& ins = graph.inputs(s);
    running = step.node;
    bool replan = false, inputs_resized = false;
    std::vector<Shape> shapes;  // the data's sizes when the inputs are the planned ones
    if (step.dynamic) {
      for (size_t i = 0; i < ins.size() && !inputs_resized; ++i) inputs_resized = resized.count(ins[i]) > 0;
      replan = inputs_resized;
      if (!replan && step.call.data_dependent) {
        shapes = step.def->infer_shapes(step.call);
        for (size_t k = 0; k < shapes.size() && k < step.call.out.size() && !replan; ++k)
          replan = shapes[k] != step.call.out[k].shape;
      }
    }
    if (!replan) {
      if (step.def->run && !step.covered && !step.folded) run_step(step.call, step);
      continue;
    }
    OpCall call(*step.node);
    for (size_t i = 0; i < ins.size(); ++i) {
      auto it = resized.find(ins[i]);
      call.in.push_back(it != resized.end() ? it->second : step.call.in[i]);
    }
    call.const_in = step.call.const_in;
    call.check_fresh = step.call.check_fresh;
    if (step.call.data_dependent) call.run_shapes = inputs_resized ? step.def->infer_shapes(call) : shapes;
    plan_naming_node(*step.def, call, *step.node);
    for (size_t k = 0; k < call.out.size() && k < step.node->outputs.size(); ++k) {
      const TensorMeta& meta = step.node->outputs[k];
      if (!call.out[k].defined() || call.out[k].dtype != compute_dtype(meta.dtype))
        throw ExecutionError("node '" + step.node->name + "' (" + step.node->op_type + "): output " +
                             std::to_string(k) + " re-planned for this run's sizes is not a " + dtype_name(meta.dtype) +
                             " tensor");
    }
    call.own_unplanned_memory();  // memory of its own (outputs, workspace) outside the static arena
    if (step.def->prepare) {
      call.prepare_ctx = derived_cache.get();
      step.def->prepare(call);
      call.prepare_ctx = nullptr;
    }
    if (step.def->run) run_step(call, step);
    for (size_t k = 0; k < call.out.size() && k < graph.outputs(s).size(); ++k)
      resized[graph.outputs(s)[k]] = call.out[k];
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    auto it = resized.find(graph.graph_outputs()[k]);
    if (it != resized.end()) outputs[k] = it->second;
  }
  if (options.keep_intermediates)
    for (const auto& kv : resized) run_values[graph.value(kv.first).name] = kv.second;
}

}  // namespace tir
