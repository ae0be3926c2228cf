// Unit tests for var/std, norms, cumsum/cumprod, sort/topk (incl. our tie
// order), logsumexp, dot/mv/outer, in-place addmm_/baddbmm_ and einsum:
// hand-checked values, int64 exactness and error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/op.h"
#include "op_test_util.h"
#include "test_util.h"

namespace tir {
namespace {

using namespace test;
using namespace ::testing;

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();
constexpr int64_t k2p53 = int64_t(1) << 53;

Attr null_attr() { return Attr{}; }

TEST(ReduceOps, VarStdCorrectionAndMean) {
  const Tensor x = tensor_f32({2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
  auto r = run_op("aten.var.correction", {x}, {{"dim", ints({1})}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(5.0f / 3, 0));
  r = run_op("aten.var.correction", {x}, {{"dim", ints({1})}, {"correction", F(0.5)}});  // fractional
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(5.0f / 3.5f, 0));
  r = run_op("aten.std_mean.dim", {x}, {{"dim", ints({-1})}, {"unbiased", B(false)}, {"keepdim", B(true)}}, 2);
  EXPECT_EQ(r.out[0].shape, (Shape{2, 1}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(std::sqrt(1.25f), 0));
  EXPECT_THAT(values_f32(r.out[1]), ElementsAre(2.5f, 2));
  r = run_op("aten.var_mean.correction", {x}, {}, 2);  // all dims
  EXPECT_EQ(r.out[0].dim(), 0);
  EXPECT_FLOAT_EQ(values_f32(r.out[1])[0], 2.25f);
  // n - correction <= 0: 0/0 = NaN, x/0 = inf
  r = run_op("aten.var.correction", {x}, {{"dim", ints({1})}, {"correction", I(4)}});
  EXPECT_TRUE(std::isinf(values_f32(r.out[0])[0]));
  EXPECT_TRUE(std::isnan(values_f32(r.out[0])[1]));
  EXPECT_THAT(error_of([&] { run_op("aten.std.correction", {tensor_i64({2}, {1, 2})}); }),
              HasSubstr("only support floating point"));
}

TEST(ReduceOps, VectorNormOrders) {
  const Tensor x = tensor_f32({2, 2}, {3, -4, 0, 1});
  auto norm = [&](Attr ord) {
    return values_f32(run_op("aten.linalg_vector_norm.default", {x}, {{"ord", ord}, {"dim", ints({1})}}).out[0]);
  };
  EXPECT_THAT(norm(I(2)), ElementsAre(5, 1));
  EXPECT_THAT(norm(I(1)), ElementsAre(7, 1));
  EXPECT_THAT(norm(I(0)), ElementsAre(2, 1));
  EXPECT_THAT(norm(F(kInf)), ElementsAre(4, 1));
  EXPECT_THAT(norm(F(-kInf)), ElementsAre(3, 0));
  EXPECT_NEAR(norm(I(3))[0], std::cbrt(91.0f), 1e-5);
  EXPECT_THAT(values_f32(run_op("aten.norm.ScalarOpt_dim", {x}, {{"p", null_attr()}, {"dim", ints({0, 1})}}).out[0]),
              ElementsAre(std::sqrt(26.0f)));
  EXPECT_THAT(error_of([&] {
                run_op("aten.linalg_vector_norm.default", {tensor_f32({0, 2}, {})}, {{"ord", F(kInf)}, {"dim", ints({0})}});
              }),
              HasSubstr("does not have an identity"));
  EXPECT_THAT(error_of([&] { run_op("aten.linalg_vector_norm.default", {tensor_i64({2}, {1, 2})}); }),
              HasSubstr("Expected a floating point"));
}

TEST(ReduceOps, CumsumCumprodInt64Exact) {
  const Tensor big = tensor_i64({3}, {k2p53 + 1, 1, 1});
  auto r = run_op("aten.cumsum.default", {big}, {{"dim", I(0)}});
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(k2p53 + 1, k2p53 + 2, k2p53 + 3));
  r = run_op("aten.cumprod.default", {tensor_i64({3}, {k2p53 + 1, 3, -1})}, {{"dim", I(-1)}});
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(k2p53 + 1, 3 * (k2p53 + 1), -3 * (k2p53 + 1)));
  r = run_op("aten.sum.default", {tensor_i64({3}, {k2p53 + 1, 2, 1})});
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(k2p53 + 4));
  r = run_op("aten.prod.default", {tensor_i64({2}, {k2p53 + 1, 3})});
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(3 * (k2p53 + 1)));
  // bool -> int64; transposed input along dim 0
  r = run_op("aten.cumsum.default", {tensor_of(DType::Bool, {3}, {1, 0, 1})}, {{"dim", I(0)}});
  EXPECT_EQ(r.out[0].dtype, DType::I64);
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(1, 1, 2));
  r = run_op("aten.cumsum.default", {transposed(tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6}))}, {{"dim", I(0)}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 4, 3, 9, 6, 15));  // x^T = [[1,4],[2,5],[3,6]]
  EXPECT_THAT(error_of([&] { run_op("aten.cumsum.default", {big}, {{"dim", I(1)}}); }), HasSubstr("out of range"));
}

TEST(SortOps, TiesKeepInputOrderAndNaNIsLargest) {
  // torch's CPU sort/topk leave tie order unspecified; ours is stable (lower index first)
  const Tensor x = tensor_f32({6}, {1, 3, 3, 2, 3, 1});
  auto r = run_op("aten.sort.default", {x}, {}, 2);
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 1, 2, 3, 3, 3));
  EXPECT_THAT(values_i64(r.out[1]), ElementsAre(0, 5, 3, 1, 2, 4));
  r = run_op("aten.sort.default", {x}, {{"descending", B(true)}}, 2);
  EXPECT_THAT(values_i64(r.out[1]), ElementsAre(1, 2, 4, 3, 0, 5));
  r = run_op("aten.topk.default", {x}, {{"k", I(2)}}, 2);
  EXPECT_THAT(values_i64(r.out[1]), ElementsAre(1, 2));
  r = run_op("aten.topk.default", {x}, {{"k", I(3)}, {"largest", B(false)}}, 2);
  EXPECT_THAT(values_i64(r.out[1]), ElementsAre(0, 5, 3));
  const Tensor n = tensor_f32({4}, {2, kNaN, -kInf, 1});
  r = run_op("aten.sort.default", {n}, {}, 2);
  EXPECT_THAT(values_i64(r.out[1]), ElementsAre(2, 3, 0, 1));
  EXPECT_THAT(values_i64(run_op("aten.argsort.default", {n}, {{"descending", B(true)}}).out[0]),
              ElementsAre(1, 0, 3, 2));
  r = run_op("aten.sort.default", {tensor_of(DType::Bool, {4}, {1, 0, 1, 0})}, {}, 2);
  EXPECT_EQ(r.out[0].dtype, DType::Bool);
  EXPECT_THAT(values_i64(r.out[1]), ElementsAre(1, 3, 0, 2));
}

TEST(SortOps, TopkShapesAndErrors) {
  const Tensor x = tensor_f32({2, 3}, {1, 5, 3, 6, 4, 2});
  auto r = run_op("aten.topk.default", {x}, {{"k", I(1)}, {"dim", I(0)}}, 2);
  EXPECT_EQ(r.out[0].shape, (Shape{1, 3}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(6, 5, 3));
  EXPECT_THAT(values_i64(r.out[1]), ElementsAre(1, 0, 0));
  r = run_op("aten.topk.default", {transposed(x)}, {{"k", I(2)}}, 2);  // rows of x^T: [1,6],[5,4],[3,2]
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(6, 1, 5, 4, 3, 2));
  r = run_op("aten.topk.default", {x}, {{"k", I(0)}}, 2);
  EXPECT_EQ(r.out[0].shape, (Shape{2, 0}));
  EXPECT_THAT(error_of([&] { run_op("aten.topk.default", {x}, {{"k", I(4)}}, 2); }),
              HasSubstr("k out of range"));
}

TEST(ReduceOps, LogSumExp) {
  auto r = run_op("aten.logsumexp.default", {tensor_f32({3, 2}, {-kInf, -kInf, kInf, 1, 0, std::log(3.0f)})},
                  {{"dim", ints({1})}});
  auto v = values_f32(r.out[0]);
  EXPECT_EQ(v[0], -kInf);
  EXPECT_EQ(v[1], kInf);
  EXPECT_NEAR(v[2], std::log(4.0f), 1e-6);
  r = run_op("aten.logsumexp.default", {tensor_i64({2}, {0, 0})}, {{"dim", ints({0})}});
  EXPECT_EQ(r.out[0].dtype, DType::F32);
  EXPECT_NEAR(values_f32(r.out[0])[0], std::log(2.0f), 1e-6);
}

TEST(MatmulOps, DotMvOuter) {
  const Tensor a = tensor_f32({3}, {1, 2, 3}), b = tensor_f32({3}, {4, 5, 6});
  auto r = run_op("aten.dot.default", {a, b});
  EXPECT_EQ(r.out[0].dim(), 0);
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(32));
  const Tensor m = tensor_f32({2, 3}, {1, 0, 1, 0, 2, 0});
  EXPECT_THAT(values_f32(run_op("aten.mv.default", {m, b}).out[0]), ElementsAre(10, 10));
  EXPECT_THAT(values_f32(run_op("aten.mv.default", {transposed(tensor_f32({3, 2}, {1, 0, 0, 2, 1, 0})), b}).out[0]),
              ElementsAre(10, 10));
  r = run_op("aten.outer.default", {tensor_i64({2}, {k2p53, 2}), tensor_i64({2}, {1, 3})});
  EXPECT_EQ(r.out[0].dtype, DType::I64);
  EXPECT_THAT(values_i64(r.out[0]), ElementsAre(k2p53, 3 * k2p53, 2, 6));
  EXPECT_THAT(error_of([&] { run_op("aten.dot.default", {a, tensor_f32({2}, {1, 2})}); }),
              HasSubstr("inconsistent tensor size"));
  EXPECT_THAT(error_of([&] { run_op("aten.mv.default", {m, tensor_f32({2}, {1, 2})}); }),
              HasSubstr("cannot be multiplied"));
}

TEST(MatmulOps, AddmmInPlaceWritesThroughView) {
  // self is a transposed view of `base`; addmm_ must update base's memory
  Tensor base = tensor_f32({2, 2}, {1, 2, 3, 4});
  Tensor self = transposed(base);  // [[1,3],[2,4]]
  const Tensor a = tensor_f32({2, 2}, {1, 0, 0, 1}), b = tensor_f32({2, 2}, {1, 1, 1, 1});
  auto r = run_op("aten.addmm_.default", {self, a, b}, {{"beta", I(2)}});
  EXPECT_TRUE(r.out[0].same_storage(base));
  EXPECT_THAT(values_f32(base), ElementsAre(3, 5, 7, 9));  // base^T = 2*self + 1
  Tensor s3 = tensor_f32({1, 2, 2}, {kNaN, kNaN, kNaN, kNaN});  // beta=0 never reads self
  run_op("aten.baddbmm_.default", {s3, tensor_f32({1, 2, 1}, {1, 2}), tensor_f32({1, 1, 2}, {3, 4})},
         {{"beta", I(0)}, {"alpha", F(0.5)}});
  EXPECT_THAT(values_f32(s3), ElementsAre(1.5, 2, 3, 4));
  auto nb = run_op("aten.baddbmm.default", {tensor_f32({2}, {kNaN, kNaN}), tensor_f32({1, 2, 1}, {1, 2}),
                                            tensor_f32({1, 1, 2}, {3, 4})},
                   {{"beta", F(0.0)}});
  EXPECT_THAT(values_f32(nb.out[0]), ElementsAre(3, 4, 6, 8));
  EXPECT_THAT(error_of([&] { run_op("aten.addmm_.default", {tensor_f32({2}, {1, 2}), a, b}); }),
              HasSubstr("must have the product's shape"));
}

TEST(EinsumOps, ValuesAndErrors) {
  const Tensor m = tensor_f32({2, 2}, {1, 2, 3, 4});
  auto es = [&](const std::string& eq, std::vector<Tensor> in) {
    const int64_t n = int64_t(in.size());
    return values_f32(
        run_op("aten.einsum.default", in, {{"equation", S(eq)}, {"_tensor_list_sizes", ints({n})}}).out[0]);
  };
  EXPECT_THAT(es("ii", {m}), ElementsAre(5));
  EXPECT_THAT(es("ii->i", {m}), ElementsAre(1, 4));
  EXPECT_THAT(es("ij->ji", {m}), ElementsAre(1, 3, 2, 4));
  EXPECT_THAT(es("ij,jk->ik", {m, m}), ElementsAre(7, 10, 15, 22));
  EXPECT_THAT(es("ij , jk", {m, m}), ElementsAre(7, 10, 15, 22));
  EXPECT_THAT(es("ba,ca->bc", {m, m}), ElementsAre(5, 11, 11, 25));
  EXPECT_THAT(es("...j,j->...", {m, tensor_f32({2}, {1, -1})}), ElementsAre(-1, -1));
  EXPECT_THAT(es("i,i", {tensor_f32({1}, {2}), tensor_f32({3}, {1, 2, 3})}), ElementsAre(12));  // broadcast
  EXPECT_THAT(error_of([&] { es("ijk->i", {m}); }), HasSubstr("number of subscripts"));
  EXPECT_THAT(error_of([&] { es("ij,jk->ik", {m}); }), HasSubstr("operands were given"));
  EXPECT_THAT(error_of([&] { es("ij->iz", {m}); }), HasSubstr("does not appear"));
  EXPECT_THAT(error_of([&] { es("ii", {tensor_f32({2, 3}, {1, 2, 3, 4, 5, 6})}); }),
              HasSubstr("sizes don't match"));
}

}  // namespace
}  // namespace tir
