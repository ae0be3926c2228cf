// Parity against LibTorch for matmul/linear, convolution, pooling, indexing,
// joins and creation ops: odd sizes, size-1 and empty dims, transposed
// (non-contiguous) inputs, negative dims, and every attr variant.
// Not here: full(..., True) (LibTorch 1.13 gives int64, 2.x and the spec give
// bool) and int32 index.Tensor (1.13 rejects it); the unit tests cover both.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "parity/parity_util.h"

namespace {

using tir::DType;
using tir::Shape;

using tir::parity::in;
using tir::parity::tr;
using tir::parity::wt;

ParityInput idx(Shape s, int64_t lo, int64_t hi, DType d = DType::I64) {
  return in(std::move(s), d, double(lo), double(hi));
}

// Long dot products (K in the hundreds+) accumulate f32 rounding differently
// from LibTorch's BLAS; 1e-4 leaves room for that and nothing else.
constexpr double kLongSum = 1e-4;

// ================================ matmul ===================================
TEST(LinalgParity, Mm) {
  EXPECT_TRUE(node_parity("aten.mm.default", {in({3, 5}), in({5, 4})}));
  EXPECT_TRUE(node_parity("aten.mm.default", {tr({3, 5}), in({5, 4})}));
  EXPECT_TRUE(node_parity("aten.mm.default", {in({3, 5}), tr({5, 4})}));
  EXPECT_TRUE(node_parity("aten.mm.default", {tr({1, 7}), tr({7, 1})}));
  EXPECT_TRUE(node_parity("aten.mm.default", {in({0, 3}), in({3, 2})}));
  EXPECT_TRUE(node_parity("aten.mm.default", {in({3, 0}), in({0, 2})}));  // K = 0 -> zeros
  EXPECT_TRUE(node_parity("aten.mm.default", {in({2, 300}), wt({300, 270})}, "{}", kLongSum, kLongSum));
  EXPECT_TRUE(node_parity("aten.mm.default", {in({4, 6}, DType::F64), in({6, 3}, DType::F64)}));
  EXPECT_TRUE(node_parity("aten.mm.default", {in({3, 4}, DType::I64, -5, 5), in({4, 2}, DType::I64, -5, 5)}));
}

TEST(LinalgParity, Bmm) {
  EXPECT_TRUE(node_parity("aten.bmm.default", {in({2, 3, 5}), in({2, 5, 4})}));
  EXPECT_TRUE(node_parity("aten.bmm.default", {tr({3, 3, 5}), tr({3, 5, 1})}));
  EXPECT_TRUE(node_parity("aten.bmm.default", {in({1, 1, 1}), in({1, 1, 3})}));
  EXPECT_TRUE(node_parity("aten.bmm.default", {in({0, 2, 3}), in({0, 3, 4})}));
}

TEST(LinalgParity, MatmulNumpyRules) {
  const std::vector<std::pair<ParityInput, ParityInput>> cases = {
      {in({5}), in({5})},
      {in({3, 5}), in({5})},
      {in({5}), in({5, 2})},
      {in({4}), in({2, 4, 3})},
      {in({2, 3, 4}), in({4})},
      {in({2, 1, 3, 4}), in({5, 4, 2})},
      {in({3, 4}), in({2, 4, 5})},
      {in({2, 3, 4}), in({4, 6})},
      {tr({2, 3, 4}), in({4, 6})},
      {in({2, 3, 4}), tr({4, 6})},
      {in({0, 3, 4}), in({4, 2})},
      {in({1, 7, 1}), in({3, 1, 2})},
      {in({2, 5, 3}), tr({2, 3, 5})},
      {in({4, 1, 2, 3}), in({1, 3, 3, 2})},
  };
  for (const auto& c : cases) EXPECT_TRUE(node_parity("aten.matmul.default", {c.first, c.second}));
}

TEST(LinalgParity, AddmmAndBaddbmm) {
  for (const Shape& self : {Shape{4}, Shape{3, 4}, Shape{1, 4}, Shape{3, 1}, Shape{}})
    EXPECT_TRUE(node_parity("aten.addmm.default", {in(self), in({3, 5}), in({5, 4})}));
  EXPECT_TRUE(
      node_parity("aten.addmm.default", {in({4}), in({3, 5}), tr({5, 4})}, R"({"beta":2.0,"alpha":0.5})"));
  EXPECT_TRUE(
      node_parity("aten.addmm.default", {in({4}), tr({3, 5}), in({5, 4})}, R"({"beta":2,"alpha":3})"));
  // beta = 0 ignores self even when it holds NaN
  ParityInput nan_self = in({3, 4});
  nan_self.values.assign(12, std::nan(""));
  EXPECT_TRUE(node_parity("aten.addmm.default", {nan_self, in({3, 5}), in({5, 4})}, R"({"beta":0})"));
  EXPECT_TRUE(node_parity("aten.baddbmm.default", {in({2, 3, 4}), in({2, 3, 5}), in({2, 5, 4})}));
  EXPECT_TRUE(node_parity("aten.baddbmm.default", {in({4}), tr({2, 3, 5}), in({2, 5, 4})},
                          R"({"beta":0.5,"alpha":-1.5})"));
  EXPECT_TRUE(
      node_parity("aten.baddbmm.default", {nan_self, in({2, 3, 5}), in({2, 5, 4})}, R"({"beta":0.0})"));
}

TEST(LinalgParity, Linear) {
  EXPECT_TRUE(node_parity("aten.linear.default", {in({2, 3, 5}), wt({4, 5}), wt({4})}));
  EXPECT_TRUE(node_parity("aten.linear.default", {in({5}), wt({4, 5}), wt({4})}));
  EXPECT_TRUE(node_parity("aten.linear.default", {in({7, 5}), wt({1, 5})}));
  EXPECT_TRUE(node_parity("aten.linear.default", {tr({7, 5}), wt({3, 5}), wt({3})}));
  EXPECT_TRUE(node_parity("aten.linear.default", {in({7, 5}), tr({3, 5})}));
  EXPECT_TRUE(node_parity("aten.linear.default", {tr({2, 7, 5}), wt({3, 5})}));
  EXPECT_TRUE(node_parity("aten.linear.default", {in({0, 5}), wt({3, 5}), wt({3})}));
  EXPECT_TRUE(node_parity("aten.linear.default", {in({2, 4, 5}), wt({5})}));  // 1-D weight
  EXPECT_TRUE(node_parity("aten.linear.default", {in({3, 768}), wt({200, 768}), wt({200})}, "{}", kLongSum,
                          kLongSum));
  EXPECT_TRUE(node_parity("aten.linear.default",
                          {in({2, 5}, DType::F64), in({3, 5}, DType::F64), in({3}, DType::F64)}));
}

// ================================= conv ====================================
TEST(LinalgParity, Conv2d) {
  const std::string conv = "aten.conv2d.default";
  EXPECT_TRUE(node_parity(conv, {in({2, 3, 7, 6}), wt({4, 3, 3, 3}), wt({4})}));
  EXPECT_TRUE(node_parity(conv, {in({2, 3, 7, 6}), wt({4, 3, 3, 3})}, R"({"stride":[2,2],"padding":[1,1]})"));
  EXPECT_TRUE(node_parity(conv, {in({1, 3, 9, 8}), wt({2, 3, 3, 3}), wt({2})},
                          R"({"dilation":[2,2],"padding":[2,1]})"));
  EXPECT_TRUE(
      node_parity(conv, {in({2, 4, 7, 7}), wt({6, 2, 3, 3}), wt({6})}, R"({"groups":2,"padding":[1,1]})"));
  // depthwise (MobileNet) and depthwise with channel multiplier
  EXPECT_TRUE(node_parity(conv, {in({1, 8, 9, 9}), wt({8, 1, 3, 3}), wt({8})},
                          R"({"stride":[2,2],"padding":[1,1],"groups":8})"));
  EXPECT_TRUE(node_parity(conv, {in({2, 4, 5, 5}), wt({8, 1, 3, 3})},
                          R"({"groups":4,"dilation":[2,1],"padding":[2,1]})"));
  EXPECT_TRUE(node_parity(conv, {in({1, 5, 4, 6}), wt({7, 5, 1, 1}), wt({7})}));  // pointwise
  EXPECT_TRUE(node_parity(conv, {in({1, 2, 9, 5}), wt({3, 2, 3, 1})}, R"({"stride":[2,1],"padding":[1,0]})"));
  EXPECT_TRUE(
      node_parity(conv, {in({3, 6, 6}), wt({2, 3, 3, 3}), wt({2})}, R"({"padding":1})"));  // unbatched
  EXPECT_TRUE(node_parity(conv, {in({0, 3, 5, 5}), wt({2, 3, 3, 3})}));
  EXPECT_TRUE(node_parity(conv, {tr({1, 2, 5, 6}), wt({2, 2, 2, 2})}));
  EXPECT_TRUE(node_parity(conv, {in({1, 3, 5, 5}, DType::F64), in({2, 3, 3, 3}, DType::F64)}));
  // ResNet stem: 147-term sums
  EXPECT_TRUE(node_parity(conv, {in({1, 3, 32, 32}), wt({8, 3, 7, 7})}, R"({"stride":[2,2],"padding":[3,3]})",
                          kLongSum, kLongSum));
}

TEST(LinalgParity, Conv2dPaddingString) {
  const std::string conv = "aten.conv2d.padding";
  EXPECT_TRUE(node_parity(conv, {in({1, 2, 6, 7}), wt({3, 2, 4, 2}), wt({3})}, R"({"padding":"same"})"));
  EXPECT_TRUE(
      node_parity(conv, {in({1, 2, 6, 7}), wt({3, 2, 3, 3})}, R"({"padding":"same","dilation":[2,3]})"));
  EXPECT_TRUE(node_parity(conv, {in({1, 4, 6, 7}), wt({4, 2, 2, 3})}, R"({"padding":"same","groups":2})"));
  EXPECT_TRUE(
      node_parity(conv, {in({1, 2, 6, 7}), wt({3, 2, 3, 3})}, R"({"padding":"valid","stride":[2,2]})"));
}

TEST(LinalgParity, Conv1dAndConvolution) {
  EXPECT_TRUE(node_parity("aten.conv1d.default", {in({2, 3, 10}), wt({4, 3, 3}), wt({4})},
                          R"({"stride":[2],"padding":[1]})"));
  EXPECT_TRUE(
      node_parity("aten.conv1d.default", {in({3, 10}), wt({6, 1, 3})}, R"({"groups":3,"dilation":[2]})"));
  EXPECT_TRUE(node_parity("aten.conv1d.padding", {in({1, 2, 9}), wt({2, 2, 4})}, R"({"padding":"same"})"));
  const std::string conv = "aten.convolution.default";
  const std::string c2 = R"("transposed":false,"output_padding":[0,0])";
  EXPECT_TRUE(node_parity(conv, {in({2, 3, 7, 6}), wt({4, 3, 3, 3}), wt({4})},
                          R"({"stride":[1,2],"padding":[1,0],"dilation":[1,1],"groups":1,)" + c2 + "}"));
  EXPECT_TRUE(node_parity(conv, {in({2, 4, 7, 6}), wt({4, 1, 3, 3})},
                          R"({"stride":[2,2],"padding":[1,1],"dilation":[1,1],"groups":4,)" + c2 + "}"));
  EXPECT_TRUE(node_parity(
      conv, {in({2, 3, 11}), wt({5, 3, 4}), wt({5})},
      R"({"stride":[3],"padding":[2],"dilation":[1],"transposed":false,"output_padding":[0],"groups":1})"));
}

TEST(LinalgParity, ConvTransposed) {
  const std::string conv = "aten.convolution.default";
  EXPECT_TRUE(node_parity(
      conv, {in({1, 4, 5, 5}), wt({4, 3, 3, 3}), wt({3})},
      R"({"stride":[2,2],"padding":[1,1],"dilation":[1,1],"transposed":true,"output_padding":[1,1],"groups":1})"));
  EXPECT_TRUE(node_parity(
      conv, {in({2, 4, 3, 4}), wt({4, 2, 2, 3})},
      R"({"stride":[1,2],"padding":[0,1],"dilation":[2,1],"transposed":true,"output_padding":[0,1],"groups":2})"));
  EXPECT_TRUE(node_parity("aten.conv_transpose2d.input", {in({1, 3, 4, 4}), wt({3, 2, 2, 2}), wt({2})},
                          R"({"stride":[2,2]})"));
  EXPECT_TRUE(node_parity("aten.conv_transpose2d.input", {in({3, 4, 5}), wt({3, 2, 3, 3})},
                          R"({"stride":2,"padding":1,"output_padding":1})"));
  EXPECT_TRUE(node_parity("aten.conv_transpose1d.default", {in({2, 4, 6}), wt({4, 3, 3}), wt({6})},
                          R"({"stride":[2],"groups":2,"dilation":[2]})"));
}

// ================================ pooling ==================================
TEST(LinalgParity, MaxPool2d) {
  const std::vector<std::pair<Shape, std::string>> cases = {
      {{2, 3, 9, 9}, R"({"kernel_size":[3,3],"stride":[2,2],"padding":[1,1]})"},
      {{1, 2, 8, 8}, R"({"kernel_size":[3,3],"stride":[2,2],"ceil_mode":true})"},
      {{1, 2, 5, 5}, R"({"kernel_size":[2,2],"stride":[2,2],"padding":[1,1],"ceil_mode":true})"},
      {{1, 2, 7, 9}, R"({"kernel_size":[3,2],"stride":[1,2],"dilation":[2,1],"padding":[1,1]})"},
      {{1, 1, 6, 7}, R"({"kernel_size":[2,2],"stride":[]})"},
      {{3, 7, 7}, R"({"kernel_size":3,"stride":2,"padding":1,"ceil_mode":true})"},
      {{0, 2, 4, 4}, R"({"kernel_size":[2,2]})"},
  };
  for (const auto& c : cases) {
    EXPECT_TRUE(node_parity("aten.max_pool2d.default", {in(c.first)}, c.second));
    EXPECT_TRUE(node_parity("aten.max_pool2d_with_indices.default", {in(c.first)}, c.second));
  }
  EXPECT_TRUE(
      node_parity("aten.max_pool2d_with_indices.default", {tr({1, 3, 6, 5})}, R"({"kernel_size":[2,2]})"));
  ParityInput with_nan = in({1, 1, 3, 3});
  with_nan.values = {1, std::nan(""), 3, 4, 5, 6, 7, 8, std::nan("")};
  EXPECT_TRUE(node_parity("aten.max_pool2d_with_indices.default", {with_nan},
                          R"({"kernel_size":[2,2],"stride":[1,1]})"));
}

TEST(LinalgParity, AvgPool2d) {
  for (const char* ceil : {"false", "true"})
    for (const char* cip : {"false", "true"}) {
      const std::string flags = std::string(R"("ceil_mode":)") + ceil + R"(,"count_include_pad":)" + cip;
      EXPECT_TRUE(node_parity("aten.avg_pool2d.default", {in({2, 3, 8, 7})},
                              R"({"kernel_size":[3,3],"stride":[2,2],"padding":[1,1],)" + flags + "}"));
      EXPECT_TRUE(node_parity("aten.avg_pool2d.default", {in({1, 2, 5, 6})},
                              R"({"kernel_size":[2,3],"stride":[2,2],"padding":[1,0],)" + flags + "}"));
    }
  EXPECT_TRUE(node_parity("aten.avg_pool2d.default", {in({1, 2, 6, 6})},
                          R"({"kernel_size":[3,3],"stride":[2,2],"padding":[1,1],"divisor_override":2})"));
  EXPECT_TRUE(node_parity("aten.avg_pool2d.default", {in({3, 6, 6})}, R"({"kernel_size":[2,2]})"));
  EXPECT_TRUE(
      node_parity("aten.avg_pool2d.default", {tr({1, 2, 5, 4})}, R"({"kernel_size":[2,2],"stride":[1,1]})"));
}

TEST(LinalgParity, AdaptivePool2d) {
  const std::vector<std::pair<Shape, std::string>> cases = {
      {{2, 3, 7, 7}, R"({"output_size":[1,1]})"},  {{1, 2, 5, 5}, R"({"output_size":[3,3]})"},
      {{1, 2, 10, 7}, R"({"output_size":[4,3]})"}, {{2, 3, 5}, R"({"output_size":[5,7]})"},
      {{1, 1, 3, 8}, R"({"output_size":2})"},
  };
  for (const auto& c : cases) {
    EXPECT_TRUE(node_parity("aten.adaptive_avg_pool2d.default", {in(c.first)}, c.second));
    EXPECT_TRUE(node_parity("aten._adaptive_avg_pool2d.default", {in(c.first)}, c.second));
    EXPECT_TRUE(node_parity("aten.adaptive_max_pool2d.default", {in(c.first)}, c.second));
  }
  EXPECT_TRUE(
      node_parity("aten.adaptive_avg_pool2d.default", {tr({1, 2, 6, 5})}, R"({"output_size":[2,2]})"));
}

TEST(LinalgParity, Pool1d) {
  EXPECT_TRUE(node_parity("aten.max_pool1d.default", {in({2, 3, 11})},
                          R"({"kernel_size":[3],"stride":[2],"padding":[1],"ceil_mode":true})"));
  EXPECT_TRUE(node_parity(
      "aten.avg_pool1d.default", {in({2, 3, 11})},
      R"({"kernel_size":[3],"stride":[2],"padding":[1],"ceil_mode":true,"count_include_pad":false})"));
  EXPECT_TRUE(node_parity("aten.adaptive_avg_pool1d.default", {in({2, 3, 7})}, R"({"output_size":[3]})"));
  EXPECT_TRUE(node_parity("aten.adaptive_max_pool1d.default", {in({3, 7})}, R"({"output_size":[4]})"));
}

// =============================== indexing ==================================
TEST(LinalgParity, Embedding) {
  EXPECT_TRUE(node_parity("aten.embedding.default", {wt({10, 4}), idx({2, 3}, 0, 10)}));
  EXPECT_TRUE(node_parity("aten.embedding.default", {wt({10, 4}), idx({5}, 0, 10, DType::I32)},
                          R"({"padding_idx":0})"));
  EXPECT_TRUE(node_parity("aten.embedding.default", {wt({7, 3}), idx({}, 0, 7)}));
  EXPECT_TRUE(node_parity("aten.embedding.default", {tr({5, 6}), idx({0, 2}, 0, 6)}));
}

TEST(LinalgParity, IndexTensor) {
  const std::string op = "aten.index.Tensor";
  auto masks = [](const std::string& m) { return R"({"_tensor_list_none_masks":[)" + m + "]}"; };
  EXPECT_TRUE(node_parity(op, {in({4, 5, 6}), idx({3}, -4, 4)}, R"({"_tensor_list_sizes":[1]})"));
  EXPECT_TRUE(node_parity(op, {in({4, 5, 6}), idx({2, 3}, -5, 5)}, masks("[true,false]")));
  EXPECT_TRUE(
      node_parity(op, {in({4, 5, 6}), idx({3}, -4, 4), idx({3}, -6, 6)}, masks("[false,true,false]")));
  EXPECT_TRUE(
      node_parity(op, {in({4, 5, 6}), idx({3, 1}, -5, 5), idx({2}, -6, 6)}, masks("[true,false,false]")));
  EXPECT_TRUE(node_parity(op, {in({4, 5, 6}), idx({2, 1}, 0, 4), idx({3}, 0, 5), idx({1}, 0, 6)}));
  EXPECT_TRUE(node_parity(op, {tr({4, 5, 6}), idx({}, -5, 5)}, masks("[true,false]")));
  EXPECT_TRUE(node_parity(op, {in({4, 5}, DType::I64, -9, 9), idx({0}, 0, 4)}));
  EXPECT_TRUE(
      node_parity(op, {in({3, 4, 5, 2}), idx({2}, 0, 4), idx({2}, 0, 2)}, masks("[true,false,true,false]")));
}

TEST(LinalgParity, IndexSelectAndGather) {
  EXPECT_TRUE(node_parity("aten.index_select.default", {in({4, 5}), idx({3}, 0, 4)}, R"({"dim":0})"));
  EXPECT_TRUE(node_parity("aten.index_select.default", {tr({4, 5}), idx({7}, 0, 5)}, R"({"dim":-1})"));
  EXPECT_TRUE(
      node_parity("aten.index_select.default", {in({2, 3, 4}), idx({2}, 0, 3, DType::I32)}, R"({"dim":1})"));
  EXPECT_TRUE(node_parity("aten.index_select.default", {in({2, 3}), idx({}, 0, 3)}, R"({"dim":1})"));
  EXPECT_TRUE(node_parity("aten.gather.default", {in({4, 5}), idx({3, 5}, 0, 4)}, R"({"dim":0})"));
  EXPECT_TRUE(node_parity("aten.gather.default", {tr({4, 5}), idx({2, 7}, 0, 5)}, R"({"dim":-1})"));
  EXPECT_TRUE(node_parity("aten.gather.default", {in({2, 3, 4}, DType::I64, -9, 9), idx({2, 2, 4}, 0, 3)},
                          R"({"dim":1})"));
}

// ================================ joins ====================================
TEST(LinalgParity, CatAndStack) {
  EXPECT_TRUE(node_parity("aten.cat.default", {in({2, 3}), in({4, 3})}, R"({"_tensor_list_sizes":[2]})"));
  EXPECT_TRUE(node_parity("aten.cat.default", {in({2, 3}), tr({2, 5}), in({2, 1})}, R"({"dim":-1})"));
  EXPECT_TRUE(node_parity("aten.cat.default", {in({2, 3, 1}), in({2, 0, 1}), in({2, 2, 1})}, R"({"dim":1})"));
  EXPECT_TRUE(node_parity("aten.cat.default", {in({2, 3}, DType::I64, -5, 5), in({2, 3})}, R"({"dim":0})"));
  EXPECT_TRUE(node_parity("aten.cat.default", {in({0}), in({1, 2, 3}), in({1, 2, 3})}, R"({"dim":2})"));
  EXPECT_TRUE(node_parity("aten.cat.default", {in({3, 4})}, R"({"dim":1})"));
  EXPECT_TRUE(node_parity("aten.stack.default", {in({2, 3}), in({2, 3}), in({2, 3})}));
  EXPECT_TRUE(node_parity("aten.stack.default", {tr({2, 3}), in({2, 3})}, R"({"dim":-1})"));
  EXPECT_TRUE(node_parity("aten.stack.default", {in({2, 3}), in({2, 3}, DType::I32, -5, 5)}, R"({"dim":1})"));
  EXPECT_TRUE(node_parity("aten.stack.default", {in({}), in({})}));
}

// =============================== creation ==================================
TEST(LinalgParity, Arange) {
  EXPECT_TRUE(node_parity("aten.arange.default", {}, R"({"end":7})"));
  EXPECT_TRUE(node_parity("aten.arange.default", {}, R"({"end":5.5})"));
  EXPECT_TRUE(node_parity("aten.arange.default", {}, R"({"end":4,"dtype":"torch.float64"})"));
  EXPECT_TRUE(node_parity("aten.arange.start", {}, R"({"start":-3,"end":4})"));
  EXPECT_TRUE(node_parity("aten.arange.start", {}, R"({"start":2,"end":9,"dtype":6})"));
  EXPECT_TRUE(node_parity("aten.arange.start_step", {}, R"({"start":0,"end":1,"step":0.1})"));
  EXPECT_TRUE(node_parity("aten.arange.start_step", {}, R"({"start":10,"end":-3,"step":-3})"));
  EXPECT_TRUE(node_parity("aten.arange.start_step", {},
                          R"({"start":0.5,"end":3.2,"step":0.3,"dtype":"torch.float32"})"));
  EXPECT_TRUE(
      node_parity("aten.arange.start_step", {}, R"({"start":0,"end":64,"step":2,"dtype":"torch.int64"})"));
  EXPECT_TRUE(node_parity("aten.arange.start_step", {}, R"({"start":0,"end":0,"step":1})"));
  EXPECT_TRUE(node_parity("aten.arange.start_step", {},
                          R"({"start":-1.5,"end":2.5,"step":1.5,"dtype":"torch.int32"})"));
}

TEST(LinalgParity, FillsAndLikes) {
  EXPECT_TRUE(node_parity("aten.full.default", {}, R"({"size":[2,3],"fill_value":7})"));
  EXPECT_TRUE(node_parity("aten.full.default", {}, R"({"size":[2,3],"fill_value":-Infinity})"));
  EXPECT_TRUE(node_parity("aten.full.default", {},
                          R"({"size":[3],"fill_value":2.5,"dtype":"torch.int64","device":"meta"})"));
  EXPECT_TRUE(node_parity("aten.full.default", {}, R"({"size":[0,2],"fill_value":1.0})"));
  EXPECT_TRUE(node_parity("aten.zeros.default", {}, R"({"size":[2,1,3]})"));
  EXPECT_TRUE(node_parity("aten.zeros.default", {}, R"({"size":[4],"dtype":"torch.bool"})"));
  EXPECT_TRUE(node_parity("aten.ones.default", {}, R"({"size":[3],"dtype":4})"));
  EXPECT_TRUE(node_parity("aten.ones.default", {}, R"({"size":[]})"));
  EXPECT_TRUE(node_parity("aten.scalar_tensor.default", {}, R"({"s":3})"));
  EXPECT_TRUE(node_parity("aten.scalar_tensor.default", {}, R"({"s":-0.25,"dtype":"torch.float64"})"));
  EXPECT_TRUE(node_parity("aten.full_like.default", {tr({2, 3})}, R"({"fill_value":1.5})"));
  EXPECT_TRUE(node_parity("aten.full_like.default", {in({2, 3}, DType::I64, 0, 3)}, R"({"fill_value":2.7})"));
  EXPECT_TRUE(node_parity("aten.full_like.default", {in({2})}, R"({"fill_value":3,"dtype":"torch.int32"})"));
  EXPECT_TRUE(node_parity("aten.zeros_like.default", {in({2, 3}, DType::I32, 0, 3)}));
  EXPECT_TRUE(node_parity("aten.ones_like.default", {tr({2, 3})}, R"({"dtype":"torch.float64"})"));
  EXPECT_TRUE(node_parity("aten.new_zeros.default", {in({2}, DType::I64, 0, 3)}, R"({"size":[3,1]})"));
  EXPECT_TRUE(node_parity("aten.new_ones.default", {in({2})}, R"({"size":[2,2],"dtype":"torch.int64"})"));
  EXPECT_TRUE(node_parity("aten.new_full.default", {in({2})}, R"({"size":[2],"fill_value":-4})"));
}

TEST(LinalgParity, TrilTriu) {
  for (const char* op : {"aten.tril.default", "aten.triu.default"})
    for (int diag : {-2, -1, 0, 1, 3}) {
      const std::string a = "{\"diagonal\":" + std::to_string(diag) + "}";
      EXPECT_TRUE(node_parity(op, {in({4, 4})}, a));
      EXPECT_TRUE(node_parity(op, {in({2, 3, 5})}, a));
      EXPECT_TRUE(node_parity(op, {tr({5, 3})}, a));
      EXPECT_TRUE(node_parity(op, {in({2, 4}, DType::Bool)}, a));
    }
  EXPECT_TRUE(node_parity("aten.triu.default", {in({0, 3})}));
}

}  // namespace
