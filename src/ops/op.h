// The op interface. Every op is defined once (one file per op family in
// src/ops) by up to three functions, an op's life being plan -> prepare -> run:
//   plan(call): runs at compile time. Reads input metadata (shape/dtype/strides;
//     no data yet), checks arguments, and sets every output either to a fresh
//     tensor (call.fresh) or to a view of an input (call.alias). May stash parsed
//     attributes in call.state for run().
//   prepare(call): optional; runs once after the weights are bound (and again
//     after a re-bind). Sees weight data: packs constant operands (through
//     call.prepare_ctx, which shares one packed copy between tied weights),
//     folds what the fusion pass gave the op (call.epilogue), picks a kernel.
//   run(call): runs at execute time with data; allocates nothing it can
//     allocate in prepare. Null for pure view ops.
// Ops register themselves with TIR_REGISTER_OPS in their own file, so adding an
// op touches one op file and a test.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/attr.h"
#include "core/errors.h"
#include "ir/model.h"
#include "core/tensor.h"
#include "kernels/elementwise.h"

namespace tir {

// Work of later IR nodes that the runtime's fusion pass (runtime/fusion.cpp)
// hands to an op that accepts it (OpTraits::epilogue == Producer), applied to the
// op's output in this order: batch norm (eval; folded into the weights at
// prepare), + residual, then the activation. The covered nodes are skipped at
// run time and their outputs alias this op's output.
struct FusedEpilogue {
  // Unary: a smooth activation (gelu, silu, sigmoid, tanh, hardswish, ...; `unary`) that the
  // kernels do not apply in their stores on the CPU: apply_unary_activation runs it over the
  // finished output with the op's own elementwise kernel, so the bits are the unfused ones.
  enum class Act : uint8_t { None, Relu, Clamp, Unary };
  Act act = Act::None;
  double lo = 0, hi = 0;             // Clamp bounds (relu6/hardtanh/clamp)
  UnaryOp unary = UnaryOp::Relu;     // Act::Unary's op (float32, no parameters)
  Tensor residual;                   // added before the activation (undefined: none)
  bool has_bn = false;               // y = (y - mean) / sqrt(var + eps) * weight + bias
  Tensor bn_weight, bn_bias, bn_mean, bn_var;  // weight/bias may be undefined (1 / 0)
  double bn_eps = 1e-5;
  // [2, C] f32: the batch norm as y * scale[c] + shift[c] (scale, then shift), made by the
  // fusion pass and filled at prepare from the params (fill_batch_norm_affine); what
  // apply_epilogue and the GPU kernels read.
  Tensor bn_affine;
  std::vector<std::string> covers;   // the fused IR nodes, in order
  bool empty() const { return covers.empty(); }
};

// What the quantization lowering pass (runtime/quant_lowering.cpp) hands an op's quantized form
// (OpTraits::quantized_form): the op quantizes its float input itself, per tensor, with static
// parameters or ones chosen from the data as quantized_decomposed.choose_qparams.tensor does, and
// in[1] is the integer weight [N, K] with per-output-channel (or per-tensor) parameters.
struct QuantizedOperands {
  bool dynamic = false;                  // activation parameters chosen per run
  double scale = 1;                      // static activation parameters
  int64_t zero_point = 0;
  int64_t qmin = -128, qmax = 127;       // the activation's quantized range and dtype
  DType qdtype = DType::I8;
  double eps = 0;                        // dynamic: choose_qparams' eps
  bool weight_per_channel = true;        // else per tensor
  Tensor weight_scale;                   // constant [N] (or one value); undefined: weight_scale_value
  Tensor weight_zero_point;              // constant [N] (or one value); undefined: weight_zero_point_value
  double weight_scale_value = 1;
  int64_t weight_zero_point_value = 0;
  std::vector<std::string> covers;       // the quantization nodes it takes over, in order
  int64_t weight_qmin = -128, weight_qmax = 127;  // the weight dequantize's declared range
  // Group-wise weights (torchao's 8da4w): > 0 when weight_scale / weight_zero_point hold one value
  // per output channel and group of this many k ([N, K / group]). Then in[0] is the activation
  // already quantized per row (its torchao quantize_affine ran), with its float32 scales and
  // integer zero points as inputs activation_scale_input / activation_zero_point_input (-1: none).
  int64_t weight_group = 0;
  int activation_scale_input = -1, activation_zero_point_input = -1;
  // Load-time quantization (SessionOptions::weight_quantization): in[1] is the float32 weight,
  // quantized symmetrically at prepare (per output channel, or per weight_group), and the float
  // activation is quantized per row at run (asymmetric, choose_qparams.tensor's rule per row).
  bool weight_from_float = false;
  bool activation_per_row = false;
};

// What prepare() may ask of the runtime.
class PrepareContext {
 public:
  virtual ~PrepareContext() = default;
  // One derived copy of a constant tensor per (tensor view, layout): tied
  // weights share it. `make` fills the vector the first time.
  virtual std::shared_ptr<const std::vector<float>> derived(
      const Tensor& source, const std::string& layout, const std::function<void(std::vector<float>&)>& make) = 0;
  // The same for copies held as uint16 halves (f16/bf16 packed weights).
  virtual std::shared_ptr<const std::vector<uint16_t>> derived_half(
      const Tensor& source, const std::string& layout, const std::function<void(std::vector<uint16_t>&)>& make) = 0;
  // How gemm ops store a constant f32 weight they pack (SessionOptions::
  // weight_dtype): F32, or F16 / BF16 halves widened in the kernel.
  virtual DType packed_weight_dtype() const { return DType::F32; }
  // Bytes of all derived copies held.
  virtual size_t derived_bytes() const { return 0; }
};

class OpCall {
 public:
  explicit OpCall(const OpNode& n) : node(&n) {}

  const OpNode* node;
  std::vector<Tensor> in;    // resolved tensor inputs, IR order
  std::vector<Tensor> out;   // one per IR output
  std::shared_ptr<void> state;
  // Set by the runtime before prepare(): input i is a bound weight/constant
  // that no node writes (safe to pack or fold once).
  std::vector<bool> const_in;
  PrepareContext* prepare_ctx = nullptr;  // during prepare() only
  FusedEpilogue epilogue;                 // set by the fusion pass (compile time)
  // Set by the quantization lowering pass before a quantized form's plan (compile time).
  std::shared_ptr<const QuantizedOperands> quantized;
  // Set by the runtime from OpTraits::rewrites_self: out[0] is in[0] with a
  // region rewritten (index_copy, index_put, scatter, ... in their
  // out-of-place forms). When nothing reads in[0] afterwards, the runtime may
  // plan out[0] in in[0]'s memory (runtime/inplace.cpp); run() then skips
  // copying self.
  bool rewrites_self = false;
  // Set by plan(): an output's size depends on the input data (nonzero,
  // masked_select, unique, a bool-mask index, ...). plan() sizes it from the
  // IR's recorded shape, or from run_shapes when the runtime gives them; the
  // op's OpDef::infer_shapes computes the actual shapes from the data.
  bool data_dependent = false;
  // Set by the runtime before plan() in a run whose data gives other sizes
  // than the IR records (runtime/dynamic.cpp): the shapes infer_shapes found.
  std::vector<Shape> run_shapes;
  // Set by the runtime before plan(): called by fresh() with the output's
  // "node 'n' (op) output 'name'" description, shape and dtype before the value
  // is made, so a size past the session's limits fails with its message.
  std::function<void(const std::string& what, const Shape& shape, DType dtype)> check_fresh;
  // Scratch memory run() uses (the op's workspace), declared by plan() with
  // add_workspace: the runtime places it in the arena for this step alone, so
  // the memory plan and max_arena_bytes count it and run() allocates nothing.
  std::vector<Tensor> workspace;

  bool is_constant(size_t i) const { return i < const_in.size() && const_in[i]; }

  // --- attributes (absent or null -> default; absent without default -> error) ---
  const Attr* attr(const std::string& name) const;  // null when absent or JSON null
  bool has(const std::string& name) const { return attr(name) != nullptr; }
  int64_t i(const std::string& name, std::optional<int64_t> def = std::nullopt) const;
  double f(const std::string& name, std::optional<double> def = std::nullopt) const;
  bool b(const std::string& name, std::optional<bool> def = std::nullopt) const;
  std::string str(const std::string& name, std::optional<std::string> def = std::nullopt) const;
  // int[] argument; a single int expands to `expand` copies (`int[2] padding=0`).
  std::vector<int64_t> ints(const std::string& name,
                            std::optional<std::vector<int64_t>> def = std::nullopt,
                            size_t expand = 1) const;
  std::optional<std::vector<int64_t>> opt_ints(const std::string& name) const;
  std::optional<DType> dtype(const std::string& name) const;
  Scalar scalar(const std::string& name, std::optional<Scalar> def = std::nullopt) const;
  std::optional<Scalar> opt_scalar(const std::string& name) const;
  // attrs._tensor_list_sizes / _tensor_list_none_masks
  std::vector<int64_t> tensor_list_sizes() const;
  std::vector<std::vector<bool>> tensor_list_none_masks() const;

  // --- checks; messages name the node and op ---
  [[noreturn]] void fail(const std::string& msg) const;
  void check(bool cond, const std::string& msg) const { if (!cond) fail(msg); }
  // A literal message: no std::string is built unless the check fails (run paths allocate nothing).
  void check(bool cond, const char* msg) const { if (!cond) fail(msg); }
  void expect_inputs(size_t min, size_t max) const;
  // dim in [-ndim, ndim) -> [0, ndim); `ndim` may be 0 (then -1/0 allowed, as torch)
  int64_t wrap_dim(int64_t dim, int64_t ndim) const;
  // For a dim that indexes the shape (split, chunk, narrow, unbind, unflatten,
  // ...): as wrap_dim, but a 0-d tensor has no such dim (torch's "Dimension
  // specified as 0 but tensor has no dimensions"); `op` names the op.
  int64_t wrap_sized_dim(int64_t dim, int64_t ndim, const std::string& op) const;

  // --- plan helpers ---
  Tensor& fresh(size_t idx, DType dtype, const Shape& shape);
  // A workspace tensor (contiguous) for run(); returns its index in `workspace`.
  size_t add_workspace(DType dtype, const Shape& shape);
  // Gives each output and workspace tensor that has no memory yet bytes of its
  // own (zeroed): for a call run outside a session's arena (a dynamic re-plan,
  // op tests).
  void own_unplanned_memory();
  void alias(size_t idx, const Tensor& view) { ensure_out(idx); out[idx] = view; }
  size_t num_ir_outputs() const { return node->outputs.size(); }

  template <typename T> T& state_as() const { return *static_cast<T*>(state.get()); }

 private:
  void ensure_out(size_t idx);
};

// An op's part in a fused epilogue (runtime/fusion.cpp). A Producer applies
// call.epilogue to its f32 output; the other roles are the nodes a producer
// may take over after it, in this order: BatchNorm (eval), Residual (an add),
// Activation.
enum class EpilogueRole : uint8_t { None, Producer, BatchNorm, Residual, Activation };

// What a planned BatchNorm / Residual / Activation call adds to a producer's
// epilogue, read by the op's own code from its own planned state (so its
// attribute defaults live in one place).
struct EpiloguePart {
  FusedEpilogue::Act act = FusedEpilogue::Act::None;  // Activation
  double lo = 0, hi = 0;                              // Act::Clamp bounds
  UnaryOp unary = UnaryOp::Relu;                      // Act::Unary's op
  double bn_eps = 1e-5;                               // BatchNorm
};

struct OpDef;
struct GpuLowering;

// A quantization op's part in the quantization lowering (runtime/quant_lowering.cpp).
enum class QuantRole : uint8_t { None, Quantize, Dequantize, ChooseQparams };

// What a planned quantize / dequantize / choose_qparams call does, read from its own planned
// state by its op file (OpTraits::describe_quant).
struct QuantDesc {
  enum class Granularity : uint8_t { PerTensor, PerChannel, Other };
  Granularity granularity = Granularity::Other;
  int64_t axis = 0;                 // PerChannel
  bool static_params = false;       // scale / zero point are Python scalars (attrs) ...
  double scale = 1;
  int64_t zero_point = 0;
  int scale_input = -1;             // ... else tensor inputs (-1: none)
  int zero_point_input = -1;
  int64_t qmin = 0, qmax = 0;
  DType qdtype = DType::I8;
  bool rounds_then_adds = true;     // Quantize: round(x / s) + z (per tensor / channel)
  bool per_tensor_affine_choice = false;  // ChooseQparams: choose_qparams.tensor's rule
  double eps = 0;
  // Dequantize: > 0 when the parameters go per row and group of row_group elements along the
  // last dim (every other dim one block per index: torchao's block_size [1, ..., 1, G]); the
  // integer difference q - zero_point is exact (torchao converts both to float first).
  int64_t row_group = 0;
};

// Devices an op can run on (OpTraits::devices), as bits.
enum DeviceBit : uint8_t { kDeviceCpu = 1, kDeviceWebGPU = 2 };

// Facts about an op that the compile passes act on, declared by the op file
// (data, so no pass matches op names).
struct OpTraits {
  EpilogueRole epilogue = EpilogueRole::None;
  // Producer: can fold an eval batch norm into its packed weights (convolutions).
  bool folds_batch_norm = false;
  // BatchNorm / Residual / Activation: fills `part` for this planned call;
  // false when this call cannot be fused (training batch norm, alpha != 1, ...).
  bool (*epilogue_part)(const OpCall& call, EpiloguePart* part) = nullptr;
  // Out-of-place op that rewrites a region of a copy of in[0] (index_copy,
  // index_put, scatter, ...): the runtime sets OpCall::rewrites_self from it.
  bool rewrites_self = false;
  // Deterministic, reads only its inputs and attributes, and cheap enough to
  // run at prepare: with constant inputs (or none) its output is computed once
  // (runtime/constant_fold.cpp).
  bool constant_foldable = false;
  // A tuple access (getitem): reads only the input attrs["index"] selects
  // and passes it through as a view.
  bool reads_selected_input = false;
  // A view whenever its plan aliases out[0] to in[0] (reshape, view, flatten,
  // contiguous): run copies only into fresh memory, so an aliased call writes
  // nothing. (Ops with no run are views always.)
  bool view_when_aliased = false;
  // kDeviceCpu: plan/run above. A device's lowering sets that device's bit.
  uint8_t devices = kDeviceCpu;
  // Quantization ops: their role and a description of a planned call (false: not describable).
  QuantRole quant_role = QuantRole::None;
  bool (*describe_quant)(const OpCall& call, QuantDesc* desc) = nullptr;
  // An op with an integer form for dequantized operands (linear): the def the lowering switches
  // its step to, planned again with OpCall::quantized set.
  const OpDef* (*quantized_form)() = nullptr;
  // The same for an activation quantized per row and weights in groups along k (torchao's 8da4w).
  const OpDef* (*grouped_quantized_form)() = nullptr;
  // The op's WebGPU lowering (ops/webgpu.h), kept in its op file where it reads the op's own
  // planned state (the quantization ops and the integer forms, which have no op type of their
  // own); other ops register theirs by op type (TIR_REGISTER_WEBGPU). false, or a thrown
  // GpuUnsupported: the node stays on WASM.
  bool (*webgpu)(const OpCall& call, GpuLowering& out) = nullptr;
};

// Registered as {plan, run}, {plan, run, prepare}, ...: the optional members
// default to empty, so a registration names only what the op has.
struct OpDef {
  std::function<void(OpCall&)> plan;
  std::function<void(OpCall&)> run{};      // empty for pure view/no-op ops
  std::function<void(OpCall&)> prepare{};  // optional
  OpTraits traits{};
  // For data-dependent ops (OpCall::data_dependent): every output's shape for
  // the data now in call.in (run time, inputs only; out is not read).
  std::function<std::vector<Shape>(const OpCall&)> infer_shapes{};
};

// `def`, constant-foldable (OpTraits::constant_foldable).
inline OpDef foldable(OpDef def) {
  def.traits.constant_foldable = true;
  return def;
}

class OpRegistry {
 public:
  static OpRegistry& instance();
  void add(const std::string& op_type, OpDef def);
  const OpDef* find(const std::string& op_type) const;
  std::vector<std::string> op_types() const;  // sorted
 private:
  // Heap-allocated entries keep find()'s pointers valid as ops are added.
  std::vector<std::unique_ptr<std::pair<std::string, OpDef>>> defs_;
  std::unordered_map<std::string, size_t> index_;  // op type -> defs_ position
};

struct OpRegistrar {
  OpRegistrar(std::initializer_list<std::pair<const char*, OpDef>> defs);
};

#define TIR_CONCAT2(a, b) a##b
#define TIR_CONCAT(a, b) TIR_CONCAT2(a, b)
// Usage (at namespace scope in an op file):
//   TIR_REGISTER_OPS({"aten.relu.default", {plan_same_shape, run_relu}}, ...);
#define TIR_REGISTER_OPS(...) \
  static ::tir::OpRegistrar TIR_CONCAT(tir_op_registrar_, __LINE__)({__VA_ARGS__})

}  // namespace tir
