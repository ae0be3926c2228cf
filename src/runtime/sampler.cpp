#include "runtime/sampler.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/errors.h"

namespace tir {

namespace {
uint64_t splitmix64(uint64_t& x) {
  uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Sampler::Sampler(const SamplingOptions& options) : opt_(options) {
  if (!(opt_.temperature >= 0) || !(opt_.top_p > 0) || opt_.top_k < 0)
    throw ExecutionError("sampling: temperature must be a number >= 0, topK >= 0 and 0 < topP <= 1 (got temperature " +
                         std::to_string(opt_.temperature) + ", topK " + std::to_string(opt_.top_k) + ", topP " +
                         std::to_string(opt_.top_p) + ")");
  if (!(opt_.repetition_penalty > 0) || !std::isfinite(opt_.repetition_penalty))
    throw ExecutionError("sampling: repetitionPenalty must be a finite number > 0 (1 = off), got " +
                         std::to_string(opt_.repetition_penalty));
  if (!std::isfinite(opt_.frequency_penalty) || !std::isfinite(opt_.presence_penalty))
    throw ExecutionError("sampling: frequencyPenalty and presencePenalty must be finite numbers (0 = off)");
  if (opt_.min_new_tokens < 0) throw ExecutionError("sampling: minNewTokens must be >= 0");
  uint64_t x = opt_.seed;
  for (auto& s : s_) s = splitmix64(x);
}

bool Sampler::processes() const {
  return opt_.repetition_penalty != 1 || opt_.frequency_penalty != 0 || opt_.presence_penalty != 0 ||
         (produced_ < opt_.min_new_tokens && !opt_.end_ids.empty());
}

void Sampler::observe_prompt(const std::vector<int64_t>& ids) {
  prompt_ids_.insert(prompt_ids_.end(), ids.begin(), ids.end());
}

void Sampler::process(const float* row, int64_t vocab, float* out) {
  if (out != row) std::copy(row, row + vocab, out);
  if (!processes() || vocab <= 0) return;
  if (int64_t(in_prompt_.size()) != vocab) {
    in_prompt_.assign(size_t(vocab), 0);
    generated_.resize(size_t(vocab), 0);
    for (int64_t id : prompt_ids_)
      if (id >= 0 && id < vocab) in_prompt_[size_t(id)] = 1;
  }
  const float rep = float(opt_.repetition_penalty);
  const bool penalize = opt_.repetition_penalty != 1 || opt_.frequency_penalty != 0 || opt_.presence_penalty != 0;
  for (int64_t i = 0; penalize && i < vocab; ++i) {
    const int32_t n = generated_[size_t(i)];
    if (rep != 1.0f && (n > 0 || in_prompt_[size_t(i)])) out[i] = out[i] > 0 ? out[i] / rep : out[i] * rep;
    if (n > 0) out[i] = float(double(out[i]) - opt_.frequency_penalty * n - opt_.presence_penalty);
  }
  if (produced_ < opt_.min_new_tokens)
    for (int64_t id : opt_.end_ids)
      if (id >= 0 && id < vocab) out[id] = -INFINITY;
}

void Sampler::accept(int64_t id) {
  ++produced_;
  if (id >= 0 && id < int64_t(generated_.size())) ++generated_[size_t(id)];
  else if (id >= 0 && processes()) {
    generated_.resize(size_t(id) + 1, 0);  // before the first process() (vocab unknown yet)
    ++generated_[size_t(id)];
  }
}

int64_t Sampler::next(const float* logits, int64_t vocab) {
  if (!processes()) {
    const int64_t id = pick(logits, vocab);
    accept(id);
    return id;
  }
  row_.resize(size_t(std::max<int64_t>(vocab, 0)));
  process(logits, vocab, row_.data());
  const int64_t id = pick(row_.data(), vocab);
  accept(id);
  return id;
}

double Sampler::uniform() {
  const uint64_t r = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return double(r >> 11) * 0x1.0p-53;
}

int64_t Sampler::pick(const float* logits, int64_t vocab) {
  if (vocab <= 0) throw ExecutionError("sampling: the logits row is empty");
  int64_t best = 0;
  for (int64_t i = 0; i < vocab; ++i) {
    if (std::isnan(logits[i])) throw ExecutionError("sampling: logit " + std::to_string(i) + " is NaN");
    if (logits[i] > logits[best]) best = i;
  }
  if (logits[best] == -INFINITY)
    throw ExecutionError("sampling: every logit is -Infinity (a penalty or logits processor removed every token)");
  // +inf: the first such token (exp() of inf - inf would be NaN).
  if (opt_.temperature <= 0 || logits[best] == INFINITY) return best;
  // Candidates sorted by logit, descending (index breaks ties: deterministic).
  auto& c = scratch_;
  c.clear();
  for (int64_t i = 0; i < vocab; ++i) c.emplace_back(double(logits[i]) / opt_.temperature, i);
  auto by_logit = [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); };
  size_t keep = c.size();
  if (opt_.top_k > 0 && size_t(opt_.top_k) < c.size()) {
    std::partial_sort(c.begin(), c.begin() + opt_.top_k, c.end(), by_logit);
    // Ties with the k-th value stay in, as HF's TopKLogitsWarper (it drops only values below it).
    keep = size_t(opt_.top_k);
    while (keep < c.size()) {
      auto it = std::max_element(c.begin() + long(keep), c.end(), by_logit);
      if (it->first < c[keep - 1].first) break;
      std::swap(c[keep], *it);
      ++keep;
    }
  } else {
    std::sort(c.begin(), c.end(), by_logit);
  }
  c.resize(keep);
  const double top = c.front().first;
  double total = 0;
  for (auto& e : c) total += (e.first = std::exp(e.first - top));
  if (opt_.top_p < 1) {
    // The smallest prefix whose probability reaches top_p (at least one token).
    double cum = 0;
    size_t n = 0;
    while (n < c.size() && cum < opt_.top_p * total) cum += c[n++].first;
    c.resize(std::max<size_t>(n, 1));
    total = cum > 0 ? cum : c.front().first;
  }
  double u = uniform() * total;
  for (const auto& e : c) {
    if (u < e.first) return e.second;
    u -= e.first;
  }
  return c.back().second;  // rounding at the end of the walk
}

}  // namespace tir
