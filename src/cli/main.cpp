// torchir: native CLI over the engine (info / visualize / pie / run / verify / parity).
#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <fstream>
#include <iostream>

#include "cli/cli_common.h"
#include "cli/generate.h"
#include "cli/parity.h"
#include "core/errors.h"
#include "core/thread_pool.h"
#include "ir/info.h"
#include "ir/json_loader.h"
#include "ir/mermaid.h"
#include "kernels/simd_dispatch.h"
#include "ops/op.h"
#include "runtime/session.h"
#include "verify/truth.h"
#include "verify/verify.h"
#include "weights/safetensors.h"
#include "weights/torch_save.h"

using namespace tir;
using namespace tir::cli;

namespace {

int cmd_info(const Args& a);
int cmd_visualize(const Args& a);
int cmd_pie(const Args& a);
int cmd_run(const Args& a);
int cmd_verify(const Args& a);
int cmd_parity(const Args& a);
int cmd_ops(const Args& a);

// The handler of each command of the table in command_line/command_line.cpp
// (which checks the arguments before a handler runs).
int (*handler(const std::string& command))(const Args&) {
  static const std::map<std::string, int (*)(const Args&)> handlers = {
      {"info", cmd_info}, {"visualize", cmd_visualize}, {"pie", cmd_pie},           {"run", cmd_run},
      {"verify", cmd_verify}, {"parity", cmd_parity}, {"generate", cmd_generate}, {"ops", cmd_ops}};
  const auto it = handlers.find(command);
  if (it == handlers.end()) throw Error("torchir: no handler for command '" + command + "'");
  return it->second;
}

void write_text(const std::string& text, const std::string& path) {
  if (path.empty()) {
    std::cout << text << "\n";
    return;
  }
  std::ofstream f(path, std::ios::binary);
  if (!f) throw Error("cannot write '" + path + "': " + std::strerror(errno));
  f << text << "\n";
  if (!f.flush()) throw Error("cannot write '" + path + "': " + std::strerror(errno));
}

const std::string& ir_path(const Args& a) { return a.positional.at(0); }  // the parser checked it is there


int cmd_info(const Args& a) {
  Model m = load_model_file(ir_path(a));
  write_text(a.has("--json") ? model_info_json(m) : model_info_text(m), a.get("-o"));
  return 0;
}

int cmd_visualize(const Args& a) {
  Model m = load_model_file(ir_path(a));
  write_text(ir_to_mermaid(m, int(a.num("--max-nodes")), !a.has("--no-weights")), a.get("-o"));
  return 0;
}

int cmd_pie(const Args& a) {
  Model m = load_model_file(ir_path(a));
  write_text(op_distribution_pie(m, int(a.num("--top"))), a.get("-o"));
  return 0;
}

// The weights and constants files, their keys checked against the IR.
std::pair<TensorMap, TensorMap> read_sources(const Args& a, const Model& model) {
  std::pair<TensorMap, TensorMap> s{read_weights_file(a.get("--weights")),
                                    load_optional_tensors(a.get("--constants"))};
  check_weight_keys({&model}, s.first, "weights", a.has("--strict-weights"));
  check_weight_keys({&model}, s.second, "constants", a.has("--strict-weights"));
  return s;
}

// --threads N (0 or absent: every core).
void apply_threads(const Args& a) {
  if (const int64_t threads = int64_t(a.num("--threads", 0)); threads > 0) set_num_threads(int(threads));
}

// Loads IR + weights + constants into a bound native session.
std::unique_ptr<Session> open_session(const Args& a, Model model) {
  const SessionOptions options = session_options(a);
  auto [weights, constants] = read_sources(a, model);
  auto s = std::make_unique<Session>(std::move(model), options);
  s->bind(weights, constants);
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Per-node medians over the runs, the per-op-type totals, then every node.
void print_profile(const std::vector<std::vector<NodeTiming>>& runs) {
  if (runs.empty() || runs[0].empty()) return;
  std::vector<NodeTiming> med = runs[0];
  double total = 0;
  std::map<std::string, double> by_op;
  for (size_t i = 0; i < med.size(); ++i) {
    std::vector<double> t;
    for (const auto& r : runs) t.push_back(r[i].ms);
    med[i].ms = median(t);
    total += med[i].ms;
    by_op[med[i].op_type] += med[i].ms;
  }
  std::vector<std::pair<std::string, double>> ops(by_op.begin(), by_op.end());
  std::sort(ops.begin(), ops.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  std::printf("per op type (%s%zu run(s)):\n", runs.size() > 1 ? "median of " : "", runs.size());
  for (const auto& [op, ms] : ops)
    std::printf("  %-40s %9.3f ms %5.1f%%\n", op.c_str(), ms, total > 0 ? 100 * ms / total : 0.0);
  std::printf("per node:\n");
  for (const auto& t : med) {
    std::string covers;  // nodes fused into this one (runtime/fusion.cpp)
    for (const auto& c : t.covers) covers += (covers.empty() ? "  (+ " : ", ") + c;
    if (t.folded) covers = "  (folded: computed once at prepare)";  // runtime/constant_fold.cpp
    else if (!covers.empty()) covers += ")";
    std::printf("  %-40s %-40s %9.3f ms%s\n", t.node.c_str(), t.op_type.c_str(), t.ms, covers.c_str());
  }
}

int cmd_run(const Args& a) {
  Model m = load_model_file(ir_path(a));
  const std::string io_path = a.get("--inputs");
  TensorMap io = read_weights_file(io_path);
  auto inputs = io_inputs(m, io, io_path);
  const int64_t repeat = int64_t(a.num("--repeat"));
  apply_threads(a);
  auto session = open_session(a, m);
  session->set_profiling(a.has("--profile"));
  std::vector<Tensor> outputs;
  std::vector<double> times;
  std::vector<std::vector<NodeTiming>> profiles;
  const AllocWindow alloc_window;  // tools/alloc_count, when preloaded: counts each run's allocations
  for (int64_t r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    alloc_window.begin();
    session->set_inputs(inputs);
    session->run_slots();
    alloc_window.end();
    outputs.clear();
    for (const auto& o : session->output_views()) outputs.push_back(to_dtype_owned(o, o.dtype));
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    profiles.push_back(session->last_profile());
  }
  TensorMap out;
  for (size_t i = 0; i < outputs.size(); ++i) {
    out.set("output." + std::to_string(i), outputs[i]);
    std::printf("output %zu: %s %s\n", i, shape_to_string(outputs[i].shape).c_str(), dtype_name(outputs[i].dtype));
  }
  std::printf("simd target: %s\n", simd_target().c_str());
  if (repeat > 1)
    std::printf("run time: %.3f ms (median of %lld runs; first %.3f ms)\n", median(times), (long long)repeat,
                times[0]);
  else
    std::printf("run time: %.3f ms\n", times[0]);
  print_profile(profiles);
  if (a.has("-o")) write_safetensors_file(a.get("-o"), out);
  return 0;
}

int cmd_verify(const Args& a) {
  const std::string device = a.get("--device", "cpu");
  if (a.get("--backend", "native") == "libtorch") require_device(device);
  else if (device != "cpu") throw UsageError("--device " + device + " needs --backend libtorch (the native engine runs on cpu)");
  Model m = load_model_file(ir_path(a));
  const std::string io_path = a.get("--io");
  TensorMap io = read_weights_file(io_path);
  auto inputs = io_inputs(m, io, io_path);
  auto expected = io_outputs(m, io, io_path);
  const std::string truth_path = a.get("--reference64");
  const std::vector<Tensor> truth =
      truth_path.empty() ? std::vector<Tensor>{} : io_outputs(m, read_weights_file(truth_path), truth_path);
  const std::string backend = a.get("--backend");
  apply_threads(a);
  std::vector<Tensor> actual;
  if (backend == "native") {
    actual = open_session(a, m)->run(inputs);
  } else {
    auto [weights, constants] = read_sources(a, m);
    actual = run_reference(m, weights, constants, inputs, device);
  }
  VerifyReport r = verify_outputs(actual, expected, a.num("--rtol"), a.num("--atol"));
  std::cout << format_report(r);
  if (!truth_path.empty()) std::cout << format_truth_report(compare_with_truth(actual, expected, truth), !r.is_valid);
  return r.is_valid ? 0 : 1;
}

int cmd_ops(const Args&) {
  for (const auto& op : OpRegistry::instance().op_types()) std::cout << op << "\n";
  return 0;
}

int cmd_parity(const Args& a) {
  ParityOptions o;
  o.rtol = a.num("--rtol");
  o.atol = a.num("--atol");
  o.device = a.get("--device", "cpu");
  o.criterion = a.get("--criterion");
  o.criterion = parity_criterion(o);
  o.limits = limits_from_args(a);
  require_device(o.device);  // before anything is loaded
  Model m = load_model_file(ir_path(a));
  const std::string io_path = a.get("--io");
  TensorMap io = read_weights_file(io_path);
  auto [weights, constants] = read_sources(a, m);
  return run_parity(m, weights, constants, io_inputs(m, io, io_path), o, std::cout);
}

}  // namespace

int main(int argc, char** argv) {
  using command_line::Front;
  if (argc < 2 || std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help") {
    std::cout << command_line::usage(Front::Native);
    return argc < 2 ? 2 : 0;
  }
  const std::string name = argv[1];
  if (name == "--version") {
    std::cout << "torchir " << TIR_VERSION << "\n";
    return 0;
  }
  if (!command_line::find_command(name)) {
    std::cerr << "torchir: unknown command '" << name << "'\n" << command_line::usage(Front::Native);
    return 2;
  }
  try {
    simd_target_from_env();
    const Args a = command_line::parse(Front::Native, std::vector<std::string>(argv + 1, argv + argc));
    return handler(a.command)(a);
  } catch (const DeviceUnavailableError& e) {
    std::cerr << "torchir: " << e.kind() << ": " << e.what() << "\n";
    return kExitNoDevice;
  } catch (const UsageError& e) {
    std::cerr << "torchir: usage error: " << e.what() << "\n" << command_line::usage_hint(Front::Native, name);
    return 2;
  } catch (const Error& e) {
    std::cerr << "torchir: " << e.kind() << ": " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "torchir: error: " << e.what() << "\n";
    return 1;
  }
}
