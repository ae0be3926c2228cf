// Recurrent ops over packed sequences (nn.utils.rnn.pack_padded_sequence):
// lstm.data / gru.data. Inputs, flattened as docs/spec/OPS.md §1.2: data [sum(batch_sizes), I],
// batch_sizes [T] (int64, non-increasing: step t runs the first batch_sizes[t]
// sequences), the hx list (LSTM: h0, c0; GRU: h0) of [L*D, B, O], then the
// params (rnn_util.h). Outputs: packed output [sum, D*O], h_n (each
// sequence's state after its own last step; the reverse direction starts each
// sequence at its own last step from h0) and, for LSTM, c_n.
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

struct PackedState {
  RnnMode mode;
  DType dt;
  int64_t S, B, I;
  Layout lay;
  int cx = -1;
};

// aten::lstm.data(Tensor data, Tensor batch_sizes, Tensor[] hx, Tensor[] params, bool has_biases,
//     int num_layers, float dropout, bool train, bool bidirectional) -> (Tensor, Tensor, Tensor)
// aten::gru.data(Tensor data, Tensor batch_sizes, Tensor hx, Tensor[] params, <same>) -> (Tensor, Tensor)
void plan_packed(OpCall& call, RnnMode mode) {
  const bool lstm = mode == RnnMode::Lstm;
  const size_t n_hx = lstm ? 2 : 1;
  call.check(call.in.size() >= 3 + n_hx, std::string(mode_name(mode)) + ".data expects data, batch_sizes, " +
                                             (lstm ? "hx [h0, c0]" : "hx") + " and params; got " +
                                             std::to_string(call.in.size()) + " tensor inputs");
  auto st = std::make_shared<PackedState>();
  st->mode = mode;
  const Tensor &x = call.in[0], &bs = call.in[1];
  st->dt = float_dtype(call, x.dtype);
  check_list_sizes(call, mode, n_hx, int64_t(call.in.size() - 2 - n_hx));
  call.check(x.dim() == 2, std::string(mode_name(mode)) + ".data: expected packed data of shape [sum(batch_sizes), "
                           "input_size], got " + shape_to_string(x.shape));
  call.check(bs.dim() == 1 && bs.dtype == DType::I64,
             std::string("batch_sizes must be a 1-D int64 tensor, got ") + dtype_name(bs.dtype) + " " +
                 shape_to_string(bs.shape));
  st->S = x.shape[0], st->I = x.shape[1];
  st->lay = parse_layout(call, mode, 2 + n_hx, st->I);
  const Layout& lay = st->lay;
  const int64_t LD = lay.L * lay.D;
  const Tensor& h0 = call.in[2];
  call.check(h0.dim() == 3, "hx must be 3-D [num_layers * directions, batch, hidden], got " + shape_to_string(h0.shape));
  st->B = h0.shape[1];
  check_shape(call, h0, {LD, st->B, lay.O}, "hx");
  if (lstm) {
    st->cx = 3;
    check_shape(call, call.in[3], {LD, st->B, lay.H}, "cx");
  }
  const size_t n_out = std::min<size_t>(std::max<size_t>(call.num_ir_outputs(), 1), lstm ? 3 : 2);
  call.fresh(0, st->dt, {st->S, lay.D * lay.O});
  if (n_out > 1) call.fresh(1, st->dt, {LD, st->B, lay.O});
  if (n_out > 2) call.fresh(2, st->dt, {LD, st->B, lay.H});
  call.state = st;
}

void run_packed(OpCall& call) {
  const auto& st = call.state_as<PackedState>();
  const Layout& lay = st.lay;
  // batch_sizes as pack_padded_sequence makes them: 1 <= b_t <= B, non-increasing, summing to the data rows.
  const Tensor bst = contiguous_or_self(call.in[1]);
  const int64_t T = bst.numel();
  std::vector<int64_t> bs(bst.data<int64_t>(), bst.data<int64_t>() + T), off(size_t(T) + 1, 0);
  for (int64_t t = 0; t < T; ++t) {
    const int64_t b = bs[size_t(t)];
    call.check(b >= 1 && b <= (t ? bs[size_t(t) - 1] : st.B),
               "batch_sizes must be positive, non-increasing and start at the hx batch size " + std::to_string(st.B) +
                   "; batch_sizes[" + std::to_string(t) + "] = " + std::to_string(b));
    off[size_t(t) + 1] = off[size_t(t)] + b;
  }
  call.check(T == 0 || bs[0] == st.B, "batch_sizes[0] (" + std::to_string(T ? bs[0] : 0) +
                                          ") must equal the hx batch size " + std::to_string(st.B));
  call.check(off[size_t(T)] == st.S, "batch_sizes sum to " + std::to_string(off[size_t(T)]) +
                                         " but the packed data has " + std::to_string(st.S) + " rows");
  dispatch_float(st.dt, [&](auto tag) {
    using E = decltype(tag);
    std::vector<Tensor> in;
    for (size_t k = 0; k < call.in.size(); ++k) in.push_back(k == 1 ? call.in[k] : dense(call.in[k], st.dt));
    const int64_t B = st.B, O = lay.O, H = lay.H, DO = lay.D * O;
    std::vector<E> h(size_t(B * O)), c(st.cx >= 0 ? size_t(B * H) : 0);
    Tensor layer_in = in[0], layer_out = make_owned(st.dt, {st.S, DO});
    for (int64_t l = 0; l < lay.L; ++l) {
      if (l > 0) {
        std::swap(layer_in, layer_out);
        if (l == 1) layer_out = make_owned(st.dt, {st.S, DO});
      }
      const int64_t in_size = l == 0 ? st.I : DO;
      for (int64_t d = 0; d < lay.D; ++d) {
        const int64_t k = l * lay.D + d;
        const RnnWeights<E> w = weights_of<E>(in, lay.layers[size_t(k)]);
        const E* h0 = in[2].template data<E>() + k * B * O;
        std::copy(h0, h0 + B * O, h.begin());
        if (st.cx >= 0) {
          const E* c0 = in[size_t(st.cx)].template data<E>() + k * B * H;
          std::copy(c0, c0 + B * H, c.begin());
        }
        for (int64_t s = 0; s < T; ++s) {
          const int64_t t = d ? T - 1 - s : s;
          const int64_t o = off[size_t(t)];
          rnn_layer<E>(st.mode, 1, bs[size_t(t)], in_size, H, lay.P, layer_in.template data<E>() + o * in_size, w,
                       h.data(), st.cx >= 0 ? c.data() : nullptr, false, layer_out.template data<E>() + o * DO + d * O,
                       DO, h.data(), st.cx >= 0 ? c.data() : nullptr);
        }
        if (call.out.size() > 1) std::copy(h.begin(), h.end(), call.out[1].template data<E>() + k * B * O);
        if (call.out.size() > 2) std::copy(c.begin(), c.end(), call.out[2].template data<E>() + k * B * H);
      }
    }
    copy_into(call.out[0], layer_out);
  });
}

OpDef packed_op(RnnMode mode) {
  return {[=](OpCall& c) { plan_packed(c, mode); }, run_packed};
}

}  // namespace

TIR_REGISTER_OPS({"aten.lstm.data", packed_op(RnnMode::Lstm)}, {"aten.gru.data", packed_op(RnnMode::Gru)});

}  // namespace tir
