// Shared pieces of the torchir CLI: fixture I/O, weight sources, session options.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "command_line/command_line.h"
#include "core/errors.h"
#include "ir/model.h"
#include "runtime/session.h"
#include "core/tensor.h"
#include "weights/tensor_map.h"

namespace tir::cli {

// The command-line grammar (commands, options, usage) is shared with the npm
// CLI: src/command_line.
using command_line::Args;
using command_line::UsageError;

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
