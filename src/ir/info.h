#pragma once
#include <string>

#include "ir/model.h"

namespace tir {

// What pytorch-ir's `torch-ir info` prints, as text or (--json) JSON with indent 2.
std::string model_info_text(const Model& model);
std::string model_info_json(const Model& model);

}  // namespace tir
