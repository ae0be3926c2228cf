// Load-time weight quantization (SessionOptions::weight_quantization, the package's weightDtype
// 'int8' / 'int4'): a float32 linear runs on the integer kernels with its weight quantized at
// prepare (symmetric, per output channel or per group of K) and each input row quantized at run
// (asymmetric int8, choose_qparams' rule). The result equals a direct emulation of that recipe
// (integer sums, then the kernels' float steps), and sits within the quantization's error of the
// float64 linear. Bad group sizes are refused; a linear the kernels refuse keeps float.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ir/json_loader.h"
#include "runtime/session.h"
#include "test_util.h"

using namespace tir;
using namespace tir::test;

namespace {

std::string meta(const std::string& name, int64_t a, int64_t b, const std::string& producer = "") {
  return R"({"name": ")" + name + R"(", "shape": [)" + std::to_string(a) + (b ? ", " + std::to_string(b) : "") +
         R"(], "dtype": "float32")" + (producer.empty() ? "" : R"(, "producer_node": ")" + producer + "\"") + "}";
}

// y = relu(linear(x [M, K], w [N, K], b [N]))
std::string linear_ir(int64_t M, int64_t K, int64_t N) {
  return R"({"model_name": "q", "graph_inputs": [)" + meta("x", M, K) + R"(], "graph_outputs": [)" +
         meta("r", M, N, "r") + R"(], "weights": [)" + meta("p_w", N, K) + "," + meta("p_b", N, 0) +
         R"(], "weight_name_mapping": {"p_w": "w", "p_b": "b"}, "nodes": [)" +
         R"({"name": "l", "op_type": "aten.linear.default", "inputs": [)" + meta("x", M, K) + "," + meta("p_w", N, K) +
         "," + meta("p_b", N, 0) + R"(], "outputs": [)" + meta("l", M, N) + R"(], "attrs": {}},)" +
         R"({"name": "r", "op_type": "aten.relu.default", "inputs": [)" + meta("l", M, N, "l") + R"(], "outputs": [)" +
         meta("r", M, N) + R"(], "attrs": {}}]})";
}

// The documented recipe, written out: symmetric weights per block of G (G = K: per channel),
// asymmetric rows.
std::vector<float> emulate(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& b,
                           int64_t M, int64_t K, int64_t N, int64_t G, int qmax_w) {
  const float eps = std::numeric_limits<float>::epsilon();
  const int64_t groups = K / G;
  std::vector<int> qw(size_t(N * K));
  std::vector<float> sw(size_t(N * groups));
  for (int64_t i = 0; i < N * groups; ++i) {
    float amax = 0;
    for (int64_t k = 0; k < G; ++k) amax = std::fmax(amax, std::fabs(w[size_t(i * G + k)]));
    const float s = std::fmax(amax / (float(2 * qmax_w + 1) / 2.0f), eps);
    sw[size_t(i)] = s;
    const float inv = float(1.0 / double(s));
    for (int64_t k = 0; k < G; ++k)
      qw[size_t(i * G + k)] = int(std::fmin(std::fmax(std::nearbyint(w[size_t(i * G + k)] * inv), float(-qmax_w - 1)), float(qmax_w)));
  }
  std::vector<float> y(size_t(M * N));
  for (int64_t m = 0; m < M; ++m) {
    float lo = 0, hi = 0;
    for (int64_t k = 0; k < K; ++k) lo = std::fmin(lo, x[size_t(m * K + k)]), hi = std::fmax(hi, x[size_t(m * K + k)]);
    const float s = std::fmax((hi - lo) / 255.0f, eps);
    const float z = std::fmin(std::fmax(-128.0f - std::nearbyint(lo / s), -128.0f), 127.0f);
    const float inv = float(1.0 / double(s));
    std::vector<int> qa(static_cast<size_t>(K));
    for (int64_t k = 0; k < K; ++k)
      qa[size_t(k)] = int(std::fmin(std::fmax(std::nearbyint(x[size_t(m * K + k)] * inv) + z, -128.0f), 127.0f)) - int(z);
    for (int64_t n = 0; n < N; ++n) {
      float f = 0;
      for (int64_t g = 0; g < groups; ++g) {
        int acc = 0;
        for (int64_t k = g * G; k < g * G + G; ++k) acc += qa[size_t(k)] * qw[size_t(n * K + k)];
        // per channel: float(acc) * (rs * cs); per group: sum_g float(acc_g) * cs_g, then * rs
        const float t = G == K ? float(acc) * (s * sw[size_t(n)]) : float(acc) * sw[size_t(n * groups + g)];
        f = g == 0 ? t : f + t;
      }
      const float v = (G == K ? f : f * s) + b[size_t(n)];
      y[size_t(m * N + n)] = v < 0 ? 0 : v;
    }
  }
  return y;
}

std::vector<float> run(const std::string& weight_dtype, const std::string& ir, const TensorMap& weights, const Tensor& x) {
  SessionOptions o;
  EXPECT_TRUE(parse_weight_dtype(weight_dtype, &o)) << weight_dtype;
  Session s(load_model_json(ir), o);
  s.bind(weights);
  return values_f32(s.run({x})[0]);
}

TEST(WeightQuantization, Int8AndInt4FollowTheRecipeAndStayNearFloat64) {
  for (int64_t M : {1, 6})
    for (auto [K, N] : {std::pair<int64_t, int64_t>{64, 24}, {96, 9}}) {
      const auto w = random_vec(size_t(N * K), 11), b = random_vec(size_t(N), 12), xv = random_vec(size_t(M * K), 13);
      TensorMap weights;
      weights.set("w", tensor_f32({N, K}, w));
      weights.set("b", tensor_f32({N}, b));
      const Tensor x = tensor_f32({M, K}, xv);
      const std::string ir = linear_ir(M, K, N);
      const auto f32 = run("float32", ir, weights, x);
      for (auto [dt, G, qmax, bound] : {std::tuple<const char*, int64_t, int, double>{"int8", K, 127, 0.02},
                                        {"int4", 32, 7, 0.25}, {"int4:16", 16, 7, 0.25}}) {
        SCOPED_TRACE(std::string(dt) + " M=" + std::to_string(M) + " K=" + std::to_string(K));
        const auto got = run(dt, ir, weights, x);
        const auto want = emulate(xv, w, b, M, K, N, G, qmax);
        double ymax = 0, err = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          EXPECT_NEAR(got[i], want[i], 1e-6 * (1 + std::fabs(want[i]))) << i;
          ymax = std::fmax(ymax, std::fabs(f32[i]));
          err = std::fmax(err, std::fabs(double(got[i]) - f32[i]));
        }
        EXPECT_GT(err, 0) << "the float weights were used";
        EXPECT_LT(err, bound * ymax) << "quantization error " << err << " of max |y| " << ymax;
      }
    }
}

TEST(WeightQuantization, ParsesItsSpellingsAndRefusesOthers) {
  for (const char* bad : {"int3", "int4:", "int4:6", "int4:0", "int4:x", "int4:-8", "uint8"}) {
    SessionOptions o;
    EXPECT_FALSE(parse_weight_dtype(bad, &o)) << bad;
  }
  SessionOptions o;
  ASSERT_TRUE(parse_weight_dtype("int4:64", &o));
  EXPECT_EQ(o.weight_quantization, SessionOptions::WeightQuantization::Int4);
  EXPECT_EQ(o.weight_group_size, 64);
  ASSERT_TRUE(parse_weight_dtype("float16", &o));
  EXPECT_EQ(o.weight_dtype, DType::F16);
}

TEST(WeightQuantization, AGroupThatDoesNotDivideKKeepsFloat) {
  // K = 36 is not a multiple of 32: the int4 form refuses, the linear stays float32 (bit-equal)
  const int64_t M = 3, K = 36, N = 5;
  TensorMap weights;
  weights.set("w", tensor_f32({N, K}, random_vec(size_t(N * K), 21)));
  weights.set("b", tensor_f32({N}, random_vec(size_t(N), 22)));
  const Tensor x = tensor_f32({M, K}, random_vec(size_t(M * K), 23));
  EXPECT_EQ(run("int4", linear_ir(M, K, N), weights, x), run("float32", linear_ir(M, K, N), weights, x));
  EXPECT_NE(run("int4:4", linear_ir(M, K, N), weights, x), run("float32", linear_ir(M, K, N), weights, x));
}

}  // namespace
