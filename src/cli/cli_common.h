// Shared pieces of the torchir CLI: argument parsing and fixture I/O.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/errors.h"
#include "ir/model.h"
#include "runtime/session.h"
#include "core/tensor.h"
#include "weights/tensor_map.h"

namespace tir::cli {

// A bad command line (unknown value format, out-of-range option): main prints
// it with the usage hint and exits 2, as for an unknown command.
struct UsageError : Error {
  using Error::Error;
  const char* kind() const override { return "UsageError"; }
};

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;  // "--weights" -> value ("" for flags)
  bool has(const std::string& k) const { return options.count(k) > 0; }
  std::string get(const std::string& k, const std::string& def = "") const {
    auto it = options.find(k);
    return it == options.end() ? def : it->second;
  }
  double num(const std::string& k, double def) const;  // UsageError when not a number
};

// The options one command takes: `values` are followed by a value, `flags` are not.
struct CommandOptions {
  std::vector<std::string> values;
  std::vector<std::string> flags;
};
// The limit flags run/verify/parity/generate share (--max-tensor-bytes ...).
extern const std::vector<std::string> kLimitOptions;

// UsageError for an option the command does not take or one missing its value.
Args parse_args(int argc, char** argv, int first, const CommandOptions& options);

// UsageError naming `opt` when it is absent.
std::string required(const Args& a, const std::string& opt);

// Fixture I/O file: input.<graph_input_name> and output.<i>.
std::vector<Tensor> io_inputs(const Model& model, const TensorMap& io, const std::string& origin);
std::vector<Tensor> io_outputs(const Model& model, const TensorMap& io, const std::string& origin);
TensorMap load_optional_tensors(const std::string& path);

// Unknown keys of `source` (runtime/weight_keys.h): a warning on stderr, or a
// WeightLoadError when strict (--strict-weights).
void check_weight_keys(const std::vector<const Model*>& models, const TensorMap& source, const std::string& kind,
                       bool strict);

// Session options from the flags run/verify/generate/parity share
// (--weight-dtype, --max-tensor-bytes, --max-arena-bytes, --max-run-work).
SessionOptions session_options(const Args& a);
// The limit flags alone (0 where absent: the build's default).
Limits limits_from_args(const Args& a);
// "4096", "512M", "2G", "1T" (K/M/G/T = 2^10/2^20/2^30/2^40, case-insensitive,
// an optional trailing B) as a count; UsageError naming `option` otherwise.
uint64_t parse_size(const std::string& text, const std::string& option);
// Usage lines for the limit flags (kUsage and generate's usage show them).
extern const char* const kLimitsUsage;

// The markers of the allocation counter (tools/alloc_count) when it is
// preloaded (LD_PRELOAD=libtir_alloc_count.so), found through dlsym; without
// it begin()/end() do nothing. `torchir run` marks each run with them.
class AllocWindow {
 public:
  AllocWindow();
  void begin() const { if (begin_) begin_(); }
  void end() const { if (end_) end_(); }
 private:
  void (*begin_)() = nullptr;
  int64_t (*end_)() = nullptr;
};

}  // namespace tir::cli
