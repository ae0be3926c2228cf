// Helpers shared by the recurrent op files (rnn.cpp: padded sequences and
// cells; rnn_packed.cpp: packed sequences): dtype checks and the layout of the
// flat params list, torch's order per layer and direction:
// w_ih, w_hh[, b_ih, b_hh][, w_hr (LSTM proj_size)].
#pragma once
#include <string>
#include <vector>

#include "kernels/rnn.h"
#include "ops/elementwise_util.h"
#include "ops/op.h"

namespace tir {
namespace rnn {

inline const char* mode_name(RnnMode m) {
  switch (m) {
    case RnnMode::Tanh: return "rnn_tanh";
    case RnnMode::Relu: return "rnn_relu";
    case RnnMode::Lstm: return "lstm";
    case RnnMode::Gru: return "gru";
  }
  return "rnn";
}

inline DType float_dtype(const OpCall& call, DType d) {
  d = compute_dtype(d);
  call.check(d == DType::F32 || d == DType::F64,
             std::string("recurrent ops are only implemented for float32/float64, got ") + dtype_name(d));
  return d;
}

inline Tensor dense(const Tensor& t, DType d) { return contiguous_or_self(ew::as_dtype(t, d)); }

template <typename F> void dispatch_float(DType d, F&& f) {
  if (d == DType::F64) f(double{});
  else f(float{});
}

inline void check_shape(const OpCall& call, const Tensor& t, const Shape& want, const std::string& what) {
  call.check(t.shape == want, what + " must have shape " + shape_to_string(want) + ", got " + shape_to_string(t.shape));
}

// Index of one layer-direction's weights in call.in (-1 when absent).
struct LayerIdx {
  int w_ih = -1, w_hh = -1, b_ih = -1, b_hh = -1, w_hr = -1;
};

template <typename T> RnnWeights<T> weights_of(const std::vector<Tensor>& dense_in, const LayerIdx& li) {
  auto p = [&](int k) { return k < 0 ? nullptr : dense_in[size_t(k)].template data<T>(); };
  RnnWeights<T> w;
  w.w_ih = p(li.w_ih), w.w_hh = p(li.w_hh), w.b_ih = p(li.b_ih), w.b_hh = p(li.b_hh), w.w_hr = p(li.w_hr);
  return w;
}

// The params of a whole-sequence op: num_layers x directions entries.
struct Layout {
  int64_t L = 1, D = 1, H = 0, P = 0, O = 0;  // O: size of h (P with LSTM projection, else H)
  std::vector<LayerIdx> layers;               // L*D entries, layer-major
};

// _tensor_list_sizes, when present, must match: [hx count (LSTM: 2),] params count.
inline void check_list_sizes(const OpCall& call, RnnMode mode, size_t n_hx, int64_t n_params) {
  const auto sizes = call.tensor_list_sizes();
  if (sizes.empty()) return;
  call.check(sizes.back() == n_params && (mode != RnnMode::Lstm || sizes.size() < 2 || sizes[0] == 2),
             "_tensor_list_sizes " + shape_to_string(sizes) + " does not match " + std::to_string(call.in.size()) +
                 " inputs (expected hx count " + std::to_string(n_hx) + ", then the params count)");
}

// Reads has_biases / num_layers / bidirectional / train / dropout and checks
// the params call.in[first ...] (all remaining inputs) for input size I.
inline Layout parse_layout(const OpCall& call, RnnMode mode, size_t first, int64_t I) {
  const bool lstm = mode == RnnMode::Lstm;
  Layout lay;
  const int64_t n_params = int64_t(call.in.size() - first);
  const bool has_biases = call.b("has_biases", true);
  lay.L = call.i("num_layers", 1);
  lay.D = call.b("bidirectional", false) ? 2 : 1;
  call.check(!(call.b("train", false) && call.f("dropout", 0.0) > 0.0),
             "training-mode dropout between layers is random and not supported (train=true, dropout>0)");
  call.check(lay.L >= 1, "num_layers must be at least 1, got " + std::to_string(lay.L));
  const int64_t LD = lay.L * lay.D;
  const int64_t per = n_params % LD == 0 ? n_params / LD : -1;
  const bool proj = lstm && per == (has_biases ? 5 : 3);
  call.check(per == (has_biases ? 4 : 2) || proj,
             std::to_string(n_params) + " params do not fit num_layers=" + std::to_string(lay.L) + " x directions=" +
                 std::to_string(lay.D) + " with has_biases=" + (has_biases ? "true" : "false") +
                 " (expected " + std::to_string(has_biases ? 4 : 2) + (lstm ? " or, with proj_size, " +
                 std::to_string(has_biases ? 5 : 3) : std::string()) + " per layer and direction)");
  const int64_t G = rnn_gate_count(mode);
  const Tensor& w0 = call.in[first];
  call.check(w0.dim() == 2 && w0.shape[0] % G == 0,
             "weight_ih_l0 must be 2-D with a multiple of " + std::to_string(G) + " rows, got " + shape_to_string(w0.shape));
  lay.H = w0.shape[0] / G;
  lay.P = proj ? call.in[first + size_t(per) - 1].shape[0] : 0;
  lay.O = proj ? lay.P : lay.H;
  for (int64_t l = 0; l < lay.L; ++l)
    for (int64_t d = 0; d < lay.D; ++d) {
      const int base = int(first + size_t((l * lay.D + d) * per));
      LayerIdx li;
      li.w_ih = base, li.w_hh = base + 1;
      if (has_biases) li.b_ih = base + 2, li.b_hh = base + 3;
      if (proj) li.w_hr = base + int(per) - 1;
      const std::string sfx = "_l" + std::to_string(l) + (d ? "_reverse" : "");
      const int64_t in_size = l == 0 ? I : lay.D * lay.O;
      check_shape(call, call.in[size_t(li.w_ih)], {G * lay.H, in_size}, "weight_ih" + sfx);
      check_shape(call, call.in[size_t(li.w_hh)], {G * lay.H, lay.O}, "weight_hh" + sfx);
      if (has_biases) {
        check_shape(call, call.in[size_t(li.b_ih)], {G * lay.H}, "bias_ih" + sfx);
        check_shape(call, call.in[size_t(li.b_hh)], {G * lay.H}, "bias_hh" + sfx);
      }
      if (proj) check_shape(call, call.in[size_t(li.w_hr)], {lay.P, lay.H}, "weight_hr" + sfx);
      lay.layers.push_back(li);
    }
  return lay;
}

}  // namespace rnn
}  // namespace tir
