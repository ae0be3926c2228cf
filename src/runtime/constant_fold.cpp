// The constant-folding pass (compile, after the dynamic region is known and
// before the constant inputs are marked). A step is folded when its op is
// constant-foldable (OpTraits::constant_foldable), it runs (not a pure view),
// every input is a constant (an unwritten weight/buffer/lifted constant or a
// folded value), and its outputs are fresh values that no node writes in
// place. Its outputs then get memory of their own outside the arena (held as
// constants, Buffer::Kind::Weight, so readers see them as constant operands and
// may pack them at prepare); prepare runs the step once, before the steps
// after it are prepared; a run skips it (the profile lists it as folded).
// The IR node keeps its name: intermediates and parity read its value as usual.
#include <unordered_set>

#include "runtime/session_impl.h"

namespace tir {

void Session::Impl::fold_constants() {
  if (!options.fold_constants) return;
  // Memory some node writes in place (its first operand): never constant.
  std::unordered_set<const Buffer*> written;
  for (const auto& step : steps)
    if (is_inplace_op(step->node->op_type) && !step->call.in.empty() && step->call.in[0].defined())
      written.insert(step->call.in[0].buffer.get());
  auto constant = [&](const Tensor& t) {
    return !t.defined() || (t.buffer->kind == Buffer::Kind::Weight && !written.count(t.buffer.get()));
  };
  for (auto& sp : steps) {
    Step& step = *sp;
    OpCall& c = step.call;
    if (!step.def->traits.constant_foldable || !step.def->run || step.dynamic || c.data_dependent) continue;
    bool fold = true;
    for (const auto& t : c.in) fold = fold && constant(t);
    for (const auto& t : c.out) {
      if (!fold) break;
      bool of_input = false;
      for (const auto& in : c.in) of_input = of_input || (in.defined() && in.buffer == t.buffer);
      fold = t.defined() && !of_input && t.buffer->kind == Buffer::Kind::Arena && !written.count(t.buffer.get());
    }
    if (!fold) continue;
    constexpr size_t kAlign = 64;
    for (const auto& t : c.out) {
      Buffer& b = *t.buffer;
      if (b.data) continue;  // a second view of an output already placed
      b.kind = Buffer::Kind::Weight;
      b.owned.assign(b.nbytes + kAlign, 0);  // nbytes is within the session's limits
      uint8_t* p = b.owned.data();
      b.data = p + (kAlign - reinterpret_cast<uintptr_t>(p) % kAlign) % kAlign;
      folded_bytes += b.owned.size();
    }
    step.folded = true;
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
