// The quantized kernels against their scalar references: the self-check sweep over awkward
// sizes (int8 GEMM, int8 x int4 GEMM, activation rows; kernels/selfcheck_quantized.cpp), and
// the int8 GEMM's int32 range at its extremes. The GemmKernel* filter reruns it under every SIMD
// target (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/gemm_s8.h"
#include "kernels/selfcheck.h"

using namespace tir;

namespace {

TEST(GemmKernelS8, QuantizedKernelsMatchTheirReferences) {
  // the sweep (kernels/selfcheck_quantized.cpp) that also runs inside the WASM builds
  const SelfcheckResult r = selfcheck_quantized();
  EXPECT_GT(r.cases, 400);
  EXPECT_EQ(r.failures, 0) << r.report;
}

TEST(GemmKernelS8, ExtremeValuesDoNotOverflow) {
  // -128 x -127 on every k of a long row: K * 16256 = 4.2e7 fits int32; zero points at the ends
  const int64_t M = 2, N = 3, K = 2049, lda = 2050;
  std::vector<int16_t> A(size_t(M * lda), -128);
  std::vector<int8_t> W(size_t(N * K), -127);
  const int64_t nr = gemm_s8_nr(), npad = (N + nr - 1) / nr * nr;
  std::vector<float> rs(M, 1.0f), cs(size_t(npad), 1.0f);
  std::vector<int32_t> rz(M, 127), csum(size_t(npad), int32_t(-127 * K));
  QGemmEpilogue e;
  e.row_scale = rs.data();
  e.row_zero = rz.data();
  e.col_scale = cs.data();
  e.col_sum = csum.data();
  std::vector<int16_t> packed(size_t(packed_b_s8_size(K, N)));
  pack_b_s8(K, N, W.data(), K, packed.data());
  std::vector<float> C(size_t(M * N));
  gemm_s8(M, N, K, A.data(), lda, packed.data(), e, C.data(), N);
  // (-128 - 127) * -127 * K
  for (float v : C) EXPECT_EQ(v, float(int64_t(255) * 127 * K));
}

}  // namespace
