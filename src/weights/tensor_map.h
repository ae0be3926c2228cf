// Named tensors read from a weights/constants source, keyed by ORIGINAL
// state_dict key, in file order. Tensors may point into a mapped file
// (Buffer::keepalive holds it) and may be of any file dtype (f16, bf16, ...):
// the binder converts to compute dtypes.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tir {

struct TensorMap {
  std::vector<std::pair<std::string, Tensor>> items;
  const Tensor* find(const std::string& key) const {
    for (auto& kv : items) if (kv.first == key) return &kv.second;
    return nullptr;
  }
  void set(const std::string& key, Tensor t) {
    for (auto& kv : items) if (kv.first == key) { kv.second = std::move(t); return; }
    items.emplace_back(key, std::move(t));
  }
};

}  // namespace tir
