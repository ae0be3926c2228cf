// Internal state of a compiled Session (shared by session.cpp and binder.cpp).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ops/op.h"
#include "runtime/graph.h"
#include "runtime/session.h"

namespace tir {

struct Step {
  const OpNode* node = nullptr;
  const OpDef* def = nullptr;
  OpCall call;
  bool covered = false;  // fused into an earlier step's epilogue: skipped at run time
  // A data-dependent op (OpCall::data_dependent) or a reader of one's output,
  // directly or not: re-planned at run time when the data gives other sizes
  // than the IR records (runtime/dynamic.cpp). Never fused.
  bool dynamic = false;
  // All inputs constant and the op constant-foldable: run once at prepare,
  // its outputs held as constants, skipped at run time (runtime/constant_fold.cpp).
  bool folded = false;
  // Placed on the GPU while some of its weights live only there (streamed,
  // Session::place_for_webgpu): not prepared for WASM, and never run there.
  bool gpu_only = false;
  // Switched to its op's integer form by the quantization lowering (runtime/quant_lowering.cpp):
  // runs on WASM / the CPU only.
  bool lowered = false;
  // A quantization node whose work a lowered step took over (covered too): nothing reads its
  // outputs, so the memory plan gives them no arena space.
  bool taken_over = false;
  explicit Step(const OpNode& n) : node(&n), call(n) {}
};

// A weight/buffer/constant as the graph sees it (one per original key; every
// placeholder of that key shares it, so tied weights share memory).
struct WeightSlot {
  std::string key;                   // original state_dict key
  std::string first_placeholder;     // as written in the first node reading it
  std::string first_reader;          // that node's name (for the missing-value message)
  DType ir_dtype = DType::F32;       // as declared in the IR
  Tensor tensor;                     // compute dtype, contiguous; data set by bind()
  bool mutated = false;              // written in place by some node (KV cache)
  Tensor bound_value;                // what bind() supplied, for reset_buffers()
  bool streamed = false;             // bound without data: its bytes go to the GPU only
  std::string streamed_source;       // ... under this name of the caller's (the source tensor's label)
};

// The WebGPU placement computed before bind (Session::place_for_webgpu).
struct GpuPlacement {
  std::vector<char> on_gpu;                     // per step
  std::unordered_set<const Buffer*> cpu_read_weights;  // weights a WASM node, a fold or an output reads
};

struct Session::Impl {
  Model model;
  ModelIndex model_index;  // name lookups into `model` (hash maps: O(1) per node input)
  Graph graph;             // value ids, producers, use lists, alias classes; its tensors are the planned values
  SessionOptions options;
  Limits limits;                                        // options.limits, defaults filled in
  int64_t run_work = 0;                                 // elements one run touches (max_run_work)
  std::vector<Tensor> inputs;                           // graph input slots
  std::vector<std::unique_ptr<Step>> steps;
  std::map<std::string, WeightSlot> weights;            // by original key
  std::unordered_map<const Buffer*, WeightSlot*> weight_by_buffer;  // slot of a weight's buffer
  std::vector<Tensor> outputs;                          // graph outputs (views of values)
  std::vector<Tensor> static_outputs;                   // ... as planned (outputs differ after a dynamic run)
  bool has_dynamic = false;                             // some step is dynamic
  std::unordered_map<std::string, Tensor> run_values;   // values re-sized by the last run (keep_intermediates)
  std::unique_ptr<uint8_t[]> arena_storage;
  size_t arena_size = 0;
  bool bound = false;
  bool prepared = false;  // prepare() ran since the last bind
  bool profiling = false;
  const OpNode* running = nullptr;  // the node whose run is in progress, to name it in errors
  std::vector<NodeTiming> profile;
  size_t folded_bytes = 0;  // memory of the folded constants (outside the arena)
  std::shared_ptr<PrepareContext> derived_cache;  // packed/folded weights, rebuilt at bind unless shared
  std::unique_ptr<GpuPlacement> placed;           // from place_for_webgpu(), else null
  bool has_streamed = false;                      // some weight slot is streamed (bound without data)

  void compile();
  Tensor resolve_input(size_t step, const OpNode& node, size_t index);
  Tensor& weight_tensor(const std::string& placeholder, const OpNode& reader);
  void check_outputs(const Step& step) const;
  void check_declared_limits();
  void check_step_limits(const Step& step);
  void mark_mutations(const Step& step);
  void mark_constant_inputs();
  void fold_constants();
  void run_folded(Step& step);
  void lower_quantized();
  void quantize_float_linears();
  void fuse_epilogues();
  void prepare_bn_affine(FusedEpilogue& e);
  void update_in_place();
  void plan_arena();
  void mark_dynamic_region();
  void run_dynamic();
  void run_step(OpCall& call, const Step& step);
  void bind(const TensorMap& weights, const TensorMap& constants);
  void prepare();
  // runtime/webgpu_plan.cpp; `placement`, when given, gets the steps' devices and the CPU-read weights.
  std::string webgpu_plan_json(const WebGpuDevice& device, const std::vector<size_t>& gpu_inputs,
                               const std::vector<size_t>& gpu_outputs, GpuPlacement* placement = nullptr);
  // A streamed weight's node on WASM (or a whole run) would read no data: the error naming it.
  [[noreturn]] void fail_gpu_only(const Step& step) const;
  // A step placed on the GPU before bind that the plan puts on WASM after all (an int64
  // constant known only after prepare): prepared now, or an error when a weight it reads was streamed.
  void prepare_after_placement(Step& step);
  void prepare_step(Step& step);  // the op's prepare(), once weights are bound
};

// def.plan(call) for `node`; an error that does not name a node yet (a checked
// size product, out of memory) is rethrown naming this one.
void plan_naming_node(const OpDef& def, OpCall& call, const OpNode& node);
// Rethrows e, prefixed with "node '<name>' (<op>): " unless it names a node already.
[[noreturn]] void rethrow_naming_node(const ExecutionError& e, const OpNode& node);

// True for ATen in-place ops ("aten.add_.Tensor", "aten.index_copy_.default").
bool is_inplace_op(const std::string& op_type);

}  // namespace tir
