// runtime/weight_keys.h: the unknown-key check that the native CLI (--strict-weights) and the npm
// package (strictWeights, through unknownKeysMessage) share. npm/test/hygiene.test.mjs checks the
// same messages end to end.
#include <gtest/gtest.h>

#include "runtime/weight_keys.h"
#include "test_util.h"

namespace tir {
namespace {

using test::tensor_f32;

TensorMeta meta(const std::string& name, const std::string& producer = "") {
  TensorMeta m;
  m.name = name;
  m.producer_node = producer;
  return m;
}

// conv1.weight (original key, placeholder p_conv1_weight), a constant, and a node reading an
// unproduced input 'free_input' and a produced one.
Model small_model() {
  Model m;
  m.weights.push_back(meta("conv1.weight"));
  m.weight_name_mapping.emplace_back("p_conv1_weight", "conv1.weight");
  m.constants.emplace_back("table", ConstantValue{});
  OpNode n;
  n.name = "add";
  n.inputs = {meta("free_input"), meta("conv", "conv_node")};
  m.nodes.push_back(n);
  return m;
}

TEST(WeightKeys, ClosestKeySuggestsNearNamesOnly) {
  const std::vector<std::string> keys = {"conv1.weight", "conv1.bias", "layers.0.self_attn.q_proj.weight"};
  EXPECT_EQ(closest_key("conv1.wieght", keys), "conv1.weight");
  EXPECT_EQ(closest_key("layers.0.self_attn.q_prj.weight", keys), "layers.0.self_attn.q_proj.weight");
  EXPECT_EQ(closest_key("totally.different", keys), "");
}

TEST(WeightKeys, AcceptsEveryNameTheBinderLooksUp) {
  const Model m = small_model();
  TensorMap src;
  for (const char* k : {"conv1.weight", "p_conv1_weight", "table", "free_input", "bn.num_batches_tracked"})
    src.set(k, tensor_f32({1}, {1.0f}));
  EXPECT_TRUE(unknown_weight_keys({&m}, src).empty());
  EXPECT_EQ(unknown_keys_message({&m}, src, "weights"), "");
  src.set("conv", tensor_f32({1}, {2.0f}));  // produced by a node: not a weight
  EXPECT_EQ(unknown_weight_keys({&m}, src), std::vector<std::string>{"conv"});
}

TEST(WeightKeys, TiedCopiesAreNotUnknownButOtherValuesAre) {
  const Model m = small_model();
  TensorMap src;
  src.set("conv1.weight", tensor_f32({2}, {1.0f, 2.0f}));
  src.set("head.weight", tensor_f32({2}, {1.0f, 2.0f}));  // tied: same dtype, shape and bytes
  EXPECT_TRUE(unknown_weight_keys({&m}, src).empty());
  src.set("head.weight", tensor_f32({2}, {1.0f, 3.0f}));
  EXPECT_EQ(unknown_weight_keys({&m}, src), std::vector<std::string>{"head.weight"});
}

TEST(WeightKeys, MessageNamesTheFirstFiveWithSuggestions) {
  const Model m = small_model();
  TensorMap src;
  src.set("conv1.wieght", tensor_f32({1}, {1.0f}));
  EXPECT_EQ(unknown_keys_message({&m}, src, "weights"),
            "weights: 1 key matches no weight, buffer or constant of the IR: 'conv1.wieght' (did you mean "
            "'conv1.weight'?)");
  for (int i = 0; i < 6; ++i) src.set("extra" + std::to_string(i), tensor_f32({1}, {float(i)}));
  EXPECT_EQ(unknown_keys_message({&m}, src, "constants"),
            "constants: 7 keys match no weight, buffer or constant of the IR: 'conv1.wieght' (did you mean "
            "'conv1.weight'?), 'extra0', 'extra1', 'extra2', 'extra3', and 2 more");
}

TEST(WeightKeys, AKeyOfAnyModelOfThePairBinds) {
  const Model prefill = small_model();
  Model decode;
  decode.weights.push_back(meta("cache.0"));
  TensorMap src;
  src.set("cache.0", tensor_f32({1}, {1.0f}));
  EXPECT_EQ(unknown_weight_keys({&prefill}, src), std::vector<std::string>{"cache.0"});
  EXPECT_TRUE(unknown_weight_keys({&prefill, &decode}, src).empty());
}

}  // namespace
}  // namespace tir
