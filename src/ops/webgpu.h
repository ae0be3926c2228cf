// WebGPU lowering of planned ops: for one planned OpCall (shapes, dtypes,
// strides and attributes known), the WGSL dispatches that compute it, with
// every kernel parameter resolved at compile time. The runtime's placement
// pass (runtime/webgpu_plan.cpp) asks each node's lowering; a node without
// one, or whose lowering declines these dtypes/shapes, stays on WASM. The
// kernels and their parameter layouts are src/kernels/wgsl (kernels.json);
// the JS executor (npm/src/lib/webgpu) replays the dispatches (docs/webgpu.md).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "ops/op.h"

namespace tir {

// Thrown by lowering helpers when a call cannot run on the GPU (a dtype WGSL
// lacks, a size past u32, a layout the kernel does not take): the node stays
// on WASM. Never escapes the placement pass.
struct GpuUnsupported {
  std::string why;
};
[[noreturn]] inline void gpu_unsupported(std::string why) { throw GpuUnsupported{std::move(why)}; }
inline void gpu_need(bool cond, const char* why) {
  if (!cond) gpu_unsupported(why);
}

// The GPU storage of a tensor dtype: "float32", "int32" (int64 values are
// narrowed on upload, with a range check, and widened on download: GPU kernels
// write int64 only where the values fit by construction: moved or selected
// int64 values, indices), "bool" (u32 0/1). Throws GpuUnsupported for the others.
const char* gpu_dtype(DType dtype);

// A kernel's parameter block as JSON ({field: u32 | [u32...] | {"f32": x}}),
// the form npm/src/lib/webgpu/kernels.ts packs. Values outside u32 decline the lowering.
class GpuMeta {
 public:
  GpuMeta& u(const char* field, int64_t value);
  // slots > 0: the field's slot count in kernels.json; a shorter list is padded
  // with zeros, a longer one declines the lowering (a rank past the kernel's).
  GpuMeta& us(const char* field, const std::vector<int64_t>& values, size_t slots = 0);
  GpuMeta& f(const char* field, double value);
  const std::string& json_fields() const { return fields_; }

 private:
  std::string fields_;  // comma-separated "name": value pairs
};

struct GpuDispatch {
  std::string kernel;  // a kernels.json entry
  // elementwise: the elementwise_ops.json op, its input dtypes and output dtype;
  // alias_input >= 0: that input is read through the output binding (an
  // in-place op whose output is its input's memory).
  std::string ew_op;
  std::vector<std::string> ew_in;
  std::string ew_out;
  int alias_input = -1;
  std::vector<std::pair<std::string, std::string>> types;  // binding -> WGSL type
  std::vector<std::pair<std::string, std::string>> subst;  // {{KEY}} -> text
  GpuMeta meta;
  // In the kernel's binding order; an undefined tensor binds a dummy buffer.
  std::vector<Tensor> bindings;
  std::vector<int> written{0};  // bindings the kernel writes (kernels.json "rw")
  // Bindings of int8 / uint8 values, which the GPU holds as bytes, four to a u32 word (WGSL has
  // no 8-bit storage): the kernel declares them array<u32> and unpacks (common.wgsl byte_at).
  // Only such bindings may bind 8-bit values; any other reader of one stays on WASM.
  std::vector<int> packed_bytes;
  // Of those, constant int8 weights declared 4-bit in [-8, 7] (torchao's int4 in int8 storage)
  // that the kernel can read as nibbles too, eight to a word: {binding, meta field}. The plan
  // holds such a weight as int4 (half the bytes; the executor packs it at upload and refuses a
  // value outside the range) when every GPU reader can, and then sets the field to 1.
  std::vector<std::pair<int, std::string>> nibbles;
  // Set by lowerings of kernels that load every float binding through f32(...) or a conversion
  // to Y's type (matmul, gemv, conv2d, conv2d_gemm, rowwise, pool2d, batch_norm, index_select):
  // the bindings' names (kernels.json), so the plan may type a read-only binding "f16" where it
  // binds a float16 weight held as f16 on the GPU (WebGpuDevice::shader_f16). Empty: every
  // binding keeps its lowering's type. (Elementwise dispatches are typed by ew_in instead.)
  std::vector<std::string> names;
  // Set by the builders of kernels that include epilogue.wgsl (matmul, gemv, conv2d,
  // conv2d_gemm), whose Y is contiguous from offset 0, or a window of the node's contiguous output
  // indexed by its flat position there (a split weight's part): a producer's fused epilogue may
  // be added to the dispatch (gpu_add_epilogue), to every one that writes the output.
  bool takes_epilogue = false;
  // The binding that is a GEMM's weight operand in the sense of the CPU's packing (linear's
  // weight, addmm's mat2, mm's second operand; ops/packed_gemm.cpp packs a constant one, as halves
  // under weight_dtype float16), or -1: the plan may hold such a weight as f16.
  int gemm_weight = -1;
  // Bindings that bind one part of their value: a constant weight larger than the device's
  // largest storage binding, held on the GPU as parts of whole rows (gpu_weight_parts), each a
  // buffer of its own. The binding's offsets in meta count from the part's first element.
  struct Part {
    int binding;
    int64_t first, count;  // elements of the weight's storage
  };
  std::vector<Part> parts;
  int64_t workgroups[3] = {1, 1, 1};
};

// What one node's lowering produced: its dispatches in order (none for an
// empty output: the node is then free).
struct GpuLowering {
  std::vector<GpuDispatch> dispatches;
  // Set by the placement pass before lowering: the device's maxStorageBufferBindingSize, which
  // a lowering may split a large weight's reads by (gpu_weight_parts).
  uint64_t max_binding_bytes = uint64_t(128) << 20;
};

// Returns false to keep the node on WASM (or throws GpuUnsupported).
using WebGpuLowerFn = bool (*)(const OpCall& call, GpuLowering& out);

class WebGpuRegistry {
 public:
  static WebGpuRegistry& instance();
  void add(const std::string& op_type, WebGpuLowerFn fn);
  WebGpuLowerFn find(const std::string& op_type) const;

 private:
  std::vector<std::pair<std::string, WebGpuLowerFn>> fns_;
};

struct WebGpuRegistrar {
  WebGpuRegistrar(std::initializer_list<std::pair<const char*, WebGpuLowerFn>> fns);
};
#define TIR_REGISTER_WEBGPU(...) \
  static ::tir::WebGpuRegistrar TIR_CONCAT(tir_webgpu_registrar_, __LINE__)({__VA_ARGS__})

// --- helpers shared by the lowerings ---

// The IR's dtype of input i (float16/bfloat16 tensors are float32 in the engine: the node's
// input meta says what the values stand for), as ops/convert.cpp reads it.
DType gpu_ir_input_dtype(const OpCall& call, size_t i);
// The elementwise op that rounds a float32 result to `target`'s precision ("round_f16",
// "round_bf16") where the CPU's conversion from `source` does (ops/convert.cpp), or nullptr.
const char* gpu_round_op(DType target, DType source);

// Every defined input and output of c is float32 (the kernels that take only f32).
inline bool gpu_all_f32(const OpCall& c) {
  for (const auto& t : c.in)
    if (t.defined() && t.dtype != DType::F32) return false;
  for (const auto& t : c.out)
    if (t.defined() && t.dtype != DType::F32) return false;
  return true;
}
// Undefined, or contiguous from offset 0 (the kernels whose operand is indexed flat).
inline bool gpu_dense_at_zero(const Tensor& t) { return !t.defined() || (t.offset == 0 && t.is_contiguous()); }
// x's strides for `shape` (x broadcast to it: stride 0 on broadcast dims).
Strides gpu_broadcast_strides(const Tensor& x, const Shape& shape);
// How a kernel reads zero point z bound at `binding` (common.wgsl's zero-point kinds): 0 none
// (undefined z), 1 int8 / 2 uint8 bytes (added to d.packed_bytes), 3 int32 words (int64
// narrowed on upload). Other dtypes decline.
int64_t gpu_zero_point_kind(GpuDispatch& d, const Tensor& z, int binding);
// A GPU-only value of numel elements (a split-K GEMM's partial sums, a quantized activation):
// never uploaded or read back, so it has no memory here; the plan gives it a GPU slot.
Tensor gpu_scratch(DType dtype, int64_t numel, const char* label);
// split_k_sum.wgsl: y (contiguous [batch, m, n], flat index o) = alpha * the sum of the `chunks`
// chunks of `parts` + (the caller's) beta * C + bias[m]; its fused epilogue comes after
// (takes_epilogue).
GpuDispatch gpu_sum_partials(const Tensor& y, const Tensor& parts, int64_t chunks, int64_t m, int64_t n, double alpha,
                             const Tensor& bias);
// choose_qparams_rows.wgsl: torchao's ASYMMETRIC (scale, zero point) of each of the `rows`
// blocks of `block` consecutive elements of a contiguous float32 x into `scale` (float32) and `zp`
// (int8 / uint8 bytes or int32), both contiguous from offset 0.
GpuDispatch gpu_choose_rows(const Tensor& scale, const Tensor& zp, const Tensor& x, int64_t rows, int64_t block,
                            double qmin, double qmax, double eps);
// quantize_blocks.wgsl: x (contiguous float32) into y (int8 / uint8 bytes, from offset 0) with
// one (scale, zero point) per block of `block` consecutive elements from the tensors `scale`
// (float32) and `zp` (or none); a caller with Python-scalar parameters sets params_meta, inv and
// zero instead (and leaves scale and zp undefined).
GpuDispatch gpu_quantize_blocks(const Tensor& y, const Tensor& x, int64_t block, double qmin, double qmax,
                                const Tensor& scale, const Tensor& zp);
// The qlinear.wgsl dispatch of a lowered quantized linear (ops/linear_8da4w.cpp,
// ops/linear_int8.cpp), over M rows and N columns: `d` holds its operands A, W, WS, WZ, AS, AZ as
// bindings 1..6 and their parameters; this adds Y and the bias. qlinear's eight bindings are all
// WebGPU guarantees a stage, so with a fused epilogue (a residual add, an activation) it writes
// unbiased sums into a GPU scratch and split_k_sum.wgsl adds the bias and applies the epilogue.
void gpu_qlinear(GpuLowering& g, GpuDispatch d, const Tensor& y, const Tensor& bias, bool fused, int64_t M, int64_t N);
// Workgroup counts for n one-dimensional workgroups (folded into y past 65535).
void gpu_grid(GpuDispatch& d, int64_t n);
// A weight w (contiguous from offset 0, rows along dim 0) whose GPU storage (4 bytes an element)
// exceeds max_binding_bytes, cut into parts of whole rows that each fit: {first row, rows} of
// nearly equal size, so that every reader of the weight asks for the same parts (one GPU buffer
// each, shared by a tied embedding and lm_head). One part {0, rows} when it fits; none (declines)
// when a single row does not fit.
std::vector<std::pair<int64_t, int64_t>> gpu_weight_parts(const Tensor& w, uint64_t max_binding_bytes);
// A complex64 tensor as the float32 pairs the GPU holds it as: shape + [2] (re, im), strides and
// offset in floats. The plan keeps a complex64 value as float32 storage of twice the elements.
Tensor gpu_complex_as_pairs(const Tensor& c);
// Adds a fused epilogue (runtime/fusion.cpp: batch norm as e.bn_affine, residual, relu/clamp)
// to d, a dispatch with takes_epilogue that writes the producer's output of shape `out_shape`:
// its bindings Res and Affine and its epi_* parameters (epilogue.wgsl).
void gpu_add_epilogue(GpuDispatch& d, const FusedEpilogue& e, const Shape& out_shape);
// out = op(inputs...) over broadcast inputs (out's shape), p0/p1 the table's
// scalar parameters. In-place ops (an input in out's memory, same view) read
// it through the output binding.
GpuDispatch gpu_elementwise(const std::string& op, const std::vector<Tensor>& inputs, const Tensor& out,
                            double p0 = 0, double p1 = 0);

}  // namespace tir
