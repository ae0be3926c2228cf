// The quantization ops (ops/quantize*.cpp) on what the PyTorch-made cases
// (tests/fixtures/ops2, tools/gen_ops2_cases.py) do not cover: non-contiguous
// inputs, the two rounding orders side by side, and hostile parameters, which must
// give PyTorch's value where it has one and a clear error naming the node where
// PyTorch raises.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/thread_pool.h"
#include "op_test_util.h"

using namespace tir;
using namespace tir::test;

namespace {

const std::string kQ = "quantized_decomposed.";

std::vector<double> values(const Tensor& t) {
  const Tensor c = to_dtype_owned(t, DType::F64);
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

AttrMap per_tensor_attrs(double scale, int64_t zp, int64_t qmin, int64_t qmax, const std::string& dtype) {
  return {{"scale", F(scale)}, {"zero_point", I(zp)}, {"quant_min", I(qmin)}, {"quant_max", I(qmax)},
          {"dtype", S(dtype)}};
}

TEST(QuantizeOps, PerTensorRoundsHalfToEvenThenAddsTheZeroPoint) {
  const Tensor x = tensor_of(DType::F32, {6}, {0.25, 0.75, 1.25, -0.25, -0.75, 100});
  // x / 0.5 = 0.5, 1.5, 2.5, -0.5, -1.5, 200 -> 0, 2, 2, 0, -2, clamped; then + 3
  const Tensor q = run1(kQ + "quantize_per_tensor.default", {x}, per_tensor_attrs(0.5, 3, -128, 127, "torch.int8"));
  EXPECT_EQ(q.dtype, DType::I8);
  EXPECT_EQ(values(q), (std::vector<double>{3, 5, 5, 3, 1, 127}));
  // pytorch-ir's plain dtype names read the same
  const Tensor q2 = run1(kQ + "quantize_per_tensor.default", {x}, per_tensor_attrs(0.5, 3, -128, 127, "int8"));
  EXPECT_EQ(values(q2), values(q));
}

TEST(QuantizeOps, PerTokenAddsTheZeroPointBeforeRounding) {
  // 0.25 / 0.5 + 3 = 3.5 -> 4 (per tensor: round(0.5) + 3 = 3)
  const Tensor x = tensor_of(DType::F32, {2, 2}, {0.25, 0.75, 0.25, -0.25});
  const Tensor s = tensor_of(DType::F32, {2, 1}, {0.5, 0.5});
  const Tensor z = tensor_of(DType::I64, {2, 1}, {3, 0});
  const Tensor q = run1(kQ + "quantize_per_token.default", {x, s, z},
                        {{"quant_min", I(-128)}, {"quant_max", I(127)}, {"dtype", S("torch.int8")}});
  EXPECT_EQ(values(q), (std::vector<double>{4, 4, 0, 0}));
}

TEST(QuantizeOps, PerChannelReadsANonContiguousInput) {
  const Tensor w = tensor_of(DType::F32, {3, 2}, {1, 2, 3, 4, 5, 6});
  const Tensor wt = transposed(w);  // [2, 3], channels along dim 0 of the view
  const Tensor s = tensor_of(DType::F32, {2}, {1, 0.5});
  const Tensor z = tensor_of(DType::I64, {2}, {0, -1});
  const Tensor q = run1(kQ + "quantize_per_channel.default", {wt, s, z},
                        {{"axis", I(0)}, {"quant_min", I(-127)}, {"quant_max", I(127)}, {"dtype", S("torch.int8")}});
  // row 0 = 1, 3, 5 (scale 1); row 1 = 2, 4, 6 / 0.5 - 1
  EXPECT_EQ(values(q), (std::vector<double>{1, 3, 5, 3, 7, 11}));
  const Tensor y = run1(kQ + "dequantize_per_channel.default", {q, s, z},
                        {{"axis", I(0)}, {"quant_min", I(-127)}, {"quant_max", I(127)}, {"dtype", S("torch.int8")}});
  EXPECT_EQ(values(y), (std::vector<double>{1, 3, 5, 2, 4, 6}));
}

TEST(QuantizeOps, LargePerTensorRunsSplitAcrossThreadsGiveTheRowsBits) {
  // Above two tasks' worth of elements, per-tensor quantize / dequantize on contiguous tensors
  // split the flat run across threads: the bits equal a 1-thread run and the strided path's
  // (a transposed view), ties and clamping included.
  const int64_t rows = 3, cols = 100003;
  std::vector<double> v(size_t(rows * cols));
  for (size_t i = 0; i < v.size(); ++i) v[i] = (double(int64_t(i % 4001)) - 2000.0) * 0.0625;  // halves of 0.125
  const Tensor x = tensor_of(DType::F32, {rows, cols}, v);
  std::vector<double> vt(v.size());  // the same values stored column-major: a transposed view
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) vt[size_t(c * rows + r)] = v[size_t(r * cols + c)];
  const Tensor xt = transposed(tensor_of(DType::F32, {cols, rows}, vt));
  const AttrMap a = per_tensor_attrs(0.125, 3, -128, 127, "torch.int8");
  std::vector<std::vector<double>> q_runs, y_runs;
  for (int t : {1, 2, 3}) {
    set_num_threads(t);
    const Tensor q = run1(kQ + "quantize_per_tensor.default", {x}, a);
    q_runs.push_back(values(q));
    y_runs.push_back(values(run1(kQ + "dequantize_per_tensor.default", {q}, a)));
  }
  set_num_threads(1);
  const Tensor qs = run1(kQ + "quantize_per_tensor.default", {xt}, a);
  const std::vector<double> q_strided = values(qs);
  for (size_t r = 0; r < q_runs.size(); ++r) {
    EXPECT_EQ(q_runs[r], q_runs[0]) << "threads " << r + 1;
    EXPECT_EQ(y_runs[r], y_runs[0]) << "threads " << r + 1;
  }
  EXPECT_EQ(q_runs[0], q_strided);
  for (size_t i = 0; i < v.size(); i += 997) {  // round half to even of v / 0.125, + 3, clamped
    const double want = std::min(127.0, std::max(-128.0, std::nearbyint(v[i] / 0.125) + 3));
    ASSERT_EQ(q_runs[0][i], want) << i;
    ASSERT_EQ(y_runs[0][i], (want - 3) * 0.125) << i;
  }
}

TEST(QuantizeOps, HostileScalesGivePyTorchsValues) {
  // a zero scale tensor: x / 0 = +-inf clamps to the range; 0 / 0 is NaN, cast to 0 (what PyTorch
  // gives on x86 and Arm); a zero Python float scale raises in PyTorch (1.0 / 0.0)
  const Tensor x = tensor_of(DType::F32, {3}, {1, -1, 0});
  const AttrMap ch{{"axis", I(0)}, {"quant_min", I(-128)}, {"quant_max", I(127)}, {"dtype", S("torch.int8")}};
  EXPECT_EQ(values(run1(kQ + "quantize_per_channel.default",
                        {x, tensor_of(DType::F32, {1}, {0}), tensor_of(DType::I64, {1}, {0})}, ch)),
            (std::vector<double>{127, -128, 0}));
  const std::string e =
      error_of([&] { run1(kQ + "quantize_per_tensor.default", {x}, per_tensor_attrs(0, 0, -128, 127, "torch.int8")); });
  EXPECT_NE(e.find("scale is 0"), std::string::npos) << e;
  // a negative scale flips the sign; a zero point outside the range is clamped away
  EXPECT_EQ(values(run1(kQ + "quantize_per_tensor.default", {x}, per_tensor_attrs(-0.5, 0, -128, 127, "torch.int8"))),
            (std::vector<double>{-2, 2, 0}));
  EXPECT_EQ(values(run1(kQ + "quantize_per_tensor.default", {x}, per_tensor_attrs(1, 300, 0, 255, "torch.uint8"))),
            (std::vector<double>{255, 255, 255}));
  // a NaN scale: every value is NaN before the cast
  const Tensor s = tensor_of(DType::F32, {1}, {kNaN});
  const Tensor z = tensor_of(DType::I64, {1}, {0});
  EXPECT_EQ(values(run1(kQ + "quantize_per_tensor.tensor", {x, s, z},
                        {{"quant_min", I(-128)}, {"quant_max", I(127)}, {"dtype", S("torch.int8")}})),
            (std::vector<double>{0, 0, 0}));
}

TEST(QuantizeOps, BadArgumentsFailNamingTheNode) {
  const Tensor x = tensor_of(DType::F32, {2, 6}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  const Tensor s4 = tensor_of(DType::F32, {4}, {1, 1, 1, 1});
  const Tensor z4 = tensor_of(DType::I64, {4}, {0, 0, 0, 0});
  // group size 4 does not divide a row of 6
  std::string e = error_of([&] {
    run1(kQ + "quantize_per_channel_group.default", {x, s4, z4},
         {{"quant_min", I(-8)}, {"quant_max", I(7)}, {"dtype", S("torch.int8")}, {"group_size", I(4)}});
  });
  EXPECT_NE(e.find("not divisible by group_size 4"), std::string::npos) << e;
  EXPECT_NE(e.find("quantize_per_channel_group"), std::string::npos) << e;
  // scales that do not fit the channels
  e = error_of([&] {
    run1(kQ + "quantize_per_channel.default", {x, s4, z4},
         {{"axis", I(1)}, {"quant_min", I(-128)}, {"quant_max", I(127)}, {"dtype", S("torch.int8")}});
  });
  EXPECT_NE(e.find("scale has 4 values"), std::string::npos) << e;
  // quant_min below the dtype's range, an axis past the rank, a float output dtype
  e = error_of([&] { run1(kQ + "quantize_per_tensor.default", {x}, per_tensor_attrs(1, 0, -129, 127, "torch.int8")); });
  EXPECT_NE(e.find("quant_min -129 is below int8's minimum"), std::string::npos) << e;
  e = error_of([&] {
    run1(kQ + "quantize_per_channel.default", {x, s4, z4},
         {{"axis", I(2)}, {"quant_min", I(-128)}, {"quant_max", I(127)}, {"dtype", S("torch.int8")}});
  });
  EXPECT_NE(e.find("axis 2 is out of range"), std::string::npos) << e;
  e = error_of([&] { run1(kQ + "quantize_per_tensor.default", {x}, per_tensor_attrs(1, 0, -128, 127, "torch.float32")); });
  EXPECT_NE(e.find("unsupported quantized dtype float32"), std::string::npos) << e;
  // dequantize of data whose dtype is not the declared one
  e = error_of([&] {
    run1(kQ + "dequantize_per_tensor.default", {tensor_of(DType::I32, {2}, {1, 2})},
         per_tensor_attrs(1, 0, -128, 127, "torch.int8"));
  });
  EXPECT_NE(e.find("input has dtype int32 but dtype is int8"), std::string::npos) << e;
  // torchao's block_size must have one entry per dim and divide the dims it cuts
  e = error_of([&] {
    run1("torchao.quantize_affine.default", {x, s4, z4},
         {{"block_size", ints({1, 4})}, {"output_dtype", S("torch.int8")}});
  });
  EXPECT_NE(e.find("is not divisible by block_size 4"), std::string::npos) << e;
  e = error_of([&] {
    run1("torchao.dequantize_affine.default", {tensor_of(DType::I8, {2, 6}, std::vector<double>(12, 1)), s4},
         {{"block_size", ints({3})}, {"input_dtype", S("torch.int8")}});
  });
  EXPECT_NE(e.find("block_size has 1 entries but the input has 2 dims"), std::string::npos) << e;
}

TEST(QuantizeOps, ChooseQparamsRefusesNaNAndEmptyInputs) {
  const AttrMap a{{"quant_min", I(-128)}, {"quant_max", I(127)}, {"eps", F(1.1920928955078125e-07)},
                  {"dtype", S("torch.int8")}};
  std::string e = error_of([&] {
    run_op(kQ + "choose_qparams.tensor", {tensor_of(DType::F32, {3}, {1, kNaN, 2})}, a, 2);
  });
  EXPECT_NE(e.find("NaN or infinity"), std::string::npos) << e;
  e = error_of([&] { run_op(kQ + "choose_qparams.tensor", {tensor_of(DType::F32, {0}, {})}, a, 2); });
  EXPECT_NE(e.find("empty input"), std::string::npos) << e;
  // all zeros: scale = eps, zero point = quant_min - round(0) clamped
  const OpRun r = run_op(kQ + "choose_qparams.tensor", {tensor_of(DType::F32, {2}, {0, 0})}, a, 2);
  EXPECT_EQ(values(r.out[0])[0], double(float(1.1920928955078125e-07)));
  EXPECT_EQ(values(r.out[1])[0], -128);
}

TEST(QuantizeOps, ChooseQparamsAffineGroupsAlongTheLastDim) {
  // [2, 4] in groups of 2: min/max per group, ASYMMETRIC int8
  const Tensor x = tensor_of(DType::F32, {2, 4}, {-1, 1, 0, 2.55, 3, 4, -5.1, 0});
  const OpRun r = run_op("torchao.choose_qparams_affine.default", {x},
                         {{"mapping_type", S("ASYMMETRIC")}, {"block_size", ints({1, 2})},
                          {"target_dtype", S("torch.int8")}, {"quant_min", I(-128)}, {"quant_max", I(127)},
                          {"zero_point_dtype", S("torch.int8")}},
                         2);
  EXPECT_EQ(r.out[0].shape, (Shape{2, 2}));
  EXPECT_EQ(r.out[1].dtype, DType::I8);
  const auto s = values(r.out[0]);
  EXPECT_EQ(s[0], double(2.0f / 255.0f));
  EXPECT_EQ(s[1], double(2.55f / 255.0f));
  EXPECT_EQ(values(r.out[1])[1], -128);  // min 0: zero point at quant_min
}

}  // namespace
