// The int8 x int4 group-wise GEMM (kernels/gemm_s8w4.h) at its value extremes: -8 and 7 come
// back from their nibbles sign-extended, and the packed size is half a byte per weight. Its sweep
// against the reference on awkward sizes is kernels/selfcheck_quantized.cpp (gemm_s8_test.cpp
// runs it). The GemmKernel* filter reruns it under every SIMD target.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "kernels/gemm_s8w4.h"

using namespace tir;

namespace {

TEST(GemmKernelS8W4, PacksTwoNibblesPerByte) {
  const int64_t K = 64, N = 8;
  EXPECT_EQ(packed_b_s4_size(K, N), (N + gemm_s8_nr() - 1) / gemm_s8_nr() * gemm_s8_nr() * K / 2);
  // extreme values on every k: -128 x -8 summed over a group of 64 fits int32 trivially; the
  // nibble -8 must come back as -8 (sign extension), 7 as 7
  const int64_t lda = K, nr = gemm_s8_nr(), npad = (N + nr - 1) / nr * nr;
  std::vector<int16_t> A(size_t(2 * lda), -128);
  std::vector<int8_t> W(size_t(N * K));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k = 0; k < K; ++k) W[size_t(n * K + k)] = int8_t(n % 2 ? 7 : -8);
  std::vector<float> rs(2, 1.0f), cs(size_t(npad), 1.0f);
  std::vector<int32_t> csum(size_t(npad), 0);
  for (int64_t n = 0; n < N; ++n) csum[size_t(n)] = int32_t(K * (n % 2 ? 7 : -8));
  QGemmEpilogue e;
  e.row_scale = rs.data();
  e.col_scale = cs.data();
  e.col_sum = csum.data();
  std::vector<uint8_t> packed(size_t(packed_b_s4_size(K, N)));
  pack_b_s4(K, N, W.data(), K, packed.data());
  std::vector<float> C(size_t(2 * N));
  gemm_s8w4(2, N, K, K, A.data(), lda, packed.data(), e, C.data(), N);
  for (int64_t n = 0; n < N; ++n) EXPECT_EQ(C[size_t(n)], float(-128 * K * (n % 2 ? 7 : -8))) << n;
}

}  // namespace
