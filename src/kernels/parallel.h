// Grain sizes for parallel_for in the kernels: a task should carry enough
// work to pay for waking a thread (~10 us), so small tensors stay on one thread.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/thread_pool.h"

namespace tir {

// Rough scalar operations (multiply-adds, element visits) one task should do.
constexpr int64_t kMinTaskWork = int64_t(1) << 17;

// The grain, in items, for items that each cost `cost_per_item` operations.
inline int64_t grain_for(int64_t cost_per_item) {
  return std::max<int64_t>(1, kMinTaskWork / std::max<int64_t>(cost_per_item, 1));
}

// Chunk count for parallel_for_chunks: a few chunks per thread, each still
// carrying about kMinTaskWork operations (1: run inline).
inline int64_t chunks_for(int64_t items, int64_t cost_per_item) {
  const int64_t by_work = items * std::max<int64_t>(cost_per_item, 1) / kMinTaskWork;
  return std::max<int64_t>(1, std::min<int64_t>(4 * num_threads(), by_work));
}

// Grow-only per-thread scratch (a thread_local vector of the kernel): after
// the first run of a shape no kernel allocates.
inline float* scratch(std::vector<float>& v, int64_t n) {
  if (int64_t(v.size()) < n) v.resize(size_t(n));
  return v.data();
}

}  // namespace tir
