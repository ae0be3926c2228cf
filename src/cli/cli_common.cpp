#include "cli/cli_common.h"

#include <cstdlib>

#include "core/errors.h"
#include "weights/safetensors.h"
#include "weights/torch_save.h"

namespace tir::cli {

double Args::num(const std::string& k, double def) const {
  if (!has(k)) return def;
  char* end = nullptr;
  const std::string v = get(k);
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end) throw Error("option " + k + " expects a number, got '" + v + "'");
  return d;
}

Args parse_args(int argc, char** argv, int first, const std::vector<std::string>& flags) {
  Args a;
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s.size() > 1 && s[0] == '-') {
      bool is_flag = false;
      for (const auto& f : flags) is_flag = is_flag || f == s;
      if (is_flag) {
        a.options[s] = "";
      } else {
        if (i + 1 >= argc) throw Error("option " + s + " expects a value");
        a.options[s] = argv[++i];
      }
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

std::vector<Tensor> io_inputs(const Model& model, const TensorMap& io, const std::string& origin) {
  std::vector<Tensor> v;
  for (const auto& gi : model.graph_inputs) {
    const Tensor* t = io.find("input." + gi.name);
    if (!t) throw WeightLoadError(origin + ": no tensor 'input." + gi.name + "' for graph input '" + gi.name + "'");
    v.push_back(*t);
  }
  return v;
}

std::vector<Tensor> io_outputs(const Model& model, const TensorMap& io, const std::string& origin) {
  std::vector<Tensor> v;
  for (size_t i = 0; i < model.graph_outputs.size(); ++i) {
    const Tensor* t = io.find("output." + std::to_string(i));
    if (!t) throw WeightLoadError(origin + ": no tensor 'output." + std::to_string(i) + "' (expected output " +
                                  std::to_string(i) + ")");
    v.push_back(*t);
  }
  return v;
}

TensorMap load_optional_tensors(const std::string& path) {
  return path.empty() ? TensorMap{} : read_weights_file(path);
}

SessionOptions session_options(const Args& a) {
  SessionOptions o;
  const std::string wd = a.get("--weight-dtype", "float32");
  if (!try_parse_dtype(wd, &o.weight_dtype) ||
      (o.weight_dtype != DType::F32 && o.weight_dtype != DType::F16 && o.weight_dtype != DType::BF16))
    throw Error("--weight-dtype must be float32, float16 or bfloat16, got '" + wd + "'");
  return o;
}

}  // namespace tir::cli
