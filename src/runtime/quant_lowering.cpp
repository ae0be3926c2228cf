// The quantization lowering pass (compile, after the dynamic region is known and before
// constant folding), over op traits (OpTraits::quant_role, describe_quant, quantized_form).
// PyTorch's quantization flows leave the float ops in the graph between quantize /
// dequantize nodes (PT2E's Q/DQ form). Where an op with an integer form (linear) reads
//   activation:  dequantize_per_tensor(quantize_per_tensor(x, s, z))   with static (s, z), or
//                (s, z) = choose_qparams.tensor(x) through getitem (PT2E dynamic), and
//   weight:      dequantize_per_channel(W int8 constant, axis 0) or dequantize_per_tensor(W),
// (and the same around conv2d with an OIHW weight) the step switches to that integer form,
// reading x and W themselves (OpCall::quantized says how to quantize x and which scales W has).
// torchao's 8da4w pattern around linear,
//   activation:  dequantize_affine(qa, per row)   (qa from torchao's per-token quantize_affine)
//   weight:      dequantize_affine(W int8 constant of a 4-bit range, groups of G along k),
// switches it to the grouped form, which reads qa, its row scales and zero points (the choose
// and quantize steps keep running) and W. Quantization nodes that no remaining step reads are
// then covered (skipped at run, never folded: no float copy of W is made). Anything else keeps
// running on the reference ops. The IR node names stay: the linear's profile entry is the
// linear's. Off with keep_intermediates (parity compares every node).
#include <limits>
#include <set>
#include <unordered_set>
#include <utility>

#include "runtime/session_impl.h"

namespace tir {

namespace {
using Granularity = QuantDesc::Granularity;

// Switches step L to the integer `form` with `call` (which reads its quantized operands itself)
// when the form's plan accepts it; a call it refuses keeps the reference path.
bool switch_step(Step& L, OpCall call, const OpDef* form, QuantizedOperands ops) {
  call.workspace.clear();
  call.state.reset();
  call.quantized = std::make_shared<const QuantizedOperands>(std::move(ops));
  try {
    form->plan(call);
  } catch (const std::exception&) {
    return false;
  }
  L.call = std::move(call);
  L.def = form;
  L.lowered = true;
  return true;
}
}  // namespace

void Session::Impl::lower_quantized() {
  if (options.keep_intermediates || !options.lower_quantized) return;
  auto producer = [&](ValueId v) -> int64_t {
    if (v == kNoValue) return -1;
    const GraphValue& gv = graph.value(v);
    return gv.kind == GraphValue::Kind::NodeOutput ? gv.producer_step : -1;
  };
  auto describe = [&](int64_t si, QuantRole role, QuantDesc* d) {
    if (si < 0) return false;
    const Step& s = *steps[size_t(si)];
    const OpTraits& t = s.def->traits;
    return !s.dynamic && t.quant_role == role && t.describe_quant && t.describe_quant(s.call, d);
  };
  auto is_weight = [&](ValueId v) { return v != kNoValue && graph.value(v).kind == GraphValue::Kind::Weight; };
  // The choose_qparams step behind a getitem of its output `index` (a tuple access), or -1.
  auto choose_behind = [&](ValueId v, size_t index) -> int64_t {
    const int64_t gi = producer(v);
    if (gi < 0 || !steps[size_t(gi)]->def->traits.reads_selected_input) return -1;
    const Step& g = *steps[size_t(gi)];
    const int64_t ci = producer(graph.input(size_t(gi), 0));
    if (ci < 0) return -1;
    const Step& c = *steps[size_t(ci)];
    if (index >= c.call.out.size() || g.call.out.empty() || !g.call.out[0].same_storage(c.call.out[index])) return -1;
    return ci;
  };

  std::set<std::pair<int32_t, int32_t>> rewired;  // (step, input) edges the lowering replaced
  auto lower = [&](size_t li, OpCall call, const OpDef* form, QuantizedOperands ops) {
    if (!switch_step(*steps[li], std::move(call), form, std::move(ops))) return false;
    rewired.insert({int32_t(li), 0});
    rewired.insert({int32_t(li), 1});
    return true;
  };
  // torchao's 8da4w: linear(DQ_rows(qa, sa, za), DQ_groups(W, s, z)) -> the grouped form.
  auto lower_grouped = [&](size_t li) {
    Step& L = *steps[li];
    if (!L.def->traits.grouped_quantized_form) return false;
    const int64_t dai = producer(graph.input(li, 0)), dwi = producer(graph.input(li, 1));
    QuantDesc da, dw;
    if (!describe(dai, QuantRole::Dequantize, &da) || !describe(dwi, QuantRole::Dequantize, &dw)) return false;
    const Step &DA = *steps[size_t(dai)], &DW = *steps[size_t(dwi)];
    const Tensor &qa = DA.call.in[0], &w = DW.call.in[0];
    if (da.row_group <= 0 || qa.dim() < 1 || da.row_group != qa.shape.back() || da.static_params ||
        da.scale_input < 0 || (da.qdtype != DType::I8 && da.qdtype != DType::U8) ||
        DA.node->inputs[size_t(da.scale_input)].dtype != DType::F32)
      return false;
    if (dw.row_group <= 0 || dw.static_params || dw.scale_input < 0 || dw.qdtype != DType::I8 ||
        dw.qmax - dw.qmin > 15 || !is_weight(graph.input(size_t(dwi), 0)) || w.dtype != DType::I8 || w.dim() != 2 ||
        !is_weight(graph.input(size_t(dwi), size_t(dw.scale_input))) ||
        DW.node->inputs[size_t(dw.scale_input)].dtype != DType::F32 ||
        (dw.zero_point_input >= 0 && !is_weight(graph.input(size_t(dwi), size_t(dw.zero_point_input)))))
      return false;
    QuantizedOperands ops;
    ops.weight_group = dw.row_group;
    ops.weight_qmin = dw.qmin;
    ops.weight_qmax = dw.qmax;
    ops.weight_scale = DW.call.in[size_t(dw.scale_input)];
    if (dw.zero_point_input >= 0) ops.weight_zero_point = DW.call.in[size_t(dw.zero_point_input)];
    OpCall call = L.call;
    std::vector<Tensor> in = {qa, w, DA.call.in[size_t(da.scale_input)]};
    ops.activation_scale_input = 2;
    if (da.zero_point_input >= 0) {
      ops.activation_zero_point_input = 3;
      in.push_back(DA.call.in[size_t(da.zero_point_input)]);
    }
    for (size_t i = 2; i < L.call.in.size(); ++i) in.push_back(L.call.in[i]);  // the bias
    call.in = std::move(in);
    return lower(li, std::move(call), L.def->traits.grouped_quantized_form(), std::move(ops));
  };
  for (size_t li = 0; li < steps.size(); ++li) {
    Step& L = *steps[li];
    if (L.dynamic || L.call.in.size() < 2 || L.call.out.size() != 1) continue;
    if (lower_grouped(li)) continue;
    if (!L.def->traits.quantized_form) continue;
    // activation: DQ(Q(x)) per tensor, the DQ reading what the Q wrote with the same parameters
    const int64_t dqi = producer(graph.input(li, 0));
    QuantDesc dq, q;
    if (!describe(dqi, QuantRole::Dequantize, &dq) || dq.granularity != Granularity::PerTensor) continue;
    const int64_t qi = producer(graph.input(size_t(dqi), 0));
    if (!describe(qi, QuantRole::Quantize, &q) || q.granularity != Granularity::PerTensor || !q.rounds_then_adds ||
        q.qdtype != dq.qdtype || (q.qdtype != DType::I8 && q.qdtype != DType::U8))
      continue;
    const Step& Q = *steps[size_t(qi)];
    const Tensor& x = Q.call.in[0];
    if (x.dtype != DType::F32 || !x.is_contiguous() || Q.node->inputs[0].dtype != DType::F32) continue;
    QuantizedOperands ops;
    ops.qmin = q.qmin;
    ops.qmax = q.qmax;
    ops.qdtype = q.qdtype;
    if (q.static_params) {
      if (!dq.static_params || dq.scale != q.scale || dq.zero_point != q.zero_point) continue;
      ops.scale = q.scale;
      ops.zero_point = q.zero_point;
    } else {
      // dynamic: Q and DQ read the same (scale, zero point) values, chosen from x per tensor
      if (q.scale_input < 0 || q.zero_point_input < 0 || dq.scale_input < 0 || dq.zero_point_input < 0) continue;
      const ValueId sv = graph.input(size_t(qi), size_t(q.scale_input));
      const ValueId zv = graph.input(size_t(qi), size_t(q.zero_point_input));
      if (sv != graph.input(size_t(dqi), size_t(dq.scale_input)) || zv != graph.input(size_t(dqi), size_t(dq.zero_point_input)))
        continue;
      const int64_t ci = choose_behind(sv, 0);
      QuantDesc c;
      if (ci < 0 || choose_behind(zv, 1) != ci || !describe(ci, QuantRole::ChooseQparams, &c) ||
          !c.per_tensor_affine_choice || c.qmin != q.qmin || c.qmax != q.qmax ||
          graph.input(size_t(ci), 0) != graph.input(size_t(qi), 0))
        continue;
      ops.dynamic = true;
      ops.eps = c.eps;
    }
    // weight: a constant int8 [N, K] dequantized per output channel (axis 0) or per tensor
    const int64_t dwi = producer(graph.input(li, 1));
    QuantDesc dw;
    if (!describe(dwi, QuantRole::Dequantize, &dw) || dw.qdtype != DType::I8 ||
        !(dw.granularity == Granularity::PerTensor || (dw.granularity == Granularity::PerChannel && dw.axis == 0)))
      continue;
    const Step& DW = *steps[size_t(dwi)];
    const Tensor& w = DW.call.in[0];
    if (!is_weight(graph.input(size_t(dwi), 0)) || w.dtype != DType::I8 || !w.is_contiguous()) continue;
    if (dw.static_params) {
      ops.weight_scale_value = dw.scale;
      ops.weight_zero_point_value = dw.zero_point;
    } else {
      if (dw.scale_input < 0 || !is_weight(graph.input(size_t(dwi), size_t(dw.scale_input)))) continue;
      if (dw.zero_point_input >= 0 && !is_weight(graph.input(size_t(dwi), size_t(dw.zero_point_input)))) continue;
      ops.weight_scale = DW.call.in[size_t(dw.scale_input)];
      if (dw.zero_point_input >= 0) ops.weight_zero_point = DW.call.in[size_t(dw.zero_point_input)];
    }
    ops.weight_per_channel = dw.granularity == Granularity::PerChannel;
    // switch the step: it reads x and W; its output stays the planned one. The integer form's
    // plan checks the rest (ranks, groups, shapes).
    OpCall call = L.call;
    call.in[0] = x;
    call.in[1] = w;
    lower(li, std::move(call), L.def->traits.quantized_form(), std::move(ops));
  }
  if (rewired.empty()) return;
  // Quantization steps (and tuple accesses) nothing reads any more: covered, last to first, so a
  // choose_qparams dies with the getitems, quantize and dequantize that read it.
  // What lowered steps read themselves (8da4w's quantized activation and its parameters) stays.
  std::unordered_set<const Buffer*> read_by_lowered;
  for (const auto& s : steps)
    if (s->lowered)
      for (const Tensor& t : s->call.in) read_by_lowered.insert(t.buffer.get());
  std::vector<char> dead(steps.size(), 0);
  for (size_t si = steps.size(); si-- > 0;) {
    Step& S = *steps[si];
    const OpTraits& t = S.def->traits;
    if (t.quant_role == QuantRole::None && !t.reads_selected_input) continue;
    bool read = false, taken_over = false;
    for (const Tensor& o : S.call.out) read = read || (o.defined() && read_by_lowered.count(o.buffer.get()));
    for (ValueId v : graph.outputs(si)) {
      const GraphValue& gv = graph.value(v);
      read = read || gv.graph_output;
      for (const Use& u : gv.uses) {
        if (rewired.count({u.step, u.input}) || dead[size_t(u.step)]) taken_over = true;
        else read = true;
      }
    }
    if (read || !taken_over) continue;
    dead[si] = 1;
    S.covered = true;
    S.taken_over = true;
  }
}

// SessionOptions::weight_quantization: float32 linears whose weight is a [N, K] weight tensor
// switch to the integer forms, which quantize that weight at prepare and the input per row at
// run (QuantizedOperands::weight_from_float / activation_per_row). A call a form refuses (K past
// the int8 GEMM's range, a group that does not divide K) keeps its float kernels.
void Session::Impl::quantize_float_linears() {
  using WQ = SessionOptions::WeightQuantization;
  if (options.keep_intermediates || options.weight_quantization == WQ::None) return;
  for (size_t li = 0; li < steps.size(); ++li) {
    Step& L = *steps[li];
    const OpTraits& t = L.def->traits;
    // the ops with both integer forms: linear (conv2d has only the per-tensor one)
    if (L.lowered || L.dynamic || !t.quantized_form || !t.grouped_quantized_form || L.call.in.size() < 2 ||
        L.call.out.size() != 1)
      continue;
    const ValueId wv = graph.input(li, 1);
    const Tensor &x = L.call.in[0], &w = L.call.in[1];
    if (wv == kNoValue || graph.value(wv).kind != GraphValue::Kind::Weight || w.dtype != DType::F32 || w.dim() != 2 ||
        !w.is_contiguous() || x.dtype != DType::F32 || !x.is_contiguous() || L.node->inputs[1].dtype != DType::F32)
      continue;
    QuantizedOperands ops;
    ops.weight_from_float = true;
    ops.activation_per_row = true;
    ops.dynamic = true;
    ops.qmin = -128;
    ops.qmax = 127;
    ops.eps = double(std::numeric_limits<float>::epsilon());
    const bool int4 = options.weight_quantization == WQ::Int4;
    if (int4) ops.weight_group = options.weight_group_size;
    switch_step(L, L.call, int4 ? t.grouped_quantized_form() : t.quantized_form(), std::move(ops));
  }
}

}  // namespace tir
