// The epilogue fusion pass (runs after every op is planned, before the memory
// plan), over op traits (OpTraits::epilogue). A Producer (conv, linear,
// addmm) takes over the chain of single-consumer nodes after it:
//   [BatchNorm (eval, constant params; producers that fold it)] -> [Residual add]
//   -> [Activation]   (a tuple access, getitem, passes through, and so does a view that shows
//                       the same elements in the same order: a reshape, a transpose of a size-1
//                       dim, an eval dropout; past one, only the residual and activation apply)
// What each covered node contributes (clamp bounds, eps, alpha) its own op
// file says (OpTraits::epilogue_part); this pass checks only the graph:
// single readers, shapes, constants, and that a residual is ready.
// The covered nodes stay in the graph: they are still planned (their checks
// ran), their outputs share the producer's output memory (merged alias
// classes), and at run time they are skipped while the producer's profile
// entry lists them. Off with keep_intermediates, so parity tooling compares
// every IR node.
#include <unordered_map>

#include "runtime/session_impl.h"

namespace tir {

namespace {
// Whether step s is a view as planned: it writes nothing (OpTraits::view_when_aliased).
bool is_view(const Step& s) {
  return !s.def->run || (s.def->traits.view_when_aliased && !s.call.in.empty() && !s.call.out.empty() &&
                         s.call.out[0].defined() && s.call.out[0].same_storage(s.call.in[0]));
}
}  // namespace

void Session::Impl::fuse_epilogues() {
  if (options.keep_intermediates || !options.fusion) return;
  std::unordered_map<const Buffer*, size_t> first_writer;  // buffer -> step that first defines it
  for (size_t si = 0; si < steps.size(); ++si)
    for (const auto& t : steps[si]->call.out)
      if (t.defined()) first_writer.emplace(t.buffer.get(), si);
  auto unused = [&](ValueId v) { return graph.value(v).uses.empty() && !graph.value(v).graph_output; };

  for (size_t pi = 0; pi < steps.size(); ++pi) {
    Step& P = *steps[pi];
    const OpTraits& pt = P.def->traits;
    if (P.covered || P.dynamic || P.folded || pt.epilogue != EpilogueRole::Producer || P.call.out.size() != 1)
      continue;
    const Tensor& y = P.call.out[0];
    if (y.dtype != DType::F32 || y.buffer->kind != Buffer::Kind::Arena || !y.is_contiguous()) continue;
    FusedEpilogue& e = P.call.epilogue;
    ValueId cur = graph.outputs(pi)[0];
    bool have_residual = false;
    bool same_shape = true;  // no view passed yet: a batch norm's channels are y's dim 1
    while (const Use* u = graph.sole_use(cur)) {
      Step& Q = *steps[size_t(u->step)];
      if (Q.dynamic) break;  // re-planned per run when sizes change: kept apart
      const OpTraits& qt = Q.def->traits;
      if (qt.reads_selected_input) {  // a view of the element: follow it
        cur = graph.outputs(size_t(u->step))[0];
        continue;
      }
      const Tensor& qy = Q.call.out.empty() ? Tensor{} : Q.call.out[0];
      if (is_view(Q) && Q.call.out.size() == 1 && qy.defined() && qy.is_contiguous() && qy.offset == y.offset &&
          qy.numel() == y.numel() && qy.dtype == y.dtype && graph.aliases().root(qy.buffer.get()) ==
                                                                  graph.aliases().root(y.buffer.get())) {
        // A view of the same elements in the same order: the epilogue's flat indices still hold.
        cur = graph.outputs(size_t(u->step))[0];
        same_shape = same_shape && qy.shape == y.shape;
        continue;
      }
      if (u->input != 0 && qt.epilogue != EpilogueRole::Residual) break;
      if (!qy.defined() || qy.numel() != y.numel() || qy.dtype != y.dtype || !qy.is_contiguous()) break;
      EpiloguePart part;
      if (!qt.epilogue_part || !qt.epilogue_part(Q.call, &part)) break;
      bool take = false, ends = false;
      if (qt.epilogue == EpilogueRole::BatchNorm && pt.folds_batch_norm && e.empty() && same_shape && y.dim() >= 2 &&
          P.call.is_constant(1) && (P.call.in.size() < 3 || P.call.is_constant(2))) {
        bool params_ok = Q.call.in.size() == 5;
        for (size_t k = 1; k < Q.call.in.size() && params_ok; ++k)
          params_ok = Q.call.is_constant(k) && Q.call.in[k].dim() == 1 && Q.call.in[k].shape[0] == y.shape[1] &&
                      Q.call.in[k].dtype == DType::F32;
        bool extra_unused = true;
        for (size_t k = 1; k < graph.outputs(size_t(u->step)).size(); ++k)
          extra_unused &= unused(graph.outputs(size_t(u->step))[k]);
        if (params_ok && extra_unused) {
          e.has_bn = true;
          e.bn_weight = Q.call.in[1];
          e.bn_bias = Q.call.in[2];
          e.bn_mean = Q.call.in[3];
          e.bn_var = Q.call.in[4];
          e.bn_eps = part.bn_eps;
          // Its values come at prepare (Session::Impl::prepare_bn_affine); to the GPU plan it is
          // a constant weight, uploaded once.
          e.bn_affine = make_unplanned(DType::F32, {2, y.shape[1]}, P.node->name + ".bn_affine");
          e.bn_affine.buffer->kind = Buffer::Kind::Weight;
          take = true;
        }
      } else if (qt.epilogue == EpilogueRole::Residual && !have_residual && e.act == FusedEpilogue::Act::None &&
                 Q.call.in.size() == 2) {
        const Tensor& r = Q.call.in[size_t(1 - u->input)];
        // An in-place add writes its first operand: that must be our chain.
        const bool inplace_ok = qy.buffer != Q.call.in[0].buffer || u->input == 0;
        // The residual must exist before the producer runs and be left alone until the add.
        auto w = first_writer.find(r.buffer.get());
        const bool ready = r.buffer->kind != Buffer::Kind::Arena || (w != first_writer.end() && w->second < pi);
        // Scanning for writers is linear in the distance: far-apart pairs (a
        // hostile graph's, never a real residual's) are simply not fused.
        bool untouched = size_t(u->step) - pi <= 4096;
        for (size_t si = pi + 1; si < size_t(u->step) && untouched; ++si)
          for (const auto& t : steps[si]->call.out)  // a view writes nothing
            untouched &= !t.defined() || t.buffer != r.buffer || is_view(*steps[si]);
        if (inplace_ok && r.shape == qy.shape && r.dtype == y.dtype && r.is_contiguous() && r.buffer != y.buffer &&
            ready && untouched) {
          e.residual = r;
          have_residual = true;
          take = true;
        }
      } else if (qt.epilogue == EpilogueRole::Activation) {
        e.act = part.act;
        e.lo = part.lo;
        e.hi = part.hi;
        e.unary = part.unary;
        take = ends = true;
      }
      if (!take) break;
      Q.covered = true;
      e.covers.push_back(Q.node->name);
      if (qy.buffer != y.buffer) graph.aliases().merge(qy.buffer.get(), y.buffer.get());
      cur = graph.outputs(size_t(u->step))[0];
      if (ends) break;
    }
  }
}

}  // namespace tir
