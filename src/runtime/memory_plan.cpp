#include "runtime/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace tir {

namespace {
size_t align_up(size_t v) { return (v + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }
bool overlaps_in_time(const LiveRange& a, const LiveRange& b) {
  return a.first <= b.last && b.first <= a.last;
}
}  // namespace

MemoryPlan plan_memory(const std::vector<LiveRange>& ranges) {
  MemoryPlan plan;
  plan.offsets.assign(ranges.size(), 0);
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return ranges[a].nbytes > ranges[b].nbytes; });
  std::vector<size_t> placed;  // indices, sorted by offset
  for (size_t idx : order) {
    const size_t size = align_up(std::max<size_t>(ranges[idx].nbytes, 1));
    size_t offset = 0;
    for (size_t p : placed) {  // placed is sorted by offset: first gap that fits wins
      if (!overlaps_in_time(ranges[idx], ranges[p])) continue;
      const size_t p_end = plan.offsets[p] + align_up(std::max<size_t>(ranges[p].nbytes, 1));
      if (offset + size <= plan.offsets[p]) break;
      offset = std::max(offset, p_end);
    }
    plan.offsets[idx] = offset;
    plan.total_bytes = std::max(plan.total_bytes, offset + size);
    auto pos = std::upper_bound(placed.begin(), placed.end(), offset,
                                [&](size_t off, size_t p) { return off < plan.offsets[p]; });
    placed.insert(pos, idx);
  }
  return plan;
}

}  // namespace tir
