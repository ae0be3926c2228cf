// Unit tests for matmul/conv/pool/index/join/creation ops and their kernels:
// small hand-checked values, shapes of the tricky cases, and error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "core/thread_pool.h"
#include "kernels/conv.h"
#include "kernels/gemm.h"
#include "kernels/pool.h"
#include "ops/op.h"
#include "op_test_util.h"
#include "test_util.h"

namespace tir {
namespace {

using namespace test;
using namespace ::testing;


std::vector<float> iota_f(int64_t n, float start = 1.0f) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = start + float(i);
  return v;
}

// ============================== gemm kernel ================================
TEST(GemmKernel, TransposeFlagsAndBeta) {
  // A = [[1,2,3],[4,5,6]], B = [[1,2],[3,4],[5,6]] -> A@B = [[22,28],[49,64]]
  const float A[] = {1, 2, 3, 4, 5, 6};
  const float At[] = {1, 4, 2, 5, 3, 6};
  const float Bm[] = {1, 2, 3, 4, 5, 6};
  const float Bt[] = {1, 3, 5, 2, 4, 6};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      float C[4] = {nan, nan, nan, nan};
      gemm_f32(2, 2, 3, ta ? At : A, ta ? 2 : 3, ta, tb ? Bt : Bm, tb ? 3 : 2, tb, C, 2, 1.0f, 0.0f);
      EXPECT_THAT(C, ElementsAre(22, 28, 49, 64)) << ta << tb;
    }
  float C[4] = {1, 1, 1, 1};
  gemm_f32(2, 2, 3, A, 3, false, Bm, 2, false, C, 2, 2.0f, 0.5f);
  EXPECT_THAT(C, ElementsAre(44.5, 56.5, 98.5, 128.5));
}

TEST(GemmKernel, LargerThanOneBlockMatchesNaive) {
  const int64_t M = 7, N = 300, K = 600;  // crosses the 256 K/N blocks
  std::vector<double> A(size_t(M * K)), Bv(size_t(K * N)), C(size_t(M * N));
  for (size_t i = 0; i < A.size(); ++i) A[i] = double((i * 7) % 13) - 6;
  for (size_t i = 0; i < Bv.size(); ++i) Bv[i] = double((i * 5) % 11) - 5;
  gemm_f64(M, N, K, A.data(), K, false, Bv.data(), N, false, C.data(), N, 1.0, 0.0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; j += 37) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += A[size_t(i * K + k)] * Bv[size_t(k * N + j)];
      EXPECT_EQ(C[size_t(i * N + j)], acc);
    }
}

// ============================== matmul ops =================================
TEST(MatmulOps, MmAndTransposedView) {
  Tensor a = tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = tensor_f32({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_THAT(values_f32(run_op("aten.mm.default", {a, b}).out[0]), ElementsAre(22, 28, 49, 64));
  // b^T given as a strided view of [[1,3,5],[2,4,6]]
  Tensor bt = transposed(tensor_f32({2, 3}, {1, 3, 5, 2, 4, 6}));
  EXPECT_THAT(values_f32(run_op("aten.mm.default", {a, bt}).out[0]), ElementsAre(22, 28, 49, 64));
}

TEST(MatmulOps, AddmmBetaZeroIgnoresNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor self = tensor_f32({2}, {nan, nan});
  Tensor a = tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = tensor_f32({3, 2}, {1, 2, 3, 4, 5, 6});
  auto r = run_op("aten.addmm.default", {self, a, b}, {{"beta", I(0)}, {"alpha", F(0.5)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(11, 14, 24.5, 32));
  Tensor bias = tensor_f32({2}, {1, -1});
  r = run_op("aten.addmm.default", {bias, a, b}, {{"beta", F(2.0)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(24, 26, 51, 62));
}

TEST(MatmulOps, LinearLeadingDimsAndBias) {
  Tensor x = tensor_f32({2, 1, 3}, {1, 2, 3, 4, 5, 6});
  Tensor w = tensor_f32({2, 3}, {1, 0, 0, 1, 1, 1});  // [out=2, in=3]
  Tensor b = tensor_f32({2}, {10, 20});
  auto r = run_op("aten.linear.default", {x, w, b});
  EXPECT_EQ(r.out[0].shape, (Shape{2, 1, 2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(11, 26, 14, 35));
  Tensor x1 = tensor_f32({3}, {1, 2, 3});
  r = run_op("aten.linear.default", {x1, w});
  EXPECT_EQ(r.out[0].shape, (Shape{2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 6));
}

TEST(MatmulOps, MatmulNumpyShapes) {
  Tensor v = tensor_f32({3}, {1, 2, 3});
  Tensor m = tensor_f32({3, 2}, {1, 2, 3, 4, 5, 6});
  auto r = run_op("aten.matmul.default", {v, v});
  EXPECT_EQ(r.out[0].shape, Shape{});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(14));
  r = run_op("aten.matmul.default", {v, m});
  EXPECT_EQ(r.out[0].shape, Shape{2});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(22, 28));
  Tensor mt = tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  r = run_op("aten.matmul.default", {mt, v});
  EXPECT_EQ(r.out[0].shape, Shape{2});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(14, 32));
  // batch broadcast: [2,1,2,3] @ [4,3,1] -> [2,4,2,1]
  Tensor a = tensor_f32({2, 1, 2, 3}, iota_f(12));
  Tensor b = tensor_f32({4, 3, 1}, iota_f(12));
  r = run_op("aten.matmul.default", {a, b});
  ASSERT_EQ(r.out[0].shape, (Shape{2, 4, 2, 1}));
  auto got = values_f32(r.out[0]);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int m2 = 0; m2 < 2; ++m2) {
        float acc = 0;
        for (int k = 0; k < 3; ++k) acc += float(1 + i * 6 + m2 * 3 + k) * float(1 + j * 3 + k);
        EXPECT_EQ(got[size_t((i * 4 + j) * 2 + m2)], acc);
      }
  EXPECT_THAT(error_of([&] {
                run_op("aten.matmul.default", {mt, mt});
              }),
              AllOf(HasSubstr("n1"), HasSubstr("cannot be multiplied")));
}

// Attention at decode: one query row per head against the cache, each product too small to thread
// inside gemm, so the batch is threaded (ops/matmul.cpp). Keys as a transposed view (q k^T) and
// values row-major with N not a multiple of the panel width (p v: the GEMV reads B in place and
// packs only the partial last panel), a broadcast batch dim: the same bits at 1, 2 and 3 threads,
// and the float64 sums within float32 rounding.
TEST(MatmulOps, SmallBatchedProductsThreadOverTheBatchWithTheSameBits) {
  const int64_t H = 7, K = 37, L = 45, V = 19;
  auto vals = [](int64_t n, int seed) {
    std::vector<float> v(static_cast<size_t>(n), 0.0f);
    for (int64_t i = 0; i < n; ++i) v[size_t(i)] = float((i * 37 + seed * 11) % 29) / 7.0f - 2.0f;
    return v;
  };
  Tensor q = tensor_f32({2, H, 1, K}, vals(2 * H * K, 1));
  Tensor keys = tensor_f32({1, H, L, K}, vals(H * L * K, 2));
  Tensor kt = keys.view_as({1, H, K, L}, {H * L * K, L * K, 1, K}, keys.offset);  // keys^T
  Tensor p = tensor_f32({2, H, 1, L}, vals(2 * H * L, 3));
  Tensor values = tensor_f32({1, H, L, V}, vals(H * L * V, 4));
  std::vector<float> scores1, out1;
  for (int t : {1, 2, 3}) {
    set_num_threads(t);
    auto scores = values_f32(run_op("aten.matmul.default", {q, kt}).out[0]);
    auto out = values_f32(run_op("aten.matmul.default", {p, values}).out[0]);
    if (t == 1) {
      scores1 = scores;
      out1 = out;
    }
    EXPECT_EQ(scores, scores1) << "threads " << t;
    EXPECT_EQ(out, out1) << "threads " << t;
  }
  set_num_threads(1);
  const auto qv = vals(2 * H * K, 1), kv = vals(H * L * K, 2), pv = vals(2 * H * L, 3), vv = vals(H * L * V, 4);
  // got[(b * H + h) * J + j] against the float64 sum over `inner` of lhs(b, h, k) * rhs(h, k, j)
  auto expect_sums = [&](const std::vector<float>& got, int64_t J, int64_t inner, auto lhs, auto rhs) {
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t j = 0; j < J; ++j) {
          double sum = 0, mag = 0;
          for (int64_t k = 0; k < inner; ++k) {
            const double x = double(lhs(b, h, k)) * rhs(h, k, j);
            sum += x;
            mag += std::fabs(x);
          }
          ASSERT_NEAR(got[size_t((b * H + h) * J + j)], sum, 1e-6 * mag + 1e-7) << b << " " << h << " " << j;
        }
  };
  expect_sums(scores1, L, K, [&](int64_t b, int64_t h, int64_t k) { return qv[size_t((b * H + h) * K + k)]; },
              [&](int64_t h, int64_t k, int64_t j) { return kv[size_t((h * L + j) * K + k)]; });
  expect_sums(out1, V, L, [&](int64_t b, int64_t h, int64_t k) { return pv[size_t((b * H + h) * L + k)]; },
              [&](int64_t h, int64_t k, int64_t j) { return vv[size_t((h * L + k) * V + j)]; });
}

TEST(MatmulOps, BmmAndBaddbmm) {
  Tensor a = tensor_f32({2, 1, 2}, {1, 2, 3, 4});
  Tensor b = tensor_f32({2, 2, 1}, {1, 1, 2, 3});
  EXPECT_THAT(values_f32(run_op("aten.bmm.default", {a, b}).out[0]), ElementsAre(3, 18));
  Tensor self = tensor_f32({1}, {100});
  auto r = run_op("aten.baddbmm.default", {self, a, b}, {{"alpha", I(2)}, {"beta", F(0.5)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(56, 86));
}

// ================================ conv =====================================
// Direct-formula reference (no im2col) for cross-checking the kernel paths.
std::vector<float> naive_conv(const Conv2dGeom& g, const std::vector<float>& x, const std::vector<float>& w,
                              const std::vector<float>& bias) {
  std::vector<float> y(size_t(g.N * g.OC * g.OH * g.OW));
  const int64_t cg = g.C / g.G, ocg = g.OC / g.G;
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t oc = 0; oc < g.OC; ++oc)
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          double acc = bias.empty() ? 0 : bias[size_t(oc)];
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t kh = 0; kh < g.KH; ++kh)
              for (int64_t kw = 0; kw < g.KW; ++kw) {
                const int64_t ih = oh * g.SH - g.PH + kh * g.DH, iw = ow * g.SW - g.PW + kw * g.DW;
                if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) continue;
                const int64_t ic = (oc / ocg) * cg + c;
                acc += double(x[size_t(((n * g.C + ic) * g.H + ih) * g.W + iw)]) *
                       w[size_t(((oc * cg + c) * g.KH + kh) * g.KW + kw)];
              }
          y[size_t(((n * g.OC + oc) * g.OH + oh) * g.OW + ow)] = float(acc);
        }
  return y;
}

TEST(ConvOps, Conv2dTwoByTwo) {
  Tensor x = tensor_f32({1, 1, 3, 3}, iota_f(9));
  Tensor w = tensor_f32({1, 1, 2, 2}, {1, 1, 1, 1});
  auto r = run_op("aten.conv2d.default", {x, w});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 1, 2, 2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(12, 16, 24, 28));
  // padding 1, stride 2: windows at rows/cols -1 and 1 -> [[1, 5], [11, 28]]
  Tensor bias = tensor_f32({1}, {0.5});
  r = run_op("aten.conv2d.default", {x, w, bias}, {{"stride", ints({2, 2})}, {"padding", ints({1})}});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 1, 2, 2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1.5, 5.5, 11.5, 28.5));
}

TEST(ConvOps, GroupsDepthwiseDilationMatchNaive) {
  struct Case {
    int64_t C, OC, G, K, S, P, D;
  };
  for (const Case c : {Case{4, 6, 2, 3, 1, 1, 1}, Case{3, 3, 3, 3, 2, 1, 1}, Case{2, 4, 2, 3, 1, 2, 2},
                       Case{3, 5, 1, 1, 1, 0, 1}, Case{2, 2, 1, 2, 3, 1, 1}}) {
    Conv2dGeom g;
    g.N = 2, g.C = c.C, g.H = 7, g.W = 6, g.OC = c.OC, g.KH = c.K, g.KW = c.K;
    g.SH = g.SW = c.S, g.PH = g.PW = c.P, g.DH = g.DW = c.D, g.G = c.G;
    g.OH = (g.H + 2 * c.P - c.D * (c.K - 1) - 1) / c.S + 1;
    g.OW = (g.W + 2 * c.P - c.D * (c.K - 1) - 1) / c.S + 1;
    std::vector<float> x(size_t(g.N * g.C * g.H * g.W)), w(size_t(g.OC * (g.C / g.G) * c.K * c.K)),
        bias(size_t(g.OC));
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i * 7 % 17) - 8) / 4;
    for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i * 3 % 11) - 5) / 8;
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = float(i);
    auto r = run_op("aten.convolution.default",
                    {tensor_f32({g.N, g.C, g.H, g.W}, x), tensor_f32({g.OC, g.C / g.G, c.K, c.K}, w),
                     tensor_f32({g.OC}, bias)},
                    {{"stride", ints({c.S, c.S})},
                     {"padding", ints({c.P, c.P})},
                     {"dilation", ints({c.D, c.D})},
                     {"transposed", B(false)},
                     {"output_padding", ints({0, 0})},
                     {"groups", I(c.G)}});
    ASSERT_EQ(r.out[0].shape, (Shape{g.N, g.OC, g.OH, g.OW}));
    auto want = naive_conv(g, x, w, bias);
    auto got = values_f32(r.out[0]);
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-5) << "C=" << c.C << " G=" << c.G;
  }
}

TEST(ConvOps, SamePaddingEvenKernelAndConv1d) {
  // "same" with k=2: total padding 1, all on the right.
  Tensor x = tensor_f32({1, 1, 4}, {1, 2, 3, 4});
  Tensor w = tensor_f32({1, 1, 2}, {1, 10});
  auto r = run_op("aten.conv1d.padding", {x, w}, {{"padding", S("same")}});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 1, 4}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(21, 32, 43, 4));
  // Unbatched 2-D (C,L) conv1d
  r = run_op("aten.conv1d.default", {tensor_f32({1, 4}, {1, 2, 3, 4}), w});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 3}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(21, 32, 43));
  EXPECT_THAT(error_of([&] {
                run_op("aten.conv2d.padding",
                       {tensor_f32({1, 1, 4, 4}, iota_f(16)), tensor_f32({1, 1, 2, 2}, iota_f(4))},
                       {{"padding", S("same")}, {"stride", ints({2, 2})}});
              }),
              HasSubstr("strided"));
}

TEST(ConvOps, TransposedTwoByTwo) {
  Tensor x = tensor_f32({1, 1, 2, 2}, {1, 2, 3, 4});
  Tensor w = tensor_f32({1, 1, 2, 2}, {1, 1, 1, 1});
  auto r = run_op("aten.conv_transpose2d.input", {x, w});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 1, 3, 3}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 3, 2, 4, 10, 6, 3, 7, 4));
  // stride 2, output_padding 1: (2-1)*2 + 2 + 1 = 5
  r = run_op("aten.conv_transpose2d.input", {x, w},
             {{"stride", ints({2, 2})}, {"output_padding", ints({1, 1})}});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 1, 5, 5}));
  EXPECT_THAT(values_f32(r.out[0]),
              ElementsAre(1, 1, 2, 2, 0, 1, 1, 2, 2, 0, 3, 3, 4, 4, 0, 3, 3, 4, 4, 0, 0, 0, 0, 0, 0));
}

// ================================ pooling ==================================
TEST(PoolOps, MaxPoolCeilModeDropsWindowInPadding) {
  // in 5, k 2, s 2, p 1, ceil: ceil((5+2-2)/2)+1 = 4, but the 4th window starts at 6 >= 5+1 -> 3
  Tensor x = tensor_f32({1, 1, 5, 5}, iota_f(25));
  auto r = run_op("aten.max_pool2d_with_indices.default", {x},
                  {{"kernel_size", ints({2, 2})},
                   {"stride", ints({2, 2})},
                   {"padding", ints({1, 1})},
                   {"ceil_mode", B(true)}},
                  2);
  ASSERT_EQ(r.out[0].shape, (Shape{1, 1, 3, 3}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 3, 5, 11, 13, 15, 21, 23, 25));
  EXPECT_EQ(r.out[1].dtype, DType::I64);
  EXPECT_THAT(values_i64(r.out[1]), ElementsAre(0, 2, 4, 10, 12, 14, 20, 22, 24));
  // ceil_mode without padding: 5 -> 3 windows, the last one partial
  r = run_op("aten.max_pool2d.default", {x}, {{"kernel_size", ints({2})}, {"ceil_mode", B(true)}});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 1, 3, 3}));
  r = run_op("aten.max_pool2d.default", {x}, {{"kernel_size", ints({2})}});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 1, 2, 2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(7, 9, 17, 19));
}

TEST(PoolOps, MaxPoolNaNAndDilationAnd3D) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = tensor_f32({1, 2, 2}, {1, nan, 3, 4});  // unbatched (C,H,W)
  auto r = run_op("aten.max_pool2d_with_indices.default", {x}, {{"kernel_size", ints({2, 2})}}, 2);
  EXPECT_EQ(r.out[0].shape, (Shape{1, 1, 1}));
  EXPECT_TRUE(std::isnan(values_f32(r.out[0])[0]));
  EXPECT_THAT(values_i64(r.out[1]), ElementsAre(1));
  Tensor y = tensor_f32({1, 1, 3, 3}, {9, 0, 1, 0, 0, 0, 2, 0, 8});
  r = run_op("aten.max_pool2d.default", {y},
             {{"kernel_size", ints({2, 2})}, {"dilation", ints({2, 2})}, {"stride", ints({1, 1})}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(9));
}

TEST(PoolOps, AvgPoolCountIncludePadAndDivisor) {
  // in 4, k 3, s 2, p 1, ceil: 3 windows; the last spans padded [3, 5) -> divisor 2 per dim
  Tensor x = tensor_f32({1, 1, 4, 4}, iota_f(16));
  AttrMap a = {{"kernel_size", ints({3, 3})},
               {"stride", ints({2, 2})},
               {"padding", ints({1, 1})},
               {"ceil_mode", B(true)}};
  auto r = run_op("aten.avg_pool2d.default", {x}, a);
  ASSERT_EQ(r.out[0].shape, (Shape{1, 1, 3, 3}));
  auto v = values_f32(r.out[0]);
  EXPECT_FLOAT_EQ(v[0], (1 + 2 + 5 + 6) / 9.0f);  // corner: 4 real of a full 3x3 padded window
  EXPECT_FLOAT_EQ(v[8], 16 / 4.0f);               // last window clipped to the padded input
  a["count_include_pad"] = B(false);
  v = values_f32(run_op("aten.avg_pool2d.default", {x}, a).out[0]);
  EXPECT_FLOAT_EQ(v[0], (1 + 2 + 5 + 6) / 4.0f);
  EXPECT_FLOAT_EQ(v[8], 16.0f);
  a["divisor_override"] = I(2);
  v = values_f32(run_op("aten.avg_pool2d.default", {x}, a).out[0]);
  EXPECT_FLOAT_EQ(v[0], (1 + 2 + 5 + 6) / 2.0f);
}

TEST(PoolOps, AdaptiveOverlappingBins) {
  // 5 -> 3 bins: [0,2), [1,4), [3,5)
  Tensor x = tensor_f32({1, 1, 1, 5}, {1, 2, 3, 4, 5});
  auto r = run_op("aten._adaptive_avg_pool2d.default", {x}, {{"output_size", ints({1, 3})}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1.5, 3, 4.5));
  r = run_op("aten.adaptive_max_pool2d.default", {x}, {{"output_size", ints({1, 3})}}, 2);
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(2, 4, 5));
  EXPECT_THAT(values_i64(r.out[1]), ElementsAre(1, 3, 4));
  r = run_op("aten.adaptive_avg_pool2d.default", {tensor_f32({2, 2, 2}, iota_f(8))},
             {{"output_size", ints({1})}});
  EXPECT_EQ(r.out[0].shape, (Shape{2, 1, 1}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(2.5, 6.5));
}

// =============================== indexing ==================================
TEST(IndexOps, AdjacentVsSeparatedPlacement) {
  Tensor x = tensor_f32({2, 3, 4}, iota_f(24, 0));
  Tensor i = tensor_i64({2}, {0, -1});
  Tensor j = tensor_i64({2}, {1, 3});
  // x[:, i, j] -> [2, 2] (broadcast dims replace dims 1,2 in place)
  auto r =
      run_op("aten.index.Tensor", {x, i, j},
             {{"_tensor_list_sizes", ints({2})},
              {"_tensor_list_none_masks", Attr::of_list({Attr::of_list({B(true), B(false), B(false)})})}});
  ASSERT_EQ(r.out[0].shape, (Shape{2, 2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 11, 13, 23));
  // x[i, :, j] -> [2, 3] (separated: broadcast dims first)
  r = run_op("aten.index.Tensor", {x, i, j},
             {{"_tensor_list_sizes", ints({2})},
              {"_tensor_list_none_masks", Attr::of_list({Attr::of_list({B(false), B(true), B(false)})})}});
  ASSERT_EQ(r.out[0].shape, (Shape{2, 3}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 5, 9, 15, 19, 23));
  // x[:, i] with i broadcast [2,1] and a trailing slice -> [2, 2, 4]
  Tensor i2 = tensor_i64({2, 1}, {2, 0});
  r = run_op("aten.index.Tensor", {x, i2},
             {{"_tensor_list_none_masks", Attr::of_list({Attr::of_list({B(true), B(false)})})}});
  ASSERT_EQ(r.out[0].shape, (Shape{2, 2, 1, 4}));
  EXPECT_THAT(values_f32(r.out[0]),
              ElementsAreArray({8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15}));
  // broadcasting [2,1] with [3] on dims 0,1 -> [2,3,4]
  Tensor j3 = tensor_i64({3}, {0, 1, 2});
  r = run_op("aten.index.Tensor", {x, tensor_i64({2, 1}, {1, 0}), j3});
  EXPECT_EQ(r.out[0].shape, (Shape{2, 3, 4}));
  EXPECT_EQ(values_f32(r.out[0])[0], 12);
  // _unsafe_index (2.1+, upsampling in old graphs) is the same gather
  r = run_op("aten._unsafe_index.Tensor", {x, tensor_i64({2, 1}, {1, 0}), j3});
  EXPECT_EQ(values_f32(r.out[0])[0], 12);
  EXPECT_THAT(error_of([&] {
                run_op("aten.index.Tensor", {x, tensor_i64({1}, {2})});
              }),
              AllOf(HasSubstr("n1"), HasSubstr("index 2 is out of bounds for dimension 0 with size 2")));
}

TEST(IndexOps, EmbeddingIndexSelectGather) {
  Tensor w = tensor_f32({3, 2}, {0, 1, 10, 11, 20, 21});
  Tensor idx32 = make_owned(DType::I32, {2, 2});
  int32_t* p = idx32.data<int32_t>();
  p[0] = 2, p[1] = 0, p[2] = 1, p[3] = 2;
  auto r = run_op("aten.embedding.default", {w, idx32});
  EXPECT_EQ(r.out[0].shape, (Shape{2, 2, 2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(20, 21, 0, 1, 10, 11, 20, 21));
  r = run_op("aten.index_select.default", {transposed(w), tensor_i64({2}, {1, 1})}, {{"dim", I(-1)}});
  EXPECT_EQ(r.out[0].shape, (Shape{2, 2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(10, 10, 11, 11));
  EXPECT_THAT(error_of([&] {
                run_op("aten.embedding.default", {w, tensor_i64({1}, {-1})});
              }),
              HasSubstr("out of bounds"));
  r = run_op("aten.gather.default", {w, tensor_i64({2, 2}, {1, 0, 2, 2})}, {{"dim", I(0)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(10, 1, 20, 21));
  r = run_op("aten.gather.default", {w, tensor_i64({3, 1}, {1, 0, 1})}, {{"dim", I(1)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 10, 21));
}

// ================================ joins ====================================
TEST(JoinOps, CatSkipsLegacyEmptyAndPromotes) {
  Tensor a = tensor_i64({2, 1}, {1, 2});
  Tensor b = tensor_f32({2, 2}, {0.5, 1.5, 2.5, 3.5});
  Tensor empty = tensor_f32({0}, {});
  auto r = run_op("aten.cat.default", {empty, a, b}, {{"dim", I(-1)}, {"_tensor_list_sizes", ints({3})}});
  EXPECT_EQ(r.out[0].dtype, DType::F32);
  EXPECT_EQ(r.out[0].shape, (Shape{2, 3}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 0.5, 1.5, 2, 2.5, 3.5));
  r = run_op("aten.stack.default", {tensor_f32({2}, {1, 2}), tensor_f32({2}, {3, 4})}, {{"dim", I(-1)}});
  EXPECT_EQ(r.out[0].shape, (Shape{2, 2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 3, 2, 4));
}

// =============================== creation ==================================
TEST(CreationOps, ArangeCountsAndDtypes) {
  auto r = run_op("aten.arange.start_step", {}, {{"start", I(1)}, {"end", I(10)}, {"step", I(3)}});
  EXPECT_EQ(r.out[0].dtype, DType::I64);
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(1, 4, 7));
  r = run_op("aten.arange.start_step", {}, {{"start", I(10)}, {"end", I(0)}, {"step", I(-3)}});
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(10, 7, 4, 1));
  r = run_op("aten.arange.start_step", {}, {{"start", F(0.0)}, {"end", F(1.0)}, {"step", F(0.1)}});
  EXPECT_EQ(r.out[0].dtype, DType::F32);
  EXPECT_EQ(r.out[0].shape, Shape{10});
  EXPECT_FLOAT_EQ(values_f32(r.out[0])[9], 0.9f);
  r = run_op("aten.arange.default", {}, {{"end", I(4)}, {"dtype", S("torch.float64")}});
  EXPECT_EQ(r.out[0].dtype, DType::F64);
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 1, 2, 3));
  r = run_op("aten.arange.start", {}, {{"start", I(2)}, {"end", F(4.5)}});
  EXPECT_EQ(r.out[0].dtype, DType::F32);
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(2, 3, 4));
  r = run_op("aten.arange.default", {}, {{"end", I(3)}, {"dtype", I(3)}});  // ScalarType 3 = int32
  EXPECT_EQ(r.out[0].dtype, DType::I32);
  EXPECT_THAT(error_of([&] {
                run_op("aten.arange.start_step", {}, {{"start", I(0)}, {"end", I(5)}, {"step", I(-1)}});
              }),
              HasSubstr("step sign"));
  // an integer dtype truncates the step first: 0.5 -> 0
  EXPECT_THAT(error_of([&] {
                run_op("aten.arange.start_step", {},
                       {{"start", F(-1.5)}, {"end", F(2.5)}, {"step", F(0.5)}, {"dtype", I(3)}});
              }),
              AllOf(HasSubstr("n1"), HasSubstr("step must be nonzero")));
}

TEST(CreationOps, FullDtypeInferenceAndLike) {
  auto r = run_op("aten.full.default", {}, {{"size", ints({2})}, {"fill_value", I(7)}});
  EXPECT_EQ(r.out[0].dtype, DType::I64);
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(7, 7));
  r = run_op("aten.full.default", {}, {{"size", ints({1})}, {"fill_value", F(7.5)}});
  EXPECT_EQ(r.out[0].dtype, DType::F32);
  r = run_op("aten.full.default", {}, {{"size", ints({1})}, {"fill_value", B(true)}});
  EXPECT_EQ(r.out[0].dtype, DType::Bool);
  r = run_op("aten.full_like.default", {tensor_i64({2}, {1, 2})}, {{"fill_value", F(2.7)}});
  EXPECT_EQ(r.out[0].dtype, DType::I64);
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(2, 2));
  r = run_op("aten.ones.default", {}, {{"size", ints({2, 1})}, {"dtype", S("torch.float16")}});
  EXPECT_EQ(r.out[0].dtype, DType::F32);  // f16 is computed as f32
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 1));
  r = run_op("aten.new_zeros.default", {tensor_i64({1}, {5})}, {{"size", ints({3})}});
  EXPECT_EQ(r.out[0].dtype, DType::I64);
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(0, 0, 0));
  r = run_op("aten.scalar_tensor.default", {}, {{"s", I(3)}});
  EXPECT_EQ(r.out[0].dtype, DType::F32);
  EXPECT_EQ(r.out[0].shape, Shape{});
  r = run_op("aten.empty.memory_format", {}, {{"size", ints({2})}, {"dtype", I(4)}, {"device", S("meta")}});
  EXPECT_EQ(r.out[0].dtype, DType::I64);
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(0, 0));
}

TEST(CreationOps, TrilTriuDiagonal) {
  Tensor x = tensor_f32({3, 3}, iota_f(9));
  auto r = run_op("aten.tril.default", {x});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 0, 0, 4, 5, 0, 7, 8, 9));
  r = run_op("aten.triu.default", {x}, {{"diagonal", I(1)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 2, 3, 0, 0, 6, 0, 0, 0));
  r = run_op("aten.tril.default", {transposed(x)}, {{"diagonal", I(-1)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 0, 0, 2, 0, 0, 3, 6, 0));
  // in place through a transposed view writes the base
  Tensor base = tensor_f32({2, 2}, {1, 2, 3, 4});
  run_op("aten.triu_.default", {transposed(base)});
  EXPECT_THAT(values_f32(base), ElementsAre(1, 0, 3, 4));
  // Diagonals far past the matrix keep all or nothing (no overflow in i + diagonal + 1).
  r = run_op("aten.tril.default", {x}, {{"diagonal", I(INT64_MAX)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9));
  r = run_op("aten.triu.default", {x}, {{"diagonal", I(INT64_MIN)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9));
  r = run_op("aten.tril.default", {x}, {{"diagonal", I(INT64_MIN)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 0, 0, 0, 0, 0, 0, 0, 0));
  r = run_op("aten.triu.default", {x}, {{"diagonal", I(-3)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9));
  r = run_op("aten.triu.default", {x}, {{"diagonal", I(3)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 0, 0, 0, 0, 0, 0, 0, 0));
}

}  // namespace
}  // namespace tir
