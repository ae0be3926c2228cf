// Unit tests for the shape ops (pads, flip/roll/repeat/pixel shuffles, extra
// views, hstack/vstack, linspace) and the reindex kernel: hand-checked values,
// view aliasing, and error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernels/reindex.h"
#include "ops/op.h"
#include "op_test_util.h"
#include "test_util.h"

namespace tir {
namespace {

using namespace test;
using namespace ::testing;

TEST(ReindexKernel, MapsAndFill) {
  const int64_t in[] = {1, 2, 3, 4, 5, 6};  // [2,3]
  int64_t out[8];
  const int64_t fill = -1;
  // rows reversed; cols: fill, 2, 0, fill
  reindex_copy(reinterpret_cast<const uint8_t*>(in), {3, 1}, sizeof(int64_t), {{1, 0}, {-1, 2, 0, -1}},
               reinterpret_cast<uint8_t*>(out), reinterpret_cast<const uint8_t*>(&fill));
  EXPECT_THAT(out, ElementsAre(-1, 6, 4, -1, -1, 3, 1, -1));
}

TEST(PadOps, ConstantReflectReplicateCircular) {
  const Tensor x = tensor_f32({1, 4}, {1, 2, 3, 4});
  auto pad = [&](const std::string& mode, std::vector<int64_t> p) {
    return values_f32(run_op("aten.pad.default", {x}, {{"pad", ints(p)}, {"mode", S(mode)}}).out[0]);
  };
  EXPECT_THAT(pad("reflect", {2, 1}), ElementsAre(3, 2, 1, 2, 3, 4, 3));
  EXPECT_THAT(pad("replicate", {2, -1}), ElementsAre(1, 1, 1, 2, 3));
  EXPECT_THAT(pad("circular", {1, 2}), ElementsAre(4, 1, 2, 3, 4, 1, 2));
  EXPECT_THAT(pad("circular", {-1, 2}), ElementsAre(2, 3, 4, 2, 3));  // crop first, then wrap
  EXPECT_THAT(pad("constant", {-1, 1}), ElementsAre(2, 3, 4, 0));
  auto r = run_op("aten.constant_pad_nd.default", {transposed(tensor_i64({2, 2}, {1, 2, 3, 4}))},
                  {{"pad", ints({0, 0, 1, 0})}, {"value", F(9.7)}});
  EXPECT_EQ(r.out[0].shape, (Shape{3, 2}));
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(9, 9, 1, 3, 2, 4));  // 9.7 truncates into int64
  // A 0-d input with no pads copies its one value; a dim cropped to 0 gives an empty output
  // (torch 2.14 allows it; 1.13 refused a 0 as "negative").
  r = run_op("aten.constant_pad_nd.default", {tensor_i64({}, {5})}, {{"pad", ints({})}});
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(5));
  r = run_op("aten.constant_pad_nd.default", {tensor_i64({2, 2}, {1, 2, 3, 4})}, {{"pad", ints({0, 3, -2, 0})}});
  EXPECT_EQ(r.out[0].shape, (Shape{0, 5}));
}

TEST(PadOps, Errors) {
  const Tensor x = iota_f32({1, 2, 3});
  EXPECT_THAT(error_of([&] { run_op("aten.reflection_pad1d.default", {x}, {{"padding", ints({3, 0})}}); }),
              HasSubstr("reflect padding must be smaller than the input dim"));
  EXPECT_THAT(error_of([&] { run_op("aten.constant_pad_nd.default", {x}, {{"pad", ints({-2, -2})}}); }),
              HasSubstr("negative output size"));
  EXPECT_THAT(error_of([&] { run_op("aten.constant_pad_nd.default", {x}, {{"pad", ints({1})}}); }),
              HasSubstr("divisible by 2"));
  EXPECT_THAT(error_of([&] { run_op("aten.pad.default", {x}, {{"pad", ints({1, 1})}, {"mode", S("wrap")}}); }),
              HasSubstr("unknown padding mode \"wrap\""));
  EXPECT_THAT(error_of([&] {
                run_op("aten.pad.default", {x}, {{"pad", ints({1, 1})}, {"mode", S("reflect")}, {"value", F(1.0)}});
              }),
              HasSubstr("doesn't take in value argument"));
  EXPECT_THAT(error_of([&] { run_op("aten.pad.default", {x}, {{"pad", ints({4, 0})}, {"mode", S("circular")}}); }),
              HasSubstr("wraps around more than once"));
  EXPECT_THAT(error_of([&] { run_op("aten.replication_pad2d.default", {x}, {{"padding", ints({1, 1})}}); }),
              HasSubstr("padding must have 4 entries"));
  EXPECT_THAT(error_of([&] { run_op("aten.pad.default", {iota_f32({4})}, {{"pad", ints({1, 1})}, {"mode", S("reflect")}}); }),
              HasSubstr("needs a 2-D or 3-D input"));
}

TEST(ReorderOps, FlipRollRepeat) {
  const Tensor x = iota_f32({2, 3});  // [[0,1,2],[3,4,5]]
  EXPECT_THAT(values_f32(run_op("aten.flip.default", {x}, {{"dims", ints({-1})}}).out[0]),
              ElementsAre(2, 1, 0, 5, 4, 3));
  EXPECT_THAT(values_f32(run_op("aten.roll.default", {x}, {{"shifts", ints({1})}}).out[0]),
              ElementsAre(5, 0, 1, 2, 3, 4));
  EXPECT_THAT(values_f32(run_op("aten.roll.default", {x}, {{"shifts", ints({1, -1})}, {"dims", ints({0, 1})}}).out[0]),
              ElementsAre(4, 5, 3, 1, 2, 0));
  auto rep = run_op("aten.repeat.default", {tensor_i64({2}, {7, 8})}, {{"repeats", ints({2, 2})}});
  EXPECT_EQ(rep.out[0].shape, (Shape{2, 4}));
  EXPECT_THAT(values_i64(rep.out[0]), ElementsAre(7, 8, 7, 8, 7, 8, 7, 8));
  EXPECT_THAT(error_of([&] { run_op("aten.flip.default", {x}, {{"dims", ints({0, -2})}}); }),
              HasSubstr("appears multiple times"));
  EXPECT_THAT(error_of([&] { run_op("aten.roll.default", {x}, {{"shifts", ints({1, 2})}}); }),
              HasSubstr("shifts and dimensions must align"));
  EXPECT_THAT(error_of([&] { run_op("aten.repeat.default", {x}, {{"repeats", ints({2})}}); }),
              HasSubstr("can not be smaller than number of dimensions"));
}

TEST(ReorderOps, PixelShuffleRoundTrip) {
  const Tensor x = iota_f32({1, 4, 2, 3});
  auto up = run_op("aten.pixel_shuffle.default", {x}, {{"upscale_factor", I(2)}});
  EXPECT_EQ(up.out[0].shape, (Shape{1, 1, 4, 6}));
  // out[0, 0, h*2+i, w*2+j] = in[0, i*2+j, h, w]: first row is in[0,0,0,:] and in[0,1,0,:] interleaved
  const auto v = values_f32(up.out[0]);
  EXPECT_THAT(std::vector<float>(v.begin(), v.begin() + 6), ElementsAre(0, 6, 1, 7, 2, 8));
  auto down = run_op("aten.pixel_unshuffle.default", {up.out[0]}, {{"downscale_factor", I(2)}});
  EXPECT_EQ(values_f32(down.out[0]), values_f32(x));
  EXPECT_THAT(error_of([&] { run_op("aten.pixel_shuffle.default", {iota_f32({1, 3, 2, 2})}, {{"upscale_factor", I(2)}}); }),
              HasSubstr("not divisible by 4"));
  EXPECT_THAT(error_of([&] { run_op("aten.pixel_unshuffle.default", {iota_f32({3, 3})}, {{"downscale_factor", I(1)}}); }),
              HasSubstr("at least 3 dimensions"));
}

TEST(ShapeViews, AliasInput) {
  const Tensor x = iota_f32({2, 3, 4});
  for (const auto& [op, attrs] : std::vector<std::pair<std::string, AttrMap>>{
           {"aten.movedim.int", {{"source", I(0)}, {"destination", I(-1)}}},
           {"aten.swapaxes.default", {{"axis0", I(0)}, {"axis1", I(2)}}},
           {"aten.mT.default", {}},
           {"aten.numpy_T.default", {}},
           {"aten.transpose_.default", {{"dim0", I(0)}, {"dim1", I(1)}}},
           {"aten.unsqueeze_.default", {{"dim", I(-1)}}},
           {"aten.unfold.default", {{"dimension", I(2)}, {"size", I(2)}, {"step", I(2)}}},
       }) {
    auto r = run_op(op, {x}, attrs);
    EXPECT_TRUE(r.out[0].same_storage(x)) << op;
  }
  auto m = run_op("aten.movedim.int", {x}, {{"source", I(0)}, {"destination", I(-1)}});
  EXPECT_EQ(m.out[0].shape, (Shape{3, 4, 2}));
  EXPECT_EQ(m.out[0].strides, (Strides{4, 1, 12}));
  auto u = run_op("aten.unfold.default", {x}, {{"dimension", I(2)}, {"size", I(2)}, {"step", I(2)}});
  EXPECT_EQ(u.out[0].shape, (Shape{2, 3, 2, 2}));
  EXPECT_EQ(u.out[0].strides, (Strides{12, 4, 2, 1}));
}

TEST(ShapeViews, AsStrided) {
  const Tensor x = iota_f32({10});
  auto r = run_op("aten.as_strided.default", {x}, {{"size", ints({3, 2})}, {"stride", ints({3, 1})}, {"storage_offset", I(1)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 2, 4, 5, 7, 8));
  // On a view, as_strided indexes the base storage from the base's start.
  const Tensor t = transposed(tensor_f32({2, 3}, {0, 1, 2, 3, 4, 5}));
  auto v = run_op("aten.as_strided.default", {t}, {{"size", ints({2, 2})}, {"stride", ints({1, 2})}});
  EXPECT_THAT(values_f32(v.out[0]), ElementsAre(0, 2, 1, 3));
  EXPECT_THAT(error_of([&] { run_op("aten.as_strided.default", {x}, {{"size", ints({3, 4})}, {"stride", ints({4, 1})}}); }),
              HasSubstr("out of bounds for storage of 10 elements"));
  EXPECT_THAT(error_of([&] { run_op("aten.as_strided.default", {x}, {{"size", ints({2})}, {"stride", ints({-1})}}); }),
              HasSubstr("negative strides"));
  EXPECT_THAT(error_of([&] { run_op("aten.mT.default", {x}); }), HasSubstr("Got 1-D tensor"));
  EXPECT_THAT(error_of([&] { run_op("aten.unfold.default", {x}, {{"dimension", I(0)}, {"size", I(11)}, {"step", I(1)}}); }),
              HasSubstr("maximum size for tensor at dimension 0 is 10"));
}

TEST(JoinOps, HstackVstack) {
  const Tensor a = tensor_i64({2}, {1, 2});
  const Tensor b = tensor_i64({3}, {3, 4, 5});
  auto h = run_op("aten.hstack.default", {a, b}, {{"_tensor_list_sizes", ints({2})}});
  EXPECT_THAT(values_i64(h.out[0]), ElementsAre(1, 2, 3, 4, 5));
  auto v = run_op("aten.vstack.default", {a, tensor_i64({2, 2}, {6, 7, 8, 9})}, {{"_tensor_list_sizes", ints({2})}});
  EXPECT_EQ(v.out[0].shape, (Shape{3, 2}));
  EXPECT_THAT(values_i64(v.out[0]), ElementsAre(1, 2, 6, 7, 8, 9));
  EXPECT_THAT(error_of([&] { run_op("aten.vstack.default", {a, b}, {{"_tensor_list_sizes", ints({2})}}); }),
              HasSubstr("except in dimension 0"));
}

TEST(CreationOps, Linspace) {
  auto r = run_op("aten.linspace.default", {}, {{"start", I(0)}, {"end", I(1)}, {"steps", I(5)}});
  EXPECT_EQ(r.out[0].dtype, DType::F32);
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 0.25f, 0.5f, 0.75f, 1));
  auto i = run_op("aten.linspace.default", {}, {{"start", I(-3)}, {"end", F(7.5)}, {"steps", I(7)}, {"dtype", S("torch.int64")}});
  EXPECT_THAT(values_i64(i.out[0]), ElementsAre(-3, -1, 0, 1, 3, 5, 7));
  EXPECT_THAT(error_of([&] { run_op("aten.linspace.default", {}, {{"start", I(0)}, {"end", I(1)}, {"steps", I(-1)}}); }),
              HasSubstr("non-negative"));
}

}  // namespace
}  // namespace tir
