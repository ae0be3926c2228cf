// Static memory planning: every arena value has a lifetime [first, last] in
// step indices; values whose lifetimes do not overlap share bytes. Greedy by
// size (largest first, lowest offset that fits), as TFLite's planner does.
// Sizes and offsets are 64-bit so a hostile plan cannot wrap a 32-bit size_t
// (wasm32); the session checks total_bytes against its arena cap.
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
  std::vector<uint64_t> offsets;  // per range, aligned
  uint64_t total_bytes = 0;
};

constexpr size_t kArenaAlignment = 64;

// O(n log n) for graphs with a bounded number of values alive at once (the
// first-fit looks only at placed ranges alive at the same time, found through
// a segment tree over steps). Ranges alive for the whole span (graph inputs)
// are stacked at the bottom; a range alive with more than 256 placed ones goes
// on top of the plan without a gap search, so no input is quadratic.
MemoryPlan plan_memory(const std::vector<LiveRange>& ranges);

}  // namespace tir
