// Session::bind: attaches weight/buffer/constant values to the compiled graph.
// Precedence per value (by original key): caller constants, then the weights
// source (by key, or by placeholder for older files), then the IR's `constants`.
#include <cstring>

#include "core/errors.h"
#include "core/dispatch.h"
#include "runtime/session_impl.h"

namespace tir {

namespace {

Tensor constant_to_tensor(const ConstantValue& c) {
  Tensor t = make_owned(c.dtype, c.shape);
  dispatch_storage(c.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* d = t.data<T>();
    const bool exact_ints = !c.ints.empty();
    for (int64_t i = 0; i < t.numel(); ++i)
      d[i] = exact_ints && !is_floating(c.dtype) ? store_as<T>(c.ints[size_t(i)])
                                                 : store_as<T>(c.values[size_t(i)]);
  });
  return t;
}

const Tensor* find_value(const Model& model, const WeightSlot& slot, const TensorMap& weights,
                         const TensorMap& constants) {
  if (const Tensor* t = constants.find(slot.key)) return t;
  if (const Tensor* t = weights.find(slot.key)) return t;
  for (const auto& p : model.placeholders_of(slot.key))
    if (const Tensor* t = weights.find(p)) return t;
  if (const Tensor* t = weights.find(slot.first_placeholder)) return t;
  return nullptr;
}

bool aligned_for(const Tensor& t) {
  return reinterpret_cast<uintptr_t>(t.raw()) % dtype_size(t.dtype) == 0;
}

}  // namespace

void Session::Impl::bind(const TensorMap& given_weights, const TensorMap& constants) {
  std::vector<std::pair<std::string, Tensor>> ir_constants;
  for (const auto& kv : model.constants) ir_constants.emplace_back(kv.first, constant_to_tensor(kv.second));
  for (auto& kv : weights) {
    WeightSlot& slot = kv.second;
    const Tensor* src = find_value(model, slot, given_weights, constants);
    if (!src)
      for (const auto& c : ir_constants)
        if (c.first == slot.key) src = &c.second;
    if (!src)
      throw WeightLoadError("Weight/input '" + slot.first_placeholder + "' not found in registry for node '" +
                            slot.first_reader + "'.");
    if (src->shape != slot.tensor.shape || src->dtype != slot.ir_dtype)
      throw WeightLoadError("Weight '" + slot.key + "' (placeholder '" + slot.first_placeholder + "'): got " +
                            shape_to_string(src->shape) + " " + dtype_name(src->dtype) + " but the IR declares " +
                            shape_to_string(slot.tensor.shape) + " " + dtype_name(slot.ir_dtype));
    Buffer& buf = *slot.tensor.buffer;
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
