// Unit tests for the tier-3 spatial ops: hand-computed values (col2im's overlap
// sums, affine_grid's base grid, a packed GRU step by step against the padded
// gru.input) and the engine's own argument errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "kernels/grid_sample.h"
#include "op_test_util.h"
#include "ops/op.h"

namespace tir {
namespace {

using namespace ::testing;
using namespace test;

std::vector<double> vals(const Tensor& t) {
  const Tensor d = to_dtype_owned(t, DType::F64);
  return std::vector<double>(d.data<double>(), d.data<double>() + d.numel());
}

AttrMap fold_attrs(std::vector<int64_t> k, std::vector<int64_t> s) {
  AttrMap a;
  a["kernel_size"] = ints(k);
  a["dilation"] = ints({1, 1});
  a["padding"] = ints({0, 0});
  a["stride"] = ints(s);
  return a;
}

TEST(Tier3SpatialOps, Col2imSumsOverlaps) {
  AttrMap a = fold_attrs({2, 2}, {1, 1});
  a["output_size"] = ints({3, 3});
  const Tensor ones = tensor_of(DType::F32, {1, 4, 4}, std::vector<double>(16, 1.0));
  EXPECT_EQ(vals(run1("aten.col2im.default", {ones}, a)), (std::vector<double>{1, 2, 1, 2, 4, 2, 1, 2, 1}));
}

TEST(Tier3SpatialOps, Im2colThenCol2imOfDisjointBlocksIsIdentity) {
  std::vector<double> v(2 * 4 * 6);
  for (size_t k = 0; k < v.size(); ++k) v[k] = double(k);
  const Tensor x = tensor_of(DType::F64, {1, 2, 4, 6}, v);
  const Tensor cols = run1("aten.im2col.default", {x}, fold_attrs({2, 3}, {2, 3}));
  EXPECT_EQ(cols.shape, (Shape{1, 12, 4}));
  AttrMap a = fold_attrs({2, 3}, {2, 3});
  a["output_size"] = ints({4, 6});
  EXPECT_EQ(vals(run1("aten.col2im.default", {cols}, a)), v);
}

TEST(Tier3SpatialOps, AffineGridIdentity) {
  const Tensor theta = tensor_of(DType::F32, {1, 2, 3}, {1, 0, 0, 0, 1, 0});
  AttrMap a;
  a["size"] = ints({1, 1, 2, 3});
  a["align_corners"] = B(true);
  EXPECT_THAT(vals(run1("aten.affine_grid_generator.default", {theta}, a)),
              Pointwise(DoubleNear(1e-7), std::vector<double>{-1, -1, 0, -1, 1, -1, -1, 1, 0, 1, 1, 1}));
  a["align_corners"] = B(false);  // (n-1)/n of the corners
  EXPECT_THAT(vals(run1("aten.affine_grid_generator.default", {theta}, a)),
              Pointwise(DoubleNear(1e-7), std::vector<double>{-2. / 3, -.5, 0, -.5, 2. / 3, -.5, -2. / 3, .5, 0, .5,
                                                              2. / 3, .5}));
}

TEST(Tier3SpatialOps, GridSampleBilinearHandValue) {
  // 2x2 image, align_corners: (0, 0) is the centre -> mean of the four; (1, -1) is the top-right pixel.
  const Tensor x = tensor_of(DType::F64, {1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor g = tensor_of(DType::F64, {1, 1, 2, 2}, {0, 0, 1, -1});
  AttrMap a;
  a["interpolation_mode"] = I(0);
  a["padding_mode"] = I(0);
  a["align_corners"] = B(true);
  EXPECT_THAT(vals(run1("aten.grid_sampler_2d.default", {x, g}, a)), Pointwise(DoubleNear(1e-12), std::vector<double>{2.5, 2}));
}

TEST(Tier3SpatialOps, CdistP2IsExactWhereTheMatmulFormCancels) {
  // Two nearby points far from the origin: |x|^2 + |y|^2 - 2 x.y loses every digit in float32.
  const Tensor a = tensor_of(DType::F32, {1, 2}, {1000.0, 1000.0});
  const Tensor b = tensor_of(DType::F32, {1, 2}, {1000.0, 1000.0625});
  AttrMap at;
  at["p"] = F(2.0);
  at["compute_mode"] = I(1);  // torch: "use_mm_for_euclid_dist"
  EXPECT_EQ(vals(run1("aten._cdist_forward.default", {a, b}, at)), (std::vector<double>{0.0625}));
}

TEST(Tier3SpatialOps, Errors) {
  AttrMap gs;
  gs["interpolation_mode"] = I(3);
  gs["padding_mode"] = I(0);
  gs["align_corners"] = B(false);
  const Tensor x = tensor_of(DType::F32, {1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor g = tensor_of(DType::F32, {1, 1, 1, 2}, {0, 0});
  EXPECT_THAT(error_of([&] { run1("aten.grid_sampler_2d.default", {x, g}, gs); }), HasSubstr("interpolation_mode"));
  EXPECT_THAT(error_of([&] { run1("aten.im2col.default", {x}, fold_attrs({3, 3}, {1, 1})); }),
              HasSubstr("must be at least one"));
  AttrMap cd;
  cd["p"] = F(-1.0);
  EXPECT_THAT(error_of([&] { run1("aten.cdist.default", {x, x}, cd); }), HasSubstr("non-negative p"));
  // packed GRU: batch_sizes summing to fewer rows than the data
  AttrMap r;
  r["_tensor_list_sizes"] = ints({2});
  r["has_biases"] = B(false);
  r["num_layers"] = I(1);
  r["dropout"] = F(0.0);
  r["train"] = B(false);
  r["bidirectional"] = B(false);
  const Tensor data = tensor_of(DType::F32, {4, 1}, {1, 2, 3, 4});
  const Tensor bs = tensor_of(DType::I64, {2}, {2, 1});
  const Tensor h0 = tensor_of(DType::F32, {1, 2, 1}, {0, 0});
  const Tensor w = tensor_of(DType::F32, {3, 1}, {0.1, 0.2, 0.3});
  EXPECT_THAT(error_of([&] { run_op("aten.gru.data", {data, bs, h0, w, w}, r, 2); }), HasSubstr("batch_sizes sum to 3"));
}

TEST(Tier3SpatialOps, PackedGruMatchesPaddedGruPerSequence) {
  // Two sequences of lengths 3 and 1 packed; each must equal gru.input run on it alone.
  AttrMap r;
  r["_tensor_list_sizes"] = ints({8});
  r["has_biases"] = B(true);
  r["num_layers"] = I(1);
  r["dropout"] = F(0.0);
  r["train"] = B(false);
  r["bidirectional"] = B(true);
  const Tensor wih = tensor_of(DType::F64, {3, 2}, {0.1, -0.2, 0.3, 0.4, -0.5, 0.6});
  const Tensor whh = tensor_of(DType::F64, {3, 1}, {0.7, -0.8, 0.9});
  const Tensor bih = tensor_of(DType::F64, {3}, {0.01, 0.02, -0.03});
  const Tensor bhh = tensor_of(DType::F64, {3}, {-0.04, 0.05, 0.06});
  const std::vector<Tensor> p{wih, whh, bih, bhh, wih, whh, bhh, bih};
  // packed rows: t0: s0, s1; t1: s0; t2: s0
  const Tensor data = tensor_of(DType::F64, {4, 2}, {1, 2, 5, 6, 3, 4, -1, 0.5});
  const Tensor bs = tensor_of(DType::I64, {3}, {2, 1, 1});
  const Tensor h0 = tensor_of(DType::F64, {2, 2, 1}, {0.1, 0.2, 0.3, 0.4});
  std::vector<Tensor> in{data, bs, h0};
  in.insert(in.end(), p.begin(), p.end());
  const OpRun packed = run_op("aten.gru.data", in, r, 2);
  const std::vector<double> out = vals(packed.out[0]), hn = vals(packed.out[1]);
  AttrMap rp = r;
  rp["batch_first"] = B(false);
  auto alone = [&](const std::vector<double>& x, int64_t T, double h_fwd, double h_bwd) {
    std::vector<Tensor> i{tensor_of(DType::F64, {T, 1, 2}, x), tensor_of(DType::F64, {2, 1, 1}, {h_fwd, h_bwd})};
    i.insert(i.end(), p.begin(), p.end());
    return run_op("aten.gru.input", i, rp, 2);
  };
  const OpRun s0 = alone({1, 2, 3, 4, -1, 0.5}, 3, 0.1, 0.3), s1 = alone({5, 6}, 1, 0.2, 0.4);
  const std::vector<double> o0 = vals(s0.out[0]), o1 = vals(s1.out[0]), h0v = vals(s0.out[1]), h1v = vals(s1.out[1]);
  // packed output rows [t0 s0, t0 s1, t1 s0, t2 s0] x (fwd, bwd)
  const std::vector<double> want{o0[0], o0[1], o1[0], o1[1], o0[2], o0[3], o0[4], o0[5]};
  EXPECT_THAT(out, Pointwise(DoubleNear(1e-14), want));
  EXPECT_THAT(hn, Pointwise(DoubleNear(1e-14), std::vector<double>{h0v[0], h1v[0], h0v[1], h1v[1]}));
}

// float32 affine_grid is the float64 grid of the same theta rounded once: every
// entry is the float nearest the exact base @ theta^T (PyTorch's float32 linspace,
// (n-1)/n scaling and bmm round at each step, up to a few ulp).
TEST(Tier3SpatialOps, AffineGridCorrectlyRounded) {
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (auto sz : {std::vector<int64_t>{2, 3, 7, 6}, {1, 1, 1, 1}, {1, 1, 1, 17}, {3, 1, 37, 41}, {1, 2, 255, 257},
                  {2, 1, 5, 9, 3}, {1, 1, 1, 8, 16}})
    for (bool align : {false, true}) {
      const int nsp = int(sz.size()) - 2, k = nsp + 1;
      const int64_t N = sz[0];
      std::vector<double> th(size_t(N * nsp * k));
      for (auto& v : th) v = double(nd(rng));
      AttrMap a;
      a["size"] = ints(sz);
      a["align_corners"] = B(align);
      const Tensor out = run1("aten.affine_grid_generator.default",
                              {tensor_of(DType::F32, {N, nsp, k}, th)}, a);
      const float* o = out.data<float>();
      auto base = [&](int64_t i, int64_t n) {  // exact linspace(-1, 1, n) (* (n-1)/n) in double
        return n <= 1 ? 0.0 : double(2 * i - (n - 1)) / double(align ? n - 1 : n);
      };
      const int64_t D = nsp == 3 ? sz[2] : 1, H = sz[size_t(nsp)], W = sz[size_t(nsp + 1)];
      int64_t bad = 0, at = 0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t d = 0; d < D; ++d)
          for (int64_t h = 0; h < H; ++h)
            for (int64_t w = 0; w < W; ++w)
              for (int r = 0; r < nsp; ++r, ++at) {
                const double* t = th.data() + (n * nsp + r) * k;
                const double b[4] = {base(w, W), base(h, H), nsp == 3 ? base(d, D) : 1.0, 1.0};
                double want = 0;
                for (int j = 0; j < k; ++j) want += b[j] * t[j];
                if (o[at] != float(want)) ++bad;
              }
      EXPECT_EQ(bad, 0) << "size " << sz.size() << "-D " << sz[sz.size() - 2] << "x" << sz.back() << " align " << align;
    }
}

// The sampling coordinate is the float nearest the exact (g + 1) * size / 2 - 0.5
// (align_corners: (g + 1) * (size - 1) / 2): shown by nearest mode on grid values
// a few ulp either side of each pixel boundary, where PyTorch's three float32
// roundings pick the wrong pixel now and then.
TEST(Tier3SpatialOps, GridSampleCoordinateCorrectlyRounded) {
  for (int64_t W : {2, 7, 8, 31, 255, 1000, 4097})
    for (bool align : {false, true}) {
      const double scale = align ? double(W - 1) / 2 : double(W) / 2, off = double(W - 1) / 2;
      std::vector<double> x(static_cast<size_t>(W)), g;
      for (int64_t i = 0; i < W; ++i) x[size_t(i)] = double(i);
      for (int64_t kk = 0; kk + 1 < W; ++kk) {  // boundary kk + 0.5
        const float g0 = float((double(kk) + 0.5 - off) / scale);
        if (std::fabs(g0) < 1e-3f) continue;  // next to 0 the exact sum is not a double
        float v = g0;
        for (int s = 0; s < 4; ++s) v = std::nextafter(v, -2.f);
        for (int s = 0; s < 9; ++s, v = std::nextafter(v, 2.f)) g.push_back(v), g.push_back(0.0);
      }
      const int64_t P = int64_t(g.size() / 2);
      AttrMap a;
      a["interpolation_mode"] = I(1);
      a["padding_mode"] = I(1);
      a["align_corners"] = B(align);
      const std::vector<double> got = vals(run1("aten.grid_sampler_2d.default",
                                                {tensor_of(DType::F32, {1, 1, 1, W}, x), tensor_of(DType::F32, {1, 1, P, 2}, g)}, a));
      int64_t bad = 0;
      for (int64_t p = 0; p < P; ++p) {
        const double exact = double(float(g[size_t(2 * p)])) * scale + off;  // exact: 24 x 13 bits, |g| >= 1e-3
        const double want = std::nearbyint(double(float(exact)));
        if (got[size_t(p)] != want) ++bad;
      }
      EXPECT_EQ(bad, 0) << "W " << W << " align " << align << " of " << P;
    }
}

TEST(Tier3SpatialOps, GridSampleSimdMatchesScalarBitForBit) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-2.5f, 2.5f);
  for (int pad : {0, 1})
    for (bool align : {false, true})
      for (auto [H, W, oH, oW] : {std::tuple<int64_t, int64_t, int64_t, int64_t>{5, 7, 3, 11}, {1, 1, 2, 9}, {4, 9, 1, 3},
                                  {6, 5, 17, 1}}) {
        GridSampleArgs a;
        a.N = 2, a.C = 3, a.H = H, a.W = W, a.oH = oH, a.oW = oW;
        a.pad = GridPad(pad);
        a.align_corners = align;
        std::vector<float> x(size_t(a.N * a.C * H * W)), g(size_t(a.N * oH * oW * 2));
        for (auto& v : x) v = u(rng);
        for (auto& v : g) v = u(rng);
        g[1] = std::numeric_limits<float>::quiet_NaN();   // a NaN coordinate
        g[2] = std::numeric_limits<float>::infinity();    // and an infinite one
        g[g.size() - 1] = 1.0f, g[g.size() - 2] = -1.0f;  // exact corners
        std::vector<float> fast(size_t(a.N * a.C * oH * oW), -7.f), ref(fast.size(), -9.f);
        ASSERT_TRUE(grid_sample_f32_fast(a, x.data(), g.data(), fast.data()));
        grid_sample_ref<float>(a, x.data(), g.data(), ref.data());
        EXPECT_EQ(0, std::memcmp(fast.data(), ref.data(), fast.size() * sizeof(float)))
            << "pad " << pad << " align " << align << " " << H << "x" << W << " -> " << oH << "x" << oW;
      }
}

}  // namespace
}  // namespace tir
