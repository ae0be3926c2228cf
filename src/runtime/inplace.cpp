// The in-place pass (after fusion, before the memory plan). An out-of-place op
// that rewrites a region of its first input (OpCall::rewrites_self: index_copy,
// index_put, scatter, slice_scatter, ...) normally copies all of self into a
// fresh output first. When self is a whole buffer that nothing touches after
// this step (and that is not a graph output), the output is planned in self's
// memory instead (a merged buffer, as fusion does) and the copy disappears.
// A graph input qualifies too: its slot is donated to the output, which is
// what makes a static KV-cache decode step cost O(one token) — see
// Session::carry for feeding the updated cache to the next run.
#include <unordered_map>
#include <unordered_set>

#include "runtime/session_impl.h"

namespace tir {

void Session::Impl::update_in_place() {
  if (options.keep_intermediates || !options.update_in_place) return;
  AliasClasses& aliases = graph.aliases();
  auto root = [&](Buffer* b) { return aliases.root(b); };
  // Last step touching each (root) buffer, and which buffers a graph output uses.
  std::unordered_map<Buffer*, int64_t> last_touch;
  std::unordered_map<Buffer*, int> touches_at_last;  // how many tensors touch it at that step
  auto touch = [&](const Tensor& t, int64_t s) {
    if (!t.defined()) return;
    Buffer* b = root(t.buffer.get());
    auto it = last_touch.find(b);
    if (it == last_touch.end() || it->second < s) {
      last_touch[b] = s;
      touches_at_last[b] = 1;
    } else if (it->second == s) {
      ++touches_at_last[b];
    }
  };
  for (size_t s = 0; s < steps.size(); ++s) {
    const OpCall& c = steps[s]->call;
    for (const auto& t : c.in) touch(t, int64_t(s));
    for (const auto& t : c.out) touch(t, int64_t(s));
    touch(c.epilogue.residual, int64_t(s));
  }
  std::unordered_set<Buffer*> output_buffers;
  for (const auto& t : outputs) output_buffers.insert(root(t.buffer.get()));

  for (size_t s = 0; s < steps.size(); ++s) {
    Step& st = *steps[s];
    OpCall& c = st.call;
    if (!c.rewrites_self || st.covered || c.in.empty() || c.out.empty()) continue;
    const Tensor &self = c.in[0], &out = c.out[0];
    if (!self.defined() || !out.defined() || out.buffer->kind != Buffer::Kind::Arena) continue;
    if (root(out.buffer.get()) != out.buffer.get()) continue;  // already shares memory
    Buffer* sb = root(self.buffer.get());
    if (sb->kind != Buffer::Kind::Arena && sb->kind != Buffer::Kind::Input) continue;
    // self must be the whole buffer, laid out exactly as the output.
    if (self.offset != 0 || !self.is_contiguous() || self.dtype != out.dtype || self.shape != out.shape ||
        self.nbytes() != sb->nbytes)
      continue;
    // Nothing else may read or write self's memory at or after this step: the
    // only touches at step s are self (in[0]) and the output (a different buffer).
    auto lt = last_touch.find(sb);
    if (lt == last_touch.end() || lt->second != int64_t(s) || touches_at_last[sb] != 1) continue;
    if (output_buffers.count(sb)) continue;
    aliases.merge(out.buffer.get(), sb);
    // Later steps that touch the output now touch self's buffer.
    auto ot = last_touch.find(out.buffer.get());
    if (ot != last_touch.end()) {
      last_touch[sb] = ot->second;
      touches_at_last[sb] = touches_at_last[out.buffer.get()];
    }
    if (output_buffers.erase(out.buffer.get())) output_buffers.insert(sb);
  }
}

}  // namespace tir
