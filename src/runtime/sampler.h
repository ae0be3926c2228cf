// Next-token choice from a row of logits: greedy (argmax, first index on ties,
// as torch.argmax) or sampling with temperature, top-k and top-p applied in
// that order (as Hugging Face's logits warpers). Sampling draws from a seeded
// xoshiro256** stream, so a seed reproduces the same tokens.
#pragma once
#include <cstdint>
#include <vector>

namespace tir {

struct SamplingOptions {
  double temperature = 0;  // <= 0: greedy
  int64_t top_k = 0;       // 0: off
  double top_p = 1;        // >= 1: off
  uint64_t seed = 0;
};

class Sampler {
 public:
  explicit Sampler(const SamplingOptions& options = {});
  // Throws ExecutionError for NaN logits, V == 0 or bad options.
  int64_t next(const float* logits, int64_t vocab);

 private:
  double uniform();  // [0, 1)
  SamplingOptions opt_;
  uint64_t s_[4];
  std::vector<std::pair<double, int64_t>> scratch_;
};

}  // namespace tir
