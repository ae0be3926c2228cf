// View/shape ops against LibTorch: each on contiguous and non-contiguous
// (transposed) inputs, negative dims, INT64_MAX slice ends, uneven splits;
// then pads, flip/roll/repeat/pixel shuffles, joins and linspace.
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

TEST(ViewParity, MoreTransposes) {
  EXPECT_TRUE(node_parity("aten.movedim.int", {in({2, 3, 4, 5})}, R"({"source": 0, "destination": -1})"));
  EXPECT_TRUE(node_parity("aten.movedim.int", {tr({2, 3, 4})}, R"({"source": -1, "destination": 0})"));
  EXPECT_TRUE(node_parity("aten.movedim.int", {in({})}, R"({"source": 0, "destination": -1})"));
  EXPECT_TRUE(node_parity("aten.swapaxes.default", {in({2, 3, 4}, DType::I64, -9, 9)}, R"({"axis0": -3, "axis1": 2})"));
  EXPECT_TRUE(node_parity("aten.mT.default", {tr({2, 3, 5})}));
  EXPECT_TRUE(node_parity("aten.mT.default", {in({0, 3})}));
  EXPECT_TRUE(node_parity("aten.numpy_T.default", {in({2, 3, 4}, DType::F64)}));
  EXPECT_TRUE(node_parity("aten.numpy_T.default", {tr({3, 4})}));
}

TEST(ViewParity, InPlaceMetadataOps) {
  EXPECT_TRUE(node_parity("aten.t_.default", {in({3, 5})}));
  EXPECT_TRUE(node_parity("aten.t_.default", {in({4}, DType::Bool)}));
  EXPECT_TRUE(node_parity("aten.transpose_.default", {tr({2, 3, 4})}, R"({"dim0": 0, "dim1": -1})"));
  EXPECT_TRUE(node_parity("aten.squeeze_.dim", {in({2, 1, 3})}, R"({"dim": -2})"));
  EXPECT_TRUE(node_parity("aten.squeeze_.dim", {in({2, 3}, DType::I64, -4, 4)}, R"({"dim": 0})"));
  EXPECT_TRUE(node_parity("aten.unsqueeze_.default", {tr({2, 3})}, R"({"dim": -1})"));
  EXPECT_TRUE(node_parity("aten.unsqueeze_.default", {in({})}, R"({"dim": 0})"));
}

TEST(ViewParity, AsOtherShape) {
  EXPECT_TRUE(node_parity("aten.expand_as.default", {in({3, 1}), in({2, 3, 4})}));
  EXPECT_TRUE(node_parity("aten.expand_as.default", {tr({1, 3}, DType::I64, -5, 5), in({0, 3})}));
  EXPECT_TRUE(node_parity("aten.reshape_as.default", {tr({3, 4}), in({2, 6})}));  // copies
  EXPECT_TRUE(node_parity("aten.reshape_as.default", {in({2, 3}, DType::Bool), in({6})}));
  EXPECT_TRUE(node_parity("aten.view_as.default", {in({4, 6}), in({2, 2, 6}, DType::I64, 0, 3)}));
}

TEST(ViewParity, AsStridedAndUnfold) {
  EXPECT_TRUE(node_parity("aten.as_strided.default", {in({4, 5})}, R"({"size": [3, 3], "stride": [5, 1], "storage_offset": 2})"));
  EXPECT_TRUE(node_parity("aten.as_strided.default", {in({10})}, R"({"size": [4, 3], "stride": [2, 1]})"));  // overlapping
  // (no transposed input: the reference copies inputs to contiguous, which as_strided can see;
  // ShapeViews.AsStrided checks the base-storage semantics on a view)
  EXPECT_TRUE(node_parity("aten.as_strided.default", {in({4, 5})}, R"({"size": [2, 2, 2], "stride": [0, 4, 1]})"));
  EXPECT_TRUE(node_parity("aten.as_strided.default", {in({6}, DType::I64, -9, 9)}, R"({"size": [0, 7], "stride": [1, 1]})"));
  EXPECT_TRUE(node_parity("aten.unfold.default", {in({2, 7})}, R"({"dimension": -1, "size": 3, "step": 2})"));
  EXPECT_TRUE(node_parity("aten.unfold.default", {tr({5, 3})}, R"({"dimension": 0, "size": 5, "step": 1})"));
  EXPECT_TRUE(node_parity("aten.unfold.default", {in({4}, DType::F64)}, R"({"dimension": 0, "size": 0, "step": 3})"));
  EXPECT_TRUE(node_parity("aten.unfold.default", {in({})}, R"({"dimension": 0, "size": 1, "step": 1})"));
}

TEST(ViewParity, MoreSplits) {
  EXPECT_TRUE(node_parity("aten.split.sizes", {in({2, 9})}, R"({"split_size": [2, 0, 7], "dim": -1})"));
  EXPECT_TRUE(node_parity("aten.split.sizes", {tr({5, 3}, DType::I64, -5, 5)}, R"({"split_size": [4, 1]})"));
  EXPECT_TRUE(node_parity("aten.unsafe_split.Tensor", {in({7, 3})}, R"({"split_size": 3})"));
  EXPECT_TRUE(node_parity("aten.unsafe_split.Tensor", {tr({4, 5})}, R"({"split_size": 5, "dim": -1})"));
}

TEST(PadParity, ConstantPadNd) {
  EXPECT_TRUE(node_parity("aten.constant_pad_nd.default", {in({2, 3, 4})}, R"({"pad": [1, 2], "value": 0.5})"));
  EXPECT_TRUE(node_parity("aten.constant_pad_nd.default", {tr({3, 5})}, R"({"pad": [-1, 1, 2, 0]})"));
  EXPECT_TRUE(node_parity("aten.constant_pad_nd.default", {in({2, 3})}, R"({"pad": [-2, -1]})"));  // crops to 0
  EXPECT_TRUE(node_parity("aten.constant_pad_nd.default", {in({2, 3})}, R"({"pad": [7, 9, 0, 4]})"));  // wider than input
  EXPECT_TRUE(node_parity("aten.constant_pad_nd.default", {in({0, 3})}, R"({"pad": [1, 1, 1, 1]})"));
  EXPECT_TRUE(node_parity("aten.constant_pad_nd.default", {in({1, 2, 3}, DType::F64)}, R"({"pad": [1, 1, 1, 1, 1, 1], "value": -2.25})"));
  EXPECT_TRUE(node_parity("aten.constant_pad_nd.default", {in({2, 3}, DType::I64, -9, 9)}, R"({"pad": [1, 2], "value": 7})"));
  EXPECT_TRUE(node_parity("aten.constant_pad_nd.default", {in({2, 3}, DType::I64, -9, 9)}, R"({"pad": [1, 1], "value": 2.7})"));
  EXPECT_TRUE(node_parity("aten.constant_pad_nd.default", {in({2, 3}, DType::Bool)}, R"({"pad": [0, 2], "value": true})"));
  EXPECT_TRUE(node_parity("aten.constant_pad_nd.default", {in({})}, R"({"pad": []})"));
}

TEST(PadParity, PadModes) {
  EXPECT_TRUE(node_parity("aten.pad.default", {in({2, 3, 4})}, R"({"pad": [1, 2], "value": 1.5})"));
  EXPECT_TRUE(node_parity("aten.pad.default", {in({2, 3, 4}, DType::I64, -5, 5)}, R"({"pad": [1, -1, 2, 2]})"));
  EXPECT_TRUE(node_parity("aten.pad.default", {in({2, 3, 5})}, R"({"pad": [2, 4], "mode": "reflect"})"));
  EXPECT_TRUE(node_parity("aten.pad.default", {in({3, 5})}, R"({"pad": [1, 2], "mode": "reflect"})"));  // unbatched
  EXPECT_TRUE(node_parity("aten.pad.default", {tr({1, 2, 4, 5})}, R"({"pad": [1, 3, 3, 2], "mode": "reflect"})"));
  EXPECT_TRUE(node_parity("aten.pad.default", {in({1, 2, 3, 4, 5}, DType::F64)}, R"({"pad": [1, 2, 0, 1, 2, 2], "mode": "replicate"})"));
  EXPECT_TRUE(node_parity("aten.pad.default", {in({2, 3, 1})}, R"({"pad": [3, 4], "mode": "replicate"})"));
  EXPECT_TRUE(node_parity("aten.pad.default", {tr({1, 2, 5})}, R"({"pad": [2, 3], "mode": "circular"})"));
  EXPECT_TRUE(node_parity("aten.pad.default", {in({2, 1, 3, 4})}, R"({"pad": [-1, 2, 1, -1], "mode": "circular"})"));
  EXPECT_TRUE(node_parity("aten.pad.default", {in({1, 1, 2, 3, 4})}, R"({"pad": [4, 4, 1, 0, 2, 1], "mode": "circular"})"));
  EXPECT_TRUE(node_parity("aten.pad.default", {in({1, 2, 6}, DType::F64)}, R"({"pad": [-2, 3], "mode": "circular"})"));
  EXPECT_TRUE(node_parity("aten.pad.default", {in({0, 3, 4})}, R"({"pad": [1, 1], "mode": "replicate"})"));  // empty batch
}

TEST(PadParity, ReflectionReplication) {
  EXPECT_TRUE(node_parity("aten.reflection_pad1d.default", {in({2, 3, 5})}, R"({"padding": [4, 1]})"));
  EXPECT_TRUE(node_parity("aten.reflection_pad1d.default", {tr({4, 3})}, R"({"padding": [-1, 2]})"));
  EXPECT_TRUE(node_parity("aten.reflection_pad2d.default", {in({1, 3, 4, 5}, DType::F64)}, R"({"padding": [2, 1, 3, 0]})"));
  EXPECT_TRUE(node_parity("aten.reflection_pad2d.default", {tr({2, 4, 3})}, R"({"padding": [1, 1, 2, 2]})"));
  EXPECT_TRUE(node_parity("aten.reflection_pad3d.default", {in({1, 2, 3, 4, 3})}, R"({"padding": [1, 2, 2, 0, 1, 1]})"));
  EXPECT_TRUE(node_parity("aten.replication_pad1d.default", {in({2, 3, 5})}, R"({"padding": [7, 0]})"));
  EXPECT_TRUE(node_parity("aten.replication_pad1d.default", {tr({1, 3})}, R"({"padding": [-2, 3]})"));
  EXPECT_TRUE(node_parity("aten.replication_pad2d.default", {in({1, 3, 4, 5})}, R"({"padding": [2, 1, 5, 0]})"));
  EXPECT_TRUE(node_parity("aten.replication_pad2d.default", {tr({3, 1, 4})}, R"({"padding": [1, -1, 2, 2]})"));
  EXPECT_TRUE(node_parity("aten.replication_pad3d.default", {in({2, 1, 2, 3}, DType::F64)}, R"({"padding": [1, 2, 3, 0, 1, 1]})"));
}

TEST(ReorderParity, Flip) {
  EXPECT_TRUE(node_parity("aten.flip.default", {in({2, 3, 4})}, R"({"dims": [0, -1]})"));
  EXPECT_TRUE(node_parity("aten.flip.default", {tr({3, 5})}, R"({"dims": [1]})"));
  EXPECT_TRUE(node_parity("aten.flip.default", {in({3, 5}, DType::I64, -9, 9)}, R"({"dims": []})"));
  EXPECT_TRUE(node_parity("aten.flip.default", {in({2, 0, 3}, DType::F64)}, R"({"dims": [1, 2]})"));
  EXPECT_TRUE(node_parity("aten.flip.default", {in({1, 7}, DType::Bool)}, R"({"dims": [-2, -1]})"));
  EXPECT_TRUE(node_parity("aten.flip.default", {in({})}, R"({"dims": [0]})"));
}

TEST(ReorderParity, Roll) {
  EXPECT_TRUE(node_parity("aten.roll.default", {in({3, 5})}, R"({"shifts": [2]})"));  // flattened
  EXPECT_TRUE(node_parity("aten.roll.default", {tr({3, 5})}, R"({"shifts": [-17]})"));
  EXPECT_TRUE(node_parity("aten.roll.default", {in({2, 3, 4})}, R"({"shifts": [1, -7], "dims": [0, -1]})"));
  EXPECT_TRUE(node_parity("aten.roll.default", {tr({4, 3}, DType::I64, -9, 9)}, R"({"shifts": [1, 2], "dims": [0, 0]})"));
  EXPECT_TRUE(node_parity("aten.roll.default", {in({2, 0}, DType::F64)}, R"({"shifts": [1], "dims": [1]})"));
  EXPECT_TRUE(node_parity("aten.roll.default", {in({5}, DType::Bool)}, R"({"shifts": [3], "dims": [0]})"));
  EXPECT_TRUE(node_parity("aten.roll.default", {in({1, 3})}, R"({"shifts": [4, 100], "dims": [1, 0]})"));
}

TEST(ReorderParity, Repeat) {
  EXPECT_TRUE(node_parity("aten.repeat.default", {in({3, 1})}, R"({"repeats": [2, 1, 3]})"));
  EXPECT_TRUE(node_parity("aten.repeat.default", {tr({2, 3})}, R"({"repeats": [2, 2]})"));
  EXPECT_TRUE(node_parity("aten.repeat.default", {in({2, 3}, DType::I64, -9, 9)}, R"({"repeats": [0, 2]})"));
  EXPECT_TRUE(node_parity("aten.repeat.default", {in({}, DType::Bool)}, R"({"repeats": [3, 1]})"));
  EXPECT_TRUE(node_parity("aten.repeat.default", {in({0, 2}, DType::F64)}, R"({"repeats": [2, 3]})"));
}

TEST(ReorderParity, PixelShuffle) {
  EXPECT_TRUE(node_parity("aten.pixel_shuffle.default", {in({2, 8, 3, 5})}, R"({"upscale_factor": 2})"));
  EXPECT_TRUE(node_parity("aten.pixel_shuffle.default", {tr({9, 2, 3})}, R"({"upscale_factor": 3})"));
  EXPECT_TRUE(node_parity("aten.pixel_shuffle.default", {in({1, 2, 4, 1, 1}, DType::I64, -9, 9)}, R"({"upscale_factor": 2})"));
  EXPECT_TRUE(node_parity("aten.pixel_shuffle.default", {in({2, 3, 2, 2}, DType::F64)}, R"({"upscale_factor": 1})"));
  EXPECT_TRUE(node_parity("aten.pixel_unshuffle.default", {in({1, 2, 6, 4})}, R"({"downscale_factor": 2})"));
  EXPECT_TRUE(node_parity("aten.pixel_unshuffle.default", {tr({3, 6, 9})}, R"({"downscale_factor": 3})"));
  // (torch 1.13 returns 0-element inputs unchanged, shape included; not compared)
  EXPECT_TRUE(node_parity("aten.pixel_unshuffle.default", {in({1, 2, 2, 2}, DType::Bool)}, R"({"downscale_factor": 2})"));
}

TEST(JoinParity, HstackVstack) {
  EXPECT_TRUE(node_parity("aten.hstack.default", {in({2, 3}), tr({2, 4})}, R"({"_tensor_list_sizes": [2]})"));
  EXPECT_TRUE(node_parity("aten.hstack.default", {in({3}), in({}), in({0})}, R"({"_tensor_list_sizes": [3]})"));
  EXPECT_TRUE(node_parity("aten.hstack.default", {in({2, 1, 3}, DType::I64, -5, 5), in({2, 2, 3})}, R"({"_tensor_list_sizes": [2]})"));
  EXPECT_TRUE(node_parity("aten.vstack.default", {in({3}), in({2, 3}), in({3}, DType::F64)}, R"({"_tensor_list_sizes": [3]})"));
  EXPECT_TRUE(node_parity("aten.vstack.default", {in({}), in({1}, DType::Bool)}, R"({"_tensor_list_sizes": [2]})"));
  EXPECT_TRUE(node_parity("aten.vstack.default", {tr({3, 2}), in({0, 2})}, R"({"_tensor_list_sizes": [2]})"));
}

TEST(CreationParity, Linspace) {
  EXPECT_TRUE(node_parity("aten.linspace.default", {}, R"({"start": 0, "end": 10, "steps": 5})"));
  EXPECT_TRUE(node_parity("aten.linspace.default", {}, R"({"start": 0.1, "end": 1.7, "steps": 11})"));
  EXPECT_TRUE(node_parity("aten.linspace.default", {}, R"({"start": -1, "end": 1, "steps": 101})"));
  EXPECT_TRUE(node_parity("aten.linspace.default", {}, R"({"start": 3.5, "end": -2, "steps": 7, "dtype": "torch.float64"})"));
  EXPECT_TRUE(node_parity("aten.linspace.default", {}, R"({"start": -3, "end": 7.5, "steps": 7, "dtype": "torch.int64"})"));
  EXPECT_TRUE(node_parity("aten.linspace.default", {}, R"({"start": 2, "end": 5, "steps": 1})"));
  EXPECT_TRUE(node_parity("aten.linspace.default", {}, R"({"start": 2, "end": 5, "steps": 0})"));
}

}  // namespace
