// Recurrent ops as the training IR writes them: the whole-sequence nodes
// lstm/gru/rnn_tanh/rnn_relu (.input) and the single-step cells. Inputs are
// flattened (docs/spec/OPS.md §1.2): input, the hx list (2 tensors for LSTM, else 1),
// then the flat params list, torch's order per layer and direction:
// w_ih, w_hh[, b_ih, b_hh][, w_hr (LSTM proj_size)].
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/rnn.h"
#include "ops/op.h"
#include "ops/rnn_util.h"

namespace tir {
namespace {

using namespace rnn;

// ---- whole-sequence ops ----

struct SeqState {
  RnnMode mode;
  DType dt;
  bool batched, batch_first;
  int64_t T, B, I, H, P, L, D, O;
  int hx = 1, cx = -1;            // h0 / c0 inputs
  std::vector<LayerIdx> layers;   // L*D entries, layer-major
};

// aten::lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers,
//     float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor, Tensor)
// aten::gru.input / rnn_tanh.input / rnn_relu.input(Tensor input, Tensor hx, Tensor[] params, <same>)
//     -> (Tensor, Tensor)
void plan_seq(OpCall& call, RnnMode mode) {
  const bool lstm = mode == RnnMode::Lstm;
  const size_t n_hx = lstm ? 2 : 1;
  call.check(call.in.size() >= 1 + n_hx, std::string(mode_name(mode)) + " expects input, " +
                                             (lstm ? "hx [h0, c0]" : "hx") + " and params; got " +
                                             std::to_string(call.in.size()) + " tensor inputs");
  auto st = std::make_shared<SeqState>();
  st->mode = mode;
  const Tensor& x = call.in[0];
  st->dt = float_dtype(call, x.dtype);
  check_list_sizes(call, mode, n_hx, int64_t(call.in.size() - 1 - n_hx));
  st->batch_first = call.b("batch_first", false);
  call.check(x.dim() == 3 || x.dim() == 2,
             std::string(mode_name(mode)) + ": expected input to be 2-D (unbatched) or 3-D, got shape " +
                 shape_to_string(x.shape));
  st->batched = x.dim() == 3;
  st->T = st->batched ? x.shape[st->batch_first ? 1 : 0] : x.shape[0];
  st->B = st->batched ? x.shape[st->batch_first ? 0 : 1] : 1;
  st->I = x.shape.back();

  const Layout lay = parse_layout(call, mode, 1 + n_hx, st->I);
  st->L = lay.L, st->D = lay.D, st->H = lay.H, st->P = lay.P, st->O = lay.O;
  st->layers = lay.layers;
  const int64_t LD = st->L * st->D;
  auto state_shape = [&](int64_t n) { return st->batched ? Shape{LD, st->B, n} : Shape{LD, n}; };
  check_shape(call, call.in[1], state_shape(st->O), "hx");
  if (lstm) {
    st->cx = 2;
    check_shape(call, call.in[2], state_shape(st->H), "cx");
  }
  Shape out_shape = !st->batched      ? Shape{st->T, st->D * st->O}
                    : st->batch_first ? Shape{st->B, st->T, st->D * st->O}
                                      : Shape{st->T, st->B, st->D * st->O};
  const size_t n_out = std::min<size_t>(std::max<size_t>(call.num_ir_outputs(), 1), lstm ? 3 : 2);
  call.fresh(0, st->dt, out_shape);
  if (n_out > 1) call.fresh(1, st->dt, state_shape(st->O));
  if (n_out > 2) call.fresh(2, st->dt, state_shape(st->H));
  call.state = st;
}

void run_seq(OpCall& call) {
  auto& st = call.state_as<SeqState>();
  dispatch_float(st.dt, [&](auto tag) {
    using T = decltype(tag);
    std::vector<Tensor> in;
    for (const Tensor& t : call.in) in.push_back(dense(t, st.dt));
    const int64_t T_ = st.T, B = st.B, LD = st.L * st.D, DO = st.D * st.O;
    // Time-major copy of the input: [T, B, I].
    Tensor x = in[0];
    if (st.batched && st.batch_first) {
      const Tensor& src = in[0];
      Tensor tm = make_owned(st.dt, {T_, B, st.I});
      copy_into(tm, src.view_as({T_, B, st.I}, {src.strides[1], src.strides[0], src.strides[2]}, src.offset));
      x = tm;
    }
    Tensor hn = call.out.size() > 1 ? call.out[1] : make_owned(st.dt, {LD * B * st.O});
    Tensor cn;
    if (st.mode == RnnMode::Lstm) cn = call.out.size() > 2 ? call.out[2] : make_owned(st.dt, {LD * B * st.H});
    Tensor layer_out = make_owned(st.dt, {T_, B, DO});
    Tensor layer_in = x;
    for (int64_t l = 0; l < st.L; ++l) {
      if (l > 0) {
        std::swap(layer_in, layer_out);
        if (layer_out.same_storage(x)) layer_out = make_owned(st.dt, {T_, B, DO});
      }
      const int64_t in_size = l == 0 ? st.I : DO;
      for (int64_t d = 0; d < st.D; ++d) {
        const int64_t k = l * st.D + d;
        const RnnWeights<T> w = weights_of<T>(in, st.layers[size_t(k)]);
        const T* c0 = st.cx >= 0 ? in[size_t(st.cx)].template data<T>() + k * B * st.H : nullptr;
        T* cnp = cn.defined() ? cn.template data<T>() + k * B * st.H : nullptr;
        rnn_layer<T>(st.mode, T_, B, in_size, st.H, st.P, layer_in.template data<T>(), w,
                     in[1].template data<T>() + k * B * st.O, c0, d == 1, layer_out.template data<T>() + d * st.O,
                     DO, hn.template data<T>() + k * B * st.O, cnp);
      }
    }
    const Tensor& out = call.out[0];
    if (st.batched && st.batch_first)  // out [B, T, DO] seen as [T, B, DO]
      copy_into(out.view_as({T_, B, DO}, {out.strides[1], out.strides[0], out.strides[2]}, out.offset), layer_out);
    else
      copy_into(out, layer_out.view_as(out.shape, contiguous_strides(out.shape), layer_out.offset));
  });
}

OpDef seq_op(RnnMode mode) {
  return {[=](OpCall& c) { plan_seq(c, mode); }, run_seq};
}

// ---- single-step cells ----

struct CellState {
  RnnMode mode;
  DType dt;
  int64_t B, I, H;
  int hx = 1, cx = -1;
  LayerIdx w;
};

// aten::lstm_cell(Tensor input, Tensor[] hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None,
//     Tensor? b_hh=None) -> (Tensor, Tensor)
// aten::gru_cell / rnn_tanh_cell / rnn_relu_cell(Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh,
//     Tensor? b_ih=None, Tensor? b_hh=None) -> Tensor
void plan_cell(OpCall& call, RnnMode mode) {
  const bool lstm = mode == RnnMode::Lstm;
  const size_t n_hx = lstm ? 2 : 1;
  call.expect_inputs(3 + n_hx, 5 + n_hx);
  auto st = std::make_shared<CellState>();
  st->mode = mode;
  const Tensor& x = call.in[0];
  st->dt = float_dtype(call, x.dtype);
  call.check(x.dim() == 1 || x.dim() == 2,
             std::string(mode_name(mode)) + "_cell: expected input to be 1-D or 2-D, got shape " + shape_to_string(x.shape));
  const bool batched = x.dim() == 2;
  st->B = batched ? x.shape[0] : 1;
  st->I = x.shape.back();
  const int64_t G = rnn_gate_count(mode);
  st->w.w_ih = int(n_hx) + 1, st->w.w_hh = int(n_hx) + 2;
  const size_t n_bias = call.in.size() - 3 - n_hx;
  if (n_bias == 2) {
    st->w.b_ih = st->w.w_hh + 1, st->w.b_hh = st->w.w_hh + 2;
  } else if (n_bias == 1) {  // which one is ambiguous (docs/spec/OPS.md §1.7): the name tells,
                             // else b_ih
    const size_t k = size_t(st->w.w_hh + 1);
    const bool hh = k < call.node->inputs.size() && call.node->inputs[k].name.find("hh") != std::string::npos;
    (hh ? st->w.b_hh : st->w.b_ih) = int(k);
  }
  const Tensor& wih = call.in[size_t(st->w.w_ih)];
  call.check(wih.dim() == 2 && wih.shape[0] % G == 0,
             "w_ih must be 2-D with a multiple of " + std::to_string(G) + " rows, got " + shape_to_string(wih.shape));
  st->H = wih.shape[0] / G;
  check_shape(call, wih, {G * st->H, st->I}, "w_ih");
  check_shape(call, call.in[size_t(st->w.w_hh)], {G * st->H, st->H}, "w_hh");
  if (st->w.b_ih >= 0) check_shape(call, call.in[size_t(st->w.b_ih)], {G * st->H}, "b_ih");
  if (st->w.b_hh >= 0) check_shape(call, call.in[size_t(st->w.b_hh)], {G * st->H}, "b_hh");
  const Shape hshape = batched ? Shape{st->B, st->H} : Shape{st->H};
  check_shape(call, call.in[1], hshape, "hx");
  if (lstm) {
    st->cx = 2;
    check_shape(call, call.in[2], hshape, "cx");
  }
  call.fresh(0, st->dt, hshape);
  if (lstm && std::max<size_t>(call.num_ir_outputs(), 1) > 1) call.fresh(1, st->dt, hshape);
  call.state = st;
}

void run_cell(OpCall& call) {
  auto& st = call.state_as<CellState>();
  dispatch_float(st.dt, [&](auto tag) {
    using T = decltype(tag);
    std::vector<Tensor> in;
    for (const Tensor& t : call.in) in.push_back(dense(t, st.dt));
    Tensor cn;
    if (st.mode == RnnMode::Lstm) cn = call.out.size() > 1 ? call.out[1] : make_owned(st.dt, {st.B * st.H});
    rnn_layer<T>(st.mode, 1, st.B, st.I, st.H, 0, in[0].template data<T>(), weights_of<T>(in, st.w),
                 in[1].template data<T>(), st.cx >= 0 ? in[size_t(st.cx)].template data<T>() : nullptr, false,
                 nullptr, 0, call.out[0].template data<T>(), cn.defined() ? cn.template data<T>() : nullptr);
  });
}

OpDef cell_op(RnnMode mode) {
  return {[=](OpCall& c) { plan_cell(c, mode); }, run_cell};
}

}  // namespace

TIR_REGISTER_OPS({"aten.lstm.input", seq_op(RnnMode::Lstm)}, {"aten.gru.input", seq_op(RnnMode::Gru)},
                 {"aten.rnn_tanh.input", seq_op(RnnMode::Tanh)}, {"aten.rnn_relu.input", seq_op(RnnMode::Relu)},
                 {"aten.lstm_cell.default", cell_op(RnnMode::Lstm)}, {"aten.gru_cell.default", cell_op(RnnMode::Gru)},
                 {"aten.rnn_tanh_cell.default", cell_op(RnnMode::Tanh)},
                 {"aten.rnn_relu_cell.default", cell_op(RnnMode::Relu)});

}  // namespace tir
