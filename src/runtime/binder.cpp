// Session::bind: attaches weight/buffer/constant values to the compiled graph.
// Precedence per value (by original key): caller constants, then the weights
// source (by key, or by placeholder for older files), then the IR's `constants`.
#include <cstring>
#include <unordered_map>

#include "core/checked.h"
#include "core/errors.h"
#include "core/dispatch.h"
#include "runtime/session_impl.h"

namespace tir {

namespace {

Tensor constant_to_tensor(const std::string& name, const ConstantValue& c) {
  const int64_t n = checked_numel(c.shape, "constant '" + name + "'");
  const bool exact_ints = !c.ints.empty();
  const size_t have = exact_ints ? c.ints.size() : c.values.size();
  if (have != uint64_t(n))
    throw WeightLoadError("constant '" + name + "': " + std::to_string(have) + " values for shape " +
                          shape_to_string(c.shape));
  Tensor t = make_owned(c.dtype, c.shape);
  dispatch_storage(c.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* d = t.data<T>();
    for (int64_t i = 0; i < n; ++i)
      d[i] = exact_ints && !is_floating(c.dtype) ? store_as<T>(c.ints[size_t(i)])
                                                 : store_as<T>(c.values[size_t(i)]);
  });
  return t;
}

// TensorMap::find scans; binding 100k weights needs a hash lookup. Same
// answer: the first item of each key.
class TensorIndex {
 public:
  explicit TensorIndex(const TensorMap& m) {
    for (const auto& kv : m.items) by_key_.emplace(kv.first, &kv.second);
  }
  const Tensor* find(const std::string& key) const {
    auto it = by_key_.find(key);
    return it == by_key_.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<std::string, const Tensor*> by_key_;
};

const Tensor* find_value(const ModelIndex& index, const WeightSlot& slot, const TensorIndex& weights,
                         const TensorIndex& constants) {
  if (const Tensor* t = constants.find(slot.key)) return t;
  if (const Tensor* t = weights.find(slot.key)) return t;
  for (const auto& p : index.placeholders_of(slot.key))
    if (const Tensor* t = weights.find(p)) return t;
  if (const Tensor* t = weights.find(slot.first_placeholder)) return t;
  return nullptr;
}

bool aligned_for(const Tensor& t) {
  return reinterpret_cast<uintptr_t>(t.raw()) % dtype_size(t.dtype) == 0;
}

}  // namespace

void Session::Impl::bind(const TensorMap& given_weights, const TensorMap& constants) {
  has_streamed = false;
  const TensorIndex weight_index(given_weights), constant_index(constants);
  std::unordered_map<std::string, Tensor> ir_constants;  // by name; a repeated name: the last one
  for (const auto& kv : model.constants) ir_constants[kv.first] = constant_to_tensor(kv.first, kv.second);
  for (auto& kv : weights) {
    WeightSlot& slot = kv.second;
    const Tensor* src = find_value(model_index, slot, weight_index, constant_index);
    if (!src) {
      auto c = ir_constants.find(slot.key);
      if (c != ir_constants.end()) src = &c->second;
    }
    if (!src)
      throw WeightLoadError("Weight/input '" + slot.first_placeholder + "' not found in registry for node '" +
                            slot.first_reader + "'.");
    // A float64 run (SessionOptions::float64) widens float32 weights exactly.
    const bool widened = options.float64 && src->dtype == DType::F32 && slot.ir_dtype == DType::F64;
    if (src->shape != slot.tensor.shape || (src->dtype != slot.ir_dtype && !widened))
      throw WeightLoadError("Weight '" + slot.key + "' (placeholder '" + slot.first_placeholder + "'): got " +
                            shape_to_string(src->shape) + " " + dtype_name(src->dtype) + " but the IR declares " +
                            shape_to_string(slot.tensor.shape) + " " + dtype_name(slot.ir_dtype));
    // Shape and dtype match; the view must also stay inside its own bytes
    // (a torch.save view with stride 0 or a lying offset must not be read past).
    check_view_in_buffer(*src, "weight '" + slot.key + "'");
    Buffer& buf = *slot.tensor.buffer;
    slot.streamed = src->numel() > 0 && !src->buffer->data;
    if (slot.streamed) {  // its bytes go straight to the GPU (place_for_webgpu)
      const bool gpu_only = placed && !placed->cpu_read_weights.count(&buf);
      // The uploader converts what the CPU would (half floats widen to the f32 compute dtype).
      const bool converts = src->dtype == slot.tensor.dtype ||
                            (slot.tensor.dtype == DType::F32 && (src->dtype == DType::F16 || src->dtype == DType::BF16));
      if (!gpu_only || slot.mutated || !converts || !src->is_contiguous())
        throw WeightLoadError("weight '" + slot.key + "' has no data in this memory (it was streamed to the GPU), "
                              "but this session needs it here: a node on the CPU reads it, or its dtype is converted "
                              "(a model sharing a WebGPU model's weights must run on WebGPU too)");
      buf.owned.clear();
      buf.data = nullptr;
      buf.keepalive = src->buffer;
      slot.streamed_source = src->buffer->label;
      has_streamed = true;
      slot.bound_value = Tensor{};
      continue;
    }
    const bool zero_copy = !slot.mutated && src->dtype == slot.tensor.dtype && src->is_contiguous() &&
                           aligned_for(*src) && src->numel() > 0;
    if (zero_copy) {
      buf.owned.clear();
      buf.data = src->raw();
      buf.keepalive = src->buffer;
    } else {
      buf.owned.assign(std::max<size_t>(buf.nbytes, 1), 0);
      buf.data = buf.owned.data();
      buf.keepalive.reset();
      copy_into(slot.tensor, *src);
    }
    slot.bound_value = slot.mutated ? to_dtype_owned(*src, src->dtype) : Tensor{};
  }
  bound = true;
  prepare();
}

}  // namespace tir
