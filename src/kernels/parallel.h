// Grain sizes for parallel_for in the kernels: a task should carry enough
// work to pay for waking a thread (~10 us), so small tensors stay on one thread.
#pragma once
#include <algorithm>
#include <cstdint>

#include "core/thread_pool.h"

namespace tir {

// Rough scalar operations (multiply-adds, element visits) one task should do.
constexpr int64_t kMinTaskWork = int64_t(1) << 17;

// The grain, in items, for items that each cost `cost_per_item` operations.
inline int64_t grain_for(int64_t cost_per_item) {
  return std::max<int64_t>(1, kMinTaskWork / std::max<int64_t>(cost_per_item, 1));
}

}  // namespace tir
