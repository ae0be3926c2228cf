// Scalar reference gemm (f32/f64/int): cache-blocked plain loops. The SIMD
// f32 path (gemm.cpp) is tested against gemm_ref_f32; f64 always runs here.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/half.h"
#include "core/wrap_int.h"
#include "kernels/gemm.h"
#include "kernels/parallel.h"

namespace tir {

namespace {

// Block sizes: a packed kc x nc panel of B (256 x 256 floats = 256 KiB) is
// reused across all M rows.
constexpr int64_t kKc = 256;
constexpr int64_t kNc = 256;

template <typename T>
void scale_c(int64_t M, int64_t N, T* C, int64_t ldc, T beta) {
  for (int64_t i = 0; i < M; ++i) {
    T* c = C + i * ldc;
    if (beta == T(0))
      std::fill(c, c + N, T(0));
    else if (beta != T(1))
      for (int64_t j = 0; j < N; ++j) c[j] *= beta;
  }
}

template <typename T>
void gemm_ref(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, bool transA, const T* B, int64_t ldb,
              bool transB, T* C, int64_t ldc, T alpha, T beta) {
  if (M <= 0 || N <= 0) return;
  scale_c(M, N, C, ldc, beta);
  if (K <= 0 || alpha == T(0)) return;
  std::vector<T> bpack(size_t(std::min(K, kKc) * std::min(N, kNc)));
  for (int64_t j0 = 0; j0 < N; j0 += kNc) {
    const int64_t nc = std::min(kNc, N - j0);
    for (int64_t k0 = 0; k0 < K; k0 += kKc) {
      const int64_t kc = std::min(kKc, K - k0);
      // Pack op(B)[k0:k0+kc, j0:j0+nc] row-major so the inner loop is unit-stride.
      for (int64_t k = 0; k < kc; ++k) {
        T* dst = bpack.data() + k * nc;
        if (!transB) {
          const T* src = B + (k0 + k) * ldb + j0;
          std::copy(src, src + nc, dst);
        } else {
          for (int64_t j = 0; j < nc; ++j) dst[j] = B[(j0 + j) * ldb + k0 + k];
        }
      }
      for (int64_t i = 0; i < M; ++i) {
        T* c = C + i * ldc + j0;
        for (int64_t k = 0; k < kc; ++k) {
          const T a = alpha * (transA ? A[(k0 + k) * lda + i] : A[i * lda + k0 + k]);
          const T* b = bpack.data() + k * nc;
          for (int64_t j = 0; j < nc; ++j) c[j] += a * b[j];
        }
      }
    }
  }
}

// Splits C into column blocks (or row blocks when M > N) run as independent
// gemm_ref calls. Every element still sums its k terms in the same order, so
// the result does not depend on the thread count.
template <typename T>
void gemm_parallel(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, bool transA, const T* B,
                   int64_t ldb, bool transB, T* C, int64_t ldc, T alpha, T beta) {
  if (M <= 0 || N <= 0) return;
  const int64_t k = std::max<int64_t>(K, 1);
  if (num_threads() == 1 || M * N * k < 2 * kMinTaskWork) {
    gemm_ref(M, N, K, A, lda, transA, B, ldb, transB, C, ldc, alpha, beta);
    return;
  }
  if (N >= M) {
    // Column blocks of at least 16 keep the packed rows reasonably long.
    parallel_for(N, std::max<int64_t>(16, grain_for(M * k)), [&](int64_t j0, int64_t j1) {
      gemm_ref(M, j1 - j0, K, A, lda, transA, transB ? B + j0 * ldb : B + j0, ldb, transB, C + j0, ldc, alpha,
               beta);
    });
  } else {
    parallel_for(M, grain_for(N * k), [&](int64_t i0, int64_t i1) {
      gemm_ref(i1 - i0, N, K, transA ? A + i0 : A + i0 * lda, lda, transA, B, ldb, transB, C + i0 * ldc, ldc,
               alpha, beta);
    });
  }
}

}  // namespace

void apply_gemm_epilogue_ref(int64_t M, int64_t N, float* C, int64_t ldc, const GemmEpilogue& epi, int64_t row0,
                             int64_t col0) {
  if (epi.trivial()) return;
  for (int64_t i = 0; i < M; ++i) {
    float* c = C + i * ldc;
    for (int64_t j = 0; j < N; ++j) {
      float v = c[j];
      if (epi.bias) v += epi.bias_per_row ? epi.bias[row0 + i] : epi.bias[col0 + j];
      if (epi.residual) v += epi.residual[(row0 + i) * epi.ldr + col0 + j];
      c[j] = apply_gemm_act(v, epi);
    }
  }
}

void apply_gemm_act_rows(int64_t M, int64_t N, float* C, int64_t ldc, const GemmEpilogue& epi) {
  if (!epi.act_row || N <= 0) return;
  for (int64_t i = 0; i < M; ++i) epi.act_row(C + i * ldc, C + i * ldc, N, RowParams{});
}

void gemm_ref_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool transA, const float* B,
                  int64_t ldb, bool transB, float* C, int64_t ldc, float alpha, float beta,
                  const GemmEpilogue& epi) {
  gemm_parallel<float>(M, N, K, A, lda, transA, B, ldb, transB, C, ldc, alpha, beta);
  // The residual may alias C (element-for-element), which the epilogue reads before writing.
  if (M > 0 && N > 0) apply_gemm_epilogue_ref(M, N, C, ldc, epi);
  apply_gemm_act_rows(M, N, C, ldc, epi);
}

bool halves_finite(int64_t n, const uint16_t* halves, PackedHalf kind) {
  const uint16_t exp = kind == PackedHalf::BF16 ? 0x7F80 : 0x7C00;
  for (int64_t i = 0; i < n; ++i)
    if ((halves[i] & exp) == exp) return false;
  return true;
}

void unpack_b_half(int64_t K, int64_t N, const uint16_t* packed, PackedHalf kind, float* dst, int64_t ldd) {
  const int64_t nr = gemm_nr();
  for (int64_t k = 0; k < K; ++k)
    for (int64_t j = 0; j < N; ++j) {
      const uint16_t h = packed[(j / nr) * K * nr + k * nr + j % nr];
      dst[k * ldd + j] = kind == PackedHalf::BF16 ? bf16_to_float(h) : half_to_float(h);
    }
}

void gemm_f64(int64_t M, int64_t N, int64_t K, const double* A, int64_t lda, bool transA, const double* B,
              int64_t ldb, bool transB, double* C, int64_t ldc, double alpha, double beta) {
  gemm_parallel<double>(M, N, K, A, lda, transA, B, ldb, transB, C, ldc, alpha, beta);
}

template <typename T>
void gemm_int(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, bool transA, const T* B, int64_t ldb,
              bool transB, T* C, int64_t ldc, T alpha, T beta) {
  if (M <= 0 || N <= 0) return;
  parallel_for(M, grain_for(N * std::max<int64_t>(K, 1)), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = 0; j < N; ++j) {
        // Products and sums wrap like torch's integer matmul (no signed-overflow UB).
        T acc = 0;
        for (int64_t k = 0; k < K; ++k)
          acc = wrap_add(acc, wrap_mul(transA ? A[k * lda + i] : A[i * lda + k], transB ? B[j * ldb + k] : B[k * ldb + j]));
        T& c = C[i * ldc + j];
        c = beta == T(0) ? wrap_mul(alpha, acc) : wrap_add(wrap_mul(alpha, acc), wrap_mul(beta, c));
      }
  });
}

template void gemm_int<int64_t>(int64_t, int64_t, int64_t, const int64_t*, int64_t, bool, const int64_t*,
                                int64_t, bool, int64_t*, int64_t, int64_t, int64_t);
template void gemm_int<int32_t>(int64_t, int64_t, int64_t, const int32_t*, int64_t, bool, const int32_t*,
                                int64_t, bool, int32_t*, int64_t, int32_t, int32_t);
template void gemm_int<int16_t>(int64_t, int64_t, int64_t, const int16_t*, int64_t, bool, const int16_t*,
                                int64_t, bool, int16_t*, int64_t, int16_t, int16_t);
template void gemm_int<int8_t>(int64_t, int64_t, int64_t, const int8_t*, int64_t, bool, const int8_t*,
                               int64_t, bool, int8_t*, int64_t, int8_t, int8_t);
template void gemm_int<uint8_t>(int64_t, int64_t, int64_t, const uint8_t*, int64_t, bool, const uint8_t*,
                                int64_t, bool, uint8_t*, int64_t, uint8_t, uint8_t);

}  // namespace tir
