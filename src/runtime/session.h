// A compiled model: the graph resolved, every op planned, memory laid out in
// one arena. Lifecycle: Session(model) compiles; bind() attaches weights and
// constants; run() executes in node order (any number of times).
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "ir/model.h"
#include "core/tensor.h"
#include "weights/tensor_map.h"

namespace tir {

class PrepareContext;  // ops/op.h
class Graph;           // runtime/graph.h

struct NodeTiming {
  std::string node;
  std::string op_type;
  double ms = 0;
  std::vector<std::string> covers;  // IR nodes fused into this one (their time is included)
  bool folded = false;              // a constant computed once at prepare: not run (ms = 0)
};

// Resource caps checked at compile (Session construction), before any
// allocation or loop: a hostile IR fails there with the node's name instead of
// aborting at run time. 0 means the build's default (see runtime/limits.cpp).
// Defaults: 2 GiB for one tensor and for the arena in 32-bit builds (wasm32),
// the machine's physical memory natively; 2^40 elements of work. Errors name
// the node, output, shape, bytes and the limit.
struct Limits {
  size_t max_tensor_bytes = 0;  // bytes of one materialized value (graph input, weight, constant, node output)
  size_t max_arena_bytes = 0;   // the planned arena; checked again with prepared weight copies after bind
  int64_t max_run_work = 0;     // sum over nodes of their largest input/output element count (views included)
};

struct SessionOptions {
  Limits limits;
  // Keep every intermediate value readable after run() (parity tooling): each
  // value gets its own memory instead of sharing the arena.
  bool keep_intermediates = false;
  // Run the graph in float64 (ir/float64.h: promote_to_float64), a reference for judging a
  // float32 run of the same module: float32 weights, constants and inputs widen exactly.
  bool float64 = false;
  // Fuse batch norm / residual add / relu / clamp into the conv or linear
  // before them (runtime/fusion.cpp). Off when keep_intermediates is on.
  bool fusion = true;
  // Run the out-of-place "rewrite a region of self" ops (index_copy,
  // index_put, scatter, slice_scatter, ...) in self's memory when nothing
  // reads self afterwards (runtime/inplace.cpp). For a graph input, the input
  // slot is then donated: after run() it holds the updated value, which is how
  // a decode step updates its KV cache in O(one token). Off with
  // keep_intermediates.
  bool update_in_place = true;
  // Run the nodes whose inputs are all constants and whose op is
  // constant-foldable (arange, full, elementwise math on constants, ...) once
  // at prepare and keep their outputs as constants (runtime/constant_fold.cpp).
  bool fold_constants = true;
  // Run PyTorch's quantized patterns (a linear reading dequantize(quantize(x)) and a dequantized
  // int8 weight) on integer kernels (runtime/quant_lowering.cpp). Off with keep_intermediates.
  bool lower_quantized = true;
  // Storage of the constant f32 weights that linear / addmm / mm / matmul pack
  // for their gemm: F32, or F16 / BF16 (rounded to nearest even, widened in
  // the kernel, f32 accumulation; half the bytes per decode step). The bound
  // f32 weights stay as given. Anything else: ExecutionError at construction.
  DType weight_dtype = DType::F32;
  // Load-time quantization of float32 linear weights (the package's weightDtype 'int8' / 'int4'):
  // a linear whose weight is a float32 [N, K] weight tensor runs on the integer kernels, its
  // weight quantized at prepare (symmetric: int8 per output channel, or int4 in groups of
  // weight_group_size along K; round half to even) and its input quantized per row at run time
  // (asymmetric int8, choose_qparams' rule per row). Off with keep_intermediates.
  enum class WeightQuantization : uint8_t { None, Int8, Int4 };
  WeightQuantization weight_quantization = WeightQuantization::None;
  int64_t weight_group_size = 32;
  // Packed/folded weights shared with other sessions bound to the same weight
  // memory (a LanguageModel's prefill and decode): one packed copy for both.
  // From make_shared_prepare_cache(weight_dtype) (which then decides the
  // packed dtype); null: a cache of this session's own.
  std::shared_ptr<PrepareContext> shared_prepare;
};

std::shared_ptr<PrepareContext> make_shared_prepare_cache(DType weight_dtype = DType::F32);

// A weight dtype as the package and CLI spell it into `o`: 'float32', 'float16', 'bfloat16'
// (weight_dtype), 'int8', 'int4' or 'int4:G' (weight_quantization, group size G, a multiple of 4).
// False for anything else.
bool parse_weight_dtype(const std::string& s, SessionOptions* o);

// The WebGPU device a plan is for (Session::webgpu_plan); converts from a bare
// max_binding_bytes, as callers passed before float16 existed on the GPU.
struct WebGpuDevice {
  uint64_t max_binding_bytes = uint64_t(128) << 20;  // maxStorageBufferBindingSize
  // shader-f16: the IR's float16 weights (float32 in the engine, exactly) may be
  // held as f16 on the GPU, where every kernel reading them loads through
  // f32(...); without it every GPU value takes 4 bytes per element.
  bool shader_f16 = false;
  WebGpuDevice(uint64_t max_binding = uint64_t(128) << 20, bool f16 = false)  // NOLINT: implicit by design
      : max_binding_bytes(max_binding), shader_f16(f16) {}
};

class Session {
 public:
  // Compiles; throws ExecutionError listing ALL unsupported op types.
  explicit Session(Model model, SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // weights: by original key (state_dict). constants: by original name; they
  // override the IR's own `constants`. Checks dtype/shape of every bound value.
  // Missing values fail at bind with pytorch-ir's message naming the first reader.
  void bind(const TensorMap& weights, const TensorMap& constants = {});

  // Inputs in graph_inputs order. Returns new owned contiguous outputs.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  // run() without the outputs: checks the inputs and copies them into the
  // input slots (allocates nothing); run_slots() then runs the graph.
  void set_inputs(const std::vector<Tensor>& inputs);

  // Zero-copy I/O (what the WASM bindings use per execute): input_slot(i) is
  // the contiguous tensor the graph reads for input i (the IR's shape, compute
  // dtype), written by the caller before run_slots(); it keeps its value
  // across runs (no other value shares its memory) unless an in-place update
  // was planned into it (SessionOptions::update_in_place). output_views() are
  // the graph outputs as views of the session's memory, valid until the next run.
  const Tensor& input_slot(size_t i) const;
  void run_slots();
  const std::vector<Tensor>& output_views() const;

  // Makes input slot `input` hold output `output` of the last run (same shape
  // and compute dtype), for graphs whose outputs feed their next run (decode
  // caches). Free when the output was computed in the input's own memory
  // (update_in_place donated the slot): returns the bytes copied (0 then).
  size_t carry(size_t output, size_t input);

  // Per-node wall time of the last run(); empty unless profiling is on.
  void set_profiling(bool on);
  const std::vector<NodeTiming>& last_profile() const;

  // Weights/buffers written in place by the graph (KV caches): current values,
  // and reset to the bound values.
  std::vector<std::string> mutated_buffers() const;   // original keys
  Tensor buffer_value(const std::string& key) const;
  void reset_buffers();

  // An intermediate value by node output name after run(); requires
  // SessionOptions::keep_intermediates (null otherwise or when unknown).
  const Tensor* value(const std::string& node_output_name) const;

  // The WebGPU program of this session: placement of every node, transfers,
  // GPU buffers and the dispatches with their parameters (JSON, replayed by the
  // npm package's executor; runtime/webgpu_plan.cpp, docs/webgpu.md). After
  // bind(); compile with update_in_place off (fused epilogues run in the GPU
  // producer's store). device: its maxStorageBufferBindingSize (a node binding a
  // larger value stays on WASM) and whether it has shader-f16 (WebGpuDevice).
  std::string webgpu_plan(WebGpuDevice device = {}) const;
  // The same with GPU-resident graph I/O, for callers that keep state on the
  // GPU between runs (a LanguageModel's KV caches): `gpu_inputs` start each run
  // valid on the GPU only (never uploaded; a WASM reader downloads them first),
  // in buffers of their own; `gpu_outputs` end the run on the GPU (not
  // downloaded). The plan's "inputs"/"outputs" give each graph I/O's value.
  std::string webgpu_plan(WebGpuDevice device, const std::vector<size_t>& gpu_inputs,
                          const std::vector<size_t>& gpu_outputs) const;
  // WebGPU placement before bind(), for callers that stream weights to the GPU
  // instead of holding them here: runs webgpu_plan()'s placement pass and
  // returns the keys of the weights the CPU must hold (read by a WASM node or a
  // constant folded at prepare, written in place, or a graph output). bind()
  // then takes the other weights without data (Buffer::data null: "streamed"),
  // prepare() skips the nodes placed on the GPU, and webgpu_plan() marks those
  // weights "streamed" (the caller uploads them). Such a session runs only
  // through its WebGPU plan: run() names the first GPU-only node.
  // gpu_inputs / gpu_outputs: as webgpu_plan() will be given them.
  std::vector<std::string> place_for_webgpu(WebGpuDevice device, const std::vector<size_t>& gpu_inputs = {},
                                            const std::vector<size_t>& gpu_outputs = {});
  // Bytes of the bound weights held in memory, and of those streamed (no data here).
  size_t weight_bytes(bool streamed) const;
  // Runs steps [first, last] of the graph (the executor's WASM parts), with the
  // inputs already in their slots. Not for graphs with data-dependent shapes.
  void run_steps(size_t first, size_t last);

  const Model& model() const;
  // The compiled graph (value ids, use lists, alias classes), for tools and tests.
  const Graph& graph() const;
  size_t arena_bytes() const;
  // Bytes of packed/folded weight copies made at prepare (shared ones included).
  size_t prepared_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tir
