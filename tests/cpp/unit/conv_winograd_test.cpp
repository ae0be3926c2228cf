// The Winograd F(2x2, 3x3) conv kernel called directly: against the scalar
// reference conv_nd<float> with every epilogue, prepared (with a folded
// per-oc scale) vs on-the-fly weights, a residual aliasing the output, the
// result's independence of the thread count (block-parallel and
// phase-parallel splits), and which geometries conv_nd_f32 routes to it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "test_util.h"
#include "kernels/conv.h"
#include "kernels/conv_winograd.h"

namespace tir {
namespace {

using test::random_vec;

ConvGeom geom3x3(int64_t N, int64_t C, int64_t OC, int64_t H, int64_t W, int64_t pad) {
  ConvGeom g;
  g.N = N, g.C = C, g.OC = OC, g.H = H, g.W = W;
  g.KH = g.KW = 3;
  g.PH = g.PW = pad;
  g.OH = H + 2 * pad - 2;
  g.OW = W + 2 * pad - 2;
  return g;
}

std::string name(const ConvGeom& g) {
  return "N=" + std::to_string(g.N) + " C=" + std::to_string(g.C) + " OC=" + std::to_string(g.OC) + " " +
         std::to_string(g.H) + "x" + std::to_string(g.W) + " pad=" + std::to_string(g.PH);
}

struct Data {
  std::vector<float> x, w, bias, res, scale;
  explicit Data(const ConvGeom& g, uint32_t seed)
      : x(random_vec(size_t(g.N * g.C * g.H * g.W), seed)),
        w(random_vec(size_t(g.OC * g.C * 9), seed + 1)),
        bias(random_vec(size_t(g.OC), seed + 2)),
        res(random_vec(size_t(g.N * g.OC * g.OH * g.OW), seed + 3)),
        scale(random_vec(size_t(g.OC), seed + 4)) {}
};

std::vector<float> winograd(const ConvGeom& g, const Data& d, bool prepared, const float* scale,
                            const GemmEpilogue& e) {
  std::vector<float> u, y(size_t(g.N * g.OC * g.OH * g.OW), NAN);
  if (prepared) {
    u.resize(size_t(conv_winograd_weights_size(g)));
    conv_winograd_prepare_f32(g, d.w.data(), scale, u.data());
  }
  conv_winograd_f32(g, d.x.data(), d.w.data(), prepared ? u.data() : nullptr, d.bias.data(), y.data(), e);
  return y;
}

TEST(ConvWinograd, MatchesReferenceWithEpilogues) {
  for (const ConvGeom& g : {geom3x3(1, 16, 16, 8, 8, 1), geom3x3(2, 17, 33, 7, 5, 1), geom3x3(1, 33, 17, 13, 6, 0),
                            geom3x3(2, 64, 24, 23, 17, 1), geom3x3(1, 8, 8, 3, 3, 0)}) {
    Data d(g, 11);
    for (int form = 0; form < 3; ++form) {
      GemmEpilogue e;
      if (form >= 1) e.residual = d.res.data();
      if (form == 1) e.act = GemmAct::Relu;
      if (form == 2) {
        e.act = GemmAct::Clamp;
        e.lo = -0.5f;
        e.hi = 0.75f;
      }
      const bool scaled = form == 2;
      std::vector<float> ws = d.w;  // the reference gets the scale folded as prepare folds it
      if (scaled)
        for (int64_t oc = 0; oc < g.OC; ++oc)
          for (int64_t k = 0; k < g.C * 9; ++k) ws[size_t(oc * g.C * 9 + k)] *= d.scale[size_t(oc)];
      std::vector<float> want(d.res.size());
      conv_nd<float>(g, d.x.data(), ws.data(), d.bias.data(), want.data());
      for (size_t i = 0; i < want.size(); ++i) {
        float v = want[i] + (e.residual ? d.res[i] : 0.0f);
        if (e.act == GemmAct::Relu) v = std::max(v, 0.0f);
        if (e.act == GemmAct::Clamp) v = std::min(std::max(v, e.lo), e.hi);
        want[i] = v;
      }
      const auto got = winograd(g, d, true, scaled ? d.scale.data() : nullptr, e);
      int bad = 0;
      for (size_t i = 0; i < want.size() && bad < 5; ++i)
        if (!(std::fabs(got[i] - want[i]) <= 1e-5f * float(g.C) + 1e-5f)) {
          ADD_FAILURE() << name(g) << " form " << form << " at " << i << ": got " << got[i] << " want " << want[i];
          ++bad;
        }
      if (!scaled) {  // weights transformed on the fly: the same bits
        const auto otf = winograd(g, d, false, nullptr, e);
        EXPECT_EQ(got, otf) << name(g) << " form " << form;
      }
    }
  }
}

TEST(ConvWinograd, ResidualMayAliasOutput) {
  const ConvGeom g = geom3x3(1, 16, 16, 9, 11, 1);
  Data d(g, 5);
  GemmEpilogue e;
  e.residual = d.res.data();
  e.act = GemmAct::Relu;
  const auto want = winograd(g, d, true, nullptr, e);
  std::vector<float> u(size_t(conv_winograd_weights_size(g))), y = d.res;
  conv_winograd_prepare_f32(g, d.w.data(), nullptr, u.data());
  e.residual = y.data();
  conv_winograd_f32(g, d.x.data(), d.w.data(), u.data(), d.bias.data(), y.data(), e);
  EXPECT_EQ(y, want);
}

TEST(ConvWinograd, ResultDoesNotDependOnThreadCount) {
  // 64 ch 56x56: many tile blocks (whole blocks per thread); 256 ch 14x14 and
  // 2 x 17x17: one or two blocks (each phase split across threads).
  for (const ConvGeom& g : {geom3x3(1, 64, 64, 56, 56, 1), geom3x3(1, 256, 256, 14, 14, 1),
                            geom3x3(2, 40, 48, 17, 17, 1)}) {
    Data d(g, 21);
    GemmEpilogue e;
    e.residual = d.res.data();
    e.act = GemmAct::Relu;
    std::vector<std::vector<float>> outs;
    for (int t : {1, 2, 3}) {
      set_num_threads(t);
      outs.push_back(winograd(g, d, true, d.scale.data(), e));
    }
    set_num_threads(1);
    EXPECT_EQ(outs[0], outs[1]) << name(g);
    EXPECT_EQ(outs[0], outs[2]) << name(g);
  }
}

TEST(ConvWinograd, AppliesToResNetShapesOnly) {
  for (int64_t c : {64, 128, 256, 512}) {
    const int64_t hw = 56 * 64 / c;
    EXPECT_TRUE(conv_winograd_applies(geom3x3(1, c, c, hw, hw, 1))) << c;
  }
  ConvGeom g = geom3x3(1, 64, 64, 56, 56, 1);
  EXPECT_TRUE(conv_winograd_applies(g));
  ConvGeom s = g;
  s.SH = s.SW = 2;
  s.OH = s.OW = 28;
  EXPECT_FALSE(conv_winograd_applies(s));  // strided
  ConvGeom dil = g;
  dil.DH = dil.DW = 2;
  dil.OH = dil.OW = 54;
  EXPECT_FALSE(conv_winograd_applies(dil));  // dilated
  ConvGeom grp = g;
  grp.G = 2;
  EXPECT_FALSE(conv_winograd_applies(grp));  // grouped
  EXPECT_FALSE(conv_winograd_applies(geom3x3(1, 3, 64, 56, 56, 1)));    // too few input channels
  EXPECT_FALSE(conv_winograd_applies(geom3x3(1, 512, 512, 3, 3, 1)));   // 4 tiles: U re-read for little work
  EXPECT_FALSE(conv_winograd_applies(geom3x3(1, 512, 512, 5, 5, 1)));   // ragged tiles waste 44%
  ConvGeom k5 = g;
  k5.KH = k5.KW = 5;
  EXPECT_FALSE(conv_winograd_applies(k5));
}

}  // namespace
}  // namespace tir
