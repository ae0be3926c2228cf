// Keys of a weights/constants source that match nothing in the IR. The binder
// looks up the IR's names and never reads the rest, so a typo ('conv1.wieght')
// or another model's state_dict would pass unnoticed. One implementation for
// both front ends: the CLI warns on stderr (or fails with --strict-weights),
// the npm package warns (or throws with strictWeights) through the bindings'
// unknownKeysMessage(); each adds its own suffix naming its switch.
#pragma once
#include <string>
#include <vector>

#include "ir/model.h"
#include "weights/tensor_map.h"

namespace tir {

// Keys of `source` that bind to nothing in any of `models`: not an original
// key, placeholder, constant name or unproduced node input, not a BatchNorm
// `num_batches_tracked` counter (inference never reads it), and not a tied
// alias (same dtype, shape and bytes as a key that does bind). In source order.
std::vector<std::string> unknown_weight_keys(const std::vector<const Model*>& models, const TensorMap& source);

// "weights: 2 keys match no weight, buffer or constant of the IR: 'a' (did you mean 'b'?), 'c'"
// (the first 5 keys, each with the closest original key when one is near).
std::string unknown_keys_message(const std::string& kind, const std::vector<std::string>& unknown,
                                 const std::vector<const Model*>& models);

// unknown_keys_message for the unknown keys of `source`, or "" when every key binds.
std::string unknown_keys_message(const std::vector<const Model*>& models, const TensorMap& source,
                                 const std::string& kind);

// The candidate nearest to `key` by edit distance (a likely typo), or "" when none is within
// max(2, len/5) edits.
std::string closest_key(const std::string& key, const std::vector<std::string>& candidates);

}  // namespace tir
