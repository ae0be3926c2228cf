// Shared pieces of the torchir CLI: argument parsing and fixture I/O.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/model.h"
#include "runtime/session.h"
#include "core/tensor.h"
#include "weights/tensor_map.h"

namespace tir::cli {

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;  // "--weights" -> value ("" for flags)
  bool has(const std::string& k) const { return options.count(k) > 0; }
  std::string get(const std::string& k, const std::string& def = "") const {
    auto it = options.find(k);
    return it == options.end() ? def : it->second;
  }
  double num(const std::string& k, double def) const;
};

// `flags` are options without a value.
Args parse_args(int argc, char** argv, int first, const std::vector<std::string>& flags);

// Fixture I/O file: input.<graph_input_name> and output.<i>.
std::vector<Tensor> io_inputs(const Model& model, const TensorMap& io, const std::string& origin);
std::vector<Tensor> io_outputs(const Model& model, const TensorMap& io, const std::string& origin);
TensorMap load_optional_tensors(const std::string& path);

// Session options from the flags run/verify/generate share (--weight-dtype).
SessionOptions session_options(const Args& a);

}  // namespace tir::cli
