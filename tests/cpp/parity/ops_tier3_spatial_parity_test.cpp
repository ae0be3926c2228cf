// LibTorch 1.13 parity for the tier-3 spatial ops: im2col / col2im,
// grid_sampler_2d / grid_sampler / affine_grid_generator, bilinear /
// _trilinear, cdist / _cdist_forward / _pdist_forward and the packed-sequence
// recurrent ops lstm.data / gru.data. Awkward shapes: odd and size-1 sizes,
// 0-size batches, transposed (non-contiguous) inputs, grids outside [-1, 1].
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "parity/parity_util.h"

namespace tir {
namespace {

using parity::in;
using parity::tr;

std::string ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k ? "," : "") + std::to_string(v[k]);
  return s + "]";
}

// ---- im2col / col2im ----

struct Geom {
  std::vector<int64_t> k, d, p, s;
  std::string attrs() const {
    return "\"kernel_size\":" + ints(k) + ",\"dilation\":" + ints(d) + ",\"padding\":" + ints(p) + ",\"stride\":" + ints(s);
  }
  bool fits(int64_t H, int64_t W) const {  // at least one block along each axis
    return H + 2 * p[0] >= d[0] * (k[0] - 1) + 1 && W + 2 * p[1] >= d[1] * (k[1] - 1) + 1;
  }
  int64_t blocks(int64_t H, int64_t W) const {
    return ((H + 2 * p[0] - (d[0] * (k[0] - 1) + 1)) / s[0] + 1) * ((W + 2 * p[1] - (d[1] * (k[1] - 1) + 1)) / s[1] + 1);
  }
};

const Geom kGeoms[] = {{{2, 3}, {1, 2}, {1, 0}, {2, 1}},
                       {{3, 3}, {1, 1}, {1, 1}, {1, 1}},
                       {{1, 1}, {1, 1}, {0, 0}, {1, 1}},
                       {{2, 2}, {2, 1}, {2, 1}, {3, 2}}};

TEST(Tier3SpatialParity, Im2col) {
  for (const Geom& g : kGeoms) {
    const std::string a = "{" + g.attrs() + "}";
    ASSERT_TRUE(g.fits(5, 5));
    EXPECT_TRUE(node_parity("aten.im2col.default", {in({2, 3, 5, 7})}, a));
    EXPECT_TRUE(node_parity("aten.im2col.default", {in({3, 6, 5})}, a));      // unbatched
    EXPECT_TRUE(node_parity("aten.im2col.default", {tr({1, 2, 6, 5})}, a));   // transposed view
    EXPECT_TRUE(node_parity("aten.im2col.default", {in({0, 2, 5, 5})}, a));   // 0-size batch
    EXPECT_TRUE(node_parity("aten.im2col.default", {in({2, 1, 5, 6}, DType::F64)}, a, 0, 0));
    for (DType h : {DType::F16, DType::BF16})  // a copy: exact
      EXPECT_TRUE(node_parity("aten.im2col.default", {in({1, 2, 5, 6}, h)}, a, 0, 0));
  }
  const std::string one = "{" + Geom{{1, 1}, {1, 1}, {0, 0}, {1, 1}}.attrs() + "}";
  EXPECT_TRUE(node_parity("aten.im2col.default", {in({1, 1, 1, 1})}, one));
}

TEST(Tier3SpatialParity, Col2imAccumulatesOverlaps) {
  for (const Geom& g : kGeoms) {
    for (auto [C, H, W] : {std::tuple<int64_t, int64_t, int64_t>{3, 5, 7}, {1, 6, 5}, {2, 4, 4}}) {
      if (!g.fits(H, W)) continue;
      const std::string a = "{\"output_size\":" + ints({H, W}) + "," + g.attrs() + "}";
      const int64_t rows = C * g.k[0] * g.k[1], L = g.blocks(H, W);
      EXPECT_TRUE(node_parity("aten.col2im.default", {in({2, rows, L})}, a));
      EXPECT_TRUE(node_parity("aten.col2im.default", {in({rows, L})}, a));       // unbatched
      EXPECT_TRUE(node_parity("aten.col2im.default", {tr({2, rows, L})}, a));    // transposed view
      EXPECT_TRUE(node_parity("aten.col2im.default", {in({0, rows, L})}, a));    // 0-size batch
      EXPECT_TRUE(node_parity("aten.col2im.default", {in({1, rows, L}, DType::F64)}, a, 1e-12, 1e-12));
      // torch sums the halves in half precision, the engine in float with one rounding
      EXPECT_TRUE(node_parity("aten.col2im.default", {in({1, rows, L}, DType::BF16)}, a, 2e-2, 4e-2));
      EXPECT_TRUE(node_parity("aten.col2im.default", {in({1, rows, L}, DType::F16)}, a, 2e-3, 4e-3));
    }
  }
}

TEST(Tier3SpatialParity, Im2colBadArgs) {
  // kernel larger than the padded input: torch refuses, so must the engine (the reference throws first)
  EXPECT_FALSE(node_parity("aten.im2col.default", {in({1, 1, 2, 2})},
                           "{" + Geom{{3, 3}, {1, 1}, {0, 0}, {1, 1}}.attrs() + "}"));
}

// ---- grid_sampler ----

std::string gs_attrs(int interp, int pad, bool align) {
  return "{\"interpolation_mode\":" + std::to_string(interp) + ",\"padding_mode\":" + std::to_string(pad) +
         ",\"align_corners\":" + (align ? "true" : "false") + "}";
}

TEST(Tier3SpatialParity, GridSampler2dAllModes) {
  for (int interp = 0; interp < 3; ++interp)
    for (int pad = 0; pad < 3; ++pad)
      for (bool align : {false, true}) {
        const std::string a = gs_attrs(interp, pad, align);
        SCOPED_TRACE(a);
        // grid well outside [-1, 1]: every padding mode's clip / reflection
        EXPECT_TRUE(node_parity("aten.grid_sampler_2d.default", {in({2, 3, 5, 7}), in({2, 4, 6, 2}, DType::F32, -2.7, 2.7)},
                                a, 1e-5, 1e-5, 3));
        EXPECT_TRUE(node_parity("aten.grid_sampler_2d.default", {in({1, 2, 4, 3}), in({1, 3, 5, 2}, DType::F32, -1.1, 1.1)},
                                a, 1e-5, 1e-5, 4));
        EXPECT_TRUE(node_parity("aten.grid_sampler_2d.default", {tr({2, 2, 6, 5}), tr({2, 3, 4, 2}, DType::F32, -1.5, 1.5)},
                                a, 1e-5, 1e-5, 5));
        EXPECT_TRUE(node_parity("aten.grid_sampler_2d.default", {in({1, 2, 1, 1}), in({1, 3, 3, 2}, DType::F32, -3, 3)},
                                a, 1e-5, 1e-5, 6));  // 1x1 image
        EXPECT_TRUE(node_parity("aten.grid_sampler_2d.default", {in({1, 1, 1, 6}), in({1, 2, 3, 2}, DType::F32, -3, 3)},
                                a, 1e-5, 1e-5, 7));
        EXPECT_TRUE(node_parity("aten.grid_sampler_2d.default",
                                {in({2, 3, 5, 4}, DType::F64), in({2, 3, 3, 2}, DType::F64, -2.5, 2.5)}, a, 1e-12, 1e-12, 8));
        EXPECT_TRUE(node_parity("aten.grid_sampler.default", {in({1, 3, 4, 5}), in({1, 2, 7, 2}, DType::F32, -2, 2)}, a,
                                1e-5, 1e-5, 9));
      }
}

TEST(Tier3SpatialParity, GridSamplerEmptyBatchAndOutput) {
  EXPECT_TRUE(node_parity("aten.grid_sampler_2d.default", {in({0, 2, 3, 3}), in({0, 2, 2, 2})}, gs_attrs(0, 0, false)));
  EXPECT_TRUE(node_parity("aten.grid_sampler_2d.default", {in({2, 2, 3, 3}), in({2, 0, 4, 2})}, gs_attrs(1, 1, true)));
}

TEST(Tier3SpatialParity, GridSampler3d) {
  for (int interp = 0; interp < 2; ++interp)
    for (int pad = 0; pad < 3; ++pad)
      for (bool align : {false, true}) {
        const std::string a = gs_attrs(interp, pad, align);
        SCOPED_TRACE(a);
        EXPECT_TRUE(node_parity("aten.grid_sampler.default", {in({2, 2, 3, 4, 5}), in({2, 2, 3, 4, 3}, DType::F32, -2.2, 2.2)},
                                a, 1e-5, 1e-5, 11));
        EXPECT_TRUE(node_parity("aten.grid_sampler.default",
                                {in({1, 1, 1, 2, 3}, DType::F64), in({1, 3, 1, 2, 3}, DType::F64, -2, 2)}, a, 1e-12, 1e-12, 12));
      }
}

// ---- affine_grid_generator ----

TEST(Tier3SpatialParity, AffineGrid) {
  for (bool align : {false, true}) {
    const std::string al = align ? "true" : "false";
    for (const auto& size : std::vector<std::vector<int64_t>>{{2, 3, 5, 7}, {1, 1, 1, 1}, {3, 2, 1, 4}, {2, 1, 6, 1}, {0, 2, 3, 3}}) {
      const std::string a = "{\"size\":" + ints(size) + ",\"align_corners\":" + al + "}";
      EXPECT_TRUE(node_parity("aten.affine_grid_generator.default", {in({size[0], 2, 3})}, a));
      EXPECT_TRUE(node_parity("aten.affine_grid_generator.default", {tr({size[0], 2, 3})}, a));
      EXPECT_TRUE(node_parity("aten.affine_grid_generator.default", {in({size[0], 2, 3}, DType::F64)}, a, 1e-12, 1e-12));
    }
    for (const auto& size : std::vector<std::vector<int64_t>>{{2, 3, 4, 5, 3}, {1, 1, 1, 2, 1}}) {
      const std::string a = "{\"size\":" + ints(size) + ",\"align_corners\":" + al + "}";
      EXPECT_TRUE(node_parity("aten.affine_grid_generator.default", {in({size[0], 3, 4})}, a));
      EXPECT_TRUE(node_parity("aten.affine_grid_generator.default", {in({size[0], 3, 4}, DType::F64)}, a, 1e-12, 1e-12));
    }
  }
}

// ---- bilinear / _trilinear ----

TEST(Tier3SpatialParity, Bilinear) {
  EXPECT_TRUE(node_parity("aten.bilinear.default", {in({2, 3, 4}), in({2, 3, 5}), in({6, 4, 5}), in({6})}));
  EXPECT_TRUE(node_parity("aten.bilinear.default", {in({7, 4}), in({7, 5}), in({3, 4, 5})}));  // no bias
  EXPECT_TRUE(node_parity("aten.bilinear.default", {tr({4, 5}), in({4, 3}), tr({2, 5, 3}), in({2})}));
  EXPECT_TRUE(node_parity("aten.bilinear.default", {in({0, 4}), in({0, 5}), in({3, 4, 5}), in({3})}));
  EXPECT_TRUE(node_parity("aten.bilinear.default", {in({1, 1}), in({1, 1}), in({1, 1, 1}), in({1})}));
  EXPECT_TRUE(node_parity("aten.bilinear.default", {in({4}), in({3}), in({2, 4, 3}), in({2})}));  // 1-D inputs
  EXPECT_TRUE(node_parity("aten.bilinear.default",
                          {in({3, 4}, DType::F64), in({3, 5}, DType::F64), in({6, 4, 5}, DType::F64), in({6}, DType::F64)},
                          "{}", 1e-12, 1e-12));
  EXPECT_TRUE(node_parity("aten.bilinear.default",
                          {in({3, 4}, DType::BF16), in({3, 5}, DType::BF16), in({6, 4, 5}, DType::BF16), in({6}, DType::BF16)},
                          "{}", 5e-2, 1e-1));
}

TEST(Tier3SpatialParity, Trilinear) {
  // nn.Bilinear's lowering: x1 [R, I1], w [O, I1, I2], x2 [R, I2] -> [R, O]
  EXPECT_TRUE(node_parity("aten._trilinear.default", {in({5, 4}), in({3, 4, 6}), in({5, 6})},
                          R"({"expand1":[1,3],"expand2":[0],"expand3":[1,2],"sumdim":[2,3],"unroll_dim":1})"));
  EXPECT_TRUE(node_parity("aten._trilinear.default", {in({2, 3}), in({3, 4}), in({2, 4})},
                          R"({"expand1":[2],"expand2":[0],"expand3":[1],"sumdim":[1],"unroll_dim":1})"));
  EXPECT_TRUE(node_parity("aten._trilinear.default", {in({2, 3}), tr({3, 4}), in({2, 4})},
                          R"({"expand1":[2],"expand2":[0],"expand3":[1],"sumdim":[],"unroll_dim":0})"));
  EXPECT_TRUE(node_parity("aten._trilinear.default", {in({2, 3}), in({3, 4}), in({2, 4})},
                          R"({"expand1":[2],"expand2":[0],"expand3":[1],"sumdim":[1,2],"unroll_dim":2})"));
  EXPECT_TRUE(node_parity("aten._trilinear.default", {in({3, 4}, DType::F64), in({2, 4, 5}, DType::F64), in({3, 5}, DType::F64)},
                          R"({"expand1":[1,3],"expand2":[0],"expand3":[1,2],"sumdim":[2,3],"unroll_dim":1})", 1e-12, 1e-12));
  EXPECT_TRUE(node_parity("aten._trilinear.default", {in({0, 3}), in({3, 4}), in({0, 4})},
                          R"({"expand1":[2],"expand2":[0],"expand3":[1],"sumdim":[1],"unroll_dim":1})"));
}

// ---- cdist / _cdist_forward / _pdist_forward ----

const char* kPs[] = {"0", "0.5", "1", "1.5", "2", "3", "Infinity"};

std::string cd_attrs(const char* p, const char* mode = "null") {
  return std::string("{\"p\":") + p + ",\"compute_mode\":" + mode + "}";
}

TEST(Tier3SpatialParity, Cdist) {
  for (const char* p : kPs) {
    SCOPED_TRACE(p);
    for (const char* op : {"aten.cdist.default", "aten._cdist_forward.default"}) {
      EXPECT_TRUE(node_parity(op, {in({5, 3}), in({4, 3})}, cd_attrs(p)));
      EXPECT_TRUE(node_parity(op, {in({2, 5, 3}), tr({2, 4, 3})}, cd_attrs(p)));
      EXPECT_TRUE(node_parity(op, {in({2, 1, 5, 3}), in({3, 4, 3})}, cd_attrs(p)));  // broadcast batch
      EXPECT_TRUE(node_parity(op, {in({1, 1}), in({1, 1})}, cd_attrs(p)));
      EXPECT_TRUE(node_parity(op, {in({0, 3}), in({4, 3})}, cd_attrs(p)));
      EXPECT_TRUE(node_parity(op, {in({3, 0}), in({4, 0})}, cd_attrs(p)));
      EXPECT_TRUE(node_parity(op, {in({6, 5}, DType::F64), in({7, 5}, DType::F64)}, cd_attrs(p), 1e-12, 1e-12));
    }
    // p = 0 counts differing coordinates: give it equal ones too
    EXPECT_TRUE(node_parity("aten.cdist.default", {in({4, 3}, DType::F32, 0, 2), in({3, 3}, DType::F32, 0, 2)}, cd_attrs(p)));
  }
  EXPECT_TRUE(node_parity("aten.cdist.default", {in({4, 3}, DType::I64, 0, 2), in({3, 3}, DType::I64, 0, 2)}, cd_attrs("0")) ==
              false);  // float only, as torch
}

TEST(Tier3SpatialParity, CdistManyRowsEveryComputeMode) {
  // > 25 rows: torch takes its matrix-multiplication path for p = 2 (compute_mode None / 1), the
  // engine always sums the differences (at least as accurate). float64 compares tightly; float32
  // allows torch's own cancellation error (|x|^2 + |y|^2 - 2 x.y, about eps * |x|^2 / dist).
  for (const char* mode : {"null", "0", "1", "2"})
    for (const char* p : {"2", "1", "3"}) {
      SCOPED_TRACE(std::string(mode) + " p=" + p);
      EXPECT_TRUE(node_parity("aten.cdist.default", {in({30, 4}, DType::F64), in({27, 4}, DType::F64)}, cd_attrs(p, mode),
                              1e-12, 1e-12));
      EXPECT_TRUE(node_parity("aten._cdist_forward.default", {in({2, 26, 6}), in({2, 31, 6})}, cd_attrs(p, mode), 1e-5, 1e-4));
    }
}

TEST(Tier3SpatialParity, Pdist) {
  for (const char* p : kPs) {
    SCOPED_TRACE(p);
    const std::string a = std::string("{\"p\":") + p + "}";
    EXPECT_TRUE(node_parity("aten._pdist_forward.default", {in({6, 4})}, a));
    EXPECT_TRUE(node_parity("aten._pdist_forward.default", {in({30, 3})}, a));
    EXPECT_TRUE(node_parity("aten._pdist_forward.default", {in({1, 3})}, a));
    EXPECT_TRUE(node_parity("aten._pdist_forward.default", {in({5, 1}, DType::F64)}, a, 1e-12, 1e-12));
  }
}

// ---- lstm.data / gru.data (packed sequences) ----

struct PackedCase {
  std::string kind = "lstm";
  std::vector<int64_t> lengths{5, 3, 3, 1};  // sorted descending, as pack_padded_sequence leaves them
  bool bias = true, bidir = false;
  int64_t L = 1, I = 3, H = 4, P = 0;
  DType dt = DType::F32;
  bool data_transposed = false;
};

::testing::AssertionResult packed_parity(const PackedCase& c) {
  const bool lstm = c.kind == "lstm";
  const int64_t G = lstm ? 4 : 3, D = c.bidir ? 2 : 1, O = c.P ? c.P : c.H, B = int64_t(c.lengths.size());
  std::vector<double> bs;
  int64_t S = 0;
  for (int64_t t = 0; t < (B ? c.lengths[0] : 0); ++t) {
    int64_t n = 0;
    for (int64_t len : c.lengths) n += len > t;
    bs.push_back(double(n));
    S += n;
  }
  std::vector<ParityInput> ins{c.data_transposed ? tr({S, c.I}, c.dt, -1, 1) : in({S, c.I}, c.dt, -1, 1)};
  ParityInput bsz;
  bsz.dtype = DType::I64;
  bsz.shape = {int64_t(bs.size())};
  bsz.values = bs;
  ins.push_back(bsz);
  ins.push_back(in({c.L * D, B, O}, c.dt, -1, 1));
  if (lstm) ins.push_back(in({c.L * D, B, c.H}, c.dt, -1, 1));
  const std::string sizes = parity::append_rnn_weights(ins, lstm, G, c.I, c.H, c.P, c.L, c.bidir, c.bias, c.dt);
  const std::string attrs = "{\"_tensor_list_sizes\":" + sizes + ",\"has_biases\":" + (c.bias ? "true" : "false") +
                            ",\"num_layers\":" + std::to_string(c.L) + ",\"dropout\":0.0,\"train\":false," +
                            "\"bidirectional\":" + (c.bidir ? "true" : "false") + "}";
  const double tol = c.dt == DType::F64 ? 1e-12 : 1e-5;
  return node_parity("aten." + c.kind + ".data", ins, attrs, tol, tol, 13);
}

TEST(Tier3SpatialParity, PackedLstmGru) {
  for (const char* k : {"lstm", "gru"})
    for (bool bias : {true, false})
      for (bool bidir : {false, true})
        for (int64_t L : {1, 2}) {
          PackedCase c;
          c.kind = k, c.bias = bias, c.bidir = bidir, c.L = L;
          SCOPED_TRACE(std::string(k) + " bias=" + std::to_string(bias) + " bidir=" + std::to_string(bidir) +
                       " L=" + std::to_string(L));
          EXPECT_TRUE(packed_parity(c));
          c.lengths = {4, 4, 2};  // equal lengths at the top
          c.data_transposed = true;
          EXPECT_TRUE(packed_parity(c));
          c.lengths = {1};        // one sequence of one step
          c.data_transposed = false;
          EXPECT_TRUE(packed_parity(c));
          c.lengths = {6, 5, 2, 2, 1};
          c.dt = DType::F64;
          EXPECT_TRUE(packed_parity(c));
        }
}

TEST(Tier3SpatialParity, PackedLstmProjSize) {
  PackedCase c;
  c.P = 2;
  c.bidir = true;
  c.L = 2;
  EXPECT_TRUE(packed_parity(c));
}

TEST(Tier3SpatialParity, PackedBadBatchSizes) {
  // batch_sizes summing to fewer rows than the data: torch refuses, so the reference throws first; the
  // engine's own check is in the unit test.
  PackedCase c;
  std::vector<ParityInput> ins{in({5, 3}), ParityInput{}, in({1, 2, 4}), in({1, 2, 4}), in({16, 3}), in({16, 4})};
  ins[1].dtype = DType::I64, ins[1].shape = {2}, ins[1].values = {2, 1};
  EXPECT_FALSE(node_parity("aten.lstm.data", ins,
                           R"({"_tensor_list_sizes":[2,2],"has_biases":false,"num_layers":1,"dropout":0.0,"train":false,"bidirectional":false})"));
}

}  // namespace
}  // namespace tir
