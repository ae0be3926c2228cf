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

template <typename T>
void attention_head(const AttnHead<T>& h, std::vector<T>& work) {
  const int64_t L = h.L, S = h.S, E = h.E, Ev = h.Ev;
  if (L <= 0) return;
  const T ninf = -std::numeric_limits<T>::infinity();
  if (S <= 0 || Ev <= 0) {  // nothing to attend to: torch gives zeros
    for (int64_t i = 0; i < L; ++i) std::fill(h.out + i * h.ldo, h.out + i * h.ldo + std::max<int64_t>(Ev, 0), T(0));
    if (h.lse) std::fill(h.lse, h.lse + L, T(0));
    if (S <= 0) return;
  }
  work.resize(size_t(L * S));
  T* p = work.data();
  // Copies for operands gemm cannot read in place (rare: strided slices).
  std::vector<T> qc, kc, vc;

  // scores = q · kᵀ · scale
  if (E > 0) {
    const GemmOperand<T> q = as_operand(h.q, L, E, qc);
    const GemmOperand<T> k = as_operand(h.k, S, E, kc);
    gemm(L, S, E, q.data, q.ld, q.trans, k.data, k.ld, !k.trans, p, S, h.scale);
  } else {
    std::fill(p, p + L * S, T(0));
  }

  // Mask, then the row softmax (fully -inf rows give 0).
  // The gemms and the softmax split internally; the row loops here split over rows.
  const AttnMask<T>& m = h.mask;
  if (m.add || m.keep || h.causal)
    parallel_for(L, grain_for(S), [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        T* row = p + i * S;
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
    parallel_for(L, grain_for(4 * S), [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const T* row = p + i * S;
        const T mx = *std::max_element(row, row + S);
        if (mx == ninf) {
          h.lse[i] = T(0);
          continue;
        }
        double sum = 0;
        for (int64_t j = 0; j < S; ++j) sum += std::exp(double(row[j] - mx));
        h.lse[i] = mx + T(std::log(sum));
      }
    });
  }
  if (Ev <= 0) return;
  softmax_rows(p, p, L, S);

  // out = P · v
  const GemmOperand<T> v = as_operand(h.v, S, Ev, vc);
  gemm(L, Ev, S, p, S, false, v.data, v.ld, v.trans, h.out, h.ldo, T(1));
}

}  // namespace

void attention_head_f32(const AttnHead<float>& h, std::vector<float>& work) { attention_head(h, work); }
void attention_head_f64(const AttnHead<double>& h, std::vector<double>& work) { attention_head(h, work); }

}  // namespace tir
