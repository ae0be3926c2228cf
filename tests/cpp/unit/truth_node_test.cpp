// judge_node (verify/truth.h): the per-node float64 criterion of `torchir parity --criterion truth64`.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tir
