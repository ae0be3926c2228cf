#include "ir/float64.h"

#include <unordered_set>
#include <vector>

namespace tir {

namespace {

DType wider(DType d) { return d == DType::F32 ? DType::F64 : d == DType::C64 ? DType::C128 : d; }
bool promotable(DType d) { return d == DType::F32 || d == DType::C64; }

// torch.float32 -> torch.float64 (and complex64) in a string attr, lists included; true if any.
bool widen_attr(Attr& a) {
  if (a.kind == Attr::Kind::String) {
    if (a.s == "torch.float32" || a.s == "float32") return a.s = "torch.float64", true;
    if (a.s == "torch.complex64" || a.s == "complex64") return a.s = "torch.complex128", true;
    return false;
  }
  bool any = false;
  if (a.kind == Attr::Kind::List)
    for (Attr& x : a.list) any = widen_attr(x) || any;
  return any;
}

}  // namespace

Model promote_to_float64(const Model& model) {
  Model m = model;
  std::unordered_set<std::string> promoted;  // tensor names now float64
  auto promote = [&](TensorMeta& t) {
    if (!promotable(t.dtype)) return;
    t.dtype = wider(t.dtype);
    promoted.insert(t.name);
  };
  for (TensorMeta& t : m.graph_inputs) promote(t);
  for (TensorMeta& t : m.weights) promote(t);
  for (auto& kv : m.constants) kv.second.dtype = wider(kv.second.dtype);
  for (const auto& kv : m.weight_name_mapping)
    if (promoted.count(kv.second)) promoted.insert(kv.first);  // placeholders read the weight's dtype
  std::vector<OpNode> nodes;
  nodes.reserve(m.nodes.size());
  for (OpNode& n : m.nodes) {
    // A bit view (view.dtype) reads and makes the dtypes it names: a promoted input is cast back
    // first, and its output stays as it is.
    if (n.op_type == "aten.view.dtype") {
      if (n.inputs.empty() || !promoted.count(n.inputs[0].name)) {
        nodes.push_back(std::move(n));
        continue;
      }
      OpNode cast;
      cast.name = n.name + ".float32";
      cast.op_type = "aten._to_copy.default";
      TensorMeta in = n.inputs[0];
      in.dtype = wider(in.dtype);
      cast.inputs = {in};
      TensorMeta out = n.inputs[0];
      out.name = cast.name;
      out.producer_node = cast.name;
      out.producer_output_idx = 0;
      cast.outputs = {out};
      cast.outputs[0].producer_node.clear();
      cast.attrs["dtype"] = Attr::of_string(in.dtype == DType::C128 ? "torch.complex64" : "torch.float32");
      n.inputs[0] = out;
      nodes.push_back(std::move(cast));
      nodes.push_back(std::move(n));
      continue;
    }
    bool reads_promoted = false;
    for (TensorMeta& t : n.inputs)
      if (promoted.count(t.name) || (!t.has_producer() && promotable(t.dtype))) {
        t.dtype = wider(t.dtype);
        reads_promoted = true;
      }
    bool names_dtype = false;
    for (auto& kv : n.attrs) names_dtype = widen_attr(kv.second) || names_dtype;
    bool makes_float32 = false;
    for (const TensorMeta& t : n.outputs) makes_float32 = makes_float32 || promotable(t.dtype);
    auto dtype = n.attrs.find("dtype");
    const bool default_dtype = dtype == n.attrs.end() || dtype->second.is_none();
    if (!reads_promoted && !names_dtype && makes_float32 && default_dtype && n.attrs.count("device")) {
      n.attrs["dtype"] = Attr::of_string("torch.float64");  // a creation op (full, ones, eye, ...)
      names_dtype = true;
    }
    if (reads_promoted || names_dtype)
      for (TensorMeta& t : n.outputs) promote(t);
    nodes.push_back(std::move(n));
  }
  m.nodes = std::move(nodes);
  for (TensorMeta& t : m.graph_outputs)
    if (promoted.count(t.name)) t.dtype = wider(t.dtype);
  return m;
}


size_t float32_values_left(const Model& promoted) {
  size_t n = 0;
  for (const OpNode& node : promoted.nodes)
    for (const TensorMeta& t : node.outputs)
      if (promotable(t.dtype) && node.op_type != "aten._to_copy.default") ++n;
  return n;
}

}  // namespace tir
