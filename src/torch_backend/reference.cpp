// LibTorch reference backend: runs IR nodes through the c10 dispatcher the way
// pytorch-ir's executor calls torch.ops.aten.* (arguments rebuilt in
// reference_bind.cpp). With that file, the only translation units that include
// LibTorch headers; include the narrow ATen headers, not ATen/ATen.h (slow).
#include "torch_backend/reference.h"

#include <ATen/Context.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>
#include <c10/core/GradMode.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <cstring>
#include <map>

#include "core/errors.h"
#include "torch_backend/reference_internal.h"

namespace tir {
namespace {

using torch_ref::attr_int;
using torch_ref::build_stack;
using torch_ref::find_attr;
using torch_ref::Lookup;
using torch_ref::what_of;

// ---------------------------------------------------------------- conversions

c10::ScalarType to_scalar_type(DType d) {
  // DType is numbered like c10::ScalarType.
  return static_cast<c10::ScalarType>(static_cast<int>(d));
}

DType from_scalar_type(c10::ScalarType s) {
  DType d;
  if (!dtype_from_scalar_type(static_cast<int64_t>(s), &d))
    throw ExecutionError(std::string("LibTorch dtype ") + c10::toString(s) +
                         " has no engine equivalent");
  return d;
}

// float64: floating values widened (ReferenceRunner's float64 run).
at::Tensor to_aten(const Tensor& t, const c10::Device& device, bool float64 = false) {
  if (!t.defined()) throw ExecutionError("undefined tensor passed to the reference backend");
  const auto opts = at::TensorOptions().dtype(to_scalar_type(t.dtype));
  at::Tensor out = at::empty(t.shape, opts);
  if (t.numel() > 0) {
    // Non-owning view of the engine's memory (any strides), then a real copy so
    // in-place ops never write into the caller's tensor.
    at::Tensor src = at::from_blob(t.raw(), t.shape, t.strides, opts);
    out.copy_(src);
  }
  if (float64) out = out.to(torch_ref::widened(out.scalar_type()));
  return device.is_cpu() ? out : out.to(device);
}

Tensor from_aten(const at::Tensor& t) {
  if (!t.defined()) return make_owned(DType::F32, {0});
  at::Tensor c = t.to(at::kCPU).resolve_conj().resolve_neg().contiguous();
  const at::IntArrayRef sizes = c.sizes();
  Tensor out = make_owned(from_scalar_type(c.scalar_type()), Shape(sizes.begin(), sizes.end()));
  if (out.nbytes() > 0) std::memcpy(out.raw(), c.data_ptr(), out.nbytes());
  return out;
}

at::Tensor constant_to_aten(const ConstantValue& cv) {
  const bool exact_ints = (is_integral(cv.dtype) || cv.dtype == DType::Bool) && !cv.ints.empty();
  const size_t n = exact_ints ? cv.ints.size() : cv.values.size();
  at::Tensor flat = at::empty({int64_t(n)}, at::TensorOptions().dtype(exact_ints ? at::kLong : at::kDouble));
  if (n > 0) {
    if (exact_ints) std::memcpy(flat.data_ptr(), cv.ints.data(), n * sizeof(int64_t));
    else std::memcpy(flat.data_ptr(), cv.values.data(), n * sizeof(double));
  }
  return flat.to(to_scalar_type(cv.dtype)).reshape(cv.shape).contiguous();
}

void split_op_type(const std::string& op_type, std::string* name, std::string* overload) {
  // "aten.add.Tensor" -> ("aten::add", "Tensor"); ".default" -> "".
  const std::string rest = op_type.substr(5);
  const size_t dot = rest.find('.');
  *name = "aten::" + rest.substr(0, dot);
  *overload = dot == std::string::npos ? "" : rest.substr(dot + 1);
  if (*overload == "default") overload->clear();
}

void collect_outputs(const c10::IValue& v, std::vector<at::Tensor>* out) {
  if (v.isTensor()) {
    out->push_back(v.toTensor());
  } else if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorVector()) out->push_back(t);
  } else if (v.isList()) {
    for (const c10::IValue& e : v.toListRef())
      if (e.isTensor()) out->push_back(e.toTensor());
  } else if (v.isTuple()) {
    for (const c10::IValue& e : v.toTupleRef().elements()) collect_outputs(e, out);
  }
  // Non-tensor returns (SymInt, bool, ...) are not IR outputs.
}

std::vector<at::Tensor> run_aten(const OpNode& node, const std::vector<at::Tensor>& in,
                                 const c10::Device& device, const Lookup& lookup, bool float64) {
  std::string name, overload;
  split_op_type(node.op_type, &name, &overload);
  auto handle = c10::Dispatcher::singleton().findOp(c10::OperatorName(name, overload));
  if (!handle)
    throw ExecutionError("No ATen operator " + name + (overload.empty() ? "" : "." + overload) +
                         " in LibTorch " TORCH_VERSION);
  std::vector<c10::IValue> stack = build_stack(node, handle->schema(), in, device, lookup, float64);
  handle->callBoxed(&stack);
  std::vector<at::Tensor> out;
  for (const auto& v : stack) collect_outputs(v, &out);
  return out;
}

std::vector<at::Tensor> run_getitem(const OpNode& node, const std::vector<at::Tensor>& in) {
  const Attr* v = find_attr(node, "index");
  const int64_t index = v ? attr_int("index", *v) : 0;
  if (index < 0 || index >= int64_t(in.size()))
    throw ExecutionError("getitem index " + std::to_string(index) + " out of range for " +
                         std::to_string(in.size()) + " inputs");
  return {in[size_t(index)]};
}

// HF rotary embedding (docs/spec/OPS.md §4): inputs inv_freq [D/2] (or expanded [B,D/2,1])
// and positions [B,S] (or [B,1,S]); outputs cos, sin [B,S,D].
std::vector<at::Tensor> run_higher_order(const OpNode& node, const std::vector<at::Tensor>& in, bool float64) {
  const std::string unsupported =
      "the body of higher-order op '" + node.op_type +
      "' is not in the IR file; only the HF rotary-embedding pattern (inv_freq, positions -> cos, "
      "sin [B,S,D]) can be run";
  if (in.size() != 2 || node.outputs.size() != 2) throw ExecutionError(unsupported);
  const Shape& os = node.outputs[0].shape;
  if (os.size() != 3 || node.outputs[1].shape != os || os[2] % 2 != 0) throw ExecutionError(unsupported);
  const int64_t B = os[0], S = os[1], H = os[2] / 2;
  auto fits = [&](size_t inv, size_t pos) {
    const int64_t ni = in[inv].numel();
    return at::isFloatingType(in[inv].scalar_type()) && (ni == H || ni == B * H) &&
           in[pos].numel() == B * S;
  };
  size_t inv = 0;
  const bool named1 = node.inputs.size() == 2 && node.inputs[1].name.find("inv_freq") != std::string::npos;
  if (named1 && fits(1, 0)) inv = 1;
  else if (fits(0, 1)) inv = 0;
  else if (fits(1, 0)) inv = 1;
  else throw ExecutionError(unsupported);
  const at::Tensor& fi = in[inv];
  const at::ScalarType work = float64 ? at::kDouble : at::kFloat;
  at::Tensor f = fi.to(work).reshape({fi.numel() == H ? 1 : B, 1, H});
  at::Tensor p = in[1 - inv].to(work).reshape({B, S, 1});
  at::Tensor freqs = p.mul(f);
  at::Tensor emb = at::cat({freqs, freqs}, -1);
  std::vector<at::Tensor> out{emb.cos(), emb.sin()};
  for (size_t k = 0; k < 2; ++k) {
    const at::ScalarType t = to_scalar_type(node.outputs[k].dtype);
    out[k] = out[k].to(float64 ? torch_ref::widened(t) : t);
  }
  return out;
}

bool is_higher_order(const std::string& op_type) {
  return op_type.find("wrap_with_set_grad_enabled") != std::string::npos ||
         op_type.find("wrap_with_autocast") != std::string::npos;
}

// A symbolic assertion (_assert_scalar of a SymBool, sym_constrain_range* of a SymInt) keeps no
// condition in the IR, so there is nothing to run; the engine does the same (src/ops/datadep.cpp).
bool condition_not_in_ir(const OpNode& node) {
  if (node.op_type == "aten._assert_scalar.default") return !node.attrs.count("self");
  if (node.op_type == "aten.sym_constrain_range_for_size.default" ||
      node.op_type == "aten.sym_constrain_range.default")
    return !node.attrs.count("size");
  return false;
}

std::vector<at::Tensor> execute_node(const OpNode& node, const std::vector<at::Tensor>& in,
                                     const c10::Device& device, const Lookup& lookup, bool float64 = false) {
  try {
    if (in.empty() && node.outputs.empty() && condition_not_in_ir(node)) return {};
    if (node.op_type == "<built-in function getitem>") return run_getitem(node, in);
    if (is_higher_order(node.op_type)) return run_higher_order(node, in, float64);
    if (node.op_type.rfind("aten.", 0) == 0) return run_aten(node, in, device, lookup, float64);
    throw ExecutionError("No execution function registered for op_type '" + node.op_type + "'");
  } catch (const std::exception& e) {
    throw ExecutionError("Failed to execute node '" + node.name + "' (op: " + node.op_type +
                         "): " + what_of(e));
  }
}

c10::Device parse_device(const std::string& device) {
  if (device.rfind("meta", 0) == 0) throw ExecutionError("the reference backend cannot run on 'meta'");
  try {
    return c10::Device(device);
  } catch (const c10::Error& e) {
    throw ExecutionError("bad device '" + device + "' (cpu, cuda or cuda:N): " + what_of(e));
  }
}

// Parses `device`, checks LibTorch can use it, and on CUDA switches off what would make a
// float32 result differ from float32 arithmetic by more than reassociation: TF32 in cuBLAS and
// cuDNN (cuDNN's is on by default), reduced-precision (fp16/bf16) reductions in cuBLAS.
c10::Device open_device(const std::string& device) {
  const std::string why = device_unavailable_reason(device);
  if (!why.empty()) throw ExecutionError(why);
  const c10::Device d = parse_device(device);
  if (d.is_cuda()) {
    at::Context& ctx = at::globalContext();
    ctx.setAllowTF32CuBLAS(false);
    ctx.setAllowTF32CuDNN(false);
    ctx.setAllowFP16ReductionCuBLAS(false);
#if TORCH_VERSION_MAJOR >= 2
    ctx.setAllowBF16ReductionCuBLAS(false);
#endif
  }
  return d;
}

}  // namespace

// ---------------------------------------------------------------- runner

struct ReferenceRunner::Impl {
  Model model;
  ModelIndex index;  // of `model`
  c10::Device device{at::kCPU};
  bool float64 = false;
  // Weights and constants by original key and placeholder; they persist (and
  // keep in-place updates, e.g. KV caches) across run() calls, as in pytorch-ir.
  std::map<std::string, at::Tensor> bound;
  bool keep = false;
  std::map<std::string, Tensor> kept;

  void bind(const std::string& key, const at::Tensor& t) {
    bound[key] = t;
    for (const auto& p : index.placeholders_of(key)) bound[p] = t;
  }
};

ReferenceRunner::ReferenceRunner(const Model& model, const TensorMap& weights,
                                 const TensorMap& constants, const std::string& device, bool float64)
    : impl_(new Impl) {
  c10::AutoGradMode no_grad(false);
  impl_->model = model;
  impl_->index = ModelIndex(impl_->model);
  impl_->device = open_device(device);
  impl_->float64 = float64;
  const c10::Device dev = impl_->device;
  for (const auto& kv : weights.items) impl_->bind(kv.first, to_aten(kv.second, dev, float64));
  for (const auto& kv : model.constants) {
    at::Tensor c = constant_to_aten(kv.second);
    impl_->bind(kv.first, (float64 ? c.to(torch_ref::widened(c.scalar_type())) : c).to(dev));
  }
  for (const auto& kv : constants.items) impl_->bind(kv.first, to_aten(kv.second, dev, float64));
}

ReferenceRunner::~ReferenceRunner() = default;

void ReferenceRunner::set_keep_intermediates(bool on) { impl_->keep = on; }

const Tensor* ReferenceRunner::value(const std::string& name) const {
  auto it = impl_->kept.find(name);
  return it == impl_->kept.end() ? nullptr : &it->second;
}

std::vector<Tensor> ReferenceRunner::run(const std::vector<Tensor>& inputs) {
  c10::AutoGradMode no_grad(false);
  const Model& m = impl_->model;
  if (inputs.size() != m.graph_inputs.size())
    throw ExecutionError("Expected " + std::to_string(m.graph_inputs.size()) + " inputs, got " +
                         std::to_string(inputs.size()));
  std::map<std::string, at::Tensor> registry = impl_->bound;
  std::map<std::string, std::vector<at::Tensor>> output_map;
  for (size_t i = 0; i < inputs.size(); ++i) {
    at::Tensor t = to_aten(inputs[i], impl_->device, impl_->float64);
    registry[m.graph_inputs[i].name] = t;
    output_map[m.graph_inputs[i].name] = {t};
  }
  const Lookup lookup = [&](const std::string& name) -> const at::Tensor* {
    auto it = registry.find(name);
    return it == registry.end() ? nullptr : &it->second;
  };

  for (const OpNode& node : m.nodes) {
    std::vector<at::Tensor> in;
    for (const TensorMeta& im : node.inputs) {
      if (im.has_producer()) {
        auto it = output_map.find(im.producer_node);
        if (it == output_map.end())
          throw ExecutionError("Producer node '" + im.producer_node +
                               "' not found in output_map. Check node ordering. (consumer: '" +
                               node.name + "')");
        if (im.producer_output_idx < 0 || im.producer_output_idx >= int64_t(it->second.size()))
          throw ExecutionError("Producer '" + im.producer_node + "' has " +
                               std::to_string(it->second.size()) + " outputs, but index " +
                               std::to_string(im.producer_output_idx) + " requested by node '" +
                               node.name + "'.");
        in.push_back(it->second[size_t(im.producer_output_idx)]);
      } else {
        const at::Tensor* t = lookup(im.name);
        if (!t)
          throw ExecutionError("Weight/input '" + im.name + "' not found in registry for node '" +
                               node.name + "'.");
        in.push_back(*t);
      }
    }
    std::vector<at::Tensor> out = execute_node(node, in, impl_->device, lookup, impl_->float64);
    for (size_t k = 0; k < node.outputs.size() && k < out.size(); ++k)
      registry[node.outputs[k].name] = out[k];
    output_map[node.name] = std::move(out);
  }

  impl_->kept.clear();
  if (impl_->keep)
    for (const OpNode& node : m.nodes)
      for (const TensorMeta& om : node.outputs) {
        auto it = registry.find(om.name);
        if (it != registry.end()) impl_->kept[om.name] = from_aten(it->second);
      }

  std::vector<Tensor> result;
  for (const TensorMeta& g : m.graph_outputs) {
    auto it = registry.find(g.name);
    if (it == registry.end()) throw ExecutionError("Graph output '" + g.name + "' not found in registry");
    result.push_back(from_aten(it->second));
  }
  return result;
}

std::vector<Tensor> run_node_reference(const OpNode& node, const std::vector<Tensor>& inputs,
                                       const std::string& device) {
  c10::AutoGradMode no_grad(false);
  const c10::Device dev = open_device(device);
  std::vector<at::Tensor> in;
  for (const Tensor& t : inputs) in.push_back(to_aten(t, dev));
  std::vector<Tensor> out;
  for (const at::Tensor& t : execute_node(node, in, dev, Lookup())) out.push_back(from_aten(t));
  return out;
}

bool reference_supports(const std::string& op_type) {
  if (op_type == "<built-in function getitem>" || is_higher_order(op_type)) return true;
  if (op_type.rfind("aten.", 0) != 0) return false;
  std::string name, overload;
  split_op_type(op_type, &name, &overload);
  return c10::Dispatcher::singleton().findOp(c10::OperatorName(name, overload)).has_value();
}

std::string libtorch_version() { return TORCH_VERSION; }

std::string device_unavailable_reason(const std::string& device) {
  const c10::Device d = parse_device(device);
  if (!d.is_cuda()) return d.is_cpu() ? "" : "the reference backend runs on cpu or cuda, not '" + device + "'";
  const std::string head = "CUDA is not available to LibTorch " TORCH_VERSION;
  if (!torch::cuda::is_available())
    return head + " (torch::cuda::is_available() is false: a CPU-only LibTorch, no NVIDIA driver, or no visible "
                  "GPU); '--device " + device + "' needs a CUDA build of LibTorch on a machine with a GPU";
  const int64_t n = int64_t(torch::cuda::device_count());
  if (d.has_index() && d.index() >= n)
    return head + " as '" + device + "': it sees " + std::to_string(n) + " GPU(s)";
  return "";
}

std::string device_settings(const std::string& device) {
  const c10::Device d = parse_device(device);
  if (!d.is_cuda()) return "cpu";
  try {
    const at::Context& ctx = at::globalContext();
    const bool blas = ctx.allowTF32CuBLAS(), dnn = ctx.allowTF32CuDNN();
    return std::string("TF32 ") + (blas || dnn ? "ON" : "off") + " (cuBLAS allow_tf32=" + (blas ? "1" : "0") +
           ", cuDNN allow_tf32=" + (dnn ? "1" : "0") + "), reduced-precision cuBLAS reductions off, cuDNN benchmark " +
           (ctx.benchmarkCuDNN() ? "on" : "off");
  } catch (const std::exception& e) {
    return "TF32 state unknown: " + what_of(e);
  }
}

}  // namespace tir
