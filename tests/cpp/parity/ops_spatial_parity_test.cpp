// Parity against LibTorch for the N-d spatial ops: conv3d / conv_transpose3d /
// 3-d convolution, 3-d pooling, every upsample mode in both forms (.default
// with optional scales, .vec with output_size or scale_factors), align_corners
// both ways, odd and size-1 dims, 0-size batches, transposed inputs, float64.
// The 2-d conv/pool cases live in ops_linalg_parity_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parity/parity_util.h"

namespace {

using tir::DType;
using tir::Shape;

using tir::parity::in;
using tir::parity::tr;
using tir::parity::wt;

// ================================= conv ====================================
TEST(SpatialParity, Conv3d) {
  const std::string conv = "aten.conv3d.default";
  EXPECT_TRUE(node_parity(conv, {in({2, 3, 5, 6, 7}), wt({4, 3, 3, 3, 3}), wt({4})}));
  EXPECT_TRUE(node_parity(conv, {in({1, 2, 7, 6, 5}), wt({3, 2, 3, 2, 3})},
                          R"({"stride":[2,1,2],"padding":[1,0,2],"dilation":[1,2,1]})"));
  EXPECT_TRUE(node_parity(conv, {in({2, 4, 5, 5, 4}), wt({6, 2, 3, 3, 3}), wt({6})},
                          R"({"groups":2,"padding":[1,1,1]})"));
  EXPECT_TRUE(node_parity(conv, {in({1, 4, 5, 6, 5}), wt({8, 1, 3, 3, 3}), wt({8})},
                          R"({"groups":4,"padding":1,"stride":2})"));  // depthwise, scalar lists
  EXPECT_TRUE(node_parity(conv, {in({1, 5, 3, 4, 2}), wt({7, 5, 1, 1, 1}), wt({7})}));  // pointwise
  EXPECT_TRUE(node_parity(conv, {in({3, 4, 5, 6}), wt({2, 3, 2, 2, 2})}));            // unbatched
  EXPECT_TRUE(node_parity(conv, {in({0, 3, 4, 4, 4}), wt({2, 3, 3, 3, 3})}));         // empty batch
  EXPECT_TRUE(node_parity(conv, {in({1, 1, 1, 1, 1}), wt({2, 1, 1, 1, 1}), wt({2})}));  // all size 1
  EXPECT_TRUE(node_parity(conv, {tr({1, 2, 4, 5, 6}), wt({2, 2, 2, 2, 2})}));           // non-contiguous
  EXPECT_TRUE(node_parity(conv, {in({1, 2, 4, 5, 3}, DType::F64), in({3, 2, 2, 3, 2}, DType::F64),
                                 in({3}, DType::F64)},
                          R"({"padding":[1,1,1]})"));
}

TEST(SpatialParity, Conv3dPaddingString) {
  const std::string conv = "aten.conv3d.padding";
  EXPECT_TRUE(node_parity(conv, {in({1, 2, 5, 6, 7}), wt({3, 2, 2, 4, 3}), wt({3})}, R"({"padding":"same"})"));
  EXPECT_TRUE(node_parity(conv, {in({1, 2, 5, 6, 7}), wt({3, 2, 3, 2, 3})},
                          R"({"padding":"same","dilation":[2,1,3]})"));
  EXPECT_TRUE(node_parity(conv, {in({1, 4, 5, 6, 7}), wt({4, 2, 3, 3, 3})},
                          R"({"padding":"valid","stride":[2,1,2],"groups":2})"));
}

TEST(SpatialParity, Convolution3d) {
  const std::string conv = "aten.convolution.default";
  EXPECT_TRUE(node_parity(conv, {in({2, 3, 5, 6, 4}), wt({4, 3, 3, 2, 3}), wt({4})},
                          R"({"stride":[1,2,1],"padding":[1,0,1],"dilation":[1,1,1],"transposed":false,)"
                          R"("output_padding":[0,0,0],"groups":1})"));
  // transposed: weight [C, OC/G, k...], with groups, dilation and output_padding
  EXPECT_TRUE(node_parity(conv, {in({1, 4, 3, 4, 3}), wt({4, 3, 3, 3, 2}), wt({6})},
                          R"({"stride":[2,2,1],"padding":[1,0,0],"dilation":[1,2,1],"transposed":true,)"
                          R"("output_padding":[1,1,0],"groups":2})"));
  EXPECT_TRUE(node_parity(conv, {in({0, 2, 3, 3, 3}), wt({2, 2, 2, 2, 2})},
                          R"({"stride":[1,1,1],"padding":[0,0,0],"dilation":[1,1,1],"transposed":true,)"
                          R"("output_padding":[0,0,0],"groups":1})"));
}

TEST(SpatialParity, ConvTranspose3d) {
  const std::string conv = "aten.conv_transpose3d.input";
  EXPECT_TRUE(node_parity(conv, {in({2, 3, 3, 4, 5}), wt({3, 2, 3, 3, 3}), wt({2})}));
  EXPECT_TRUE(node_parity(conv, {in({1, 4, 3, 3, 4}), wt({4, 1, 2, 3, 2}), wt({4})},
                          R"({"stride":[2,1,3],"padding":[1,1,0],"output_padding":[1,0,2],"groups":4,)"
                          R"("dilation":[1,2,1]})"));
  EXPECT_TRUE(node_parity(conv, {in({3, 2, 3, 2}), wt({3, 2, 2, 2, 2})}, R"({"stride":2})"));  // unbatched
  EXPECT_TRUE(node_parity(conv, {tr({1, 2, 3, 4, 5}), wt({2, 3, 2, 2, 2})}, R"({"padding":[0,1,1]})"));
  EXPECT_TRUE(node_parity(conv, {in({1, 2, 3, 3, 2}, DType::F64), in({2, 2, 3, 3, 3}, DType::F64)},
                          R"({"stride":[2,2,2],"output_padding":[1,0,1]})"));
}

// ================================ pooling ==================================
TEST(SpatialParity, MaxPool3d) {
  const std::vector<std::pair<Shape, std::string>> cases = {
      {{2, 3, 7, 8, 9}, R"({"kernel_size":[3,3,3],"stride":[2,2,2],"padding":[1,1,1]})"},
      {{1, 2, 6, 7, 8}, R"({"kernel_size":[3,2,3],"stride":[2,2,2],"ceil_mode":true})"},
      {{1, 2, 5, 5, 5}, R"({"kernel_size":2,"stride":2,"padding":1,"ceil_mode":true})"},
      {{1, 2, 7, 7, 9}, R"({"kernel_size":[2,3,2],"stride":[1,1,2],"dilation":[2,2,1],"padding":[1,1,1]})"},
      {{1, 1, 4, 6, 7}, R"({"kernel_size":[2,2,2],"stride":[]})"},
      {{3, 5, 5, 5}, R"({"kernel_size":3,"stride":2,"padding":1})"},  // unbatched
      {{0, 2, 4, 4, 4}, R"({"kernel_size":[2,2,2]})"},
      {{1, 1, 1, 1, 1}, R"({"kernel_size":[1,1,1]})"},
  };
  for (const auto& c : cases) {
    EXPECT_TRUE(node_parity("aten.max_pool3d.default", {in(c.first)}, c.second)) << c.second;
    EXPECT_TRUE(node_parity("aten.max_pool3d_with_indices.default", {in(c.first)}, c.second)) << c.second;
  }
  EXPECT_TRUE(node_parity("aten.max_pool3d_with_indices.default", {tr({1, 3, 4, 6, 5})},
                          R"({"kernel_size":[2,2,2]})"));
  EXPECT_TRUE(node_parity("aten.max_pool3d.default", {in({1, 2, 4, 5, 6}, DType::F64)}, R"({"kernel_size":[2,3,2]})"));
  ParityInput with_nan = in({1, 1, 2, 2, 3});
  with_nan.values = {1, std::nan(""), 3, 4, 5, 6, 7, 8, std::nan(""), 0, 2, 1};
  EXPECT_TRUE(node_parity("aten.max_pool3d_with_indices.default", {with_nan},
                          R"({"kernel_size":[2,2,2],"stride":[1,1,1]})"));
}

TEST(SpatialParity, AvgPool3d) {
  for (const char* ceil : {"false", "true"})
    for (const char* cip : {"false", "true"}) {
      const std::string flags = std::string(R"("ceil_mode":)") + ceil + R"(,"count_include_pad":)" + cip;
      EXPECT_TRUE(node_parity("aten.avg_pool3d.default", {in({2, 3, 6, 8, 7})},
                              R"({"kernel_size":[3,3,3],"stride":[2,2,2],"padding":[1,1,1],)" + flags + "}"));
      EXPECT_TRUE(node_parity("aten.avg_pool3d.default", {in({1, 2, 5, 5, 6})},
                              R"({"kernel_size":[2,2,3],"stride":[2,1,2],"padding":[1,0,0],)" + flags + "}"));
    }
  EXPECT_TRUE(node_parity("aten.avg_pool3d.default", {in({1, 2, 5, 6, 6})},
                          R"({"kernel_size":[3,3,3],"stride":[2,2,2],"padding":[1,1,1],"divisor_override":5})"));
  EXPECT_TRUE(node_parity("aten.avg_pool3d.default", {in({3, 4, 6, 6})}, R"({"kernel_size":[2,2,2]})"));
  EXPECT_TRUE(node_parity("aten.avg_pool3d.default", {in({0, 3, 4, 4, 4})}, R"({"kernel_size":2})"));
  EXPECT_TRUE(node_parity("aten.avg_pool3d.default", {tr({1, 2, 3, 5, 4})},
                          R"({"kernel_size":[2,2,2],"stride":[1,1,1]})"));
  EXPECT_TRUE(node_parity("aten.avg_pool3d.default", {in({1, 2, 4, 5, 3}, DType::F64)},
                          R"({"kernel_size":[2,2,2],"padding":1,"count_include_pad":false})"));
}

TEST(SpatialParity, AdaptivePool3d) {
  const std::vector<std::pair<Shape, std::string>> cases = {
      {{2, 3, 5, 7, 7}, R"({"output_size":[1,1,1]})"},   {{1, 2, 5, 5, 5}, R"({"output_size":[3,3,3]})"},
      {{1, 2, 6, 10, 7}, R"({"output_size":[4,4,3]})"},  {{2, 3, 4, 5}, R"({"output_size":[5,7,3]})"},
      {{1, 1, 1, 3, 8}, R"({"output_size":2})"},         {{0, 2, 4, 4, 4}, R"({"output_size":[2,2,2]})"},
  };
  for (const auto& c : cases) {
    EXPECT_TRUE(node_parity("aten.adaptive_avg_pool3d.default", {in(c.first)}, c.second)) << c.second;
    EXPECT_TRUE(node_parity("aten._adaptive_avg_pool3d.default", {in(c.first)}, c.second)) << c.second;
    EXPECT_TRUE(node_parity("aten.adaptive_max_pool3d.default", {in(c.first)}, c.second)) << c.second;
  }
  EXPECT_TRUE(node_parity("aten.adaptive_avg_pool3d.default", {tr({1, 2, 4, 6, 5})}, R"({"output_size":[2,2,2]})"));
  EXPECT_TRUE(node_parity("aten.adaptive_max_pool3d.default", {in({1, 2, 4, 6, 5}, DType::F64)},
                          R"({"output_size":[3,4,2]})"));
}

// =============================== upsample ==================================
struct UpCase {
  Shape shape;
  std::string attrs;
};

// Every case on the op, on a transposed view of the same shape, and in float64.
void up_parity(const std::string& op, const std::vector<UpCase>& cases, double tol = 1e-5) {
  for (const UpCase& c : cases) {
    EXPECT_TRUE(node_parity(op, {in(c.shape)}, c.attrs, tol, tol)) << op << " " << c.attrs;
    EXPECT_TRUE(node_parity(op, {tr(c.shape)}, c.attrs, tol, tol)) << op << " transposed " << c.attrs;
    EXPECT_TRUE(node_parity(op, {in(c.shape, DType::F64)}, c.attrs, tol, tol)) << op << " f64 " << c.attrs;
  }
}

TEST(SpatialParity, UpsampleNearest) {
  up_parity("aten.upsample_nearest1d.default",
            {{{2, 3, 5}, R"({"output_size":[9]})"}, {{1, 2, 7}, R"({"output_size":[3]})"},
             {{1, 2, 5}, R"({"output_size":[7],"scales":1.5})"}, {{1, 1, 4}, R"({"output_size":[8]})"},
             {{0, 2, 3}, R"({"output_size":[6]})"}});
  up_parity("aten.upsample_nearest1d.vec",
            {{{2, 3, 5}, R"({"output_size":null,"scale_factors":[1.7]})"},
             {{2, 3, 5}, R"({"output_size":[11],"scale_factors":null})"}});
  up_parity("aten.upsample_nearest2d.default",
            {{{2, 3, 5, 4}, R"({"output_size":[10,8]})"},
             {{1, 2, 5, 7}, R"({"output_size":[7,3]})"},
             {{1, 2, 5, 6}, R"({"output_size":[7,9],"scales_h":1.5,"scales_w":1.6})"},
             {{1, 2, 5, 5}, R"({"output_size":[10,5],"scales_h":2.0,"scales_w":1.0})"},  // 2x and 1x
             {{1, 1, 1, 1}, R"({"output_size":[3,2]})"}});
  up_parity("aten.upsample_nearest2d.vec",
            {{{2, 3, 5, 4}, R"({"output_size":null,"scale_factors":[1.5,2.5]})"},
             {{1, 2, 6, 7}, R"({"output_size":null,"scale_factors":[0.5,0.7]})"},
             {{1, 2, 3, 3}, R"({"output_size":[4,5],"scale_factors":null})"}});
  up_parity("aten.upsample_nearest3d.default",
            {{{1, 2, 3, 4, 5}, R"({"output_size":[5,8,7]})"},
             {{1, 2, 3, 4, 5}, R"({"output_size":[4,6,7],"scales_d":1.5,"scales_h":1.5,"scales_w":1.5})"}});
  up_parity("aten.upsample_nearest3d.vec", {{{2, 1, 3, 4, 2}, R"({"output_size":null,"scale_factors":[2.0,1.5,3.0]})"}});
}

TEST(SpatialParity, UpsampleNearestExact) {
  up_parity("aten._upsample_nearest_exact2d.default",
            {{{2, 3, 5, 4}, R"({"output_size":[10,8]})"},
             {{1, 2, 5, 7}, R"({"output_size":[7,3]})"},
             {{1, 2, 5, 6}, R"({"output_size":[7,9],"scales_h":1.5,"scales_w":1.6})"}});
  up_parity("aten._upsample_nearest_exact2d.vec",
            {{{2, 3, 5, 4}, R"({"output_size":null,"scale_factors":[1.5,2.5]})"},
             {{1, 2, 6, 7}, R"({"output_size":null,"scale_factors":[0.5,0.7]})"}});
  up_parity("aten._upsample_nearest_exact1d.vec", {{{2, 3, 5}, R"({"output_size":null,"scale_factors":[1.7]})"}});
  up_parity("aten._upsample_nearest_exact3d.vec",
            {{{1, 2, 3, 4, 5}, R"({"output_size":[5,3,9],"scale_factors":null})"}});
}

TEST(SpatialParity, UpsampleLinear) {
  for (const char* ac : {"false", "true"}) {
    const std::string a = std::string(R"("align_corners":)") + ac;
    up_parity("aten.upsample_linear1d.default",
              {{{2, 3, 5}, R"({"output_size":[9],)" + a + "}"},
               {{1, 2, 7}, R"({"output_size":[3],)" + a + "}"},
               {{1, 2, 5}, R"({"output_size":[7],"scales":1.5,)" + a + "}"},
               {{1, 2, 1}, R"({"output_size":[4],)" + a + "}"},
               {{1, 2, 4}, R"({"output_size":[1],)" + a + "}"}});
    up_parity("aten.upsample_linear1d.vec", {{{2, 3, 5}, R"({"output_size":null,"scale_factors":[1.7],)" + a + "}"}});
    up_parity("aten.upsample_bilinear2d.default",
              {{{2, 3, 5, 4}, R"({"output_size":[10,8],)" + a + "}"},
               {{1, 2, 5, 7}, R"({"output_size":[7,3],)" + a + "}"},
               {{1, 2, 5, 6}, R"({"output_size":[7,9],"scales_h":1.5,"scales_w":1.6,)" + a + "}"},
               {{1, 2, 5, 6}, R"({"output_size":[5,9],)" + a + "}"},  // one axis unchanged
               {{0, 2, 3, 3}, R"({"output_size":[6,6],)" + a + "}"}});
    up_parity("aten.upsample_bilinear2d.vec",
              {{{2, 3, 5, 4}, R"({"output_size":null,"scale_factors":[1.5,2.5],)" + a + "}"},
               {{1, 2, 6, 7}, R"({"output_size":null,"scale_factors":[0.5,0.7],)" + a + "}"},
               {{1, 2, 3, 3}, R"({"output_size":[4,5],"scale_factors":null,)" + a + "}"}});
    up_parity("aten.upsample_trilinear3d.default",
              {{{1, 2, 3, 4, 5}, R"({"output_size":[5,8,7],)" + a + "}"},
               {{1, 2, 3, 4, 5}, R"({"output_size":[4,6,7],"scales_d":1.5,"scales_h":1.5,"scales_w":1.5,)" + a + "}"}});
    up_parity("aten.upsample_trilinear3d.vec",
              {{{2, 1, 3, 4, 2}, R"({"output_size":null,"scale_factors":[2.0,1.5,3.0],)" + a + "}"}});
  }
}

TEST(SpatialParity, UpsampleBicubic) {
  for (const char* ac : {"false", "true"}) {
    const std::string a = std::string(R"("align_corners":)") + ac;
    up_parity("aten.upsample_bicubic2d.default",
              {{{2, 3, 5, 4}, R"({"output_size":[10,8],)" + a + "}"},
               {{1, 2, 5, 7}, R"({"output_size":[7,3],)" + a + "}"},
               {{1, 2, 5, 6}, R"({"output_size":[7,9],"scales_h":1.5,"scales_w":1.6,)" + a + "}"},
               {{1, 2, 1, 2}, R"({"output_size":[3,5],)" + a + "}"}});
    up_parity("aten.upsample_bicubic2d.vec",
              {{{2, 3, 5, 4}, R"({"output_size":null,"scale_factors":[1.5,2.5],)" + a + "}"},
               {{1, 2, 6, 7}, R"({"output_size":null,"scale_factors":[0.5,0.7],)" + a + "}"}});
  }
}

TEST(SpatialParity, UpsampleBilinearAntialias) {
  for (const char* ac : {"false", "true"}) {
    const std::string a = std::string(R"("align_corners":)") + ac;
    up_parity("aten._upsample_bilinear2d_aa.default",
              {{{2, 3, 9, 8}, R"({"output_size":[4,3],)" + a + "}"},    // downscale: wide filter
               {{1, 2, 5, 7}, R"({"output_size":[9,3],)" + a + "}"},    // mixed
               {{1, 2, 12, 10}, R"({"output_size":[5,4],"scales_h":0.45,"scales_w":0.4,)" + a + "}"}});
    up_parity("aten._upsample_bilinear2d_aa.vec",
              {{{1, 2, 16, 11}, R"({"output_size":null,"scale_factors":[0.3,0.5],)" + a + "}"}});
  }
}

}  // namespace
