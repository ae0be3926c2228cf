// Named tensors read from a weights/constants source, keyed by ORIGINAL
// state_dict key, in file order. Tensors may point into a mapped file
// (Buffer::keepalive holds it) and may be of any file dtype (f16, bf16, ...):
// the binder converts to compute dtypes.
#pragma once
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tir {

struct TensorMap {
  std::vector<std::pair<std::string, Tensor>> items;

  // First item named `key`, or null. Hashed: binding looks up every weight,
  // and a linear scan made 100k-weight files quadratic. The index is built on
  // demand (readers append to `items` directly), so concurrent find() calls
  // on one map must not race with its first use after a change.
  const Tensor* find(const std::string& key) const {
    const size_t* k = lookup(key);
    return k ? &items[*k].second : nullptr;
  }
  void set(const std::string& key, Tensor t) {
    if (const size_t* k = lookup(key)) { items[*k].second = std::move(t); return; }
    items.emplace_back(key, std::move(t));
  }

 private:
  const size_t* lookup(const std::string& key) const {
    if (indexed_ > items.size()) { index_.clear(); indexed_ = 0; }  // shrunk or moved from
    for (; indexed_ < items.size(); ++indexed_) index_.emplace(items[indexed_].first, indexed_);
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    if (items[it->second].first != key) {  // renamed in place: reindex from scratch
      index_.clear();
      indexed_ = 0;
      return lookup(key);
    }
    return &it->second;
  }
  mutable std::unordered_map<std::string, size_t> index_;
  mutable size_t indexed_ = 0;
};

}  // namespace tir
