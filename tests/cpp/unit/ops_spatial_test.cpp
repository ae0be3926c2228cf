// Unit tests for the N-d spatial ops: conv3d / conv_transpose3d against direct
// formulas, 3-d pooling, every upsample mode (values from torch 1.13), the
// 2.1-era flash attention op, and error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kernels/conv.h"
#include "ops/op.h"
#include "op_test_util.h"
#include "test_util.h"

namespace tir {
namespace {

using namespace test;
using namespace ::testing;

std::vector<float> pattern(int64_t n, int mul, int mod, float div) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = float(int(i * mul % mod) - mod / 2) / div;
  return v;
}

// Direct formula for conv3d (transposed=false) or its transpose, in double.
std::vector<float> naive_conv3d(const ConvGeom& g, bool transposed, const std::vector<float>& x,
                                const std::vector<float>& w, const std::vector<float>& bias) {
  std::vector<double> y(size_t(g.N * g.OC * g.out_plane()), 0.0);
  const int64_t cg = g.C / g.G, ocg = g.OC / g.G;
  auto at = [](int64_t a, int64_t b, int64_t c, int64_t B_, int64_t C_) { return (a * B_ + b) * C_ + c; };
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t gi = 0; gi < g.G; ++gi)
      for (int64_t c = 0; c < cg; ++c)
        for (int64_t o = 0; o < ocg; ++o)
          for (int64_t kd = 0; kd < g.KD; ++kd)
            for (int64_t kh = 0; kh < g.KH; ++kh)
              for (int64_t kw = 0; kw < g.KW; ++kw) {
                const int64_t ic = gi * cg + c, oc = gi * ocg + o;
                // Normal: weight [OC, C/G, k]; transposed: [C, OC/G, k].
                const double wv = transposed ? w[size_t(at(ic * ocg + o, kd, at(0, kh, kw, g.KH, g.KW), g.KD, g.KH * g.KW))]
                                             : w[size_t(at(oc * cg + c, kd, at(0, kh, kw, g.KH, g.KW), g.KD, g.KH * g.KW))];
                // Walk the "small" side (output for conv, input for transposed).
                const int64_t A0 = transposed ? g.D : g.OD, A1 = transposed ? g.H : g.OH, A2 = transposed ? g.W : g.OW;
                for (int64_t a0 = 0; a0 < A0; ++a0)
                  for (int64_t a1 = 0; a1 < A1; ++a1)
                    for (int64_t a2 = 0; a2 < A2; ++a2) {
                      const int64_t b0 = a0 * g.SD - g.PD + kd * g.DD, b1 = a1 * g.SH - g.PH + kh * g.DH,
                                    b2 = a2 * g.SW - g.PW + kw * g.DW;
                      const int64_t B0 = transposed ? g.OD : g.D, B1 = transposed ? g.OH : g.H,
                                    B2 = transposed ? g.OW : g.W;
                      if (b0 < 0 || b0 >= B0 || b1 < 0 || b1 >= B1 || b2 < 0 || b2 >= B2) continue;
                      if (!transposed)
                        y[size_t(((n * g.OC + oc) * g.OD + a0) * g.OH * g.OW + a1 * g.OW + a2)] +=
                            wv * x[size_t(((n * g.C + ic) * g.D + b0) * g.H * g.W + b1 * g.W + b2)];
                      else
                        y[size_t(((n * g.OC + oc) * g.OD + b0) * g.OH * g.OW + b1 * g.OW + b2)] +=
                            wv * x[size_t(((n * g.C + ic) * g.D + a0) * g.H * g.W + a1 * g.W + a2)];
                    }
              }
  std::vector<float> out(y.size());
  for (size_t i = 0; i < y.size(); ++i) out[i] = float(y[i] + (bias.empty() ? 0.0 : bias[i / size_t(g.out_plane()) % size_t(g.OC)]));
  return out;
}

struct Conv3dCase {
  int64_t C, OC, G, K, S, P, Dl, OP;  // OP: output_padding (transposed only)
};

ConvGeom geom_of(const Conv3dCase& c, bool transposed) {
  ConvGeom g;
  g.N = 2, g.C = c.C, g.D = 4, g.H = 5, g.W = 3, g.OC = c.OC, g.G = c.G;
  g.KD = c.K, g.KH = c.K, g.KW = std::max<int64_t>(c.K - 1, 1);
  g.SD = g.SH = g.SW = c.S, g.PD = g.PH = g.PW = c.P, g.DD = g.DH = g.DW = c.Dl;
  auto out = [&](int64_t in, int64_t k) {
    return transposed ? (in - 1) * c.S - 2 * c.P + c.Dl * (k - 1) + 1 + c.OP
                      : (in + 2 * c.P - c.Dl * (k - 1) - 1) / c.S + 1;
  };
  g.OD = out(g.D, g.KD), g.OH = out(g.H, g.KH), g.OW = out(g.W, g.KW);
  return g;
}

TEST(SpatialOps, Conv3dMatchesDirectFormula) {
  // plain, strided+padded, grouped+dilated, depthwise, pointwise
  for (const Conv3dCase c : {Conv3dCase{3, 4, 1, 3, 1, 1, 1, 0}, Conv3dCase{2, 3, 1, 2, 2, 1, 1, 0},
                             Conv3dCase{4, 6, 2, 2, 1, 2, 2, 0}, Conv3dCase{3, 6, 3, 3, 2, 1, 1, 0},
                             Conv3dCase{3, 5, 1, 1, 1, 0, 1, 0}}) {
    const ConvGeom g = geom_of(c, false);
    const auto x = pattern(g.N * g.C * g.in_plane(), 7, 17, 4);
    const auto w = pattern(g.OC * (g.C / g.G) * g.taps(), 3, 11, 8);
    const auto bias = pattern(g.OC, 5, 7, 2);
    auto r = run_op("aten.conv3d.default",
                    {tensor_f32({g.N, g.C, g.D, g.H, g.W}, x), tensor_f32({g.OC, g.C / g.G, g.KD, g.KH, g.KW}, w),
                     tensor_f32({g.OC}, bias)},
                    {{"stride", ints({c.S, c.S, c.S})},
                     {"padding", ints({c.P})},
                     {"dilation", ints({c.Dl, c.Dl, c.Dl})},
                     {"groups", I(c.G)}});
    ASSERT_EQ(r.out[0].shape, (Shape{g.N, g.OC, g.OD, g.OH, g.OW})) << c.C << " " << c.G;
    EXPECT_THAT(values_f32(r.out[0]), Pointwise(FloatNear(1e-4f), naive_conv3d(g, false, x, w, bias)));
  }
}

TEST(SpatialOps, ConvTranspose3dMatchesDirectFormula) {
  for (const Conv3dCase c : {Conv3dCase{3, 4, 1, 3, 1, 1, 1, 0}, Conv3dCase{2, 3, 1, 2, 2, 0, 1, 1},
                             Conv3dCase{4, 6, 2, 2, 2, 1, 2, 1}, Conv3dCase{3, 3, 3, 3, 1, 1, 1, 0}}) {
    const ConvGeom g = geom_of(c, true);
    const auto x = pattern(g.N * g.C * g.in_plane(), 7, 17, 4);
    const auto w = pattern(g.C * (g.OC / g.G) * g.taps(), 3, 11, 8);
    const auto bias = pattern(g.OC, 5, 7, 2);
    auto r = run_op("aten.conv_transpose3d.input",
                    {tensor_f32({g.N, g.C, g.D, g.H, g.W}, x), tensor_f32({g.C, g.OC / g.G, g.KD, g.KH, g.KW}, w),
                     tensor_f32({g.OC}, bias)},
                    {{"stride", ints({c.S, c.S, c.S})},
                     {"padding", ints({c.P, c.P, c.P})},
                     {"output_padding", ints({c.OP, c.OP, c.OP})},
                     {"groups", I(c.G)},
                     {"dilation", ints({c.Dl, c.Dl, c.Dl})}});
    ASSERT_EQ(r.out[0].shape, (Shape{g.N, g.OC, g.OD, g.OH, g.OW})) << c.C << " " << c.G;
    EXPECT_THAT(values_f32(r.out[0]), Pointwise(FloatNear(1e-4f), naive_conv3d(g, true, x, w, bias)));
  }
}

TEST(SpatialOps, Conv3dSamePaddingAndConvolutionForm) {
  // An even kernel: "same" pads 0 in front and 1 behind; output keeps the input size.
  const Tensor x = tensor_f32({1, 1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  const Tensor w = tensor_f32({1, 1, 2, 2, 2}, std::vector<float>(8, 1.0f));
  auto r = run_op("aten.conv3d.padding", {x, w}, {{"padding", S("same")}});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 1, 2, 2, 2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(36, 20, 22, 12, 26, 14, 15, 8));
  r = run_op("aten.convolution.default", {x, w},
             {{"stride", ints({1, 1, 1})}, {"padding", ints({0, 0, 0})}, {"dilation", ints({1, 1, 1})},
              {"transposed", B(false)}, {"output_padding", ints({0, 0, 0})}, {"groups", I(1)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(36));
}

TEST(SpatialOps, ConvErrors) {
  const Tensor x = tensor_f32({1, 2, 3, 3, 3}, std::vector<float>(54, 1.0f));
  EXPECT_THAT(error_of([&] { run_op("aten.conv3d.default", {x, tensor_f32({1, 3, 1, 1, 1}, {1, 1, 1})}); }),
              HasSubstr("does not fit input"));
  EXPECT_THAT(error_of([&] {
                run_op("aten.convolution.default", {tensor_f32({1, 1, 1, 1, 1, 1}, {1}), tensor_f32({1, 1, 1, 1, 1, 1}, {1})},
                       {{"transposed", B(false)}, {"groups", I(1)}});
              }),
              HasSubstr("only 1-D, 2-D and 3-D convolutions"));
  EXPECT_THAT(error_of([&] {
                run_op("aten.conv3d.default", {x, tensor_f32({1, 2, 5, 1, 1}, std::vector<float>(10, 1.0f))});
              }),
              HasSubstr("too small"));
}

// ================================ pooling ==================================
const std::vector<float> k1to27 = [] {
  std::vector<float> v(27);
  for (int i = 0; i < 27; ++i) v[size_t(i)] = float(i + 1);
  return v;
}();

TEST(SpatialOps, AvgPool3dDivisors) {
  const Tensor x = tensor_f32({1, 1, 3, 3, 3}, k1to27);
  auto r = run_op("aten.avg_pool3d.default", {x},
                  {{"kernel_size", ints({2})}, {"stride", ints({2})}, {"padding", ints({1})}});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 1, 2, 2, 2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0.125, 0.625, 1.375, 3.5, 3.625, 8.0, 9.5, 20.5));
  r = run_op("aten.avg_pool3d.default", {x},
             {{"kernel_size", ints({2})}, {"stride", ints({2})}, {"padding", ints({1})},
              {"count_include_pad", B(false)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1.0, 2.5, 5.5, 7.0, 14.5, 16.0, 19.0, 20.5));
  r = run_op("aten.avg_pool3d.default", {x},
             {{"kernel_size", ints({2})}, {"stride", ints({2})}, {"padding", ints({1})}, {"divisor_override", I(1)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 5, 11, 28, 29, 64, 76, 164));
}

TEST(SpatialOps, MaxPool3dIndicesAndAdaptive) {
  std::vector<float> neg(k1to27);
  for (float& v : neg) v = -v;
  auto r = run_op("aten.max_pool3d_with_indices.default", {tensor_f32({1, 1, 3, 3, 3}, neg)},
                  {{"kernel_size", ints({2, 2, 2})}, {"stride", ints({1, 1, 1})}}, 2);
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(-1, -2, -4, -5, -10, -11, -13, -14));
  EXPECT_THAT(values_i64(r.out[1]), ElementsAre(0, 1, 3, 4, 9, 10, 12, 13));  // flat in D*H*W
  r = run_op("aten.adaptive_avg_pool3d.default", {tensor_f32({1, 3, 3, 3}, k1to27)},
             {{"output_size", ints({2, 1, 2})}});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 2, 1, 2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(9, 10, 18, 19));
  r = run_op("aten.adaptive_max_pool3d.default", {tensor_f32({1, 1, 3, 3, 3}, k1to27)},
             {{"output_size", ints({2, 1, 2})}}, 2);
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(17, 18, 26, 27));
  EXPECT_THAT(values_i64(r.out[1]), ElementsAre(16, 17, 25, 26));
  EXPECT_THAT(error_of([&] {
                run_op("aten.max_pool3d.default", {tensor_f32({1, 1, 3, 3, 3}, k1to27)},
                       {{"kernel_size", ints({2})}, {"padding", ints({2})}});
              }),
              HasSubstr("at most half the kernel size"));
}

// =============================== upsample ==================================
TEST(SpatialOps, UpsampleNearestAndExact) {
  const Tensor x = tensor_f32({1, 1, 5}, {1, 2, 3, 4, 5});
  EXPECT_THAT(values_f32(run_op("aten.upsample_nearest1d.default", {x}, {{"output_size", ints({7})}}).out[0]),
              ElementsAre(1, 1, 2, 3, 3, 4, 5));
  EXPECT_THAT(values_f32(run_op("aten._upsample_nearest_exact1d.default", {x}, {{"output_size", ints({7})}}).out[0]),
              ElementsAre(1, 2, 2, 3, 4, 4, 5));
  EXPECT_THAT(values_f32(run_op("aten.upsample_nearest1d.default", {x}, {{"output_size", ints({3})}}).out[0]),
              ElementsAre(1, 2, 4));
  EXPECT_THAT(values_f32(run_op("aten._upsample_nearest_exact1d.vec", {x},
                                {{"output_size", Attr::none()}, {"scale_factors", Attr::of_list({F(0.6)})}})
                             .out[0]),
              ElementsAre(1, 3, 5));
  // Integer data is copied exactly.
  const Tensor xi = test::tensor_i64({1, 1, 2, 2}, {1, 2, 3, int64_t(1) << 53 | 1});
  auto r = run_op("aten.upsample_nearest2d.vec", {xi},
                  {{"output_size", Attr::none()}, {"scale_factors", Attr::of_list({F(2.0), F(1.0)})}});
  EXPECT_EQ(r.out[0].dtype, DType::I64);
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(1, 2, 1, 2, 3, int64_t(1) << 53 | 1, 3, int64_t(1) << 53 | 1));
}

TEST(SpatialOps, UpsampleLinearScalesVsSize) {
  const Tensor x = tensor_f32({1, 1, 5}, {1, 2, 3, 4, 5});
  // With scales given, the source step is 1/scale (0.667), not in/out (0.714).
  auto r = run_op("aten.upsample_linear1d.default", {x},
                  {{"output_size", ints({7})}, {"align_corners", B(false)}, {"scales", F(1.5)}});
  EXPECT_THAT(values_f32(r.out[0]), Pointwise(FloatNear(1e-6f), std::vector<float>{1.0f, 1.5f, 2.1666665f, 2.8333333f,
                                                                                    3.5f, 4.166667f, 4.8333335f}));
  r = run_op("aten.upsample_linear1d.default", {x}, {{"output_size", ints({7})}, {"align_corners", B(false)}});
  EXPECT_THAT(values_f32(r.out[0]), Pointwise(FloatNear(1e-6f), std::vector<float>{1.0f, 1.5714285f, 2.2857144f, 3.0f,
                                                                                    3.7142859f, 4.4285717f, 5.0f}));
}

TEST(SpatialOps, UpsampleBilinearAlignCorners) {
  const Tensor x = tensor_f32({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto r = run_op("aten.upsample_bilinear2d.default", {x}, {{"output_size", ints({3, 6})}, {"align_corners", B(true)}});
  EXPECT_THAT(values_f32(r.out[0]),
              Pointwise(FloatNear(1e-6f), std::vector<float>{1.0f, 1.6f, 2.2f, 2.8f, 3.4f, 4.0f, 3.0f, 3.6f, 4.2f, 4.8f,
                                                             5.4f, 6.0f, 5.0f, 5.6f, 6.2f, 6.8f, 7.4f, 8.0f}));
  r = run_op("aten.upsample_bilinear2d.vec", {x},
             {{"output_size", ints({3, 6})}, {"align_corners", B(false)}, {"scale_factors", Attr::none()}});
  EXPECT_THAT(values_f32(r.out[0]),
              Pointwise(FloatNear(1e-6f), std::vector<float>{1.0f, 1.5f, 2.1666667f, 2.8333335f, 3.5f, 4.0f, 3.0f,
                                                             3.5f, 4.1666665f, 4.8333335f, 5.5f, 6.0f, 5.0f, 5.5f,
                                                             6.166666f, 6.833333f, 7.5f, 8.0f}));
}

TEST(SpatialOps, UpsampleBicubicAndAntialias) {
  auto r = run_op("aten.upsample_bicubic2d.default", {tensor_f32({1, 1, 1, 4}, {0, 1, 4, 9})},
                  {{"output_size", ints({1, 6})}, {"align_corners", B(false)}});
  EXPECT_THAT(values_f32(r.out[0]),
              Pointwise(FloatNear(1e-5f), std::vector<float>{-0.0868056f, 0.21875f, 1.430555f, 3.1527777f, 6.78125f,
                                                             9.434029f}));
  r = run_op("aten._upsample_bilinear2d_aa.default", {tensor_f32({1, 1, 1, 8}, {1, 2, 3, 4, 5, 6, 7, 8})},
             {{"output_size", ints({1, 3})}, {"align_corners", B(false)}});
  EXPECT_THAT(values_f32(r.out[0]), Pointwise(FloatNear(1e-5f), std::vector<float>{2.1052632f, 4.5f, 6.894737f}));
}

TEST(SpatialOps, UpsampleErrors) {
  const Tensor x = tensor_f32({1, 1, 2, 2}, {1, 2, 3, 4});
  EXPECT_THAT(error_of([&] {
                run_op("aten.upsample_nearest2d.vec", {x},
                       {{"output_size", ints({4, 4})}, {"scale_factors", Attr::of_list({F(2.0), F(2.0)})}});
              }),
              HasSubstr("exactly one of output_size and scale_factors"));
  EXPECT_THAT(error_of([&] { run_op("aten.upsample_nearest1d.default", {x}, {{"output_size", ints({4})}}); }),
              HasSubstr("expected a 3-D input"));
  EXPECT_THAT(error_of([&] {
                run_op("aten.upsample_bilinear2d.default", {test::tensor_i64({1, 1, 1, 1}, {1})},
                       {{"output_size", ints({2, 2})}, {"align_corners", B(false)}});
              }),
              HasSubstr("float32/float64"));
  EXPECT_THAT(error_of([&] {
                run_op("aten.upsample_nearest2d.vec", {x},
                       {{"output_size", Attr::none()}, {"scale_factors", Attr::of_list({F(0.1), F(1.0)})}});
              }),
              HasSubstr("greater than 0"));
}

// ============================ flash attention ==============================
TEST(SpatialOps, FlashAttentionMatchesCpuFlashForm) {
  const Tensor q = tensor_f32({1, 2, 3, 4}, pattern(24, 7, 13, 5));
  const Tensor k = tensor_f32({1, 2, 5, 4}, pattern(40, 3, 11, 4));
  const Tensor v = tensor_f32({1, 2, 5, 4}, pattern(40, 5, 9, 3));
  for (bool causal : {false, true}) {
    const AttrMap attrs{{"is_causal", B(causal)}, {"scale", F(0.4)}};
    auto ref = run_op("aten._scaled_dot_product_flash_attention_for_cpu.default", {q, k, v}, attrs, 2);
    auto r = run_op("aten._scaled_dot_product_flash_attention.default", {q, k, v}, attrs, 7);
    ASSERT_EQ(r.out.size(), 7u);
    EXPECT_EQ(r.out[0].shape, (Shape{1, 2, 3, 4}));
    EXPECT_EQ(r.out[1].shape, (Shape{1, 2, 3}));
    EXPECT_EQ(values_f32(r.out[0]), values_f32(ref.out[0]));
    EXPECT_EQ(values_f32(r.out[1]), values_f32(ref.out[1]));
    for (size_t i = 2; i < 7; ++i) EXPECT_EQ(r.out[i].numel(), 0);
  }
  EXPECT_THAT(error_of([&] {
                run_op("aten._scaled_dot_product_flash_attention.default", {q, k, v}, {{"return_debug_mask", B(true)}}, 7);
              }),
              HasSubstr("return_debug_mask"));
}

}  // namespace
}  // namespace tir
