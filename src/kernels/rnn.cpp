#include "kernels/rnn.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/gemm.h"

namespace tir {
namespace {

void gemm_t(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, const float* Bt, float* C) {
  gemm_f32(M, N, K, A, lda, false, Bt, K, true, C, N, 1.0f, 0.0f);
}
void gemm_t(int64_t M, int64_t N, int64_t K, const double* A, int64_t lda, const double* Bt, double* C) {
  gemm_f64(M, N, K, A, lda, false, Bt, K, true, C, N, 1.0, 0.0);
}

// C[M, N] = A[M, K] @ W[N, K]^T + bias (bias may be null); K may be 0.
template <typename T> void linear_rows(int64_t M, int64_t N, int64_t K, const T* A, const T* W, const T* bias, T* C) {
  if (M == 0 || N == 0) return;
  if (K > 0) gemm_t(M, N, K, A, K, W, C);
  else std::fill(C, C + M * N, T(0));
  if (bias)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n) C[m * N + n] += bias[n];
}

template <typename T> T sigmoid(T v) { return T(1) / (T(1) + std::exp(-v)); }

}  // namespace

template <typename T>
void rnn_layer(RnnMode mode, int64_t steps, int64_t B, int64_t I, int64_t H, int64_t P, const T* x,
               const RnnWeights<T>& w, const T* h0, const T* c0, bool reverse, T* out, int64_t out_ld, T* hn,
               T* cn) {
  const bool lstm = mode == RnnMode::Lstm;
  const bool proj = lstm && P > 0;
  const int64_t GH = rnn_gate_count(mode) * H, O = proj ? P : H;
  std::vector<T> h(size_t(B * O), T(0)), c(lstm ? size_t(B * H) : 0, T(0));
  if (h0) std::copy(h0, h0 + B * O, h.begin());
  if (lstm && c0) std::copy(c0, c0 + B * H, c.begin());

  // Input contributions of every step at once: gx = x @ w_ih^T + b_ih.
  std::vector<T> gx(size_t(steps * B * GH)), gh(size_t(B * GH)), hh(proj ? size_t(B * H) : 0);
  linear_rows(steps * B, GH, I, x, w.w_ih, w.b_ih, gx.data());

  for (int64_t s = 0; s < steps; ++s) {
    const int64_t t = reverse ? steps - 1 - s : s;
    linear_rows(B, GH, O, h.data(), w.w_hh, w.b_hh, gh.data());
    for (int64_t b = 0; b < B; ++b) {
      const T* gxr = gx.data() + (t * B + b) * GH;
      const T* ghr = gh.data() + b * GH;
      T* hr = h.data() + b * O;
      switch (mode) {
        case RnnMode::Tanh:
          for (int64_t j = 0; j < H; ++j) hr[j] = std::tanh(gxr[j] + ghr[j]);
          break;
        case RnnMode::Relu:
          for (int64_t j = 0; j < H; ++j) hr[j] = std::max(gxr[j] + ghr[j], T(0));
          break;
        case RnnMode::Lstm: {
          T* cr = c.data() + b * H;
          T* out_h = proj ? hh.data() + b * H : hr;
          for (int64_t j = 0; j < H; ++j) {
            const T ig = sigmoid(gxr[j] + ghr[j]);
            const T fg = sigmoid(gxr[H + j] + ghr[H + j]);
            const T gg = std::tanh(gxr[2 * H + j] + ghr[2 * H + j]);
            const T og = sigmoid(gxr[3 * H + j] + ghr[3 * H + j]);
            cr[j] = fg * cr[j] + ig * gg;
            out_h[j] = og * std::tanh(cr[j]);
          }
          break;
        }
        case RnnMode::Gru:
          for (int64_t j = 0; j < H; ++j) {
            const T r = sigmoid(gxr[j] + ghr[j]);
            const T z = sigmoid(gxr[H + j] + ghr[H + j]);
            const T n = std::tanh(gxr[2 * H + j] + r * ghr[2 * H + j]);
            hr[j] = (hr[j] - n) * z + n;  // torch's form of (1-z)*n + z*h
          }
          break;
      }
    }
    if (proj) linear_rows<T>(B, P, H, hh.data(), w.w_hr, nullptr, h.data());
    if (out)
      for (int64_t b = 0; b < B; ++b) std::copy(h.begin() + b * O, h.begin() + (b + 1) * O, out + (t * B + b) * out_ld);
  }
  if (hn) std::copy(h.begin(), h.end(), hn);
  if (lstm && cn) std::copy(c.begin(), c.end(), cn);
}

#define TIR_INSTANTIATE_RNN(T)                                                                                  \
  template void rnn_layer<T>(RnnMode, int64_t, int64_t, int64_t, int64_t, int64_t, const T*, const RnnWeights<T>&, \
                             const T*, const T*, bool, T*, int64_t, T*, T*);
TIR_INSTANTIATE_RNN(float)
TIR_INSTANTIATE_RNN(double)
#undef TIR_INSTANTIATE_RNN

}  // namespace tir
