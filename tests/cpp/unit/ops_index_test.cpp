// Unit tests for the gathers and element scatters added in issue 4: index.Tensor
// with boolean masks, scatter/scatter_add, index_fill, one_hot,
// repeat_interleave and embedding_bag. Hand-checked values, in-place writes
// through views, and the errors for data-dependent shapes and bad indices.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "op_test_util.h"
#include "test_util.h"

namespace tir {
namespace {

using namespace test;
using namespace ::testing;

Tensor mask_of(const Shape& s, const std::vector<double>& v) { return tensor_of(DType::Bool, s, v); }

// ========================== index.Tensor with masks ==========================
TEST(IndexMask, ShapeFromIrMetadataAndRunTimeCheck) {
  const Tensor x = tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor m = mask_of({2, 3}, {1, 0, 1, 0, 0, 1});
  auto r = run_op("aten.index.Tensor", {x, m}, {}, 1, {}, {{3}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 3, 6));
  // x[m1] for a row mask keeps the trailing dim
  r = run_op("aten.index.Tensor", {x, mask_of({2}, {0, 1})}, {}, 1, {}, {{1, 3}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(4, 5, 6));
  // a true count that differs from the exported one fails clearly
  EXPECT_THAT(error_of([&] { run_op("aten.index.Tensor", {x, m}, {}, 1, {}, {{2}}); }),
              AllOf(HasSubstr("n1"), HasSubstr("[3]"), HasSubstr("IR output shape is [2]")));
  // without usable metadata the shape cannot be planned
  EXPECT_THAT(error_of([&] { run_op("aten.index.Tensor", {x, m}); }),
              AllOf(HasSubstr("n1"), HasSubstr("data-dependent")));
  EXPECT_THAT(error_of([&] { run_op("aten.index.Tensor", {x, mask_of({3}, {1, 0, 1})}, {}, 1, {}, {{2, 3}}); }),
              AllOf(HasSubstr("mask [3]"), HasSubstr("does not match")));
}

TEST(IndexTensor, SeparatedIndicesGoFirst) {
  // x[i, :, j] on [2, 2, 3] -> [n, 2]
  std::vector<float> v(12);
  for (size_t k = 0; k < v.size(); ++k) v[k] = float(k);
  const Tensor x = tensor_f32({2, 2, 3}, v);
  std::vector<Attr> m = {Attr::of_bool(false), Attr::of_bool(true), Attr::of_bool(false)};
  auto r = run_op("aten.index.Tensor", {x, tensor_i64({2}, {1, 0}), tensor_i64({2}, {-1, 0})},
                  {{"_tensor_list_none_masks", Attr::of_list({Attr::of_list(m)})}});
  EXPECT_EQ(r.out[0].shape, (Shape{2, 2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(8, 11, 0, 3));
}

// ============================== scatter family ==============================
TEST(Scatter, SrcValueAndAdd) {
  const Tensor self = tensor_f32({2, 3}, {0, 0, 0, 0, 0, 0});
  const Tensor idx = tensor_i64({1, 3}, {1, 0, 1});
  auto r = run_op("aten.scatter.src", {self, idx, tensor_f32({1, 3}, {1, 2, 3})}, {{"dim", I(0)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 2, 0, 1, 0, 3));
  r = run_op("aten.scatter.value", {self, idx}, {{"dim", I(0)}, {"value", F(2.5)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 2.5, 0, 2.5, 0, 2.5));
  r = run_op("aten.scatter_add.default", {self, tensor_i64({2, 2}, {2, 2, 0, 0}), tensor_f32({2, 2}, {1, 2, 3, 4})},
             {{"dim", I(-1)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 0, 3, 7, 0, 0));
  const Tensor iself = tensor_i64({3}, {1, 1, 1});
  r = run_op("aten.scatter_add.default", {iself, tensor_i64({3}, {2, 2, 2}), tensor_i64({3}, {5, 6, 7})},
             {{"dim", I(0)}});
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(1, 1, 19));
  EXPECT_THAT(values_f32(self), ElementsAre(0, 0, 0, 0, 0, 0));  // out of place
}

TEST(Scatter, InPlaceWritesThroughTransposedView) {
  const Tensor base = tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor view = test::transposed(base);  // [3, 2]
  auto r = run_op("aten.scatter_.value", {view, tensor_i64({1, 2}, {2, 0})}, {{"dim", I(0)}, {"value", F(9)}});
  EXPECT_TRUE(r.out[0].same_storage(base));
  EXPECT_THAT(values_f32(base), ElementsAre(1, 2, 9, 9, 5, 6));
  run_op("aten.scatter_add_.default", {view, tensor_i64({1, 1}, {1}), tensor_f32({1, 1}, {10})}, {{"dim", I(0)}});
  EXPECT_THAT(values_f32(base), ElementsAre(1, 12, 9, 9, 5, 6));
}

TEST(Scatter, Errors) {
  const Tensor self = tensor_f32({2, 3}, {0, 0, 0, 0, 0, 0});
  EXPECT_THAT(error_of([&] {
                run_op("aten.scatter.src", {self, tensor_i64({1, 1}, {2}), tensor_f32({1, 1}, {1})}, {{"dim", I(0)}});
              }),
              AllOf(HasSubstr("n1"), HasSubstr("index 2 is out of bounds for dimension 0 with size 2")));
  EXPECT_THAT(error_of([&] {
                run_op("aten.scatter.value", {self, tensor_i64({1, 1}, {-1})}, {{"dim", I(1)}, {"value", F(1)}});
              }),
              HasSubstr("index -1 is out of bounds"));  // scatter does not wrap (as torch)
  EXPECT_THAT(error_of([&] {
                run_op("aten.scatter.src", {self, tensor_i64({1, 4}, {0, 0, 0, 0}), tensor_f32({1, 4}, {1, 1, 1, 1})},
                       {{"dim", I(0)}});
              }),
              HasSubstr("larger than self"));
  EXPECT_THAT(error_of([&] {
                run_op("aten.scatter.src", {self, tensor_i64({2}, {0, 0}), tensor_f32({2}, {1, 1})}, {{"dim", I(0)}});
              }),
              HasSubstr("same rank"));
  EXPECT_THAT(error_of([&] {
                run_op("aten.scatter.src", {self, tensor_i64({1, 1}, {0}), tensor_i64({1, 1}, {1})}, {{"dim", I(0)}});
              }),
              HasSubstr("src.dtype"));
  EXPECT_THAT(error_of([&] {
                run_op("aten.scatter.value", {self, tensor_of(DType::I32, {1, 1}, {0})}, {{"dim", I(0)}, {"value", F(1)}});
              }),
              HasSubstr("int64 for index"));
}

// ================================ index_fill ================================
TEST(IndexFill, ScalarTensorAndErrors) {
  const Tensor self = tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  auto r = run_op("aten.index_fill.int_Scalar", {self, tensor_i64({2}, {-1, 0})}, {{"dim", I(1)}, {"value", F(0)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 2, 0, 0, 5, 0));
  r = run_op("aten.index_fill.int_Tensor", {self, tensor_i64({}, {1}), tensor_f32({}, {7})}, {{"dim", I(0)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 2, 3, 7, 7, 7));
  const Tensor iself = tensor_i64({3}, {1, 2, 3});
  run_op("aten.index_fill_.int_Scalar", {iself, tensor_i64({1}, {1})}, {{"dim", I(0)}, {"value", F(7.9)}});
  EXPECT_THAT(values_i64(iself), ElementsAre(1, 7, 3));  // 7.9 truncates to 7
  EXPECT_THAT(error_of([&] {
                run_op("aten.index_fill.int_Scalar", {self, tensor_i64({1}, {3})}, {{"dim", I(1)}, {"value", F(0)}});
              }),
              AllOf(HasSubstr("n1"), HasSubstr("index 3 is out of bounds for dimension 1 with size 3")));
  EXPECT_THAT(error_of([&] {
                run_op("aten.index_fill.int_Tensor", {self, tensor_i64({1}, {0}), tensor_f32({1}, {7})},
                       {{"dim", I(0)}});
              }),
              HasSubstr("0-dimensional value tensor"));
}

// ================================= one_hot ==================================
TEST(OneHot, ValuesInferredClassesAndErrors) {
  auto r = run_op("aten.one_hot.default", {tensor_i64({3}, {2, 0, 1})}, {{"num_classes", I(4)}});
  EXPECT_EQ(r.out[0].dtype, DType::I64);
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0));
  r = run_op("aten.one_hot.default", {tensor_i64({2}, {1, 0})}, {}, 1, {}, {{2, 2}});  // -1 from the IR shape
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(0, 1, 1, 0));
  EXPECT_THAT(error_of([&] { run_op("aten.one_hot.default", {tensor_i64({2}, {1, 0})}); }),
              AllOf(HasSubstr("n1"), HasSubstr("num_classes=-1")));
  EXPECT_THAT(error_of([&] { run_op("aten.one_hot.default", {tensor_i64({2}, {1, 3})}, {{"num_classes", I(3)}}); }),
              HasSubstr("smaller than num_classes"));
  EXPECT_THAT(error_of([&] { run_op("aten.one_hot.default", {tensor_i64({1}, {-1})}, {{"num_classes", I(3)}}); }),
              HasSubstr("non-negative"));
  EXPECT_THAT(error_of([&] { run_op("aten.one_hot.default", {tensor_f32({1}, {1})}, {{"num_classes", I(3)}}); }),
              HasSubstr("int64"));
}

// ============================ repeat_interleave =============================
TEST(RepeatInterleave, SelfIntAndTensor) {
  const Tensor x = tensor_f32({2, 2}, {1, 2, 3, 4});
  auto r = run_op("aten.repeat_interleave.self_int", {x}, {{"repeats", I(2)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 1, 2, 2, 3, 3, 4, 4));
  r = run_op("aten.repeat_interleave.self_int", {test::transposed(x)}, {{"repeats", I(2)}, {"dim", I(0)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 3, 1, 3, 2, 4, 2, 4));
  r = run_op("aten.repeat_interleave.Tensor", {tensor_i64({3}, {2, 0, 1})}, {{"output_size", I(3)}});
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(0, 0, 2));
  r = run_op("aten.repeat_interleave.Tensor", {tensor_i64({2}, {1, 2})}, {}, 1, {}, {{3}});
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(0, 1, 1));
  EXPECT_THAT(error_of([&] { run_op("aten.repeat_interleave.Tensor", {tensor_i64({2}, {1, 2})}); }),
              AllOf(HasSubstr("n1"), HasSubstr("output_size")));
  EXPECT_THAT(error_of([&] {
                run_op("aten.repeat_interleave.Tensor", {tensor_i64({2}, {1, 2})}, {{"output_size", I(4)}});
              }),
              HasSubstr("sum to 3"));
  EXPECT_THAT(error_of([&] { run_op("aten.repeat_interleave.self_int", {x}, {{"repeats", I(-1)}}); }),
              HasSubstr("negative"));
}

// ============================== embedding_bag ===============================
TEST(EmbeddingBag, ModesPaddingAndErrors) {
  const Tensor w = tensor_f32({4, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  const Tensor idx = tensor_i64({5}, {1, 3, 2, 0, 3});
  const Tensor off = tensor_i64({3}, {0, 2, 2});  // bags [1,3], [], [2,0,3]
  auto r = run_op("aten._embedding_bag.default", {w, idx, off}, {{"mode", I(0)}}, 4);
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(8, 10, 0, 0, 10, 13));
  r = run_op("aten._embedding_bag.default", {w, idx, off}, {{"mode", I(1)}, {"padding_idx", I(3)}}, 4);
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(2, 3, 0, 0, 2, 3));  // row 3 skipped
  EXPECT_THAT(values_i64(r.out[1]), ElementsAre(0, 0, 2, 2, 2));
  EXPECT_THAT(values_i64(r.out[2]), ElementsAre(1, 0, 2));
  r = run_op("aten._embedding_bag.default", {w, idx, off}, {{"mode", I(2)}}, 4);
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(6, 7, 0, 0, 6, 7));
  EXPECT_THAT(values_i64(r.out[3]), ElementsAre(3, 3, 0, 0, 3, 3));
  r = run_op("aten.embedding_bag.padding_idx", {w, idx, off, tensor_f32({5}, {1, 2, 1, 1, 0})},
             {{"mode", I(0)}, {"padding_idx", I(-4)}}, 4);  // -4 wraps to row 0
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(14, 17, 0, 0, 4, 5));
  EXPECT_THAT(error_of([&] {
                run_op("aten._embedding_bag.default", {w, tensor_i64({1}, {4}), tensor_i64({1}, {0})}, {}, 4);
              }),
              AllOf(HasSubstr("n1"), HasSubstr("index 4 is out of bounds for dimension 0 with size 4")));
  EXPECT_THAT(error_of([&] {
                run_op("aten._embedding_bag.default", {w, idx, off, tensor_f32({5}, {1, 1, 1, 1, 1})},
                       {{"mode", I(1)}}, 4);
              }),
              HasSubstr("only supported for mode='sum'"));
  EXPECT_THAT(error_of([&] { run_op("aten._embedding_bag.default", {w, idx, tensor_i64({2}, {1, 2})}, {}, 4); }),
              HasSubstr("offsets[0] has to be 0"));
  EXPECT_THAT(error_of([&] { run_op("aten._embedding_bag.default", {w, idx, tensor_i64({2}, {0, 6})}, {}, 4); }),
              HasSubstr("non-decreasing"));
}

}  // namespace
}  // namespace tir
