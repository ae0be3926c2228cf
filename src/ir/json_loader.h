#pragma once
#include <string>

#include "core/json.h"
#include "ir/model.h"

namespace tir {

// Parses pytorch-ir JSON. Accepts NaN/Infinity tokens, INT64_MAX ints, str()-ed
// dtypes/devices, ScalarType ints, absent attrs, unknown keys. Throws
// IRFormatError with line/column for syntax errors and the JSON path for
// structural ones. `origin` (file name) prefixes messages. `limits` caps the
// text size, nesting, string length and value count (json::Limits defaults).
Model load_model_json(const std::string& text, const std::string& origin = "<string>",
                      const json::Limits& limits = json::Limits());
Model load_model_file(const std::string& path, const json::Limits& limits = json::Limits());

}  // namespace tir
