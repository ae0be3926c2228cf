// LibTorch parity for the recurrent ops (lstm/gru/rnn_tanh/rnn_relu .input and
// the cells) and for the higher-order RoPE ops (the reference backend runs the
// RoPE pattern with ATen ops: mul/cat/cos/sin).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ir/json_loader.h"
#include "parity/parity_util.h"
#include "weights/tensor_map.h"

namespace tir {
namespace {

using parity::in;

struct RnnCase {
  std::string kind = "lstm";  // lstm, gru, rnn_tanh, rnn_relu
  bool bias = true;
  int64_t L = 1;
  bool bidir = false, batch_first = false, unbatched = false, x_transposed = false;
  int64_t T = 4, B = 3, I = 5, H = 6, P = 0;  // P: LSTM proj_size
  DType dt = DType::F32;
};

int64_t gates(const std::string& kind) { return kind == "lstm" ? 4 : kind == "gru" ? 3 : 1; }

std::string b(bool v) { return v ? "true" : "false"; }

::testing::AssertionResult seq_parity(const RnnCase& c) {
  const bool lstm = c.kind == "lstm";
  const int64_t G = gates(c.kind), D = c.bidir ? 2 : 1, O = c.P ? c.P : c.H;
  std::vector<ParityInput> ins;
  Shape xs = c.unbatched ? Shape{c.T, c.I} : c.batch_first ? Shape{c.B, c.T, c.I} : Shape{c.T, c.B, c.I};
  ins.push_back(c.x_transposed ? parity::tr(xs, c.dt, -1, 1) : in(xs, c.dt, -1, 1));
  auto state = [&](int64_t n) { return c.unbatched ? Shape{c.L * D, n} : Shape{c.L * D, c.B, n}; };
  ins.push_back(in(state(O), c.dt, -1, 1));
  if (lstm) ins.push_back(in(state(c.H), c.dt, -1, 1));
  const std::string sizes = parity::append_rnn_weights(ins, lstm, G, c.I, c.H, c.P, c.L, c.bidir, c.bias, c.dt);
  const std::string attrs = "{\"_tensor_list_sizes\":" + sizes + ",\"has_biases\":" + b(c.bias) +
                            ",\"num_layers\":" + std::to_string(c.L) + ",\"dropout\":0.0,\"train\":false," +
                            "\"bidirectional\":" + b(c.bidir) + ",\"batch_first\":" + b(c.batch_first) + "}";
  const double tol = c.dt == DType::F64 ? 1e-12 : 1e-5;
  return node_parity("aten." + c.kind + ".input", ins, attrs, tol, tol, 7);
}

const char* kKinds[] = {"lstm", "gru", "rnn_tanh", "rnn_relu"};

TEST(RnnParity, SingleLayer) {
  for (const char* k : kKinds) {
    RnnCase c;
    c.kind = k;
    EXPECT_TRUE(seq_parity(c));
    c.bias = false;
    EXPECT_TRUE(seq_parity(c));
  }
}

TEST(RnnParity, MultiLayerBidirectional) {
  for (const char* k : kKinds)
    for (int bias = 0; bias < 2; ++bias) {
      RnnCase c;
      c.kind = k;
      c.bias = bias;
      c.L = 3;
      c.bidir = true;
      EXPECT_TRUE(seq_parity(c));
      c.L = 2;
      c.bidir = false;
      EXPECT_TRUE(seq_parity(c));
    }
}

TEST(RnnParity, BatchFirst) {
  for (const char* k : kKinds) {
    RnnCase c;
    c.kind = k;
    c.batch_first = true;
    c.L = 2;
    c.bidir = true;
    EXPECT_TRUE(seq_parity(c));
    c.x_transposed = true;  // non-contiguous input view
    EXPECT_TRUE(seq_parity(c));
  }
}

TEST(RnnParity, SeqLenOneBatchOneAndOddSizes) {
  for (const char* k : kKinds) {
    RnnCase c;
    c.kind = k;
    c.T = 1;
    EXPECT_TRUE(seq_parity(c));
    c.T = 5;
    c.B = 1;
    c.bidir = true;
    EXPECT_TRUE(seq_parity(c));
    c.T = 7, c.B = 2, c.I = 1, c.H = 1;
    c.batch_first = true;
    EXPECT_TRUE(seq_parity(c));
  }
}

TEST(RnnParity, Float64) {
  for (const char* k : kKinds) {
    RnnCase c;
    c.kind = k;
    c.dt = DType::F64;
    c.L = 2;
    c.bidir = true;
    c.batch_first = true;
    EXPECT_TRUE(seq_parity(c));
  }
}

TEST(RnnParity, LstmProjSize) {
  RnnCase c;
  c.P = 3;
  EXPECT_TRUE(seq_parity(c));
  c.L = 2;
  c.bidir = true;
  c.bias = false;
  EXPECT_TRUE(seq_parity(c));
  c.dt = DType::F64;
  c.batch_first = true;
  EXPECT_TRUE(seq_parity(c));
}

TEST(RnnParity, UnbatchedInput) {
  // LibTorch's aten::lstm / aten::gru reject 2-D input (nn.LSTM unsqueezes before calling
  // them); rnn_tanh/rnn_relu accept it, with output [T, D*H] and h_n [L*D, H].
  for (const char* k : {"rnn_tanh", "rnn_relu"}) {
    RnnCase c;
    c.kind = k;
    c.unbatched = true;
    EXPECT_TRUE(seq_parity(c));
    c.L = 2;
    EXPECT_TRUE(seq_parity(c));
  }
}

TEST(RnnParity, Cells) {
  for (const char* k : kKinds) {
    const bool lstm = std::string(k) == "lstm";
    const int64_t G = gates(k);
    for (DType dt : {DType::F32, DType::F64})
      for (int64_t Bn : {1, 4})
        for (int nb = 0; nb <= 2; nb += 2) {  // with both biases / none
          std::vector<ParityInput> ins{in({Bn, 5}, dt, -1, 1), in({Bn, 3}, dt, -1, 1)};
          if (lstm) ins.push_back(in({Bn, 3}, dt, -1, 1));
          ins.push_back(in({G * 3, 5}, dt, -0.5, 0.5));
          ins.push_back(in({G * 3, 3}, dt, -0.5, 0.5));
          for (int j = 0; j < nb; ++j) ins.push_back(in({G * 3}, dt, -0.5, 0.5));
          const double tol = dt == DType::F64 ? 1e-12 : 1e-5;
          EXPECT_TRUE(node_parity(std::string("aten.") + k + "_cell.default", ins,
                                  lstm ? R"({"_tensor_list_sizes":[2]})" : "{}", tol, tol));
        }
  }
}

// ---- RoPE through wrap_with_autocast / wrap_with_set_grad_enabled ----

std::string meta(const std::string& name, const Shape& s, const char* dt, const std::string& producer = "",
                 int idx = 0) {
  std::string j = "{\"name\":\"" + name + "\",\"shape\":[";
  for (size_t k = 0; k < s.size(); ++k) j += (k ? "," : "") + std::to_string(s[k]);
  j += "],\"dtype\":\"" + std::string(dt) + "\"";
  if (!producer.empty()) j += ",\"producer_node\":\"" + producer + "\",\"producer_output_idx\":" + std::to_string(idx);
  return j + "}";
}

// inv_freq is the non-persistent buffer b_rotary_emb_inv_freq (bound as a constant, as after a
// meta extraction); positions are a graph input; two getitem nodes pick cos and sin.
::testing::AssertionResult rope_parity(const std::string& op, int64_t Bn, int64_t S, int64_t H, bool pos_b1s,
                                       const char* out_dt) {
  const Shape pos_shape = pos_b1s ? Shape{Bn, 1, S} : Shape{Bn, S};
  const Shape os{Bn, S, 2 * H};
  const std::string inv = meta("b_rotary_emb_inv_freq", {H}, "float32");
  const std::string pos = meta("position_ids", pos_shape, "int64", "position_ids");
  const std::string outs = meta("rope_0", os, out_dt) + "," + meta("rope_1", os, out_dt);
  const std::string hop_outs = meta("rope_0", os, out_dt, "rope", 0) + "," + meta("rope_1", os, out_dt, "rope", 1);
  std::string json = "{\"model_name\":\"rope\",\"graph_inputs\":[" + meta("position_ids", pos_shape, "int64") +
                     "],\"weights\":[" + meta("rotary_emb.inv_freq", {H}, "float32") +
                     "],\"weight_name_mapping\":{\"b_rotary_emb_inv_freq\":\"rotary_emb.inv_freq\"},\"nodes\":[" +
                     "{\"name\":\"rope\",\"op_type\":\"" + op + "\",\"inputs\":[" + inv + "," + pos +
                     "],\"outputs\":[" + outs + "],\"attrs\":{}}";
  for (int k = 0; k < 2; ++k)
    json += ",{\"name\":\"getitem_" + std::to_string(k) +
            "\",\"op_type\":\"<built-in function getitem>\",\"inputs\":[" + hop_outs + "],\"outputs\":[" +
            meta("getitem_" + std::to_string(k), os, out_dt) + "],\"attrs\":{\"index\":" + std::to_string(k) + "}}";
  json += "],\"graph_outputs\":[" + meta("getitem_0", os, out_dt, "getitem_0") + "," +
          meta("getitem_1", os, out_dt, "getitem_1") + "]}";
  const Model model = load_model_json(json, "rope_parity");
  // HF default RoPE: inv_freq = 1 / 10000^(2j/D).
  std::vector<double> invv;
  for (int64_t j = 0; j < H; ++j) invv.push_back(1.0 / std::pow(10000.0, double(2 * j) / double(2 * H)));
  ParityInput iv = in({H});
  iv.values = invv;
  ParityInput pv = in(pos_shape, DType::I64, 0, 2048);
  TensorMap constants;
  constants.set("rotary_emb.inv_freq", parity::make_input(iv, 1));
  return model_parity(model, {}, constants, {parity::make_input(pv, 2)});
}

TEST(RopeParity, HigherOrderOps) {
  for (const char* op : {"wrap_with_autocast", "wrap_with_set_grad_enabled"}) {
    EXPECT_TRUE(rope_parity(op, 2, 7, 8, false, "float32"));
    EXPECT_TRUE(rope_parity(op, 1, 1, 4, true, "float32"));
    EXPECT_TRUE(rope_parity(op, 3, 5, 16, true, "float64"));
  }
}

}  // namespace
}  // namespace tir
