// The lowered int8 conv2d (ops/conv_int8.cpp) on awkward geometry: PT2E's pattern
// conv2d(DQ(Q(x)), DQ(W per channel), bias) with the lowering on (integer kernel: patches
// laid out from the channels-last image, exact int32 sums) against the same graph on the
// reference ops (float conv of the dequantized values). Both sum the same integers times the
// same scales, so they agree to float rounding; a misplaced patch value would not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ir/json_loader.h"
#include "runtime/session.h"
#include "op_test_util.h"
#include "test_util.h"

using namespace tir;
using namespace tir::test;

namespace {

std::string shape_json(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}
std::string meta(const std::string& name, const std::vector<int64_t>& shape, const std::string& dtype,
                 const std::string& producer = "") {
  return R"({"name": ")" + name + R"(", "shape": )" + shape_json(shape) + R"(, "dtype": ")" + dtype + "\"" +
         (producer.empty() ? "" : R"(, "producer_node": ")" + producer + "\"") + "}";
}

struct Geometry {
  int64_t C, H, W, OC, kh, kw, sh, sw, ph, pw, dh, dw;
};

std::string conv_ir(const Geometry& g, int64_t oh, int64_t ow) {
  const std::vector<int64_t> xs{1, g.C, g.H, g.W}, ws{g.OC, g.C, g.kh, g.kw}, ys{1, g.OC, oh, ow};
  const std::string qattrs = R"("scale": 0.05, "zero_point": 3, "quant_min": -128, "quant_max": 127, "dtype": "torch.int8")";
  const std::string wattrs = R"("axis": 0, "quant_min": -127, "quant_max": 127, "dtype": "torch.int8")";
  return R"({"model_name": "c", "graph_inputs": [)" + meta("x", xs, "float32") + R"(], "graph_outputs": [)" +
         meta("y", ys, "float32", "y") + R"(], "weights": [)" + meta("p_w", ws, "int8") + "," +
         meta("p_s", {g.OC}, "float32") + "," + meta("p_z", {g.OC}, "int64") + "," + meta("p_b", {g.OC}, "float32") +
         R"(], "weight_name_mapping": {"p_w": "w", "p_s": "s", "p_z": "z", "p_b": "b"}, "nodes": [)" +
         R"({"name": "q", "op_type": "quantized_decomposed.quantize_per_tensor.default", "inputs": [)" +
         meta("x", xs, "float32") + R"(], "outputs": [)" + meta("q", xs, "int8") + R"(], "attrs": {)" + qattrs +
         "}}," + R"({"name": "dq", "op_type": "quantized_decomposed.dequantize_per_tensor.default", "inputs": [)" +
         meta("q", xs, "int8", "q") + R"(], "outputs": [)" + meta("dq", xs, "float32") + R"(], "attrs": {)" + qattrs +
         "}}," + R"({"name": "dw", "op_type": "quantized_decomposed.dequantize_per_channel.default", "inputs": [)" +
         meta("p_w", ws, "int8") + "," + meta("p_s", {g.OC}, "float32") + "," + meta("p_z", {g.OC}, "int64") +
         R"(], "outputs": [)" + meta("dw", ws, "float32") + R"(], "attrs": {)" + wattrs + "}}," +
         R"({"name": "y", "op_type": "aten.conv2d.default", "inputs": [)" + meta("dq", xs, "float32", "dq") + "," +
         meta("dw", ws, "float32", "dw") + "," + meta("p_b", {g.OC}, "float32") + R"(], "outputs": [)" +
         meta("y", ys, "float32") + R"(], "attrs": {"stride": )" + shape_json({g.sh, g.sw}) + R"(, "padding": )" +
         shape_json({g.ph, g.pw}) + R"(, "dilation": )" + shape_json({g.dh, g.dw}) + R"(, "groups": 1}}]})";
}

TEST(ConvInt8, AwkwardGeometryMatchesTheReferenceOps) {
  const Geometry cases[] = {
      {3, 23, 21, 8, 7, 7, 2, 2, 3, 3, 1, 1},   // ResNet's stem, odd sizes
      {1, 5, 6, 3, 3, 3, 1, 1, 1, 1, 1, 1},     // one channel
      {5, 9, 11, 4, 3, 2, 1, 3, 2, 0, 2, 3},    // dilation, asymmetric stride and padding
      {2, 4, 3, 5, 5, 5, 1, 1, 4, 4, 1, 1},     // padding wider than the image
      {4, 8, 8, 9, 1, 1, 2, 2, 0, 0, 1, 1},     // 1 x 1, stride 2
      {3, 7, 7, 2, 3, 3, 3, 2, 0, 1, 2, 2},     // dilation 2 with stride 3
      {6, 3, 20, 7, 1, 9, 1, 1, 0, 5, 1, 2},    // a wide row kernel, dilated
  };
  for (const Geometry& g : cases) {
    const int64_t oh = (g.H + 2 * g.ph - g.dh * (g.kh - 1) - 1) / g.sh + 1;
    const int64_t ow = (g.W + 2 * g.pw - g.dw * (g.kw - 1) - 1) / g.sw + 1;
    SCOPED_TRACE("C " + std::to_string(g.C) + " " + std::to_string(g.kh) + "x" + std::to_string(g.kw));
    ASSERT_GT(oh, 0);
    ASSERT_GT(ow, 0);
    const int64_t K = g.C * g.kh * g.kw;
    std::vector<double> xv(size_t(g.C * g.H * g.W)), wv(size_t(g.OC * K)), sv(size_t(g.OC)), zv(size_t(g.OC), 0),
        bv(size_t(g.OC));
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::sin(double(i) * 0.7) * 3;
    for (size_t i = 0; i < wv.size(); ++i) wv[i] = double(int64_t(i * 37 % 255) - 127);
    for (size_t i = 0; i < sv.size(); ++i) sv[i] = 0.001 * double(i + 1), bv[i] = 0.1 * double(i) - 0.2;
    TensorMap weights;
    weights.set("w", tensor_of(DType::I8, {g.OC, g.C, g.kh, g.kw}, wv));
    weights.set("s", tensor_of(DType::F32, {g.OC}, sv));
    weights.set("z", tensor_of(DType::I64, {g.OC}, zv));
    weights.set("b", tensor_of(DType::F32, {g.OC}, bv));
    const Tensor x = tensor_of(DType::F32, {1, g.C, g.H, g.W}, xv);
    std::vector<std::vector<float>> out;
    for (bool lower : {true, false}) {
      SessionOptions o;
      o.lower_quantized = lower;
      Session s(load_model_json(conv_ir(g, oh, ow)), o);
      s.bind(weights);
      s.set_profiling(true);
      out.push_back(values_f32(s.run({x})[0]));
      bool ran_quantize = false;
      for (const auto& t : s.last_profile()) ran_quantize = ran_quantize || t.node == "q";
      EXPECT_EQ(ran_quantize, !lower) << (lower ? "the lowered conv quantizes x itself" : "reference ops");
    }
    ASSERT_EQ(out[0].size(), size_t(g.OC * oh * ow));
    double scale = 0, worst = 0;
    for (size_t i = 0; i < out[0].size(); ++i) {
      scale = std::max(scale, std::fabs(double(out[1][i])));
      worst = std::max(worst, std::fabs(double(out[0][i]) - double(out[1][i])));
    }
    EXPECT_LE(worst, 1e-5 * std::max(scale, 1.0)) << "max |lowered - reference| " << worst << " of " << scale;
  }
}

}  // namespace
