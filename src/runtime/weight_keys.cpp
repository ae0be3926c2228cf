#include "runtime/weight_keys.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "core/errors.h"

namespace tir {

namespace {

constexpr size_t kShown = 5;

struct Names {
  std::unordered_set<std::string> accepted;
  std::vector<std::string> originals;  // what a suggestion may name, first seen first
};

Names names_of(const std::vector<const Model*>& models) {
  Names n;
  std::unordered_set<std::string> seen;
  auto original = [&](const std::string& name) {
    n.accepted.insert(name);
    if (seen.insert(name).second) n.originals.push_back(name);
  };
  for (const Model* m : models) {
    for (const auto& w : m->weights) original(w.name);
    for (const auto& [placeholder, key] : m->weight_name_mapping) {
      n.accepted.insert(placeholder);
      original(key);
    }
    for (const auto& c : m->constants) original(c.first);
    for (const auto& node : m->nodes)
      for (const auto& in : node.inputs)
        if (!in.has_producer()) n.accepted.insert(in.name);
  }
  return n;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Same dtype, shape and bytes (contiguous views only; anything else is not
// treated as an alias).
bool same_tensor(const Tensor& a, const Tensor& b) {
  if (a.dtype != b.dtype || a.shape != b.shape || !a.buffer || !b.buffer) return false;
  if (!a.is_contiguous() || !b.is_contiguous()) return false;
  try {
    check_view_in_buffer(a, "a");
    check_view_in_buffer(b, "b");
    const size_t n = a.nbytes();
    // A tensor streamed to the GPU has no bytes here (docs/webgpu.md, "Weights"): the same dtype
    // and shape count as a tied copy, so a valid file never gets a false "unknown key".
    if (n && (!a.buffer->data || !b.buffer->data)) return true;
    return a.raw() == b.raw() || n == 0 || std::memcmp(a.raw(), b.raw(), n) == 0;
  } catch (const Error&) {
    return false;  // a bad view: the binder reports it if it is used
  }
}

// Levenshtein distance, or max + 1 once it must exceed max.
size_t edit_distance(const std::string& a, const std::string& b, size_t max) {
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > max) return max + 1;
  std::vector<size_t> prev(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    size_t best = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      best = std::min(best, row[j]);
    }
    if (best > max) return max + 1;
    std::swap(prev, row);
  }
  return prev[b.size()];
}

}  // namespace

std::string closest_key(const std::string& key, const std::vector<std::string>& candidates) {
  size_t best_d = std::max<size_t>(2, key.size() / 5) + 1;
  std::string best;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(key, c, best_d - 1);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::vector<std::string> unknown_weight_keys(const std::vector<const Model*>& models, const TensorMap& source) {
  const Names n = names_of(models);
  std::vector<const Tensor*> bound;
  for (const auto& [key, t] : source.items)
    if (n.accepted.count(key)) bound.push_back(&t);
  std::vector<std::string> unknown;
  for (const auto& item : source.items) {
    // A named reference, not a structured binding: clang 14 cannot capture bindings in lambdas.
    const std::string& key = item.first;
    const Tensor& t = item.second;
    if (n.accepted.count(key) || ends_with(key, "num_batches_tracked")) continue;
    if (std::any_of(bound.begin(), bound.end(), [&](const Tensor* b) { return same_tensor(t, *b); })) continue;
    unknown.push_back(key);
  }
  return unknown;
}

std::string unknown_keys_message(const std::string& kind, const std::vector<std::string>& unknown,
                                 const std::vector<const Model*>& models) {
  const Names n = names_of(models);
  std::string shown;
  for (size_t i = 0; i < unknown.size() && i < kShown; ++i) {
    const std::string near = closest_key(unknown[i], n.originals);
    shown += (i ? ", '" : "'") + unknown[i] + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)");
  }
  if (unknown.size() > kShown) shown += ", and " + std::to_string(unknown.size() - kShown) + " more";
  const std::string what = unknown.size() == 1 ? "1 key matches" : std::to_string(unknown.size()) + " keys match";
  return kind + ": " + what + " no weight, buffer or constant of the IR: " + shown;
}

std::string unknown_keys_message(const std::vector<const Model*>& models, const TensorMap& source,
                                 const std::string& kind) {
  const auto unknown = unknown_weight_keys(models, source);
  return unknown.empty() ? std::string() : unknown_keys_message(kind, unknown, models);
}

}  // namespace tir
