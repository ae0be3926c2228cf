// Unit tests for the recurrent ops (lstm/gru/rnn_* and their cells) and the
// higher-order RoPE ops (wrap_with_set_grad_enabled / wrap_with_autocast):
// hand-computed values, the sequence ops against chained cells, output
// shapes of each layout, and error messages.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ops/op.h"
#include "op_test_util.h"

namespace tir {
namespace {

using namespace ::testing;
using namespace test;

std::vector<double> vals(const Tensor& t) {
  const Tensor d = to_dtype_owned(t, DType::F64);
  return std::vector<double>(d.data<double>(), d.data<double>() + d.numel());
}

Tensor rnd(const Shape& s, uint32_t seed, DType d = DType::F32, double scale = 0.5) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<double> v(size_t(shape_numel(s)));
  for (auto& x : v) x = u(g);
  return tensor_of(d, s, v);
}

double sig(double x) { return 1 / (1 + std::exp(-x)); }

AttrMap seq_attrs(int64_t hx, int64_t nw, bool bias, int64_t layers, bool bidir, bool bf) {
  AttrMap a;
  a["_tensor_list_sizes"] = hx ? ints({hx, nw}) : ints({nw});
  a["has_biases"] = B(bias);
  a["num_layers"] = I(layers);
  a["dropout"] = F(0.0);
  a["train"] = B(false);
  a["bidirectional"] = B(bidir);
  a["batch_first"] = B(bf);
  return a;
}

void expect_near(const std::vector<double>& a, const std::vector<double>& b, double tol = 1e-6) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) EXPECT_NEAR(a[k], b[k], tol) << "at " << k;
}

// ============================== cells, by hand ==============================
TEST(RnnCells, TanhAndReluScalar) {
  // I = H = 1: h' = act(w_ih*x + b_ih + w_hh*h + b_hh)
  const Tensor x = tensor_of(DType::F32, {2, 1}, {0.5, -2.0});
  const Tensor h = tensor_of(DType::F32, {2, 1}, {0.25, 1.0});
  const Tensor wih = tensor_of(DType::F32, {1, 1}, {0.8});
  const Tensor whh = tensor_of(DType::F32, {1, 1}, {-0.6});
  const Tensor bih = tensor_of(DType::F32, {1}, {0.1});
  const Tensor bhh = tensor_of(DType::F32, {1}, {0.05});
  auto pre = [](double xv, double hv) { return 0.8 * xv + 0.1 - 0.6 * hv + 0.05; };
  auto t = run_op("aten.rnn_tanh_cell.default", {x, h, wih, whh, bih, bhh});
  expect_near(vals(t.out[0]), {std::tanh(pre(0.5, 0.25)), std::tanh(pre(-2.0, 1.0))});
  auto r = run_op("aten.rnn_relu_cell.default", {x, h, wih, whh, bih, bhh});
  expect_near(vals(r.out[0]), {std::max(0.0, pre(0.5, 0.25)), 0.0});
  // Without biases.
  auto nb = run_op("aten.rnn_tanh_cell.default", {x, h, wih, whh});
  expect_near(vals(nb.out[0]), {std::tanh(0.8 * 0.5 - 0.6 * 0.25), std::tanh(0.8 * -2.0 - 0.6)});
}

TEST(RnnCells, LstmScalarGates) {
  // H = 1, gates i, f, g, o from rows 0..3 of w_ih / w_hh.
  const double xi = 0.7, h0 = -0.3, c0 = 0.4;
  const std::vector<double> wi{0.1, -0.2, 0.3, 0.4}, wh{0.5, 0.6, -0.7, 0.8}, bi{0.01, 0.02, 0.03, 0.04},
      bh{-0.05, 0.06, 0.07, -0.08};
  auto pre = [&](int k) { return wi[size_t(k)] * xi + bi[size_t(k)] + wh[size_t(k)] * h0 + bh[size_t(k)]; };
  const double c1 = sig(pre(1)) * c0 + sig(pre(0)) * std::tanh(pre(2));
  const double h1 = sig(pre(3)) * std::tanh(c1);
  auto r = run_op("aten.lstm_cell.default",
                  {tensor_of(DType::F64, {1, 1}, {xi}), tensor_of(DType::F64, {1, 1}, {h0}),
                   tensor_of(DType::F64, {1, 1}, {c0}), tensor_of(DType::F64, {4, 1}, wi),
                   tensor_of(DType::F64, {4, 1}, wh), tensor_of(DType::F64, {4}, bi), tensor_of(DType::F64, {4}, bh)},
                  {{"_tensor_list_sizes", ints({2})}}, 2);
  ASSERT_EQ(r.out.size(), 2u);
  EXPECT_EQ(r.out[0].dtype, DType::F64);
  expect_near(vals(r.out[0]), {h1}, 1e-14);
  expect_near(vals(r.out[1]), {c1}, 1e-14);
}

TEST(RnnCells, GruScalarGates) {
  // H = 1: r, z, n; n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).
  const double xi = -0.4, h0 = 0.9;
  const std::vector<double> wi{0.3, -0.5, 0.7}, wh{-0.2, 0.4, 0.6}, bi{0.1, 0.2, 0.3}, bh{0.05, -0.1, 0.15};
  const double r = sig(wi[0] * xi + bi[0] + wh[0] * h0 + bh[0]);
  const double z = sig(wi[1] * xi + bi[1] + wh[1] * h0 + bh[1]);
  const double n = std::tanh(wi[2] * xi + bi[2] + r * (wh[2] * h0 + bh[2]));
  auto out = run_op("aten.gru_cell.default",
                    {tensor_of(DType::F64, {1}, {xi}), tensor_of(DType::F64, {1}, {h0}), tensor_of(DType::F64, {3, 1}, wi),
                     tensor_of(DType::F64, {3, 1}, wh), tensor_of(DType::F64, {3}, bi), tensor_of(DType::F64, {3}, bh)});
  EXPECT_EQ(out.out[0].shape, Shape{1});  // unbatched
  expect_near(vals(out.out[0]), {(1 - z) * n + z * h0}, 1e-14);
}

TEST(RnnCells, SingleBiasGoesBySlotName) {
  // GRU with x = h = 0: only biases act; b_hn is scaled by r, b_in is not.
  const Tensor x = tensor_of(DType::F64, {1, 1}, {0.0}), h = tensor_of(DType::F64, {1, 1}, {0.0});
  const Tensor w = tensor_of(DType::F64, {3, 1}, {1, 1, 1}), b = tensor_of(DType::F64, {3}, {0.5, 0.5, 0.5});
  const double z = sig(0.5), r = sig(0.5);
  auto hh = run_op("aten.gru_cell.default", {x, h, w, w, b}, {}, 1, {"x", "h", "p_w_ih", "p_w_hh", "p_bias_hh"});
  expect_near(vals(hh.out[0]), {(1 - z) * std::tanh(r * 0.5)}, 1e-14);
  auto ih = run_op("aten.gru_cell.default", {x, h, w, w, b}, {}, 1, {"x", "h", "p_w_ih", "p_w_hh", "p_bias_ih"});
  expect_near(vals(ih.out[0]), {(1 - z) * std::tanh(0.5)}, 1e-14);
}

// ====================== sequence ops vs chained cells =======================
// The sequence op must equal stepping the cell over time (forward) and over the
// reversed sequence (backward direction), layer 2 reading layer 1's concat.
struct Ref {
  std::vector<double> out;  // [T, B, D*H]
  std::vector<double> hn, cn;
};

Ref by_cells(const std::string& cell, bool lstm, const Tensor& x /*[T,B,I]*/, const std::vector<Tensor>& w,
             int64_t per, int64_t L, int64_t D, int64_t H, const Tensor& h0, const Tensor& c0) {
  const int64_t T = x.shape[0], Bn = x.shape[1];
  Ref ref;
  std::vector<double> layer_in = vals(x);
  int64_t in_size = x.shape[2];
  ref.hn.assign(size_t(L * D * Bn * H), 0), ref.cn = ref.hn;
  for (int64_t l = 0; l < L; ++l) {
    std::vector<double> out(size_t(T * Bn * D * H));
    for (int64_t d = 0; d < D; ++d) {
      const int64_t k = l * D + d;
      std::vector<double> hv = vals(h0), cv = lstm ? vals(c0) : std::vector<double>();
      std::vector<double> hk(hv.begin() + k * Bn * H, hv.begin() + (k + 1) * Bn * H), ck;
      if (lstm) ck.assign(cv.begin() + k * Bn * H, cv.begin() + (k + 1) * Bn * H);
      for (int64_t s = 0; s < T; ++s) {
        const int64_t t = d ? T - 1 - s : s;
        std::vector<double> xt(layer_in.begin() + t * Bn * in_size, layer_in.begin() + (t + 1) * Bn * in_size);
        std::vector<Tensor> ins{tensor_of(DType::F64, {Bn, in_size}, xt), tensor_of(DType::F64, {Bn, H}, hk)};
        if (lstm) ins.push_back(tensor_of(DType::F64, {Bn, H}, ck));
        for (int64_t j = 0; j < per; ++j) ins.push_back(to_dtype_owned(w[size_t(k * per + j)], DType::F64));
        AttrMap a;
        if (lstm) a["_tensor_list_sizes"] = ints({2});
        auto r = run_op(cell, ins, a, lstm ? 2 : 1);
        hk = vals(r.out[0]);
        if (lstm) ck = vals(r.out[1]);
        for (int64_t b = 0; b < Bn; ++b)
          for (int64_t j = 0; j < H; ++j) out[size_t((t * Bn + b) * D * H + d * H + j)] = hk[size_t(b * H + j)];
      }
      std::copy(hk.begin(), hk.end(), ref.hn.begin() + k * Bn * H);
      if (lstm) std::copy(ck.begin(), ck.end(), ref.cn.begin() + k * Bn * H);
    }
    layer_in = out;
    in_size = D * H;
  }
  ref.out = layer_in;
  return ref;
}

void check_seq_vs_cells(const std::string& op, const std::string& cell, int64_t G, bool lstm, bool bias, int64_t L,
                        bool bidir, uint32_t seed) {
  const int64_t T = 4, Bn = 3, In = 5, H = 3, D = bidir ? 2 : 1, per = bias ? 4 : 2;
  const Tensor x = rnd({T, Bn, In}, seed, DType::F32, 1.0);
  const Tensor h0 = rnd({L * D, Bn, H}, seed + 1), c0 = rnd({L * D, Bn, H}, seed + 2);
  std::vector<Tensor> w;
  for (int64_t l = 0; l < L; ++l)
    for (int64_t d = 0; d < D; ++d) {
      const int64_t ins = l ? D * H : In;
      const uint32_t s = seed + 10 * uint32_t(l * D + d + 1);
      w.push_back(rnd({G * H, ins}, s));
      w.push_back(rnd({G * H, H}, s + 1));
      if (bias) {
        w.push_back(rnd({G * H}, s + 2));
        w.push_back(rnd({G * H}, s + 3));
      }
    }
  std::vector<Tensor> ins{x, h0};
  if (lstm) ins.push_back(c0);
  ins.insert(ins.end(), w.begin(), w.end());
  auto r = run_op(op, ins, seq_attrs(lstm ? 2 : 0, int64_t(w.size()), bias, L, bidir, false), lstm ? 3 : 2);
  ASSERT_EQ(r.out[0].shape, (Shape{T, Bn, D * H}));
  ASSERT_EQ(r.out[1].shape, (Shape{L * D, Bn, H}));
  const Ref ref = by_cells(cell, lstm, x, w, per, L, D, H, h0, c0);
  expect_near(vals(r.out[0]), ref.out, 2e-6);
  expect_near(vals(r.out[1]), ref.hn, 2e-6);
  if (lstm) expect_near(vals(r.out[2]), ref.cn, 2e-6);
}

TEST(RnnSeq, MatchesChainedCells) {
  for (int bias = 0; bias < 2; ++bias)
    for (int bidir = 0; bidir < 2; ++bidir) {
      SCOPED_TRACE("bias=" + std::to_string(bias) + " bidir=" + std::to_string(bidir));
      check_seq_vs_cells("aten.lstm.input", "aten.lstm_cell.default", 4, true, bias, 2, bidir, 11);
      check_seq_vs_cells("aten.gru.input", "aten.gru_cell.default", 3, false, bias, 2, bidir, 22);
      check_seq_vs_cells("aten.rnn_tanh.input", "aten.rnn_tanh_cell.default", 1, false, bias, 2, bidir, 33);
      check_seq_vs_cells("aten.rnn_relu.input", "aten.rnn_relu_cell.default", 1, false, bias, 1, bidir, 44);
    }
}

TEST(RnnSeq, BatchFirstIsATranspose) {
  const int64_t T = 3, Bn = 2, In = 4, H = 5;
  const Tensor xb = rnd({Bn, T, In}, 7, DType::F32, 1.0);
  Tensor xt = make_owned(DType::F32, {T, Bn, In});
  copy_into(xt, xb.view_as({T, Bn, In}, {In, T * In, 1}, 0));
  const Tensor h0 = rnd({1, Bn, H}, 8);
  std::vector<Tensor> w{rnd({3 * H, In}, 9), rnd({3 * H, H}, 10), rnd({3 * H}, 11), rnd({3 * H}, 12)};
  auto run = [&](const Tensor& x, bool bf) {
    std::vector<Tensor> ins{x, h0};
    ins.insert(ins.end(), w.begin(), w.end());
    return run_op("aten.gru.input", ins, seq_attrs(0, 4, true, 1, false, bf), 2);
  };
  auto a = run(xb, true), b = run(xt, false);
  ASSERT_EQ(a.out[0].shape, (Shape{Bn, T, H}));
  Tensor a_tm = make_owned(DType::F32, {T, Bn, H});
  copy_into(a_tm, a.out[0].view_as({T, Bn, H}, {H, T * H, 1}, 0));
  expect_near(vals(a_tm), vals(b.out[0]), 0);
  expect_near(vals(a.out[1]), vals(b.out[1]), 0);
}

TEST(RnnSeq, UnbatchedAndProjShapes) {
  // Unbatched: input [T, I], hx [L*D, H] -> output [T, D*H], h_n [L*D, H].
  const Tensor x = rnd({3, 4}, 1);
  std::vector<Tensor> ins{x, rnd({2, 5}, 2), rnd({2, 5}, 3)};
  for (int d = 0; d < 2; ++d)
    for (auto s : std::vector<Shape>{{20, 4}, {20, 5}, {20}, {20}}) ins.push_back(rnd(s, 4 + uint32_t(d)));
  auto r = run_op("aten.lstm.input", ins, seq_attrs(2, 8, true, 1, true, true), 3);
  EXPECT_EQ(r.out[0].shape, (Shape{3, 10}));
  EXPECT_EQ(r.out[1].shape, (Shape{2, 5}));
  EXPECT_EQ(r.out[2].shape, (Shape{2, 5}));
  // proj_size 3: w_hh [4H, P], w_hr [P, H]; output and h_n have P, c_n has H.
  std::vector<Tensor> p{rnd({3, 2, 4}, 5), rnd({1, 2, 3}, 6), rnd({1, 2, 5}, 7), rnd({20, 4}, 8),
                        rnd({20, 3}, 9),   rnd({20}, 10),      rnd({20}, 11),     rnd({3, 5}, 12)};
  auto q = run_op("aten.lstm.input", p, seq_attrs(2, 5, true, 1, false, false), 3);
  EXPECT_EQ(q.out[0].shape, (Shape{3, 2, 3}));
  EXPECT_EQ(q.out[1].shape, (Shape{1, 2, 3}));
  EXPECT_EQ(q.out[2].shape, (Shape{1, 2, 5}));
  // The last step's output is h_n.
  const auto o = vals(q.out[0]), hn = vals(q.out[1]);
  expect_near(std::vector<double>(o.end() - 6, o.end()), hn, 0);
}

TEST(RnnSeq, ZeroLengthSequenceKeepsInitialState) {
  const Tensor h0 = rnd({1, 2, 3}, 1);
  auto r = run_op("aten.rnn_tanh.input", {rnd({0, 2, 4}, 2), h0, rnd({3, 4}, 3), rnd({3, 3}, 4)},
                  seq_attrs(0, 2, false, 1, false, false), 2);
  EXPECT_EQ(r.out[0].shape, (Shape{0, 2, 3}));
  expect_near(vals(r.out[1]), vals(h0), 0);
}

TEST(RnnSeq, Errors) {
  const Tensor x = rnd({3, 2, 4}, 1), h = rnd({1, 2, 5}, 2);
  const Tensor wih = rnd({15, 4}, 3), whh = rnd({15, 5}, 4), b = rnd({15}, 5);
  // has_biases=true but only 2 params.
  EXPECT_THAT(error_of([&] { run_op("aten.gru.input", {x, h, wih, whh}, seq_attrs(0, 2, true, 1, false, false), 2); }),
              HasSubstr("2 params do not fit num_layers=1"));
  // hx of the wrong shape.
  EXPECT_THAT(error_of([&] {
                run_op("aten.gru.input", {x, rnd({1, 2, 4}, 6), wih, whh, b, b}, seq_attrs(0, 4, true, 1, false, false), 2);
              }),
              HasSubstr("hx must have shape [1, 2, 5]"));
  // weight_ih of the wrong input size.
  EXPECT_THAT(error_of([&] {
                run_op("aten.gru.input", {x, h, rnd({15, 3}, 7), whh, b, b}, seq_attrs(0, 4, true, 1, false, false), 2);
              }),
              HasSubstr("weight_ih_l0 must have shape [15, 4]"));
  // Training dropout.
  AttrMap a = seq_attrs(0, 4, true, 1, false, false);
  a["train"] = B(true);
  a["dropout"] = F(0.5);
  EXPECT_THAT(error_of([&] { run_op("aten.gru.input", {x, h, wih, whh, b, b}, a, 2); }), HasSubstr("dropout"));
  // Integer input.
  EXPECT_THAT(error_of([&] {
                run_op("aten.gru.input", {to_dtype_owned(x, DType::I64), h, wih, whh, b, b},
                       seq_attrs(0, 4, true, 1, false, false), 2);
              }),
              HasSubstr("float32/float64"));
  // Cell with a 3-D input.
  EXPECT_THAT(error_of([&] { run_op("aten.gru_cell.default", {x, h, wih, whh}); }), HasSubstr("1-D or 2-D"));
}

// ================================ RoPE ======================================
// Expected values straight from the formula (HF LlamaRotaryEmbedding, scaling 1).
void expect_rope(const OpRun& r, const std::vector<double>& inv, const std::vector<double>& pos, int64_t Bn,
                 int64_t S, bool inv_per_batch = false) {
  const int64_t H = int64_t(inv.size()) / (inv_per_batch ? Bn : 1);
  ASSERT_EQ(r.out.size(), 2u);
  ASSERT_EQ(r.out[0].shape, (Shape{Bn, S, 2 * H}));
  const auto c = vals(r.out[0]), s = vals(r.out[1]);
  for (int64_t b = 0; b < Bn; ++b)
    for (int64_t t = 0; t < S; ++t)
      for (int64_t j = 0; j < 2 * H; ++j) {
        const float a = float(pos[size_t(b * S + t)]) * float(inv[size_t((inv_per_batch ? b * H : 0) + j % H)]);
        const size_t k = size_t((b * S + t) * 2 * H + j);
        EXPECT_NEAR(c[k], std::cos(a), 1e-6) << k;
        EXPECT_NEAR(s[k], std::sin(a), 1e-6) << k;
      }
}

TEST(Rope, PositionsBSAndB1S) {
  const std::vector<double> inv{1.0, 0.1, 0.01};
  const std::vector<double> pos{0, 1, 2, 3, 7, 100, 5, 9};
  for (const char* op : {"wrap_with_set_grad_enabled", "wrap_with_autocast"}) {
    SCOPED_TRACE(op);
    auto r = run_op(op, {tensor_of(DType::F32, {3}, inv), tensor_of(DType::I64, {2, 4}, pos)}, {}, 2,
                    {"b_rotary_emb_inv_freq", "position_ids"}, {{2, 4, 6}, {2, 4, 6}});
    expect_rope(r, inv, pos, 2, 4);
    auto u = run_op(op, {tensor_of(DType::F32, {3}, inv), tensor_of(DType::F32, {2, 1, 4}, pos)}, {}, 2, {},
                    {{2, 4, 6}, {2, 4, 6}});
    expect_rope(u, inv, pos, 2, 4);
  }
}

TEST(Rope, ExpandedInvFreqAndSwappedOperands) {
  // HF: inv_freq[None, :, None].expand(B, -1, 1) with positions [B, 1, S], either order.
  const std::vector<double> inv1{0.5, 0.25};
  const Tensor base = tensor_of(DType::F32, {1, 2, 1}, inv1);
  const Tensor expanded = base.view_as({3, 2, 1}, {0, 1, 1}, 0);  // stride-0 batch dim
  const std::vector<double> pos{1, 2, 3, 4, 5, 6};
  auto r = run_op("wrap_with_autocast", {tensor_of(DType::I64, {3, 1, 2}, pos), expanded}, {}, 2, {"pos", "inv"},
                  {{3, 2, 4}, {3, 2, 4}});
  expect_rope(r, {0.5, 0.25, 0.5, 0.25, 0.5, 0.25}, pos, 3, 2, true);
  // The name decides when both orders fit (H == B*S).
  auto n = run_op("wrap_with_autocast", {tensor_of(DType::F32, {1, 2}, {3, 4}), tensor_of(DType::F32, {2}, inv1)}, {},
                  2, {"position_ids", "b_inv_freq"}, {{1, 2, 4}, {1, 2, 4}});
  expect_rope(n, inv1, {3, 4}, 1, 2);
  // Qwen2 on torch 2.6/2.14: ("expand" [1,H,1], "to_1" [1,1,S]) with H == S; the layout decides.
  const std::vector<double> inv4{1.0, 0.5, 0.25, 0.125}, pos4{0, 1, 2, 3};
  for (int swap = 0; swap < 2; ++swap) {
    std::vector<Tensor> ops{tensor_of(DType::F32, {1, 4, 1}, inv4), tensor_of(DType::F32, {1, 1, 4}, pos4)};
    if (swap) std::swap(ops[0], ops[1]);
    auto q = run_op("wrap_with_autocast", ops, {}, 2, {}, {{1, 4, 8}, {1, 4, 8}});
    expect_rope(q, inv4, pos4, 1, 4);
  }
}

TEST(Rope, OtherBodiesFailAtPlan) {
  const Tensor a = tensor_of(DType::F32, {3}, {1, 2, 3});
  const std::string three = error_of([&] {
    run_op("wrap_with_set_grad_enabled", {a, a, a}, {}, 2, {}, {{1, 3, 6}, {1, 3, 6}});
  });
  EXPECT_THAT(three, HasSubstr("n1"));
  EXPECT_THAT(three, HasSubstr("body of higher-order op 'wrap_with_set_grad_enabled' is not in the IR file"));
  EXPECT_THAT(three, HasSubstr("expected 2 operands, got 3"));
  EXPECT_THAT(three, HasSubstr("float32[3], float32[3], float32[3]"));
  EXPECT_THAT(error_of([&] { run_op("wrap_with_autocast", {a, a}, {}, 1, {}, {{1, 3, 6}}); }),
              HasSubstr("expected 2 outputs, got 1"));
  EXPECT_THAT(error_of([&] { run_op("wrap_with_autocast", {a, a}, {}, 2, {}, {{1, 3, 5}, {1, 3, 5}}); }),
              HasSubstr("[B,S,D] shapes with even D"));
  EXPECT_THAT(error_of([&] {
                run_op("wrap_with_autocast", {a, tensor_of(DType::I64, {1, 4}, {0, 1, 2, 3})}, {}, 2, {},
                       {{1, 4, 4}, {1, 4, 4}});
              }),
              HasSubstr("do not match inv_freq [D/2] and positions [B,S]"));
}

}  // namespace
}  // namespace tir
