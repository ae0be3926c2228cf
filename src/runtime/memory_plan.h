// Static memory planning: every arena value has a lifetime [first, last] in
// step indices; values whose lifetimes do not overlap share bytes. Greedy by
// size (largest first, lowest offset that fits), as TFLite's planner does.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tir {

struct LiveRange {
  size_t nbytes = 0;
  int64_t first = 0;  // step that defines it (-1: before the first step)
  int64_t last = 0;   // last step that reads or writes it (inclusive)
};

struct MemoryPlan {
  std::vector<size_t> offsets;  // per range, aligned
  size_t total_bytes = 0;
};

constexpr size_t kArenaAlignment = 64;

MemoryPlan plan_memory(const std::vector<LiveRange>& ranges);

}  // namespace tir
