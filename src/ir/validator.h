#pragma once
#include <string>
#include <vector>

#include "ir/model.h"

namespace tir {

// Every structural problem of the graph, each naming its location
// ("node 'add' input 1: ..."). Empty when valid.
std::vector<std::string> validate_model(const Model& model);
std::vector<std::string> validate_model(const Model& model, const ModelIndex& index);  // index of `model`
// Throws IRFormatError listing all problems (one per line).
void validate_model_or_throw(const Model& model);
void validate_model_or_throw(const Model& model, const ModelIndex& index);

}  // namespace tir
