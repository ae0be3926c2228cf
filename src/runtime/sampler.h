// Next-token choice from a row of logits, in Hugging Face's order: the logits
// processors (repetition penalty; vLLM-style frequency and presence penalties;
// the end tokens banned until min_new_tokens), then greedy (argmax, first
// index on ties, as torch.argmax) or sampling with temperature, top-k and
// top-p applied in that order (as HF's logits warpers). Sampling draws from a
// seeded xoshiro256** stream, so a seed reproduces the same tokens.
//
// next() is process() + pick() + accept(); a caller with its own logits
// processor (the npm package's logitsProcessor) runs process(), edits the row,
// then pick() and accept().
#pragma once
#include <cstdint>
#include <vector>

namespace tir {

struct SamplingOptions {
  double temperature = 0;  // <= 0: greedy
  int64_t top_k = 0;       // 0: off
  double top_p = 1;        // >= 1: off
  uint64_t seed = 0;
  // HF's RepetitionPenaltyLogitsProcessor over the prompt and the generated
  // tokens: a seen token's logit is divided by it when positive, multiplied
  // when negative. 1: off; must be > 0.
  double repetition_penalty = 1;
  // vLLM's (OpenAI's) penalties over the generated tokens only: a token's
  // logit loses frequency_penalty x its count, and presence_penalty once it
  // occurred. 0: off.
  double frequency_penalty = 0;
  double presence_penalty = 0;
  // While fewer than min_new_tokens tokens were generated, these ids (the
  // end-of-sequence and stop ids) get -inf, as HF's MinNewTokensLengthLogitsProcessor.
  int64_t min_new_tokens = 0;
  std::vector<int64_t> end_ids;
};

class Sampler {
 public:
  // Throws ExecutionError for bad options (naming the option).
  explicit Sampler(const SamplingOptions& options = {});
  // The prompt's ids count for the repetition penalty.
  void observe_prompt(const std::vector<int64_t>& ids);
  // The processors: row (vocab floats) -> out (may be the same pointer).
  void process(const float* row, int64_t vocab, float* out);
  // Greedy or sampled choice from a processed row. Throws ExecutionError for
  // NaN logits, an empty row, or a row where every logit is -inf.
  int64_t pick(const float* row, int64_t vocab);
  // Records a generated token (penalties, min_new_tokens).
  void accept(int64_t id);
  // process + pick + accept.
  int64_t next(const float* logits, int64_t vocab);

 private:
  bool processes() const;
  double uniform();  // [0, 1)
  SamplingOptions opt_;
  uint64_t s_[4];
  std::vector<std::pair<double, int64_t>> scratch_;
  std::vector<float> row_;           // next()'s processed copy
  std::vector<int32_t> generated_;   // count per id among the generated tokens (sized on first use)
  std::vector<uint8_t> in_prompt_;   // 1 where the id occurs in the prompt
  std::vector<int64_t> prompt_ids_;  // until the vocabulary size is known
  int64_t produced_ = 0;
};

}  // namespace tir
