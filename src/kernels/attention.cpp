#include "kernels/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/gemm.h"
#include "kernels/parallel.h"
#include "kernels/softmax.h"

namespace tir {
namespace {

void gemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool ta, const float* B, int64_t ldb,
          bool tb, float* C, int64_t ldc, float alpha) {
  gemm_f32(M, N, K, A, lda, ta, B, ldb, tb, C, ldc, alpha, 0.0f);
}
void gemm(int64_t M, int64_t N, int64_t K, const double* A, int64_t lda, bool ta, const double* B,
          int64_t ldb, bool tb, double* C, int64_t ldc, double alpha) {
  gemm_f64(M, N, K, A, lda, ta, B, ldb, tb, C, ldc, alpha, 0.0);
}
void softmax_rows(const float* x, float* y, int64_t rows, int64_t n) {
  softmax_f32(x, y, rows, n, 1, SoftmaxKind::SafeSoftmax);
}
void softmax_rows(const double* x, double* y, int64_t rows, int64_t n) {
  softmax_f64(x, y, rows, n, 1, SoftmaxKind::SafeSoftmax);
}

// A [rows, cols] matrix as a gemm operand (pointer, leading dim, transposed).
// Views with a unit stride and a proper leading dim go as they are (q.transpose(1, 2)
// in ViT/BERT gives row stride H*E); anything else is copied into `copy`.
template <typename T>
struct GemmOperand {
  const T* data;
  int64_t ld;
  bool trans;
};

template <typename T>
GemmOperand<T> as_operand(const AttnMat<T>& m, int64_t rows, int64_t cols, std::vector<T>& copy) {
  if (m.col_stride == 1 && (rows <= 1 || m.row_stride >= cols)) return {m.data, std::max<int64_t>(m.row_stride, cols), false};
  if (m.row_stride == 1 && (cols <= 1 || m.col_stride >= rows)) return {m.data, std::max<int64_t>(m.col_stride, rows), true};
  copy.resize(size_t(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) copy[size_t(r * cols + c)] = m.data[r * m.row_stride + c * m.col_stride];
  return {copy.data(), cols, false};
}

// Query rows [i0, i1) of one head: scores, mask, lse, softmax, P·v.
template <typename T>
void attention_rows(const AttnHead<T>& h, int64_t i0, int64_t i1, T* p, const GemmOperand<T>& q,
                    const GemmOperand<T>& k, const GemmOperand<T>& v) {
  const int64_t S = h.S, E = h.E, Ev = h.Ev, rows = i1 - i0;
  const T ninf = -std::numeric_limits<T>::infinity();
  // scores = q · kᵀ · scale
  if (E > 0) {
    const T* qr = q.trans ? q.data + i0 : q.data + i0 * q.ld;
    gemm(rows, S, E, qr, q.ld, q.trans, k.data, k.ld, !k.trans, p, S, h.scale);
  } else {
    std::fill(p, p + rows * S, T(0));
  }
  // Mask, then the row softmax (fully -inf rows give 0).
  const AttnMask<T>& m = h.mask;
  if (m.add || m.keep || h.causal)
    parallel_for(rows, grain_for(S), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t i = i0 + r;
        T* row = p + r * S;
        if (m.add) {
          const T* mr = m.add + i * m.row_stride;
          for (int64_t j = 0; j < S; ++j) row[j] += mr[j * m.col_stride];
        } else if (m.keep) {
          const bool* mr = m.keep + i * m.row_stride;
          for (int64_t j = 0; j < S; ++j)
            if (!mr[j * m.col_stride]) row[j] = ninf;
        }
        if (h.causal)
          for (int64_t j = i + 1; j < S; ++j) row[j] = ninf;
      }
    });
  if (h.lse) {
    // logsumexp of the masked, scaled scores; 0 for fully masked rows (torch's CPU flash kernel).
    parallel_for(rows, grain_for(4 * S), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* row = p + r * S;
        const T mx = *std::max_element(row, row + S);
        if (mx == ninf) {
          h.lse[i0 + r] = T(0);
          continue;
        }
        double sum = 0;
        for (int64_t j = 0; j < S; ++j) sum += std::exp(double(row[j] - mx));
        h.lse[i0 + r] = mx + T(std::log(sum));
      }
    });
  }
  if (Ev <= 0) return;
  softmax_rows(p, p, rows, S);
  // out = P · v
  gemm(rows, Ev, S, p, S, false, v.data, v.ld, v.trans, h.out + i0 * h.ldo, h.ldo, T(1));
}

// Query rows go in blocks whose scores fit in kScoreBlock elements (at least
// kMinRows rows), so a long sequence never materializes its whole L x S
// score matrix. Every output is computed the same way whatever the block.
constexpr int64_t kScoreBlock = int64_t(1) << 16;
constexpr int64_t kMinRows = 16;

template <typename T>
void attention_head(const AttnHead<T>& h, std::vector<T>& work) {
  const int64_t L = h.L, S = h.S, E = h.E, Ev = h.Ev;
  if (L <= 0) return;
  if (S <= 0 || Ev <= 0) {  // nothing to attend to: torch gives zeros
    for (int64_t i = 0; i < L; ++i) std::fill(h.out + i * h.ldo, h.out + i * h.ldo + std::max<int64_t>(Ev, 0), T(0));
    if (h.lse) std::fill(h.lse, h.lse + L, T(0));
    if (S <= 0) return;
  }
  const int64_t block = std::min(L, std::max(kMinRows, kScoreBlock / S));
  if (int64_t(work.size()) < block * S) work.resize(size_t(block * S));
  // Copies for operands gemm cannot read in place (rare: strided slices).
  std::vector<T> qc, kc, vc;
  const GemmOperand<T> q = E > 0 ? as_operand(h.q, L, E, qc) : GemmOperand<T>{nullptr, 0, false};
  const GemmOperand<T> k = E > 0 ? as_operand(h.k, S, E, kc) : GemmOperand<T>{nullptr, 0, false};
  const GemmOperand<T> v = Ev > 0 ? as_operand(h.v, S, Ev, vc) : GemmOperand<T>{nullptr, 0, false};
  for (int64_t i0 = 0; i0 < L; i0 += block) attention_rows(h, i0, std::min(L, i0 + block), work.data(), q, k, v);
}

}  // namespace

void attention_head_f32(const AttnHead<float>& h, std::vector<float>& work) { attention_head(h, work); }
void attention_head_f64(const AttnHead<double>& h, std::vector<double>& work) { attention_head(h, work); }

}  // namespace tir
