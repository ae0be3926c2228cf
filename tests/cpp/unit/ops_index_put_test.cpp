// Unit tests for the scatter ops (index_put, index_copy, index_add,
// select_scatter, slice_scatter): hand-checked values, writes through views,
// boolean masks, duplicates, and the error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kernels/gather.h"
#include "op_test_util.h"
#include "test_util.h"

namespace tir {
namespace {

using namespace test;
using namespace ::testing;

Attr masks(const std::vector<bool>& m) {
  std::vector<Attr> l;
  for (bool b : m) l.push_back(Attr::of_bool(b));
  return Attr::of_list({Attr::of_list(l)});
}

Tensor zeros(const Shape& s) { return make_owned(DType::F32, s); }

// ============================== add_blocks kernel ==========================
TEST(AddBlocksKernel, DuplicatesAccumulateInOrderWithAlpha) {
  float dst[4] = {1, 1, 1, 1};
  const float src[4] = {1, 2, 3, 4};
  const int64_t src_off[] = {0, 2, 1}, dst_off[] = {3, 3, 0};
  add_blocks(DType::F32, 0.5, {1}, reinterpret_cast<const uint8_t*>(src), {1}, src_off,
             reinterpret_cast<uint8_t*>(dst), {1}, dst_off, 3);
  EXPECT_THAT(dst, ElementsAre(2, 1, 1, 3));  // dst[3] = 1 + .5*1 + .5*3
  int64_t idst[3] = {0, 0, 0};
  const int64_t isrc[4] = {5, 6, 7, 8}, ioff[] = {0, 2};  // 2-element blocks, strided source
  const int64_t doff[] = {0, 1};
  add_blocks(DType::I64, 2, {2}, reinterpret_cast<const uint8_t*>(isrc), {1}, ioff,
             reinterpret_cast<uint8_t*>(idst), {1}, doff, 2);
  EXPECT_THAT(idst, ElementsAre(10, 26, 16));
}

// ================================ index_put ================================
TEST(IndexPut, RowsWithBroadcastValues) {
  const Tensor self = tensor_f32({3, 2}, {1, 2, 3, 4, 5, 6});
  auto r = run_op("aten.index_put.default", {self, tensor_i64({2}, {2, 0}), tensor_f32({2}, {7, 8})});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(7, 8, 3, 4, 7, 8));
  EXPECT_THAT(values_f32(self), ElementsAre(1, 2, 3, 4, 5, 6));  // out of place: self untouched
  // 0-d values, negative index
  r = run_op("aten.index_put.default", {self, tensor_i64({1}, {-2}), tensor_f32({}, {9})});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 2, 9, 9, 5, 6));
}

TEST(IndexPut, NoneMaskAndSeparatedIndices) {
  // x[:, idx] = v on [2, 3]
  const Tensor self = zeros({2, 3});
  auto r = run_op("aten.index_put.default", {self, tensor_i64({2}, {2, 0}), tensor_f32({2, 2}, {1, 2, 3, 4})},
                  {{"_tensor_list_none_masks", masks({true, false})}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(2, 0, 1, 4, 0, 3));
  // x[i, :, j] = v on [2, 2, 3]: the broadcast dim [2] comes first, then the sliced dim.
  const Tensor s3 = zeros({2, 2, 3});
  r = run_op("aten.index_put.default",
             {s3, tensor_i64({2}, {1, 0}), tensor_i64({2}, {2, -1}), tensor_f32({2, 2}, {1, 2, 3, 4})},
             {{"_tensor_list_none_masks", masks({false, true, false})}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 0, 3, 0, 0, 4, 0, 0, 1, 0, 0, 2));
}

TEST(IndexPut, AccumulateSumsDuplicates) {
  const Tensor self = tensor_f32({3}, {10, 20, 30});
  auto r = run_op("aten.index_put.default", {self, tensor_i64({4}, {1, 1, -1, 1}), tensor_f32({4}, {1, 2, 3, 4})},
                  {{"accumulate", B(true)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(10, 27, 33));
  // int64 self, int32 indices, broadcast value
  const Tensor iself = tensor_i64({2, 2}, {1, 1, 1, 1});
  r = run_op("aten.index_put.default", {iself, tensor_of(DType::I32, {3}, {0, 0, 1}), tensor_i64({1}, {5})},
             {{"accumulate", B(true)}});
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(11, 11, 6, 6));
}

TEST(IndexPut, InPlaceWritesThroughTransposedView) {
  const Tensor base = tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor view = test::transposed(base);  // [3, 2]: view[j][i] = base[i][j]
  auto r = run_op("aten.index_put_.default", {view, tensor_i64({1}, {1}), tensor_f32({2}, {10, 20})});
  EXPECT_TRUE(r.out[0].same_storage(base));
  EXPECT_EQ(r.out[0].strides, view.strides);
  EXPECT_THAT(values_f32(base), ElementsAre(1, 10, 3, 4, 20, 6));
  // accumulate in place
  run_op("aten.index_put_.default", {view, tensor_i64({2}, {0, 0}), tensor_f32({2}, {1, 1})},
         {{"accumulate", B(true)}});
  EXPECT_THAT(values_f32(base), ElementsAre(3, 10, 3, 6, 20, 6));
}

TEST(IndexPut, ValuesAliasingSelfAreReadBeforeWriting) {
  // x[[1, 2]] = x[0:2] (values a view of the same buffer)
  const Tensor x = tensor_f32({3}, {1, 2, 3});
  const Tensor head = x.view_as({2}, {1}, 0);
  run_op("aten.index_put_.default", {x, tensor_i64({2}, {1, 2}), head});
  EXPECT_THAT(values_f32(x), ElementsAre(1, 1, 2));
}

TEST(IndexPut, BooleanMask) {
  const Tensor self = tensor_f32({2, 3}, {1, -2, 3, -4, 5, -6});
  const Tensor mask = tensor_of(DType::Bool, {2, 3}, {0, 1, 0, 1, 0, 1});
  auto r = run_op("aten.index_put.default", {self, mask, tensor_f32({}, {0})});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 0, 3, 0, 5, 0));
  // 1-d mask over dim 0 with values per selected row; then a mask after a None
  r = run_op("aten.index_put.default",
             {self, tensor_of(DType::Bool, {2}, {0, 1}), tensor_f32({1, 3}, {7, 8, 9})});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, -2, 3, 7, 8, 9));
  r = run_op("aten.index_put.default", {self, tensor_of(DType::Bool, {3}, {1, 0, 1}), tensor_f32({2}, {7, 8})},
             {{"_tensor_list_none_masks", masks({true, false})}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(7, -2, 8, 7, 5, 8));
  // wrong number of values for the true elements: checked at run time
  EXPECT_THAT(error_of([&] { run_op("aten.index_put.default", {self, mask, tensor_f32({2}, {1, 2})}); }),
              AllOf(HasSubstr("n1"), HasSubstr("shape mismatch"), HasSubstr("[3]")));
  EXPECT_THAT(error_of([&] {
                run_op("aten.index_put.default", {self, tensor_of(DType::Bool, {3}, {1, 0, 1}), tensor_f32({}, {0})});
              }),
              AllOf(HasSubstr("n1"), HasSubstr("mask [3]"), HasSubstr("does not match")));
}

TEST(IndexPut, Errors) {
  const Tensor self = zeros({2, 3});
  EXPECT_THAT(error_of([&] { run_op("aten.index_put.default", {self, tensor_i64({1}, {2}), tensor_f32({}, {1})}); }),
              AllOf(HasSubstr("n1"), HasSubstr("index 2 is out of bounds for dimension 0 with size 2")));
  EXPECT_THAT(error_of([&] { run_op("aten.index_put_.default", {self, tensor_i64({1}, {-3}), tensor_f32({}, {1})}); }),
              AllOf(HasSubstr("n1"), HasSubstr("index -3 is out of bounds")));
  EXPECT_THAT(
      error_of([&] { run_op("aten.index_put.default", {self, tensor_i64({2}, {0, 1}), tensor_f32({2, 2}, {1, 2, 3, 4})}); }),
      AllOf(HasSubstr("shape mismatch"), HasSubstr("[2, 2]"), HasSubstr("[2, 3]")));
  EXPECT_THAT(error_of([&] {
                run_op("aten.index_put.default", {self, tensor_of(DType::F32, {1}, {0}), tensor_f32({}, {1})});
              }),
              HasSubstr("indices must be int64 or int32"));
  EXPECT_THAT(error_of([&] { run_op("aten.index_put.default", {self, tensor_f32({}, {1})}); }),
              HasSubstr("at least one index tensor"));
}

// ========================= index_copy / index_add ==========================
TEST(IndexCopy, PlacesSlicesAlongDim) {
  const Tensor self = zeros({3, 2});
  auto r = run_op("aten.index_copy.default", {self, tensor_i64({2}, {2, 0}), tensor_f32({2, 2}, {1, 2, 3, 4})},
                  {{"dim", I(0)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(3, 4, 0, 0, 1, 2));
  r = run_op("aten.index_copy.default", {self, tensor_i64({1}, {1}), tensor_f32({3, 1}, {5, 6, 7})},
             {{"dim", I(-1)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 5, 0, 6, 0, 7));
  EXPECT_THAT(values_f32(self), ElementsAre(0, 0, 0, 0, 0, 0));
}

TEST(IndexCopy, InPlaceKvCacheWriteIntoView) {
  // cache [1, 2, 4, 2] viewed through a transpose of its last two dims: write position 2 of dim -1.
  Tensor cache = zeros({1, 2, 4, 2});
  const Tensor view = cache.view_as({1, 2, 2, 4}, {16, 8, 1, 2}, 0);
  auto r = run_op("aten.index_copy_.default", {view, tensor_i64({1}, {2}), tensor_f32({1, 2, 2, 1}, {1, 2, 3, 4})},
                  {{"dim", I(-1)}});
  EXPECT_TRUE(r.out[0].same_storage(cache));
  EXPECT_THAT(values_f32(cache), ElementsAre(0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 3, 4, 0, 0));
}

TEST(IndexCopy, Errors) {
  const Tensor self = zeros({3, 2});
  EXPECT_THAT(error_of([&] {
                run_op("aten.index_copy.default", {self, tensor_i64({1}, {-1}), tensor_f32({1, 2}, {1, 2})},
                       {{"dim", I(0)}});
              }),
              AllOf(HasSubstr("n1"), HasSubstr("index -1 is out of bounds for dimension 0 with size 3")));
  EXPECT_THAT(error_of([&] {
                run_op("aten.index_copy.default", {self, tensor_i64({2}, {0, 1}), tensor_f32({1, 2}, {1, 2})},
                       {{"dim", I(0)}});
              }),
              HasSubstr("number of indices (2) should be equal to source.size(dim) (1)"));
  EXPECT_THAT(error_of([&] {
                run_op("aten.index_copy.default", {self, tensor_i64({1}, {0}), tensor_f32({1, 3}, {1, 2, 3})},
                       {{"dim", I(0)}});
              }),
              HasSubstr("same slice shapes"));
  EXPECT_THAT(error_of([&] {
                run_op("aten.index_copy.default", {self, tensor_i64({1, 1}, {0}), tensor_f32({1, 2}, {1, 2})},
                       {{"dim", I(0)}});
              }),
              HasSubstr("dimension 1 or 0"));
}

TEST(IndexAdd, DuplicatesAndAlpha) {
  const Tensor self = tensor_f32({2, 3}, {1, 1, 1, 1, 1, 1});
  auto r = run_op("aten.index_add.default", {self, tensor_i64({3}, {2, 0, 2}), tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6})},
                  {{"dim", I(1)}, {"alpha", Attr::of_float(0.5)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(2, 1, 3, 3.5, 1, 6));
  const Tensor iself = tensor_i64({3}, {0, 0, 0});
  run_op("aten.index_add_.default", {iself, tensor_i64({2}, {1, 1}), tensor_i64({2}, {3, 4})}, {{"dim", I(0)}});
  EXPECT_THAT(values_i64(iself), ElementsAre(0, 7, 0));
  EXPECT_THAT(error_of([&] {
                run_op("aten.index_add.default", {iself, tensor_i64({1}, {0}), tensor_i64({1}, {1})},
                       {{"dim", I(0)}, {"alpha", Attr::of_float(0.5)}});
              }),
              HasSubstr("alpha must not be a floating point number"));
}

// ===================== select_scatter / slice_scatter ======================
TEST(ViewScatter, SelectScatter) {
  const Tensor self = zeros({2, 3});
  auto r = run_op("aten.select_scatter.default", {self, tensor_f32({2}, {1, 2})}, {{"dim", I(-1)}, {"index", I(-2)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 1, 0, 0, 2, 0));
  // int src into float self casts
  r = run_op("aten.select_scatter.default", {self, tensor_i64({3}, {4, 5, 6})}, {{"dim", I(0)}, {"index", I(1)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 0, 0, 4, 5, 6));
  EXPECT_THAT(error_of([&] {
                run_op("aten.select_scatter.default", {self, tensor_f32({2}, {1, 2})}, {{"dim", I(0)}, {"index", I(2)}});
              }),
              AllOf(HasSubstr("n1"), HasSubstr("index 2 out of range")));
  EXPECT_THAT(error_of([&] {
                run_op("aten.select_scatter.default", {self, tensor_f32({2}, {1, 2})}, {{"dim", I(0)}, {"index", I(0)}});
              }),
              AllOf(HasSubstr("src [2]"), HasSubstr("region [3]")));
}

TEST(ViewScatter, SliceScatter) {
  const Tensor self = zeros({2, 5});
  auto r = run_op("aten.slice_scatter.default", {self, tensor_f32({2, 2}, {1, 2, 3, 4})},
                  {{"dim", I(1)}, {"start", I(1)}, {"end", I(INT64_MAX)}, {"step", I(2)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 1, 0, 2, 0, 0, 3, 0, 4, 0));
  // defaults: dim 0, whole range; negative start
  r = run_op("aten.slice_scatter.default", {self, tensor_f32({1, 5}, {1, 2, 3, 4, 5})}, {{"start", I(-1)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 0, 0, 0, 0, 1, 2, 3, 4, 5));
  // empty slice (end < start) takes an empty src
  r = run_op("aten.slice_scatter.default", {self, zeros({2, 0})}, {{"dim", I(1)}, {"start", I(3)}, {"end", I(1)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
  EXPECT_THAT(error_of([&] {
                run_op("aten.slice_scatter.default", {self, zeros({2, 2})}, {{"dim", I(1)}, {"start", I(0)}, {"end", I(3)}});
              }),
              AllOf(HasSubstr("n1"), HasSubstr("region [2, 3]")));
}

}  // namespace
}  // namespace tir
