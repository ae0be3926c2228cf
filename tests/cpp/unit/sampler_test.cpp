// The sampler's logits processors on hand-made rows (values worked out from
// Hugging Face's RepetitionPenaltyLogitsProcessor and MinNewTokensLength-
// LogitsProcessor, and vLLM's frequency/presence penalties), the hook split
// (process, pick, accept) and its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/errors.h"
#include "runtime/sampler.h"
#include "test_util.h"

using namespace tir;
using tir::test::expect_throws_with;

namespace {

std::vector<float> processed(Sampler& s, std::vector<float> row) {
  std::vector<float> out(row.size());
  s.process(row.data(), int64_t(row.size()), out.data());
  return out;
}

}  // namespace

TEST(Sampler, NoOptionsIsArgmaxAndLeavesTheRowAlone) {
  Sampler s;
  const std::vector<float> row{0.5f, 3.0f, 3.0f, -1.0f};
  EXPECT_EQ(processed(s, row), row);
  EXPECT_EQ(s.next(row.data(), 4), 1);  // first index on ties, as torch.argmax
}

TEST(Sampler, RepetitionPenaltyDividesPositiveAndMultipliesNegativeSeenLogits) {
  SamplingOptions o;
  o.repetition_penalty = 2;
  Sampler s(o);
  s.observe_prompt({0, 2});
  // Prompt ids 0 and 2: 4 -> 2, -1 -> -2; 1 and 3 unseen.
  EXPECT_EQ(processed(s, {4, 3, -1, 0.5f}), (std::vector<float>{2, 3, -2, 0.5f}));
  EXPECT_EQ(s.next(std::vector<float>{4, 3, -1, 0.5f}.data(), 4), 1);
  // 1 is generated now: seen as well (HF counts the whole sequence).
  EXPECT_EQ(processed(s, {4, 3, -1, 0.5f}), (std::vector<float>{2, 1.5f, -2, 0.5f}));
}

TEST(Sampler, FrequencyAndPresencePenaltiesCountGeneratedTokensOnly) {
  SamplingOptions o;
  o.frequency_penalty = 0.5;
  o.presence_penalty = 0.25;
  Sampler s(o);
  s.observe_prompt({3});  // the prompt does not count for these two
  s.accept(1);
  s.accept(1);
  s.accept(2);
  // 1: 3 - 2 x 0.5 - 0.25; 2: 1 - 0.5 - 0.25; 0, 3: unchanged.
  EXPECT_EQ(processed(s, {0, 3, 1, 2}), (std::vector<float>{0, 1.75f, 0.25f, 2}));
}

TEST(Sampler, EndIdsAreBannedUntilMinNewTokens) {
  SamplingOptions o;
  o.min_new_tokens = 2;
  o.end_ids = {0, 7};  // 7 is outside this row: ignored
  Sampler s(o);
  const std::vector<float> row{5, 1, 2};
  EXPECT_EQ(s.next(row.data(), 3), 2);
  EXPECT_EQ(s.next(row.data(), 3), 2);
  EXPECT_EQ(s.next(row.data(), 3), 0);  // two generated: the end id is back
}

TEST(Sampler, HookSplitIsTheSameAsNext) {
  SamplingOptions o;
  o.temperature = 0.9;
  o.top_k = 3;
  o.seed = 11;
  o.repetition_penalty = 1.3;
  Sampler a(o), b(o);
  a.observe_prompt({1});
  b.observe_prompt({1});
  std::vector<float> row{0.1f, 0.9f, 0.4f, 0.8f, -0.2f}, tmp(5);
  for (int i = 0; i < 20; ++i) {
    const int64_t x = a.next(row.data(), 5);
    b.process(row.data(), 5, tmp.data());
    const int64_t y = b.pick(tmp.data(), 5);
    b.accept(y);
    ASSERT_EQ(x, y) << "step " << i;
  }
}

TEST(Sampler, RowsAndOptionsItCannotUse) {
  Sampler s;
  std::vector<float> row{-INFINITY, -INFINITY};
  expect_throws_with<ExecutionError>([&] { s.pick(row.data(), 2); }, "every logit is -Infinity");
  row = {0, NAN};
  expect_throws_with<ExecutionError>([&] { s.pick(row.data(), 2); }, "logit 1 is NaN");
  expect_throws_with<ExecutionError>([&] { s.pick(row.data(), 0); }, "empty");
  SamplingOptions o;
  o.temperature = 1;
  Sampler t(o);
  row = {0, INFINITY, 1};
  EXPECT_EQ(t.pick(row.data(), 3), 1);  // +inf wins outright (no NaN from inf - inf)
  o = {};
  o.repetition_penalty = 0;
  expect_throws_with<ExecutionError>([&] { Sampler bad(o); }, "repetitionPenalty");
  o = {};
  o.frequency_penalty = NAN;
  expect_throws_with<ExecutionError>([&] { Sampler bad(o); }, "frequencyPenalty");
  o = {};
  o.min_new_tokens = -1;
  expect_throws_with<ExecutionError>([&] { Sampler bad(o); }, "minNewTokens");
}
