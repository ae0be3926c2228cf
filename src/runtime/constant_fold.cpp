// The constant-folding pass (compile, after the dynamic region is known and
// before the constant inputs are marked). A step is folded when its op is
// constant-foldable (OpTraits::constant_foldable), it runs (not a pure view),
// every input is a constant (an unwritten weight/buffer/lifted constant or a
// folded value), and its outputs are fresh values that no node writes in
// place, unless the value and its in-place writers fold as one group: an in-place op with
// the trait folds only that way. Its outputs then get memory of their own outside the arena
// (held as constants, Buffer::Kind::Weight, so readers see them as constant operands and
// may pack them at prepare); prepare runs the step once, before the steps
// after it are prepared; a run skips it (the profile lists it as folded).
// The IR node keeps its name: intermediates and parity read its value as usual.
#include <unordered_set>

#include "runtime/session_impl.h"

namespace tir {

void Session::Impl::fold_constants() {
  if (!options.fold_constants) return;
  // Memory some node writes in place (its first operand): never constant, unless the value
  // and all its writers fold as one group (below).
  std::unordered_set<const Buffer*> written;
  for (const auto& step : steps)
    if (is_inplace_op(step->node->op_type) && !step->call.in.empty() && step->call.in[0].defined())
      written.insert(step->call.in[0].buffer.get());
  auto constant = [&](const Tensor& t) {
    return !t.defined() || (t.buffer->kind == Buffer::Kind::Weight && !written.count(t.buffer.get()));
  };
  auto runs_foldable = [](const Step& step) {
    return step.def->traits.constant_foldable && step.def->run && !step.dynamic && !step.call.data_dependent &&
           !step.folded && !step.covered;  // covered: taken over by another step (never run)
  };
  auto give_memory = [&](const Tensor& t) {
    constexpr size_t kAlign = 64;
    Buffer& b = *t.buffer;
    if (b.data) return;  // a second view of an output already placed
    b.kind = Buffer::Kind::Weight;
    b.owned.assign(b.nbytes + kAlign, 0);  // nbytes is within the session's limits
    uint8_t* p = b.owned.data();
    b.data = p + (kAlign - reinterpret_cast<uintptr_t>(p) % kAlign) % kAlign;
    folded_bytes += b.owned.size();
  };
  // The in-place writers of `b` after step `first`, when the value b (produced by `first`) and
  // those writers can fold together: every later step that touches b is first such a writer
  // (a foldable op, its other operands constant now, no workspace), then only readers, so no
  // step that runs reads b before its last write. T5's relative-position buckets are one:
  // add_1 = mul_3 + 0, then add_(add_1, where(...)).
  auto in_place_group = [&](size_t first, const Buffer* b, std::vector<Step*>* writers) {
    bool reading = false;
    for (size_t j = first + 1; j < steps.size(); ++j) {
      Step& w = *steps[j];
      bool touches = false;
      for (const auto& t : w.call.in) touches = touches || (t.defined() && t.buffer.get() == b);
      if (!touches || !w.def->run) continue;  // a view reads nothing
      const bool writes = is_inplace_op(w.node->op_type) && w.call.in[0].defined() && w.call.in[0].buffer.get() == b;
      if (!writes) {
        reading = true;
        continue;
      }
      if (reading || !runs_foldable(w) || !w.call.workspace.empty()) return false;
      for (size_t k = 1; k < w.call.in.size(); ++k)
        if (!constant(w.call.in[k]) || (w.call.in[k].defined() && w.call.in[k].buffer.get() == b)) return false;
      writers->push_back(&w);
    }
    return !writers->empty();
  };
  // Folding can make another value constant that an earlier group was waiting for (T5's where
  // folds after add_1 is first met): scan again while groups were deferred and something folded.
  for (int pass = 0; pass < 4; ++pass) {
    bool folded_any = false, deferred = false;
    for (size_t i = 0; i < steps.size(); ++i) {
      Step& step = *steps[i];
      OpCall& c = step.call;
      if (!runs_foldable(step) || is_inplace_op(step.node->op_type)) continue;
      bool fold = true;
      for (const auto& t : c.in) fold = fold && constant(t);
      std::vector<Step*> writers;
      const Buffer* grouped = nullptr;
      for (const auto& t : c.out) {
        if (!fold) break;
        bool of_input = false;
        for (const auto& in : c.in) of_input = of_input || (in.defined() && in.buffer == t.buffer);
        fold = t.defined() && !of_input && t.buffer->kind == Buffer::Kind::Arena;
        if (fold && written.count(t.buffer.get())) {
          fold = c.out.size() == 1 && in_place_group(i, t.buffer.get(), &writers);
          deferred = deferred || !fold;
          grouped = t.buffer.get();
        }
      }
      if (!fold) continue;
      for (const auto& t : c.out) give_memory(t);
      step.folded = true;
      for (Step* w : writers) w->folded = true;
      if (grouped) written.erase(grouped);
      folded_any = true;
    }
    if (!folded_any || !deferred) break;
  }
}

void Session::Impl::run_folded(Step& step) {
  running = step.node;
  try {
    if (step.def->prepare) {
      step.call.prepare_ctx = derived_cache.get();
      step.def->prepare(step.call);
      step.call.prepare_ctx = nullptr;
    }
    step.def->run(step.call);
  } catch (const ExecutionError& e) {
    rethrow_naming_node(e, *step.node);
  }
  running = nullptr;
}

}  // namespace tir
