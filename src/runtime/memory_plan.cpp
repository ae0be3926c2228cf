#include "runtime/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace tir {

namespace {

uint64_t align_up(uint64_t v) { return (v + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }
uint64_t slot_bytes(const LiveRange& r) { return align_up(std::max<uint64_t>(r.nbytes, 1)); }

// Placed ranges indexed by time for "which placed ranges are alive somewhere in
// [a, b]": a segment tree over steps. A range is stored in its canonical nodes
// (`cover`) and in those nodes plus all their ancestors (`inside`). A range r
// overlaps a query q iff, at a shared step, r's canonical node lies inside one
// of q's canonical nodes (found in `inside`) or strictly above one (`cover` of
// q's ancestors). Every listed range truly overlaps, so a query costs its
// answer size times the tree depth, not the number of placed ranges.
class TimeIndex {
 public:
  TimeIndex(int64_t lo, int64_t hi) : lo_(lo) {
    const size_t span = size_t(hi - lo + 1);
    while (size_ < span) size_ *= 2;
    cover_.resize(2 * size_);
    inside_.resize(2 * size_);
    mark_.resize(2 * size_, 0);
  }

  void insert(const LiveRange& r, size_t id) {
    ++stamp_;
    for_canonical(r, [&](size_t v) {
      cover_[v].push_back(id);
      for (size_t u = v; u >= 1 && mark_[u] != stamp_; u /= 2) {
        mark_[u] = stamp_;
        inside_[u].push_back(id);
      }
    });
  }

  // Calls f(id) for each placed range overlapping r (an id may repeat) until
  // f returns false; returns false then.
  template <typename F>
  bool overlapping(const LiveRange& r, F&& f) {
    ++stamp_;
    bool go = true;
    for_canonical(r, [&](size_t v) {
      for (size_t i = 0; go && i < inside_[v].size(); ++i) go = f(inside_[v][i]);
      for (size_t u = v / 2; go && u >= 1 && mark_[u] != stamp_; u /= 2) {
        mark_[u] = stamp_;
        for (size_t i = 0; go && i < cover_[u].size(); ++i) go = f(cover_[u][i]);
      }
    });
    return go;
  }

 private:
  template <typename F>
  void for_canonical(const LiveRange& r, F&& f) const {
    size_t l = size_t(r.first - lo_) + size_, h = size_t(r.last - lo_) + size_ + 1;
    for (; l < h; l /= 2, h /= 2) {
      if (l & 1) f(l++);
      if (h & 1) f(--h);
    }
  }

  int64_t lo_;
  size_t size_ = 1;
  std::vector<std::vector<size_t>> cover_, inside_;
  std::vector<uint64_t> mark_;
  uint64_t stamp_ = 0;
};

// Past this many placed ranges alive alongside a new one, it goes on top
// instead of into the lowest gap: keeps hostile graphs (40k values alive at
// once) at O(n * this) while real graphs never have that many.
constexpr size_t kMaxGapSearch = 256;

}  // namespace

MemoryPlan plan_memory(const std::vector<LiveRange>& ranges) {
  MemoryPlan plan;
  plan.offsets.assign(ranges.size(), 0);
  if (ranges.empty()) return plan;
  int64_t lo = ranges[0].first, hi = ranges[0].last;
  for (const auto& r : ranges) {
    lo = std::min(lo, r.first);
    hi = std::max(hi, std::max(r.first, r.last));
  }
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return ranges[a].nbytes > ranges[b].nbytes; });
  // Whole-span ranges overlap everything: no range can use their bytes, so they
  // go at the bottom, one after another.
  uint64_t base = 0;
  for (size_t idx : order) {
    if (ranges[idx].first != lo || ranges[idx].last != hi) continue;
    plan.offsets[idx] = base;
    base += slot_bytes(ranges[idx]);
  }
  plan.total_bytes = base;
  TimeIndex placed(lo, hi);
  std::vector<size_t> seen_at(ranges.size(), SIZE_MAX);
  std::vector<size_t> live;
  for (size_t idx : order) {
    const LiveRange& r = ranges[idx];
    if (r.first == lo && r.last == hi) continue;
    LiveRange q = r;
    q.last = std::max(q.first, q.last);
    live.clear();
    const bool all = placed.overlapping(q, [&](size_t id) {
      if (seen_at[id] == idx) return true;
      seen_at[id] = idx;
      live.push_back(id);
      return live.size() <= kMaxGapSearch;
    });
    const uint64_t size = slot_bytes(r);
    uint64_t offset = base;
    if (!all) {
      offset = plan.total_bytes;  // above everything placed: always free
    } else {
      std::sort(live.begin(), live.end(), [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
      for (size_t p : live) {  // by offset: the first gap that fits wins
        if (offset + size <= plan.offsets[p]) break;
        offset = std::max(offset, plan.offsets[p] + slot_bytes(ranges[p]));
      }
    }
    plan.offsets[idx] = offset;
    plan.total_bytes = std::max(plan.total_bytes, offset + size);
    placed.insert(q, idx);
  }
  return plan;
}

}  // namespace tir
