#pragma once
#include <string>

#include "ir/model.h"

namespace tir {

// Parses pytorch-ir JSON. Accepts NaN/Infinity tokens, INT64_MAX ints, str()-ed
// dtypes/devices, ScalarType ints, absent attrs, unknown keys. Throws
// IRFormatError with line/column for syntax errors and the JSON path for
// structural ones. `origin` (file name) prefixes messages.
Model load_model_json(const std::string& text, const std::string& origin = "<string>");
Model load_model_file(const std::string& path);

}  // namespace tir
