// General matrix multiply, the one entry point every matmul/linear/conv op
// goes through:  C = alpha * op(A) * op(B) + beta * C
// op(A) is M x K: A(i,k) = A[i*lda + k], or A[k*lda + i] when transA.
// op(B) is K x N: B(k,j) = B[k*ldb + j], or B[j*ldb + k] when transB.
// C is M x N row-major with row stride ldc. beta == 0 overwrites C without
// reading it (NaN/garbage in C does not leak, as BLAS and torch's addmm).
// Scalar reference code (cache-blocked); a later issue replaces the body with
// SIMD + threads behind the same signature.
#pragma once
#include <cstdint>

namespace tir {

void gemm_f32(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda, bool transA, const float* B,
              int64_t ldb, bool transB, float* C, int64_t ldc, float alpha, float beta);

void gemm_f64(int64_t M, int64_t N, int64_t K, const double* A, int64_t lda, bool transA, const double* B,
              int64_t ldb, bool transB, double* C, int64_t ldc, double alpha, double beta);

// Integer matmul (rare; plain loops, wrapping arithmetic as torch).
template <typename T>
void gemm_int(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, bool transA, const T* B, int64_t ldb,
              bool transB, T* C, int64_t ldc, T alpha, T beta);

}  // namespace tir
