// View/shape ops against LibTorch: each on contiguous and non-contiguous
// (transposed) inputs, negative dims, INT64_MAX slice ends, uneven splits.
#include <gtest/gtest.h>

#include "parity/parity_util.h"

namespace {

using tir::DType;
using tir::parity::in;
using tir::parity::tr;

TEST(ViewParity, ViewAndReshape) {
  EXPECT_TRUE(node_parity("aten.view.default", {in({2, 3, 4})}, R"({"size": [6, -1]})"));
  EXPECT_TRUE(node_parity("aten.view.default", {in({5})}, R"({"size": [1, 5, 1]})"));
  EXPECT_TRUE(node_parity("aten.view.default", {in({})}, R"({"size": [1]})"));
  EXPECT_TRUE(node_parity("aten._unsafe_view.default", {in({4, 6})}, R"({"size": [2, 2, 6]})"));
  // reshape of a transposed view must copy (strides make a view impossible)
  EXPECT_TRUE(node_parity("aten.reshape.default", {tr({3, 4})}, R"({"shape": [12]})"));
  EXPECT_TRUE(node_parity("aten.reshape.default", {tr({2, 3, 5})}, R"({"shape": [-1, 5]})"));
  EXPECT_TRUE(node_parity("aten.reshape.default", {in({0, 3})}, R"({"shape": [3, 0]})"));
  EXPECT_TRUE(node_parity("aten.reshape.default", {in({2, 3}, DType::I64, -5, 5)}, R"({"shape": [3, 2]})"));
}

TEST(ViewParity, FlattenUnflatten) {
  EXPECT_TRUE(node_parity("aten.flatten.using_ints", {in({2, 3, 4, 5})}, R"({"start_dim": 1})"));
  EXPECT_TRUE(node_parity("aten.flatten.using_ints", {tr({2, 3, 4})}, R"({"start_dim": -2, "end_dim": -1})"));
  EXPECT_TRUE(node_parity("aten.flatten.using_ints", {in({})}, "{}"));
  EXPECT_TRUE(node_parity("aten.unflatten.int", {in({2, 12})}, R"({"dim": -1, "sizes": [3, -1]})"));
}

TEST(ViewParity, PermuteTransposeT) {
  EXPECT_TRUE(node_parity("aten.permute.default", {in({2, 3, 4})}, R"({"dims": [2, 0, 1]})"));
  EXPECT_TRUE(node_parity("aten.permute.default", {tr({2, 3, 4})}, R"({"dims": [-1, 1, 0]})"));
  EXPECT_TRUE(node_parity("aten.transpose.int", {in({2, 3, 4})}, R"({"dim0": 0, "dim1": -1})"));
  EXPECT_TRUE(node_parity("aten.t.default", {in({3, 5})}));
  EXPECT_TRUE(node_parity("aten.t.default", {in({5})}));
}

TEST(ViewParity, SqueezeUnsqueezeExpand) {
  EXPECT_TRUE(node_parity("aten.unsqueeze.default", {in({2, 3})}, R"({"dim": -1})"));
  EXPECT_TRUE(node_parity("aten.unsqueeze.default", {tr({2, 3})}, R"({"dim": 1})"));
  EXPECT_TRUE(node_parity("aten.squeeze.dim", {in({2, 1, 3})}, R"({"dim": 1})"));
  EXPECT_TRUE(node_parity("aten.squeeze.dim", {in({2, 3})}, R"({"dim": 0})"));  // non-1 dim: no-op
  EXPECT_TRUE(node_parity("aten.squeeze.default", {in({1, 2, 1, 3, 1})}));
  EXPECT_TRUE(node_parity("aten.expand.default", {in({3, 1})}, R"({"size": [2, 3, 4]})"));
  EXPECT_TRUE(node_parity("aten.expand.default", {tr({1, 3})}, R"({"size": [-1, 3]})"));
}

TEST(ViewParity, SliceSelectNarrow) {
  EXPECT_TRUE(node_parity("aten.slice.Tensor", {in({7, 3})}, R"({"dim": 0, "start": 1, "end": 9223372036854775807})"));
  EXPECT_TRUE(node_parity("aten.slice.Tensor", {tr({5, 6})}, R"({"dim": 1, "start": -4, "end": -1, "step": 2})"));
  EXPECT_TRUE(node_parity("aten.slice.Tensor", {in({5, 2})}, R"({"dim": 0, "start": 4, "end": 2})"));  // empty
  EXPECT_TRUE(node_parity("aten.slice.Tensor", {in({5, 2})}, R"({"dim": -2, "start": -100, "end": 100})"));
  EXPECT_TRUE(node_parity("aten.select.int", {in({4, 3, 2})}, R"({"dim": 1, "index": -1})"));
  EXPECT_TRUE(node_parity("aten.select.int", {tr({4, 3})}, R"({"dim": 0, "index": 2})"));
  EXPECT_TRUE(node_parity("aten.narrow.default", {in({6, 4})}, R"({"dim": -1, "start": 1, "length": 2})"));
}

TEST(ViewParity, SplitsAndUnbind) {
  EXPECT_TRUE(node_parity("aten.split.Tensor", {in({7, 3})}, R"({"split_size": 3})"));
  EXPECT_TRUE(node_parity("aten.split.Tensor", {tr({4, 5})}, R"({"split_size": 2, "dim": -1})"));
  EXPECT_TRUE(node_parity("aten.split_with_sizes.default", {in({2, 9})}, R"({"split_sizes": [2, 0, 7], "dim": 1})"));
  EXPECT_TRUE(node_parity("aten.chunk.default", {in({6, 2})}, R"({"chunks": 4})"));  // 6 rows in 4 -> 2,2,2
  EXPECT_TRUE(node_parity("aten.unbind.int", {in({3, 2, 2})}, R"({"dim": 0})"));
  EXPECT_TRUE(node_parity("aten.unbind.int", {tr({2, 3})}, R"({"dim": -1})"));
}

TEST(ViewParity, IdentityLikeOps) {
  EXPECT_TRUE(node_parity("aten.alias.default", {in({2, 3})}));
  EXPECT_TRUE(node_parity("aten.detach.default", {tr({2, 3})}));
  EXPECT_TRUE(node_parity("aten.contiguous.default", {tr({3, 4})}));
  EXPECT_TRUE(node_parity("aten.contiguous.default", {in({3, 4}, DType::I64, -9, 9)}));
  EXPECT_TRUE(node_parity("aten.dropout.default", {in({4, 5})}, R"({"p": 0.5, "train": false})"));
}

}  // namespace
