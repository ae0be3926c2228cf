#include "cli/cli_common.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <unordered_map>

#include "core/errors.h"
#include "runtime/weight_keys.h"
#include "weights/safetensors.h"
#include "weights/torch_save.h"

namespace tir::cli {

std::vector<Tensor> io_inputs(const Model& model, const TensorMap& io, const std::string& origin) {
  // Hashed: TensorMap::find scans, and a model may have 40k inputs.
  std::unordered_map<std::string, const Tensor*> by_name;
  for (const auto& kv : io.items) by_name.emplace(kv.first, &kv.second);
  std::vector<Tensor> v;
  for (const auto& gi : model.graph_inputs) {
    auto it = by_name.find("input." + gi.name);
    const Tensor* t = it == by_name.end() ? nullptr : it->second;
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

void check_weight_keys(const std::vector<const Model*>& models, const TensorMap& source, const std::string& kind,
                       bool strict) {
  const std::string message = unknown_keys_message(models, source, kind);
  if (message.empty()) return;
  if (strict) throw WeightLoadError(message + " (--strict-weights)");
  std::cerr << "torchir: warning: " << message << "; ignored (--strict-weights makes this an error)\n";
}

Limits limits_from_args(const Args& a) {
  Limits l;
  auto get = [&](const std::string& opt, uint64_t max) -> uint64_t {
    if (!a.has(opt)) return 0;
    const uint64_t v = command_line::parse_size(a.get(opt), opt);
    if (v > max) throw UsageError(opt + ": " + a.get(opt) + " is more than this build can address");
    return v;
  };
  l.max_tensor_bytes = size_t(get("--max-tensor-bytes", SIZE_MAX));
  l.max_arena_bytes = size_t(get("--max-arena-bytes", SIZE_MAX));
  l.max_run_work = int64_t(get("--max-run-work", INT64_MAX));
  return l;
}

SessionOptions session_options(const Args& a) {
  SessionOptions o;
  o.limits = limits_from_args(a);
  // Checked against its choices at parse time.
  if (!parse_weight_dtype(a.get("--weight-dtype", "float32"), &o))
    throw UsageError("--weight-dtype must be float32, float16, bfloat16, int8, int4 or int4:G (G a positive "
                     "multiple of 4), got '" + a.get("--weight-dtype") + "'");
  return o;
}

AllocWindow::AllocWindow() {
  begin_ = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "tir_alloc_window_begin"));
  end_ = reinterpret_cast<int64_t (*)()>(dlsym(RTLD_DEFAULT, "tir_alloc_window_end"));
  if (!begin_ || !end_) begin_ = nullptr, end_ = nullptr;
}

}  // namespace tir::cli
