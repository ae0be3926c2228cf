// Unit tests for the tier-3 shape/creation/model-ish ops what parity cannot
// see: which outputs are views of their input, in-place writes, values torch
// leaves uninitialized (zero-filled here), and the error messages of refused
// cases.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/op.h"
#include "op_test_util.h"
#include "test_util.h"

namespace tir {
namespace {

using namespace test;
using namespace ::testing;

TEST(Tier3ShapeOps, ViewsShareTheInputBuffer) {
  const Tensor x = iota_f32({3, 4});
  const Tensor d = run1("aten.diagonal.default", {x}, {{"offset", I(1)}});
  EXPECT_TRUE(d.same_storage(x));
  EXPECT_THAT(values_f32(d), ElementsAre(1, 6, 11));
  EXPECT_EQ(d.strides, Strides({5}));
  EXPECT_FALSE(run1("aten.diagonal_copy.default", {x}).same_storage(x));
  EXPECT_TRUE(run1("aten.broadcast_to.default", {x}, {{"size", ints({2, 3, 4})}}).same_storage(x));
  EXPECT_TRUE(run1("aten.view.dtype", {x}, {{"dtype", S("torch.int16")}}).same_storage(x));
  EXPECT_TRUE(run1("aten.lift_fresh.default", {x}).same_storage(x));
  const OpRun split = run_op("aten.tensor_split.sections", {x}, {{"sections", I(3)}, {"dim", I(1)}}, 3);
  for (const Tensor& t : split.out) EXPECT_TRUE(t.same_storage(x));
  EXPECT_THAT(values_f32(split.out[0]), ElementsAre(0, 1, 4, 5, 8, 9));
  const OpRun grid = run_op("aten.meshgrid.indexing", {iota_f32({2}), iota_f32({3})}, {{"indexing", S("xy")}}, 2);
  EXPECT_EQ(grid.out[0].shape, Shape({3, 2}));
  EXPECT_EQ(grid.out[0].strides, Strides({0, 1}));
  EXPECT_THAT(values_f32(grid.out[1]), ElementsAre(0, 0, 1, 1, 2, 2));
}

TEST(Tier3ShapeOps, ViewDtypeReinterpretsBytes) {
  const Tensor x = tensor_f32({2}, {1.0f, -2.0f});
  EXPECT_THAT(values_i64(run1("aten.view.dtype", {x}, {{"dtype", S("torch.int32")}})),
              ElementsAre(0x3f800000, int32_t(0xc0000000)));
  const Tensor u8 = run1("aten.view.dtype", {x}, {{"dtype", S("torch.uint8")}});
  EXPECT_EQ(u8.shape, Shape({8}));
  EXPECT_THAT(error_of([&] { run1("aten.view.dtype", {x}, {{"dtype", S("torch.float16")}}); }),
              HasSubstr("float16/bfloat16 values as float32"));
  EXPECT_THAT(error_of([&] { run1("aten.view.dtype", {transposed(iota_f32({2, 3}))}, {{"dtype", S("torch.uint8")}}); }),
              HasSubstr("self.stride(-1) must be 1"));
  EXPECT_THAT(error_of([&] { run1("aten.view.dtype", {iota_f32({3})}, {{"dtype", S("torch.float64")}}); }),
              HasSubstr("self.size(-1) must be divisible by 2"));
}

TEST(Tier3ShapeOps, EmptyOpsAreZeroFilledWithTheirShape) {
  const Tensor s = run1("aten.empty_strided.default", {}, {{"size", ints({2, 3})}, {"stride", ints({1, 2})}});
  EXPECT_EQ(s.shape, Shape({2, 3}));
  EXPECT_THAT(values_f32(s), Each(0.0f));
  const Tensor p = run1("aten.empty_permuted.default", {},
                        {{"size", ints({2, 3, 4})}, {"physical_layout", ints({2, 0, 1})}, {"dtype", S("torch.int64")}});
  EXPECT_EQ(p.dtype, DType::I64);
  EXPECT_THAT(values_i64(p), Each(0));
  EXPECT_THAT(error_of([&] {
                run1("aten.empty_permuted.default", {}, {{"size", ints({2, 3})}, {"physical_layout", ints({0, 0})}});
              }),
              HasSubstr("not a permutation"));
  EXPECT_THAT(error_of([&] { run1("aten.eye.m", {}, {{"n", I(2)}, {"m", I(-1)}}); }),
              HasSubstr("m must be greater or equal to 0"));
}

TEST(Tier3ShapeOps, ResizeShrinksInPlaceAndRefusesToGrow) {
  const Tensor x = iota_f32({3, 4});
  const Tensor r = run1("aten.resize_.default", {x}, {{"size", ints({2, 5})}});
  EXPECT_TRUE(r.same_storage(x));
  EXPECT_THAT(values_f32(r), ElementsAre(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  EXPECT_THAT(error_of([&] { run1("aten.resize_.default", {x}, {{"size", ints({4, 4})}}); }),
              HasSubstr("growing a tensor leaves its new elements uninitialized"));
  EXPECT_THAT(error_of([&] {
                run1("aten.resize_.default", {x}, {{"size", ints({12})}, {"memory_format", S("torch.channels_last")}});
              }),
              HasSubstr("only contiguous_format"));
}

TEST(Tier3ShapeOps, EmbeddingRenormInPlace) {
  const Tensor w = tensor_f32({3, 2}, {3, 4, 0.3f, 0.4f, 6, 8});
  const Tensor y = run1("aten.embedding_renorm_.default", {w, tensor_i64({3}, {2, 0, 2})},
                        {{"max_norm", F(1.0)}, {"norm_type", F(2.0)}});
  EXPECT_TRUE(y.same_storage(w));
  const std::vector<float> v = values_f32(w);  // rows 0 and 2 scaled to norm ~1, row 1 untouched
  EXPECT_NEAR(v[0], 0.6f, 1e-6);
  EXPECT_NEAR(v[1], 0.8f, 1e-6);
  EXPECT_FLOAT_EQ(v[2], 0.3f);
  EXPECT_NEAR(v[5], 0.8f, 1e-6);
  EXPECT_THAT(error_of([&] {
                run1("aten.embedding_renorm.default", {w, tensor_i64({1}, {3})},
                     {{"max_norm", F(1.0)}, {"norm_type", F(2.0)}});
              }),
              HasSubstr("out of range"));
}

TEST(Tier3ShapeOps, RefusedArguments) {
  EXPECT_THAT(error_of([&] { run1("aten.take_along_dim.default", {iota_f32({2, 3}), tensor_i64({2, 1}, {0, 3})}, {{"dim", I(1)}}); }),
              HasSubstr("out of bounds"));
  EXPECT_THAT(error_of([&] { run1("aten.take_along_dim.default", {iota_f32({2, 3}), tensor_i64({3}, {0, 1, 2})}, {{"dim", I(1)}}); }),
              HasSubstr("same number of dimensions"));
  EXPECT_THAT(error_of([&] { run1("aten.channel_shuffle.default", {iota_f32({1, 3, 2})}, {{"groups", I(2)}}); }),
              HasSubstr("divisible by groups"));
  EXPECT_THAT(error_of([&] { run_op("aten.meshgrid.indexing", {iota_f32({2}), iota_f32({2})}, {{"indexing", S("yx")}}, 2); }),
              HasSubstr("indexing must be one of"));
  EXPECT_THAT(error_of([&] { run_op("aten.tensor_split.sections", {iota_f32({4})}, {{"sections", I(3)}}, 2); }),
              HasSubstr("the IR lists 2"));
  const Tensor q = iota_f32({1, 1, 2, 4});
  EXPECT_THAT(error_of([&] {
                run_op("aten._scaled_dot_product_efficient_attention.default", {q, q, q},
                       {{"compute_log_sumexp", B(true)}, {"dropout_p", F(0.1)}}, 4);
              }),
              HasSubstr("dropout_p"));
  EXPECT_THAT(error_of([&] {
                run_op("aten._batch_norm_no_update.default", {iota_f32({2, 3})}, {{"momentum", F(0.1)}, {"eps", F(1e-5)}}, 4);
              }),
              HasSubstr("running_mean and running_var must be given"));
}

}  // namespace
}  // namespace tir
