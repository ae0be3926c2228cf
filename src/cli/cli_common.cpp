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

double Args::num(const std::string& k, double def) const {
  if (!has(k)) return def;
  char* end = nullptr;
  const std::string v = get(k);
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end) throw UsageError("option " + k + " expects a number, got '" + v + "'");
  return d;
}

const std::vector<std::string> kLimitOptions = {"--max-tensor-bytes", "--max-arena-bytes", "--max-run-work"};

Args parse_args(int argc, char** argv, int first, const CommandOptions& options) {
  auto listed = [](const std::vector<std::string>& list, const std::string& s) {
    return std::find(list.begin(), list.end(), s) != list.end();
  };
  Args a;
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s.size() > 1 && s[0] == '-') {
      if (listed(options.flags, s)) {
        a.options[s] = "";
      } else {
        if (!listed(options.values, s)) throw UsageError("unknown option " + s);
        if (i + 1 >= argc) throw UsageError("option " + s + " expects a value");
        a.options[s] = argv[++i];
      }
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

std::string required(const Args& a, const std::string& opt) {
  if (!a.has(opt)) throw UsageError("missing required option " + opt);
  return a.get(opt);
}

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

const char* const kLimitsUsage =
    "LIMITS: --max-tensor-bytes N, --max-arena-bytes N, --max-run-work N (suffixes K/M/G/T; 0: default): the caps a\n"
    "session checks at load: bytes of one tensor and of the memory plan (default: physical memory; 2 GiB in\n"
    "WASM) and elements touched per run (default 2^40). Accepted by run, verify, parity and generate.\n";

uint64_t parse_size(const std::string& text, const std::string& option) {
  const std::string bad = option + " expects a non-negative integer with an optional K/M/G/T suffix, got '" + text + "'";
  size_t i = 0;
  uint64_t v = 0;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    if (v > (UINT64_MAX - 9) / 10) throw UsageError(option + ": '" + text + "' is too large");
    v = v * 10 + uint64_t(text[i] - '0');
  }
  if (i == 0) throw UsageError(bad);
  int shift = 0;
  if (i < text.size()) {
    switch (text[i] | 0x20) {
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      case 't': shift = 40; break;
      default: throw UsageError(bad);
    }
    ++i;
    if (i < text.size() && (text[i] | 0x20) == 'b') ++i;
  }
  if (i != text.size()) throw UsageError(bad);
  if (shift && v > (UINT64_MAX >> shift)) throw UsageError(option + ": '" + text + "' is too large");
  return v << shift;
}

Limits limits_from_args(const Args& a) {
  Limits l;
  auto get = [&](const std::string& opt, uint64_t max) -> uint64_t {
    if (!a.has(opt)) return 0;
    const uint64_t v = parse_size(a.get(opt), opt);
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
  const std::string wd = a.get("--weight-dtype", "float32");
  if (!try_parse_dtype(wd, &o.weight_dtype) ||
      (o.weight_dtype != DType::F32 && o.weight_dtype != DType::F16 && o.weight_dtype != DType::BF16))
    throw UsageError("--weight-dtype must be float32, float16 or bfloat16, got '" + wd + "'");
  return o;
}

AllocWindow::AllocWindow() {
  begin_ = reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "tir_alloc_window_begin"));
  end_ = reinterpret_cast<int64_t (*)()>(dlsym(RTLD_DEFAULT, "tir_alloc_window_end"));
  if (!begin_ || !end_) begin_ = nullptr, end_ = nullptr;
}

}  // namespace tir::cli
