// Keys of a weights/constants file that match nothing in the IR. The binder
// looks up the IR's names and never reads the rest, so a typo ('conv1.wieght')
// or another model's state_dict would pass unnoticed: the CLI warns on stderr,
// or fails with --strict-weights. Same rules as npm/lib/weight_keys.js.
#pragma once
#include <string>
#include <vector>

#include "ir/model.h"
#include "weights/tensor_map.h"

namespace tir::cli {

// Keys of `source` that bind to nothing in any of `models`: not an original
// key, placeholder, constant name or unproduced node input, not a BatchNorm
// `num_batches_tracked` counter (inference never reads it), and not a tied
// alias (same dtype, shape and bytes as a key that does bind).
std::vector<std::string> unknown_weight_keys(const std::vector<const Model*>& models, const TensorMap& source);

// "weights: 2 keys match no weight, buffer or constant of the IR: 'a' (did you mean 'b'?), 'c'"
// (the first 5 keys, each with the closest original key when one is near).
std::string unknown_keys_message(const std::string& kind, const std::vector<std::string>& unknown,
                                 const std::vector<const Model*>& models);

// Warns on stderr about unknown keys of `source`, or throws WeightLoadError when strict.
void check_weight_keys(const std::vector<const Model*>& models, const TensorMap& source, const std::string& kind,
                       bool strict);

}  // namespace tir::cli
