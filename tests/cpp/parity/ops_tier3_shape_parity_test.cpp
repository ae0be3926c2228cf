// Tier-3 view/shape, creation and model-ish ops against LibTorch 1.13: awkward
// shapes (0-size, size-1, odd), negative dims, transposed (non-contiguous)
// inputs, int/bool dtypes. Ops 1.13 lacks (_batch_norm_{no,with}_update,
// _scaled_dot_product_{efficient,cudnn}_attention, empty_permuted) are replayed
// from torch 2.14 cases in tests/cpp/unit/ops2_cases_test.cpp.
#include <gtest/gtest.h>

#include "parity/parity_util.h"

namespace {

using tir::DType;
using tir::parity::in;
using tir::parity::tr;

ParityInput vals(tir::Shape s, std::vector<double> v, DType d = DType::I64) {
  ParityInput p;
  p.shape = std::move(s);
  p.dtype = d;
  p.values = std::move(v);
  return p;
}

TEST(Tier3ShapeParity, Atleast2dBroadcastTo) {
  EXPECT_TRUE(node_parity("aten.atleast_2d.default", {in({})}));
  EXPECT_TRUE(node_parity("aten.atleast_2d.default", {in({5}, DType::I64, -9, 9)}));
  EXPECT_TRUE(node_parity("aten.atleast_2d.default", {in({0})}));
  EXPECT_TRUE(node_parity("aten.atleast_2d.default", {tr({3, 4})}));
  EXPECT_TRUE(node_parity("aten.atleast_2d.default", {in({2, 1, 3}, DType::Bool)}));
  EXPECT_TRUE(node_parity("aten.broadcast_to.default", {in({3, 1})}, R"({"size": [2, 3, 4]})"));
  EXPECT_TRUE(node_parity("aten.broadcast_to.default", {tr({1, 3})}, R"({"size": [-1, 3]})"));
  EXPECT_TRUE(node_parity("aten.broadcast_to.default", {in({})}, R"({"size": [0, 2]})"));
  EXPECT_TRUE(node_parity("aten.broadcast_to.default", {in({1}, DType::Bool)}, R"({"size": [5]})"));
}

TEST(Tier3ShapeParity, DiagonalAndDiagonalCopy) {
  for (const char* op : {"aten.diagonal.default", "aten.diagonal_copy.default"}) {
    EXPECT_TRUE(node_parity(op, {in({4, 4})}));
    EXPECT_TRUE(node_parity(op, {in({3, 5})}, R"({"offset": 2})"));
    EXPECT_TRUE(node_parity(op, {in({5, 3})}, R"({"offset": -2})"));
    EXPECT_TRUE(node_parity(op, {in({3, 5})}, R"({"offset": 7})"));  // past the matrix: empty
    EXPECT_TRUE(node_parity(op, {in({3, 5})}, R"({"offset": -9})"));
    EXPECT_TRUE(node_parity(op, {tr({4, 6})}, R"({"offset": 1})"));
    EXPECT_TRUE(node_parity(op, {in({2, 3, 4})}, R"({"offset": -1, "dim1": -1, "dim2": 0})"));
    EXPECT_TRUE(node_parity(op, {in({2, 3, 4, 3}, DType::I64, -9, 9)}, R"({"dim1": 1, "dim2": 3})"));
    EXPECT_TRUE(node_parity(op, {in({0, 3})}));
    EXPECT_TRUE(node_parity(op, {in({1, 1}, DType::Bool)}));
  }
}

TEST(Tier3ShapeParity, Diag) {
  EXPECT_TRUE(node_parity("aten.diag.default", {in({4})}));
  EXPECT_TRUE(node_parity("aten.diag.default", {in({3})}, R"({"diagonal": 2})"));
  EXPECT_TRUE(node_parity("aten.diag.default", {in({3}, DType::I64, -9, 9)}, R"({"diagonal": -1})"));
  EXPECT_TRUE(node_parity("aten.diag.default", {in({0})}, R"({"diagonal": 1})"));
  EXPECT_TRUE(node_parity("aten.diag.default", {in({2}, DType::Bool)}));
  EXPECT_TRUE(node_parity("aten.diag.default", {in({3, 5})}, R"({"diagonal": 1})"));
  EXPECT_TRUE(node_parity("aten.diag.default", {tr({4, 3})}, R"({"diagonal": -2})"));
  EXPECT_TRUE(node_parity("aten.diag.default", {in({3, 5})}, R"({"diagonal": 5})"));
}

TEST(Tier3ShapeParity, ColumnStack) {
  EXPECT_TRUE(node_parity("aten.column_stack.default", {in({3}), in({3})}, R"({"_tensor_list_sizes":[2]})"));
  EXPECT_TRUE(node_parity("aten.column_stack.default", {in({3}), tr({3, 2}), in({3, 1}, DType::I64, -5, 5)},
                          R"({"_tensor_list_sizes":[3]})"));
  EXPECT_TRUE(node_parity("aten.column_stack.default", {in({}), in({1})}, R"({"_tensor_list_sizes":[2]})"));
  EXPECT_TRUE(node_parity("aten.column_stack.default", {in({2, 0, 3}), in({2, 4, 3})}, R"({"_tensor_list_sizes":[2]})"));
  EXPECT_TRUE(node_parity("aten.column_stack.default", {in({0}), in({0})}, R"({"_tensor_list_sizes":[2]})"));
  EXPECT_TRUE(node_parity("aten.column_stack.default", {in({4}, DType::Bool)}, R"({"_tensor_list_sizes":[1]})"));
}

TEST(Tier3ShapeParity, TakeAlongDim) {
  const char* op = "aten.take_along_dim.default";
  EXPECT_TRUE(node_parity(op, {in({3, 4}), vals({5}, {0, 11, 3, 3, 7})}));  // dim None: flat
  EXPECT_TRUE(node_parity(op, {tr({3, 4}), vals({2, 2}, {0, 11, 5, 6})}));  // flat of a transposed view
  EXPECT_TRUE(node_parity(op, {in({3, 4}), vals({3, 2}, {0, 3, 1, 1, 2, 0})}, R"({"dim": 1})"));
  EXPECT_TRUE(node_parity(op, {in({3, 4}), vals({1, 4}, {2, 0, 1, 2})}, R"({"dim": 0})"));  // indices broadcast
  EXPECT_TRUE(node_parity(op, {in({3, 1}), vals({1, 5}, {0, 0, 0, 0, 0})}, R"({"dim": 0})"));  // self broadcast
  EXPECT_TRUE(node_parity(op, {in({2, 3, 4}, DType::I64, -9, 9), vals({2, 1, 2}, {3, 0, 1, 2})}, R"({"dim": -1})"));
  EXPECT_TRUE(node_parity(op, {tr({4, 3}), vals({4, 2}, {0, 2, 1, 1, 2, 0, 0, 0})}, R"({"dim": 1})"));
  EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::Bool), vals({3, 0}, {})}, R"({"dim": 1})"));  // empty
  EXPECT_TRUE(node_parity(op, {in({}), vals({}, {0})}));  // 0-d, dim None
}

TEST(Tier3ShapeParity, TensorSplit) {
  EXPECT_TRUE(node_parity("aten.tensor_split.sections", {in({7, 2})}, R"({"sections": 3})"));  // 3, 2, 2
  EXPECT_TRUE(node_parity("aten.tensor_split.sections", {in({2, 5})}, R"({"sections": 5, "dim": -1})"));
  EXPECT_TRUE(node_parity("aten.tensor_split.sections", {in({2, 2})}, R"({"sections": 4, "dim": 1})"));  // empties
  EXPECT_TRUE(node_parity("aten.tensor_split.sections", {tr({4, 6})}, R"({"sections": 4, "dim": 1})"));
  EXPECT_TRUE(node_parity("aten.tensor_split.sections", {in({0, 3}, DType::I64)}, R"({"sections": 2})"));
  EXPECT_TRUE(node_parity("aten.tensor_split.sections", {in({5}, DType::Bool)}, R"({"sections": 1})"));
}

TEST(Tier3ShapeParity, Meshgrid) {
  for (const char* ix : {"ij", "xy"}) {
    const std::string a = std::string(R"({"indexing": ")") + ix + R"(", "_tensor_list_sizes": )";
    EXPECT_TRUE(node_parity("aten.meshgrid.indexing", {in({3}), in({4})}, a + "[2]}"));
    EXPECT_TRUE(node_parity("aten.meshgrid.indexing", {in({2}), in({}), in({3})}, a + "[3]}"));
    EXPECT_TRUE(node_parity("aten.meshgrid.indexing", {in({5}, DType::I64, -9, 9)}, a + "[1]}"));
    EXPECT_TRUE(node_parity("aten.meshgrid.indexing", {in({0}), in({2})}, a + "[2]}"));
    EXPECT_TRUE(node_parity("aten.meshgrid.indexing", {in({2}, DType::Bool), in({3}, DType::Bool), in({1}, DType::Bool)},
                            a + "[3]}"));
  }
}

TEST(Tier3ShapeParity, ChannelShuffle) {
  for (const char* op : {"aten.channel_shuffle.default", "aten.native_channel_shuffle.default"}) {
    EXPECT_TRUE(node_parity(op, {in({2, 6, 3, 3})}, R"({"groups": 3})"));
    EXPECT_TRUE(node_parity(op, {in({1, 4, 5})}, R"({"groups": 2})"));
    EXPECT_TRUE(node_parity(op, {in({2, 6, 1, 2, 1}, DType::I64, -9, 9)}, R"({"groups": 2})"));
    EXPECT_TRUE(node_parity(op, {tr({2, 6, 3})}, R"({"groups": 1})"));  // transposed last dims
    EXPECT_TRUE(node_parity(op, {in({1, 4, 1}, DType::Bool)}, R"({"groups": 4})"));
  }
  // Empty batch (LibTorch 1.13's native_channel_shuffle divides by zero on it).
  EXPECT_TRUE(node_parity("aten.channel_shuffle.default", {in({0, 4, 2})}, R"({"groups": 4})"));
  // A transposed view whose channel dim is strided.
  EXPECT_TRUE(node_parity("aten.channel_shuffle.default", {tr({2, 4, 3})}, R"({"groups": 2})"));
}

TEST(Tier3ShapeParity, ViewDtype) {
  const char* op = "aten.view.dtype";
  EXPECT_TRUE(node_parity(op, {in({3, 4})}, R"({"dtype": "torch.int32"})"));
  EXPECT_TRUE(node_parity(op, {in({3, 4})}, R"({"dtype": "torch.uint8"})"));      // last dim x4
  EXPECT_TRUE(node_parity(op, {in({3, 4})}, R"({"dtype": "torch.float64"})"));    // last dim /2
  EXPECT_TRUE(node_parity(op, {in({2, 6}, DType::I64, -99, 99)}, R"({"dtype": "torch.int16"})"));
  EXPECT_TRUE(node_parity(op, {in({8}, DType::U8, 0, 255)}, R"({"dtype": "torch.int64"})"));
  EXPECT_TRUE(node_parity(op, {in({3, 4}, DType::Bool)}, R"({"dtype": "torch.int8"})"));
  EXPECT_TRUE(node_parity(op, {in({0, 4})}, R"({"dtype": "torch.int16"})"));
  EXPECT_TRUE(node_parity(op, {in({})}, R"({"dtype": "torch.int32"})"));  // same size: 0-d allowed
  EXPECT_TRUE(node_parity(op, {tr({3, 4})}, R"({"dtype": "torch.int32"})"));  // same size: any strides
  EXPECT_TRUE(node_parity(op, {in({2, 3}, DType::F64)}, R"({"dtype": 4})"));   // ScalarType int
}

TEST(Tier3ShapeParity, EyeAndLiftFresh) {
  EXPECT_TRUE(node_parity("aten.eye.default", {}, R"({"n": 3})"));
  EXPECT_TRUE(node_parity("aten.eye.default", {}, R"({"n": 0})"));
  EXPECT_TRUE(node_parity("aten.eye.default", {}, R"({"n": 4, "dtype": "torch.int64"})"));
  EXPECT_TRUE(node_parity("aten.eye.m", {}, R"({"n": 2, "m": 5})"));
  EXPECT_TRUE(node_parity("aten.eye.m", {}, R"({"n": 5, "m": 1, "dtype": "torch.bool"})"));
  EXPECT_TRUE(node_parity("aten.eye.m", {}, R"({"n": 3, "m": 0, "dtype": "torch.float64"})"));
  EXPECT_TRUE(node_parity("aten.lift_fresh.default", {in({2, 3})}));
  EXPECT_TRUE(node_parity("aten.lift_fresh.default", {in({0}, DType::I64)}));
}

TEST(Tier3ShapeParity, Resize) {
  EXPECT_TRUE(node_parity("aten.resize_.default", {in({3, 4})}, R"({"size": [2, 6]})"));
  EXPECT_TRUE(node_parity("aten.resize_.default", {in({3, 4})}, R"({"size": [5]})"));  // shrink
  EXPECT_TRUE(node_parity("aten.resize_.default", {in({3, 4}, DType::I64, -9, 9)}, R"({"size": [0, 2]})"));
  EXPECT_TRUE(node_parity("aten.resize_.default", {in({2, 2})}, R"({"size": [4]})"));
}

TEST(Tier3ShapeParity, WeightNorm) {
  const char* op = "aten._weight_norm.default";
  EXPECT_TRUE(node_parity(op, {in({4, 3}), in({4, 1})}));                        // dim 0 (default)
  EXPECT_TRUE(node_parity(op, {in({4, 3, 2, 2}), in({4, 1, 1, 1})}, R"({"dim": 0})"));
  EXPECT_TRUE(node_parity(op, {in({4, 3}), in({1, 3})}, R"({"dim": 1})"));
  EXPECT_TRUE(node_parity(op, {in({2, 5, 3}), in({1, 5, 1})}, R"({"dim": -2})"));
  EXPECT_TRUE(node_parity(op, {in({4, 3}), in({})}, R"({"dim": -1})"));         // whole-tensor norm
  EXPECT_TRUE(node_parity(op, {tr({3, 4}), in({3, 1})}, R"({"dim": 0})"));
  EXPECT_TRUE(node_parity(op, {in({1, 1}, DType::F64), in({1, 1}, DType::F64)}));
  EXPECT_TRUE(node_parity(op, {in({5}), in({5})}));                              // 1-D v
  // The fused form 1.13's decompositions emit: (w, norms); dim 0 or the last dim.
  const char* fused = "aten._weight_norm_interface.default";
  EXPECT_TRUE(node_parity(fused, {in({4, 3, 2, 2}), in({4, 1, 1, 1})}, R"({"dim": 0})"));
  EXPECT_TRUE(node_parity(fused, {in({3, 5}), in({1, 5})}, R"({"dim": 1})"));
  EXPECT_TRUE(node_parity(fused, {tr({3, 4}, DType::F64), in({3, 1}, DType::F64)}));
}

TEST(Tier3ShapeParity, EmbeddingRenorm) {
  for (const char* op : {"aten.embedding_renorm.default", "aten.embedding_renorm_.default"}) {
    EXPECT_TRUE(node_parity(op, {in({6, 4}), vals({5}, {1, 3, 1, 0, 5})}, R"({"max_norm": 1.0, "norm_type": 2.0})"));
    EXPECT_TRUE(node_parity(op, {in({6, 4}), vals({2, 2}, {4, 4, 2, 0})}, R"({"max_norm": 0.5, "norm_type": 1.0})"));
    EXPECT_TRUE(node_parity(op, {in({3, 5}, DType::F64), vals({3}, {2, 1, 0})}, R"({"max_norm": 2.0, "norm_type": 3.0})"));
    EXPECT_TRUE(node_parity(op, {in({4, 3}), vals({0}, {})}, R"({"max_norm": 0.1, "norm_type": 2.0})"));
    EXPECT_TRUE(node_parity(op, {in({4, 3}), vals({2}, {3, 1}, DType::I32)}, R"({"max_norm": 100.0, "norm_type": 2.0})"));
  }
}

}  // namespace
