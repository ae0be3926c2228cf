// verify/truth.h: judge_node, the per-node float64 criterion of `torchir parity --criterion truth64`,
// and compare_with_truth, the per-output one of `torchir verify --reference64` and of the npm
// package's verify({reference64}) (through the bindings' compareWithTruth).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.h"
#include "verify/truth.h"

namespace tir {
namespace {

using test::tensor_f32;

const Tensor kTruth = to_dtype_owned(tensor_f32({4}, {1.0f, -2.0f, 0.5f, 100.0f}), DType::F64);

// truth + d at element 1 (|truth| max 100: the scale term is 1e-4).
Tensor off_by(float d) { return tensor_f32({4}, {1.0f, -2.0f + d, 0.5f, 100.0f}); }

TEST(TruthNode, PassesWhenBothWithinTwiceTheYardstick) {
  const NodeTruth n = judge_node(off_by(0.019f), off_by(-0.015f), off_by(0.01f), kTruth);
  ASSERT_TRUE(n.judged);
  EXPECT_NEAR(n.yardstick, 0.01, 1e-6);
  EXPECT_NEAR(n.scale, 100.0, 0);
  EXPECT_NEAR(n.bound, 2 * n.yardstick + 1e-6 * 100, 1e-12);
  EXPECT_TRUE(n.ok);
}

TEST(TruthNode, OursOutsideTheBoundDiverges) {
  const NodeTruth n = judge_node(off_by(0.03f), off_by(0.01f), off_by(0.01f), kTruth);
  ASSERT_TRUE(n.judged);
  EXPECT_FALSE(n.ok);
}

TEST(TruthNode, DeviceOutsideTheBoundDiverges) {
  const NodeTruth n = judge_node(off_by(0.01f), off_by(-0.05f), off_by(0.01f), kTruth);
  ASSERT_TRUE(n.judged);
  EXPECT_NEAR(n.device, 0.05, 1e-6);
  EXPECT_FALSE(n.ok);
  EXPECT_TRUE(n.device_only);  // ours is within: the device drifts
}

TEST(TruthNode, OursOutsideIsNeverDeviceOnly) {
  EXPECT_FALSE(judge_node(off_by(0.03f), off_by(0.01f), off_by(0.01f), kTruth).device_only);
  EXPECT_FALSE(judge_node(off_by(0.03f), off_by(0.05f), off_by(0.01f), kTruth).device_only);
  EXPECT_FALSE(judge_node(off_by(0.01f), off_by(0.01f), off_by(0.01f), kTruth).device_only);
}

TEST(TruthNode, ScaleTermCoversRoundingWhenTheYardstickIsExact) {
  // The yardstick is exact, ours and the device are off by less than 1e-6 x 100.
  EXPECT_TRUE(judge_node(off_by(5e-5f), off_by(-5e-5f), off_by(0), kTruth).ok);
  EXPECT_FALSE(judge_node(off_by(5e-4f), off_by(0), off_by(0), kTruth).ok);
}

TEST(TruthNode, NanIsOutsideAnyBound) {
  const NodeTruth n =
      judge_node(off_by(std::numeric_limits<float>::quiet_NaN()), off_by(0.01f), off_by(0.01f), kTruth);
  EXPECT_TRUE(n.judged);
  EXPECT_FALSE(n.ok);
}

TEST(TruthNode, NotJudgedWhenNotFloatingOrShapesDiffer) {
  const NodeTruth ints = judge_node(test::tensor_i64({2}, {1, 2}), test::tensor_i64({2}, {1, 2}),
                                    test::tensor_i64({2}, {1, 2}), test::tensor_i64({2}, {1, 2}));
  EXPECT_FALSE(ints.judged);
  EXPECT_EQ(ints.note, "not floating");
  const NodeTruth shapes = judge_node(off_by(0), tensor_f32({2}, {1, 2}), off_by(0), kTruth);
  EXPECT_FALSE(shapes.judged);
  EXPECT_NE(shapes.note.find("shapes differ"), std::string::npos) << shapes.note;
}

TEST(TruthCompare, WithinTwiceTorchsErrorPlusScaleTerm) {
  const TruthReport r = compare_with_truth({off_by(0.019f)}, {off_by(0.01f)}, {kTruth});
  ASSERT_TRUE(r.ok) << r.error_message;
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_TRUE(r.outputs[0].judged);
  EXPECT_NEAR(r.outputs[0].bound, 2 * r.outputs[0].torch + 1e-6 * 100, 1e-12);
  EXPECT_FALSE(compare_with_truth({off_by(0.03f)}, {off_by(0.01f)}, {kTruth}).ok);
  EXPECT_NE(format_truth_report(r, true).find("=> the rtol/atol failure is only reassociation"), std::string::npos);
}

TEST(TruthCompare, CountAndShapeMismatchesAndIntegerOutputs) {
  TruthReport r = compare_with_truth({off_by(0)}, {off_by(0)}, {kTruth, kTruth});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.outputs.empty());
  EXPECT_EQ(r.error_message, "output count mismatch: 1 outputs, 1 reference, 2 float64 reference");
  r = compare_with_truth({off_by(0)}, {off_by(0)}, {to_dtype_owned(tensor_f32({2, 2}, {1, 2, 3, 4}), DType::F64)});
  EXPECT_FALSE(r.ok);
  ASSERT_EQ(r.outputs.size(), 1u);
  EXPECT_TRUE(std::isinf(r.outputs[0].ours));
  EXPECT_EQ(r.error_message, "output 0: shape [4] (reference [4]) but the float64 reference is [2, 2]");
  const Tensor ids = test::tensor_i64({2}, {1, 2});
  r = compare_with_truth({ids}, {ids}, {ids});
  EXPECT_TRUE(r.ok);
  EXPECT_FALSE(r.outputs[0].judged);
}

}  // namespace
}  // namespace tir
