// Recurrent kernels (RNN tanh/relu, LSTM with optional projection, GRU) over
// contiguous data, built on the gemm kernels. Scalar reference code;
// instantiated for float and double.
#pragma once
#include <cstdint>

namespace tir {

enum class RnnMode { Tanh, Relu, Lstm, Gru };

// Gate blocks of H rows in w_ih / w_hh: 1, 1, 4 (i,f,g,o), 3 (r,z,n).
inline int64_t rnn_gate_count(RnnMode m) { return m == RnnMode::Lstm ? 4 : m == RnnMode::Gru ? 3 : 1; }

// Weights of one layer and direction, torch's layout. H = hidden size,
// O = size of h (P with LSTM projection, else H).
template <typename T> struct RnnWeights {
  const T* w_ih = nullptr;  // [G*H, I]
  const T* w_hh = nullptr;  // [G*H, O]
  const T* b_ih = nullptr;  // [G*H] or null
  const T* b_hh = nullptr;  // [G*H] or null
  const T* w_hr = nullptr;  // [P, H], LSTM projection, or null
};

// One layer-direction over `steps` time steps for a batch of B.
//   x    [steps, B, I] contiguous (time-major)
//   h0   [B, O], c0 [B, H] (LSTM only); may be null for zeros
//   out  h_t of step t goes to out + (t*B + b)*out_ld (O values); may be null
//   hn   [B, O] final h; cn [B, H] final c (LSTM only)
// reverse walks t = steps-1 .. 0 (the backward direction; out stays indexed by t).
template <typename T>
void rnn_layer(RnnMode mode, int64_t steps, int64_t B, int64_t I, int64_t H, int64_t P, const T* x,
               const RnnWeights<T>& w, const T* h0, const T* c0, bool reverse, T* out, int64_t out_ld, T* hn,
               T* cn);

}  // namespace tir
