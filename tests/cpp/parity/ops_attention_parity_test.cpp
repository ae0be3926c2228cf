// LibTorch parity for scaled dot-product attention. LibTorch 1.13 has neither
// scaled_dot_product_attention nor the CPU flash form (both are 2.0+), so these
// skip there; the unit tests check against torch 2.x values from
// tests/fixtures/attention instead (tools/make_attention_fixtures.py).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parity/parity_util.h"
#include "torch_backend/reference.h"

namespace tir {
namespace {

const char* kSdpa = "aten.scaled_dot_product_attention.default";
const char* kFlash = "aten._scaled_dot_product_flash_attention_for_cpu.default";

// A macro, not a helper function: GTEST_SKIP() only returns from the function it is in.
#define SKIP_IF_MISSING(op)                                                           \
  if (!reference_supports(op))                                                        \
  GTEST_SKIP() << op << " is missing in LibTorch " << libtorch_version()              \
               << " (added in torch 2.0); covered by the torch 2.x fixtures in the unit tests"

ParityInput f32(Shape shape, bool transposed = false) {
  ParityInput p;
  p.shape = std::move(shape);
  p.transposed = transposed;
  return p;
}

// A bool [.., L, S] mask that keeps key 0 in every row: no row is fully masked,
// because torch < 2.5 gives NaN there and >= 2.5 gives 0 (we follow 2.5+).
ParityInput keep_mask(Shape shape) {
  ParityInput p;
  p.dtype = DType::Bool;
  const int64_t S = shape.back();
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  for (int64_t e = 0; e < n; ++e) {
    const int64_t j = e % S, i = e / S;
    p.values.push_back(j == 0 || (i * 7 + j * 3) % 4 != 0 ? 1.0 : 0.0);
  }
  p.shape = std::move(shape);
  return p;
}

TEST(AttentionParity, Plain) {
  SKIP_IF_MISSING(kSdpa);
  EXPECT_TRUE(node_parity(kSdpa, {f32({1, 2, 5, 8}), f32({1, 2, 7, 8}), f32({1, 2, 7, 8})}));
  EXPECT_TRUE(node_parity(kSdpa, {f32({2, 3, 7, 4}), f32({2, 3, 5, 4}), f32({2, 3, 5, 6})}));  // Ev != E
}

TEST(AttentionParity, Causal) {
  SKIP_IF_MISSING(kSdpa);
  EXPECT_TRUE(node_parity(kSdpa, {f32({1, 2, 5, 8}), f32({1, 2, 7, 8}), f32({1, 2, 7, 8})}, R"({"is_causal":true})"));
  EXPECT_TRUE(node_parity(kSdpa, {f32({2, 3, 7, 4}), f32({2, 3, 5, 4}), f32({2, 3, 5, 6})}, R"({"is_causal":true})"));
}

TEST(AttentionParity, BoolMaskBroadcast) {
  SKIP_IF_MISSING(kSdpa);
  EXPECT_TRUE(node_parity(kSdpa, {f32({1, 2, 5, 8}), f32({1, 2, 7, 8}), f32({1, 2, 7, 8}), keep_mask({5, 7})}));
  EXPECT_TRUE(node_parity(kSdpa, {f32({2, 3, 7, 4}), f32({2, 3, 5, 4}), f32({2, 3, 5, 6}), keep_mask({1, 1, 7, 5})}));
}

TEST(AttentionParity, FloatMaskAndScale) {
  SKIP_IF_MISSING(kSdpa);
  EXPECT_TRUE(node_parity(kSdpa, {f32({2, 3, 7, 4}), f32({2, 3, 5, 4}), f32({2, 3, 5, 6}), f32({2, 1, 7, 5})}));
  EXPECT_TRUE(node_parity(kSdpa, {f32({2, 3, 7, 4}), f32({2, 3, 5, 4}), f32({2, 3, 5, 6})}, R"({"scale":0.3})"));
}

TEST(AttentionParity, TransposedInputs) {
  SKIP_IF_MISSING(kSdpa);
  EXPECT_TRUE(node_parity(kSdpa, {f32({1, 2, 5, 8}, true), f32({1, 2, 7, 8}, true), f32({1, 2, 7, 8}, true)}));
  EXPECT_TRUE(node_parity(kSdpa, {f32({2, 3, 7, 4}, true), f32({2, 3, 5, 4}), f32({2, 3, 5, 6}, true)},
                          R"({"is_causal":true})"));
}

TEST(AttentionParity, FlashForCpu) {
  SKIP_IF_MISSING(kFlash);
  EXPECT_TRUE(node_parity(kFlash, {f32({1, 2, 5, 8}), f32({1, 2, 7, 8}), f32({1, 2, 7, 8})}));
  EXPECT_TRUE(node_parity(kFlash, {f32({2, 3, 7, 4}, true), f32({2, 3, 5, 4}), f32({2, 3, 5, 4})},
                          R"({"is_causal":true,"scale":0.25})"));
  EXPECT_TRUE(node_parity(kFlash, {f32({2, 3, 7, 4}), f32({2, 3, 5, 4}), f32({2, 3, 5, 4}), f32({7, 5})}));
}

}  // namespace
}  // namespace tir
