// Unit tests for scaled dot-product attention (src/ops/attention.cpp and
// src/kernels/attention.cpp): hand-computable cases, masks, strided views,
// errors, and torch 2.x expected values from tests/fixtures/attention (the
// LibTorch 1.13 the parity tests link has no SDPA; see
// tools/make_attention_fixtures.py).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/json.h"
#include "kernels/attention.h"
#include "ops/op.h"
#include "op_test_util.h"
#include "test_util.h"

namespace tir {
namespace {

using namespace test;
using namespace ::testing;

const char* kSdpa = "aten.scaled_dot_product_attention.default";
const char* kFlash = "aten._scaled_dot_product_flash_attention_for_cpu.default";
const float kInf = std::numeric_limits<float>::infinity();


Tensor make(DType dtype, const Shape& shape, const std::vector<double>& values) {
  return tensor_of(dtype, shape, values);
}

Tensor bool_mask(const Shape& shape, const std::vector<int>& keep) {
  return make(DType::Bool, shape, std::vector<double>(keep.begin(), keep.end()));
}

// The same values laid out in memory with dims a and b swapped, seen through a
// strided view of the original shape (as q.transpose(1, 2) hands SDPA).
Tensor swapped_layout(const Tensor& t, int64_t a, int64_t b) {
  Shape ps = t.shape;
  std::swap(ps[size_t(a)], ps[size_t(b)]);
  Tensor phys = make_owned(t.dtype, ps);
  Strides vs = phys.strides;
  std::swap(vs[size_t(a)], vs[size_t(b)]);
  Tensor view = phys.view_as(t.shape, vs, 0);
  copy_into(view, t);
  return view;
}


// ============================ hand-computed cases ===========================
TEST(Attention, SingleKeyReturnsValue) {
  // L = S = 1: the one weight is 1 whatever the score.
  auto r = run_op(kSdpa, {tensor_f32({1, 1, 1, 2}, {3, -1}), tensor_f32({1, 1, 1, 2}, {5, 7}),
                          tensor_f32({1, 1, 1, 3}, {1, 2, 3})});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 1, 1, 3}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(1, 2, 3));
}

TEST(Attention, UniformScoresAverageValues) {
  // q = 0 gives equal scores: each output row is the mean of v's rows.
  Tensor q = tensor_f32({2, 2}, {0, 0, 0, 0});
  Tensor k = tensor_f32({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor v = tensor_f32({3, 1}, {3, 6, 12});
  EXPECT_THAT(values_f32(run_op(kSdpa, {q, k, v}).out[0]), ElementsAre(7, 7));
  // is_causal keeps j <= i (top-left): row 0 sees v0, row 1 sees v0, v1.
  EXPECT_THAT(values_f32(run_op(kSdpa, {q, k, v}, {{"is_causal", B(true)}}).out[0]), ElementsAre(3, 4.5));
}

TEST(Attention, ScaleWeightsScores) {
  // scores [0, s]; with scale = ln 3 the weights are [1/4, 3/4].
  Tensor q = tensor_f32({1, 1}, {1});
  Tensor k = tensor_f32({2, 1}, {0, 1});
  Tensor v = tensor_f32({2, 1}, {0, 4});
  auto r = run_op(kSdpa, {q, k, v}, {{"scale", F(std::log(3.0))}});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(FloatNear(3, 1e-6)));
  // Default scale 1/sqrt(E): E = 4, scores [0, 2 * 0.5] = [0, 1].
  Tensor q4 = tensor_f32({1, 4}, {1, 1, 1, 1});
  Tensor k4 = tensor_f32({2, 4}, {0, 0, 0, 0, 0.5, 0.5, 0.5, 0.5});
  const float w1 = float(std::exp(1.0) / (1 + std::exp(1.0)));
  EXPECT_THAT(values_f32(run_op(kSdpa, {q4, k4, v}).out[0]), ElementsAre(FloatNear(4 * w1, 1e-6)));
}

TEST(Attention, BoolMaskEqualsFloatMask) {
  Tensor q = tensor_f32({1, 2, 3, 2}, {0.1f, 0.2f, -0.3f, 0.4f, 0.5f, -0.6f, 0.7f, 0.8f, -0.9f, 1.0f, 0.1f, 0.2f});
  Tensor k = tensor_f32({1, 2, 4, 2}, {1, 0, 0, 1, -1, 0, 0, -1, 1, 1, -1, 1, 1, -1, 0.5f, 0.5f});
  Tensor v = tensor_f32({1, 2, 4, 1}, {1, 2, 3, 4, 5, 6, 7, 8});
  std::vector<int> keep = {1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1};
  std::vector<float> add;
  for (int b : keep) add.push_back(b ? 0.0f : -kInf);
  auto rb = run_op(kSdpa, {q, k, v, bool_mask({3, 4}, keep)});
  auto rf = run_op(kSdpa, {q, k, v, tensor_f32({1, 1, 3, 4}, add)});
  EXPECT_THAT(values_f32(rb.out[0]), Pointwise(FloatNear(1e-6), values_f32(rf.out[0])));
  // Row 1 of head 0 attends to keys 1 only (0 < mask elsewhere): output is v[1] = 2.
  EXPECT_FLOAT_EQ(values_f32(rb.out[0])[1], 2);
  // Float masks add: +ln 3 on key 1 of an all-equal row triples its weight.
  Tensor q0 = tensor_f32({1, 1}, {0});
  Tensor k0 = tensor_f32({2, 1}, {0, 0});
  Tensor v0 = tensor_f32({2, 1}, {0, 4});
  EXPECT_THAT(values_f32(run_op(kSdpa, {q0, k0, v0, tensor_f32({2}, {0, float(std::log(3.0))})}).out[0]),
              ElementsAre(FloatNear(3, 1e-6)));
}

TEST(Attention, FullyMaskedRowGivesZeros) {
  // torch >= 2.5 behavior (1.13 gave NaN): a row with nothing to attend to is 0.
  Tensor q = tensor_f32({2, 1}, {1, 2});
  Tensor k = tensor_f32({2, 1}, {1, 2});
  Tensor v = tensor_f32({2, 1}, {5, 7});
  auto r = run_op(kSdpa, {q, k, v, bool_mask({2, 2}, {0, 0, 1, 0})});
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 5));
  auto f = run_op(kFlash, {tensor_f32({1, 1, 2, 1}, {1, 2}), tensor_f32({1, 1, 2, 1}, {1, 2}),
                           tensor_f32({1, 1, 2, 1}, {5, 7}), tensor_f32({2, 2}, {-kInf, -kInf, 0, -kInf})},
                  {}, 2);
  EXPECT_THAT(values_f32(f.out[0]), ElementsAre(0, 5));
  EXPECT_THAT(values_f32(f.out[1]), ElementsAre(0, FloatNear(2, 1e-6)));  // lse 0 for the masked row
}

TEST(Attention, FlashLogsumexp) {
  // scores = q k / sqrt(1) = [0, 1] + mask [0, ln 2]: lse = log(1 + 2e).
  Tensor q = tensor_f32({1, 1, 1, 1}, {1});
  Tensor k = tensor_f32({1, 1, 2, 1}, {0, 1});
  Tensor v = tensor_f32({1, 1, 2, 1}, {1, 2});
  auto r = run_op(kFlash, {q, k, v, tensor_f32({1, 2}, {0, float(std::log(2.0))})}, {}, 2);
  ASSERT_EQ(r.out.size(), 2u);
  EXPECT_EQ(r.out[1].shape, (Shape{1, 1, 1}));
  EXPECT_EQ(r.out[1].dtype, DType::F32);
  const double e2 = 2 * std::exp(1.0);
  EXPECT_THAT(values_f32(r.out[1]), ElementsAre(FloatNear(float(std::log(1 + e2)), 1e-6)));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(FloatNear(float((1 + 2 * e2) / (1 + e2)), 1e-6)));
  // An IR that lists only the output gets no logsumexp.
  EXPECT_EQ(run_op(kFlash, {q, k, v}, {}, 1).out.size(), 1u);
}

TEST(Attention, GqaRepeatsKvHeads) {
  // 4 query heads, 2 kv heads: heads 0,1 use kv 0 and heads 2,3 use kv 1 (S = 1: out = v).
  Tensor q = tensor_f32({1, 4, 1, 1}, {1, 2, 3, 4});
  Tensor k = tensor_f32({1, 2, 1, 1}, {1, 1});
  Tensor v = tensor_f32({1, 2, 1, 2}, {10, 11, 20, 21});
  auto r = run_op(kSdpa, {q, k, v}, {{"enable_gqa", B(true)}});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 4, 1, 2}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(10, 11, 10, 11, 20, 21, 20, 21));
  // Without enable_gqa the head counts must broadcast.
  EXPECT_THAT(error_of([&] { run_op(kSdpa, {q, k, v}); }), AllOf(HasSubstr("n1"), HasSubstr("enable_gqa")));
  EXPECT_THAT(error_of([&] { run_op(kSdpa, {tensor_f32({1, 3, 1, 1}, {1, 2, 3}), k, v}, {{"enable_gqa", B(true)}}); }),
              HasSubstr("multiple of the key heads (2)"));
}

TEST(Attention, BatchDimsBroadcast) {
  // q [2, 1, 1, 1], kv [3, 1, 1]: output [2, 3, 1, 1]; S = 1 so out = v per head.
  Tensor q = tensor_f32({2, 1, 1, 1}, {1, 2});
  Tensor k = tensor_f32({3, 1, 1}, {1, 1, 1});
  Tensor v = tensor_f32({3, 1, 1}, {4, 5, 6});
  auto r = run_op(kSdpa, {q, k, v});
  EXPECT_EQ(r.out[0].shape, (Shape{2, 3, 1, 1}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(4, 5, 6, 4, 5, 6));
}

TEST(Attention, EmptyKeysGiveZeros) {
  auto r = run_op(kSdpa, {tensor_f32({1, 2, 2}, {1, 2, 3, 4}), make_owned(DType::F32, {1, 0, 2}),
                          make_owned(DType::F32, {1, 0, 3})});
  EXPECT_EQ(r.out[0].shape, (Shape{1, 2, 3}));
  EXPECT_THAT(values_f32(r.out[0]), ElementsAre(0, 0, 0, 0, 0, 0));
}

TEST(Attention, Float64) {
  Tensor q = make(DType::F64, {1, 1}, {1});
  Tensor k = make(DType::F64, {2, 1}, {0, 1});
  Tensor v = make(DType::F64, {2, 1}, {0, 4});
  auto r = run_op(kSdpa, {q, k, v}, {{"scale", F(std::log(3.0))}});
  ASSERT_EQ(r.out[0].dtype, DType::F64);
  EXPECT_NEAR(r.out[0].data<double>()[0], 3.0, 1e-12);
}

TEST(AttentionKernel, StridedOperandsWithoutUnitStride) {
  // k read with col stride 2 (a slice like k[..., ::2]) cannot go to gemm as is: copied.
  const float kd[] = {1, 99, 0, 99, 0, 99, 1, 99};  // k = [[1, 0], [0, 1]]
  const float qd[] = {std::log(3.0f), 0};
  const float vd[] = {1, 5};
  float out[1] = {-1}, lse[1] = {-1};
  AttnHead<float> h;
  h.L = 1, h.S = 2, h.E = 2, h.Ev = 1;
  h.q = {qd, 2, 1};
  h.k = {kd, 4, 2};
  h.v = {vd, 1, 1};
  h.out = out, h.ldo = 1, h.lse = lse;
  std::vector<float> work;
  attention_head_f32(h, work);
  // scores [ln 3, 0] -> weights [3/4, 1/4] -> 0.75 + 1.25 = 2; lse = log(3 + 1).
  EXPECT_NEAR(out[0], 2.0f, 1e-6);
  EXPECT_NEAR(lse[0], std::log(4.0f), 1e-6);
}

TEST(AttentionKernel, LongSequenceRunsInRowBlocksLikeTheDirectFormula) {
  // S = 3000: the kernel takes its query rows in blocks of ~21 (scores of one
  // block only); every row must still match softmax(q k^T scale + causal) v.
  const int64_t L = 45, S = 3000, E = 8, Ev = 5;
  const auto q = random_vec(size_t(L * E), 1), k = random_vec(size_t(S * E), 2), v = random_vec(size_t(S * Ev), 3);
  AttnHead<float> h;
  h.L = L, h.S = S, h.E = E, h.Ev = Ev;
  h.q = {q.data(), E, 1};
  h.k = {k.data(), E, 1};
  h.v = {v.data(), Ev, 1};
  h.causal = true;
  h.scale = 0.3f;
  std::vector<float> out(static_cast<size_t>(L * Ev)), lse(static_cast<size_t>(L)), work;
  h.out = out.data(), h.ldo = Ev, h.lse = lse.data();
  attention_head_f32(h, work);
  EXPECT_LT(work.size(), size_t(L * S));  // never the whole score matrix
  for (int64_t i = 0; i < L; ++i) {
    std::vector<double> p(size_t(i + 1));
    double mx = -1e300, sum = 0;
    for (int64_t j = 0; j <= i; ++j) {
      double d = 0;
      for (int64_t e = 0; e < E; ++e) d += double(q[size_t(i * E + e)]) * k[size_t(j * E + e)];
      p[size_t(j)] = d * 0.3;
      mx = std::max(mx, p[size_t(j)]);
    }
    for (auto& x : p) sum += (x = std::exp(x - mx));
    EXPECT_NEAR(lse[size_t(i)], mx + std::log(sum), 1e-5) << "row " << i;
    for (int64_t c = 0; c < Ev; ++c) {
      double o = 0;
      for (int64_t j = 0; j <= i; ++j) o += p[size_t(j)] / sum * v[size_t(j * Ev + c)];
      EXPECT_NEAR(out[size_t(i * Ev + c)], o, 1e-5) << "row " << i << " col " << c;
    }
  }
}

TEST(Attention, StridedViewsMatchContiguous) {
  Tensor q = tensor_f32({1, 2, 3, 2}, {0.1f, 0.2f, -0.3f, 0.4f, 0.5f, -0.6f, 0.7f, 0.8f, -0.9f, 1.0f, 0.1f, 0.2f});
  Tensor k = tensor_f32({1, 2, 4, 2}, {1, 0, 0, 1, -1, 0, 0, -1, 1, 1, -1, 1, 1, -1, 0.5f, 0.5f});
  Tensor v = tensor_f32({1, 2, 4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, -1, -2, -3, -4, -5, -6,
                                       -7, -8, -9, -10, -11, -12});
  const auto want = values_f32(run_op(kSdpa, {q, k, v}, {{"is_causal", B(true)}}).out[0]);
  // ViT/BERT style: [B, L, H, E] memory seen as [B, H, L, E]; k as a transposed [E, S] buffer.
  Tensor qs = swapped_layout(q, 1, 2), ks = swapped_layout(k, 2, 3), vs = swapped_layout(v, 1, 2);
  ASSERT_FALSE(qs.is_contiguous());
  auto got = values_f32(run_op(kSdpa, {qs, ks, vs}, {{"is_causal", B(true)}}).out[0]);
  EXPECT_THAT(got, Pointwise(FloatNear(1e-6), want));
}

// ================================ errors ====================================
TEST(AttentionErrors, ArgumentChecks) {
  Tensor q = tensor_f32({1, 2, 2}, {1, 2, 3, 4});
  Tensor k = tensor_f32({1, 3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor v = tensor_f32({1, 3, 1}, {1, 2, 3});
  Tensor m = bool_mask({2, 3}, {1, 1, 1, 1, 1, 1});
  EXPECT_THAT(error_of([&] { run_op(kSdpa, {q, k, v}, {{"dropout_p", F(0.1)}}); }),
              AllOf(HasSubstr("n1"), HasSubstr("dropout_p"), HasSubstr("cannot be reproduced")));
  EXPECT_THAT(error_of([&] { run_op(kSdpa, {q, k, v, m}, {{"is_causal", B(true)}}); }),
              HasSubstr("attn_mask should not be set when is_causal=True"));
  EXPECT_THAT(error_of([&] { run_op(kSdpa, {q, tensor_f32({1, 2, 3}, {1, 2, 3, 4, 5, 6}), v}); }),
              HasSubstr("key's last dim 3 must equal query's 2"));
  EXPECT_THAT(error_of([&] { run_op(kSdpa, {q, k, tensor_f32({1, 2, 1}, {1, 2})}); }),
              HasSubstr("value's sequence length 2 must equal key's 3"));
  EXPECT_THAT(error_of([&] { run_op(kSdpa, {q, k, v, make(DType::I64, {2, 3}, {0, 0, 0, 0, 0, 0})}); }),
              HasSubstr("attn_mask dtype to be bool or float, got int64"));
  EXPECT_THAT(error_of([&] { run_op(kSdpa, {q, k, v, bool_mask({4, 2, 3}, std::vector<int>(24, 1))}); }),
              HasSubstr("does not broadcast to the attention scores' shape [1, 2, 3]"));
  EXPECT_THAT(error_of([&] { run_op(kSdpa, {q, k, make(DType::F64, {1, 3, 1}, {1, 2, 3})}); }),
              HasSubstr("same dtype"));
  EXPECT_THAT(error_of([&] { run_op(kSdpa, {tensor_f32({2}, {1, 2}), k, v}); }),
              HasSubstr("at least 2 dimensional"));
}

TEST(AttentionErrors, FlashForm) {
  Tensor q = tensor_f32({1, 1, 2, 1}, {1, 2});
  Tensor k = tensor_f32({1, 1, 2, 1}, {1, 2});
  EXPECT_THAT(error_of([&] { run_op(kFlash, {q, k, k}, {{"attn_mask", Attr::of_string("mask_1")}}, 2); }),
              AllOf(HasSubstr("n1"), HasSubstr("'mask_1'"), HasSubstr("no 4th input")));
  EXPECT_THAT(error_of([&] { run_op(kFlash, {tensor_f32({2, 1}, {1, 2}), k, k}, {}, 2); }),
              HasSubstr("4-D"));
  // A string attr naming the mask is fine when the mask is also the 4th input.
  auto r = run_op(kFlash, {q, k, k, tensor_f32({2, 2}, {0, 0, 0, 0})}, {{"attn_mask", Attr::of_string("m")}}, 2);
  EXPECT_EQ(r.out[1].shape, (Shape{1, 1, 2}));
}

// ============================ torch 2.x fixtures ============================
Tensor from_json(json::Value j) {
  DType dtype = parse_dtype(j["dtype"].string());
  Shape shape;
  for (json::Value d : j["shape"]) shape.push_back(d.as_int64());
  std::vector<double> vals;
  for (json::Value x : j["values"]) vals.push_back(x.as_double());
  return make(dtype, shape, vals);
}

AttrMap attrs_from_json(json::Value j) {
  AttrMap a;
  for (json::Value m : j) {
    const std::string key(m.key());
    if (m.is_bool()) a[key] = Attr::of_bool(m.as_bool());
    else if (m.is_int64()) a[key] = Attr::of_int(m.as_int64());
    else a[key] = Attr::of_float(m.as_double());
  }
  return a;
}

void expect_close(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape, want.shape) << what;
  EXPECT_EQ(got.dtype, want.dtype) << what;
  const auto g = values_f32(got), w = values_f32(want);
  for (size_t i = 0; i < w.size(); ++i)
    EXPECT_NEAR(g[i], w[i], 1e-5 + 1e-5 * std::fabs(w[i])) << what << " at " << i;
}

TEST(AttentionFixtures, MatchTorch2) {
  const std::string path = test::fixtures_dir() + "/attention/sdpa_cases.json";
  ASSERT_TRUE(test::file_exists(path)) << path;
  const std::string text = test::read_text(path);
  const json::Document doc = json::Document::parse(text);
  int n = 0;
  for (json::Value c : doc.root()["cases"]) {
    const std::string name = c["name"].string(), op = c["op"].string();
    std::vector<Tensor> in;
    for (json::Value t : c["inputs"]) in.push_back(from_json(t));
    const AttrMap attrs = attrs_from_json(c["attrs"]);
    const json::Value outs = c["outputs"];
    auto r = run_op(op, in, attrs, outs.size());
    ASSERT_EQ(r.out.size(), outs.size()) << name;
    for (size_t i = 0; i < outs.size(); ++i)
      expect_close(r.out[i], from_json(outs.at(i)), name + " output " + std::to_string(i));
    // Again through strided views: q and v with dims -3/-2 swapped in memory, k transposed.
    if (in[0].dim() >= 3 && in[2].dim() >= 3) {
      std::vector<Tensor> sv = in;
      sv[0] = swapped_layout(in[0], in[0].dim() - 3, in[0].dim() - 2);
      sv[1] = swapped_layout(in[1], in[1].dim() - 2, in[1].dim() - 1);
      sv[2] = swapped_layout(in[2], in[2].dim() - 3, in[2].dim() - 2);
      auto rs = run_op(op, sv, attrs, outs.size());
      for (size_t i = 0; i < outs.size(); ++i)
        expect_close(rs.out[i], from_json(outs.at(i)), name + " (strided) output " + std::to_string(i));
    }
    ++n;
  }
  EXPECT_GE(n, 10);
}

}  // namespace
}  // namespace tir
