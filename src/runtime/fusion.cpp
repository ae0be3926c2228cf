// The epilogue fusion pass (runs after every op is planned, before the memory
// plan). A producer whose OpDef accepts an epilogue (conv, linear, addmm)
// takes over the chain of single-consumer nodes after it:
//   [batch_norm (eval, constant params; convolutions only)] -> [add (residual)]
//   -> [relu | hardtanh | clamp]   (in-place forms too; getitem[0] passes through)
// The covered nodes stay in the graph: they are still planned (their checks
// ran), their outputs share the producer's output memory (merged buffers), and
// at run time they are skipped while the producer's profile entry lists them.
// Off with keep_intermediates, so parity tooling compares every IR node.
#include <limits>
#include <unordered_map>

#include "runtime/session_impl.h"

namespace tir {

namespace {

const std::string kGetitem = "<built-in function getitem>";

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// Name of the value a step's input i reads.
std::string input_value_name(const std::unordered_map<std::string, const OpNode*>& node_by_name, const Step& step,
                             size_t i) {
  const TensorMeta& m = step.node->inputs[i];
  if (!m.has_producer()) return m.name;
  auto it = node_by_name.find(m.producer_node);
  if (it == node_by_name.end()) return m.producer_node;  // a graph input
  return it->second->outputs.at(size_t(m.producer_output_idx)).name;
}

struct Use {
  size_t step;
  size_t input;
};

bool scalar_attr(const OpCall& c, const char* name, double def, double* out) {
  const Attr* a = c.attr(name);
  if (!a) {
    *out = def;
    return true;
  }
  if (!a->is_number()) return false;
  *out = a->as_double();
  return true;
}

}  // namespace

void Session::Impl::fuse_epilogues() {
  if (options.keep_intermediates || !options.fusion) return;
  // Every read of every value (getitem reads only the element it selects).
  std::unordered_map<std::string, std::vector<Use>> uses;
  for (size_t si = 0; si < steps.size(); ++si) {
    const Step& st = *steps[si];
    if (st.node->op_type == kGetitem) {
      const int64_t idx = st.call.i("index", 0);
      if (idx >= 0 && size_t(idx) < st.node->inputs.size())
        uses[input_value_name(node_by_name, st, size_t(idx))].push_back({si, size_t(idx)});
      continue;
    }
    for (size_t i = 0; i < st.node->inputs.size(); ++i) uses[input_value_name(node_by_name, st, i)].push_back({si, i});
  }
  std::unordered_map<std::string, bool> is_graph_output;
  for (const auto& go : model.graph_outputs) is_graph_output[go.name] = true;
  std::unordered_map<const Buffer*, size_t> first_writer;  // buffer -> step that first defines it
  for (size_t si = 0; si < steps.size(); ++si)
    for (const auto& t : steps[si]->call.out)
      if (t.defined()) first_writer.emplace(t.buffer.get(), si);

  // The single step reading `value`, or null.
  auto sole_reader = [&](const std::string& value) -> const Use* {
    if (is_graph_output.count(value)) return nullptr;
    auto it = uses.find(value);
    if (it == uses.end() || it->second.size() != 1) return nullptr;
    return &it->second[0];
  };
  auto unused = [&](const std::string& value) { return !uses.count(value) && !is_graph_output.count(value); };

  for (size_t pi = 0; pi < steps.size(); ++pi) {
    Step& P = *steps[pi];
    if (P.covered || P.dynamic || !P.def->accepts_epilogue || P.call.out.size() != 1) continue;
    const Tensor& y = P.call.out[0];
    if (y.dtype != DType::F32 || y.buffer->kind != Buffer::Kind::Arena || !y.is_contiguous()) continue;
    const bool conv = P.node->op_type.find("conv") != std::string::npos;
    FusedEpilogue& e = P.call.epilogue;
    std::string cur = P.node->outputs[0].name;
    bool have_residual = false;
    while (const Use* u = sole_reader(cur)) {
      Step& Q = *steps[u->step];
      if (Q.dynamic) break;  // re-planned per run when sizes change: kept apart
      const std::string& op = Q.node->op_type;
      if (op == kGetitem) {  // a view of the element: follow it
        cur = Q.node->outputs[0].name;
        continue;
      }
      if (u->input != 0 && !starts_with(op, "aten.add")) break;
      const Tensor& qy = Q.call.out.empty() ? Tensor{} : Q.call.out[0];
      if (!qy.defined() || qy.shape != y.shape || qy.dtype != y.dtype || !qy.is_contiguous()) break;
      bool take = false, ends = false;
      if ((op == "aten.batch_norm.default" || op == "aten.native_batch_norm.default" ||
           op == "aten._native_batch_norm_legit_no_training.default") &&
          conv && e.empty() && y.dim() >= 2 && P.call.is_constant(1) &&
          (P.call.in.size() < 3 || P.call.is_constant(2))) {
        const bool training = op != "aten._native_batch_norm_legit_no_training.default" && Q.call.b("training", false);
        bool params_ok = Q.call.in.size() == 5 && Q.call.is_constant(3) && Q.call.is_constant(4);
        for (size_t k = 1; k < Q.call.in.size() && params_ok; ++k)
          params_ok = Q.call.is_constant(k) && Q.call.in[k].dim() == 1 && Q.call.in[k].shape[0] == y.shape[1] &&
                      Q.call.in[k].dtype == DType::F32;
        bool extra_unused = true;
        for (size_t k = 1; k < Q.node->outputs.size(); ++k) extra_unused &= unused(Q.node->outputs[k].name);
        if (!training && params_ok && extra_unused) {
          e.has_bn = true;
          e.bn_weight = Q.call.in[1];
          e.bn_bias = Q.call.in[2];
          e.bn_mean = Q.call.in[3];
          e.bn_var = Q.call.in[4];
          e.bn_eps = Q.call.f("eps", 1e-5);
          take = true;
        }
      } else if ((op == "aten.add.Tensor" || op == "aten.add_.Tensor") && !have_residual &&
                 e.act == FusedEpilogue::Act::None && Q.call.in.size() == 2) {
        double alpha = 1;
        const Tensor& r = Q.call.in[1 - u->input];
        // In-place add writes its first operand: that must be our chain.
        const bool inplace_ok = op == "aten.add.Tensor" || u->input == 0;
        // The residual must exist before the producer runs and be left alone until the add.
        auto w = first_writer.find(r.buffer.get());
        const bool ready = r.buffer->kind != Buffer::Kind::Arena || (w != first_writer.end() && w->second < pi);
        // Scanning for writers is linear in the distance: far-apart pairs (a
        // hostile graph's, never a real residual's) are simply not fused.
        bool untouched = u->step - pi <= 4096;
        for (size_t si = pi + 1; si < u->step && untouched; ++si)
          for (const auto& t : steps[si]->call.out) untouched &= !t.defined() || t.buffer != r.buffer;
        if (inplace_ok && scalar_attr(Q.call, "alpha", 1, &alpha) && alpha == 1 && r.shape == y.shape &&
            r.dtype == y.dtype && r.is_contiguous() && r.buffer != y.buffer && ready && untouched) {
          e.residual = r;
          have_residual = true;
          take = true;
        }
      } else if (op == "aten.relu.default" || op == "aten.relu_.default") {
        e.act = FusedEpilogue::Act::Relu;
        take = ends = true;
      } else if (op == "aten.hardtanh.default" || op == "aten.hardtanh_.default" || op == "aten.clamp.default" ||
                 op == "aten.clamp_.default") {
        const bool ht = starts_with(op, "aten.hardtanh");
        double lo, hi;
        const double inf = std::numeric_limits<double>::infinity();
        if (scalar_attr(Q.call, ht ? "min_val" : "min", ht ? -1.0 : -inf, &lo) &&
            scalar_attr(Q.call, ht ? "max_val" : "max", ht ? 1.0 : inf, &hi) && lo <= hi) {
          e.act = FusedEpilogue::Act::Clamp;
          e.lo = lo;
          e.hi = hi;
          take = ends = true;
        }
      }
      if (!take) break;
      Q.covered = true;
      e.covers.push_back(Q.node->name);
      if (qy.buffer != y.buffer) merged_buffers.emplace_back(qy.buffer.get(), y.buffer.get());
      cur = Q.node->outputs[0].name;
      if (ends) break;
    }
  }
}

}  // namespace tir
