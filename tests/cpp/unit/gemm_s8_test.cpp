// The int8 GEMM (kernels/gemm_s8.h) against its scalar reference on awkward sizes: M, N, K of 1,
// odd, tile edges and past them, zero; symmetric and asymmetric weights, with and without bias.
// The GemmKernel* filter reruns it under every SIMD target (tests/CMakeLists.txt). Sums are
// exact, so the packed kernel must equal the reference bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/elementwise_simd.h"
#include "kernels/gemm_s8.h"
#include "kernels/quantize.h"

using namespace tir;

namespace {

struct Case {
  int64_t M, N, K;
  bool bias, weight_zero;
  bool post = false;  // a fused residual + relu + gelu row kernel after the store
};

void check(const Case& c, std::mt19937& rng) {
  std::uniform_int_distribution<int> q(-128, 127), w(-127, 127), z(-20, 20);
  std::uniform_real_distribution<float> u(0.001f, 0.05f), b(-1, 1);
  const int64_t nr = gemm_s8_nr();
  const int64_t npad = (c.N + nr - 1) / nr * nr;
  const int64_t lda = (c.K + 1) / 2 * 2 + 2;  // even, with slack past K
  std::vector<int16_t> A(size_t(std::max<int64_t>(c.M * lda, 1)), 0);
  std::vector<int8_t> W(size_t(std::max<int64_t>(c.N * c.K, 1)));
  for (int64_t m = 0; m < c.M; ++m)
    for (int64_t k = 0; k < c.K; ++k) A[size_t(m * lda + k)] = int16_t(q(rng));
  for (auto& v : W) v = int8_t(w(rng));
  std::vector<float> rs(size_t(c.M)), cs(size_t(npad), 0.0f), bias(size_t(npad), 0.0f);
  std::vector<int32_t> rz(size_t(c.M)), rsum(size_t(c.M), 0), csum(size_t(npad), 0), cz(size_t(npad), 0);
  for (int64_t m = 0; m < c.M; ++m) {
    rs[size_t(m)] = u(rng);
    rz[size_t(m)] = z(rng);
    for (int64_t k = 0; k < c.K; ++k) rsum[size_t(m)] += A[size_t(m * lda + k)];
  }
  for (int64_t n = 0; n < c.N; ++n) {
    cs[size_t(n)] = u(rng);
    bias[size_t(n)] = b(rng);
    cz[size_t(n)] = c.weight_zero ? z(rng) : 0;
    for (int64_t k = 0; k < c.K; ++k) csum[size_t(n)] += W[size_t(n * c.K + k)];
  }
  QGemmEpilogue e;
  e.row_scale = rs.data();
  e.row_zero = rz.data();
  e.row_sum = rsum.data();
  e.col_scale = cs.data();
  e.col_sum = csum.data();
  e.col_zero = c.weight_zero ? cz.data() : nullptr;
  e.bias = c.bias ? bias.data() : nullptr;
  std::vector<float> residual(size_t(std::max<int64_t>(c.M * c.N, 1)));
  for (auto& v : residual) v = b(rng);
  GemmEpilogue post;
  post.residual = residual.data();
  post.ldr = c.N;
  post.act = GemmAct::Clamp;
  post.lo = -0.5f;
  post.act_row = unary_row_f32(UnaryOp::Gelu);
  if (c.post) e.post = &post;
  std::vector<int16_t> packed(size_t(std::max<int64_t>(packed_b_s8_size(c.K, c.N), 1)));
  pack_b_s8(c.K, c.N, W.data(), c.K, packed.data());
  const int64_t ldc = c.N + 3;
  std::vector<float> got(size_t(std::max<int64_t>(c.M * ldc, 1)), -7.0f), want(got);
  gemm_s8(c.M, c.N, c.K, A.data(), lda, packed.data(), e, got.data(), ldc);
  gemm_s8_ref(c.M, c.N, c.K, A.data(), lda, W.data(), c.K, e, want.data(), ldc);
  // bit for bit, and the gaps between rows untouched
  EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0)
      << "M " << c.M << " N " << c.N << " K " << c.K << " bias " << c.bias << " weight zero " << c.weight_zero
      << " post " << c.post;
}

TEST(GemmKernelS8, MatchesTheReferenceOnAwkwardSizes) {
  std::mt19937 rng(7);
  for (int64_t M : {1, 3, 4, 5, 17})
    for (int64_t N : {1, 7, 8, 9, 33})
      for (int64_t K : {1, 2, 3, 64, 129})
        for (bool bias : {false, true}) check({M, N, K, bias, false}, rng);
  for (int64_t M : {2, 9})
    for (int64_t K : {5, 40}) check({M, 13, K, true, true}, rng);
  check({0, 5, 3, true, false}, rng);   // no rows
  check({3, 0, 3, true, false}, rng);   // no columns
  check({3, 5, 0, true, false}, rng);   // K = 0: the bias alone
}

TEST(GemmKernelS8, AFusedEpilogueRunsOnceOnEveryElement) {
  // blocks of columns past one group (64), row tiles past one, a short last tile
  std::mt19937 rng(11);
  for (int64_t M : {1, 5, 67})
    for (int64_t N : {3, 64, 200})
      for (bool bias : {false, true}) check({M, N, 37, bias, M == 5, true}, rng);
}

TEST(GemmKernelS8, ActivationQuantizationRowsMatchTheReference) {
  // ties at .5, values past the range, NaN, lengths around the vector width
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-300, 300);
  for (int64_t n : {0, 1, 3, 4, 5, 8, 15, 16, 17, 33, 100}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) x[size_t(i)] = i % 3 == 0 ? float(i) + 0.5f : u(rng);
    if (n > 6) x[6] = NAN;
    for (float inv : {1.0f, 0.37f, 40.0f})
      for (float z : {0.0f, -3.0f, 12.0f}) {
        std::vector<int16_t> got(size_t(n) + 1, 77), want(got);
        quantize_f32_i16(x.data(), n, inv, z, -128, 127, got.data());
        QuantizeRowSpec spec;
        spec.qmin = -128;
        spec.qmax = 127;
        spec.out = DType::I16;
        const double inv_d = inv, z_d = z;
        quantize_row(x.data(), false, 1, &inv_d, &z_d, 0, n, spec, want.data(), 1);
        EXPECT_EQ(got, want) << "n " << n << " inv " << inv << " z " << z;
      }
    float lo = 0, hi = 0;
    minmax_f32(x.data(), n, &lo, &hi);
    double rlo = INFINITY, rhi = -INFINITY;
    minmax_row(x.data(), false, 1, n, &rlo, &rhi, 0);
    if (n > 6) {
      EXPECT_TRUE(std::isnan(lo) && std::isnan(hi)) << n;
    } else {
      EXPECT_EQ(double(lo), rlo) << n;
      EXPECT_EQ(double(hi), rhi) << n;
    }
  }
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
