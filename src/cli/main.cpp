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

// One entry per command: its usage lines (each starting "  ") and options.
struct Command {
  const char* name;
  std::string usage;
  CommandOptions options;
  int (*run)(const Args&);
};

std::vector<std::string> with_limits(std::vector<std::string> values) {
  values.insert(values.end(), kLimitOptions.begin(), kLimitOptions.end());
  return values;
}

int cmd_info(const Args& a);
int cmd_visualize(const Args& a);
int cmd_pie(const Args& a);
int cmd_run(const Args& a);
int cmd_verify(const Args& a);
int cmd_parity(const Args& a);
int cmd_ops(const Args& a);

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"info", "  info IR [--json] [-o FILE]\n", {{"-o"}, {"--json"}}, cmd_info},
      {"visualize", "  visualize IR [--max-nodes N] [--no-weights] [-o FILE]\n", {{"--max-nodes", "-o"}, {"--no-weights"}},
       cmd_visualize},
      {"pie", "  pie IR [--top N] [-o FILE]\n", {{"--top", "-o"}, {}}, cmd_pie},
      {"run",
       "  run IR --weights W [--constants C] --inputs IO [-o OUT.safetensors] [--profile] [--repeat N]\n"
       "      [--threads N] [--weight-dtype D] [--strict-weights] [LIMITS]   (--repeat: N runs, median time and\n"
       "      per-node median profile)\n",
       {with_limits({"--weights", "--constants", "--inputs", "-o", "--repeat", "--threads", "--weight-dtype"}),
        {"--profile", "--strict-weights"}},
       cmd_run},
      {"verify",
       "  verify IR --weights W [--constants C] --io IO [--rtol R] [--atol A] [--backend native|libtorch]\n"
       "      [--device cpu|cuda (libtorch)] [--threads N] [--weight-dtype D] [--strict-weights] [--reference64 T] [LIMITS]\n"
       "      (--reference64: float64 outputs output.<i>; also reports, per output, our max error and the\n"
       "      reference's max error against them, and whether an rtol/atol failure is only reassociation;\n"
       "      the exit status still follows rtol/atol)\n",
       {with_limits({"--weights", "--constants", "--io", "--rtol", "--atol", "--backend", "--device", "--threads",
                     "--weight-dtype", "--reference64"}),
        {"--strict-weights"}},
       cmd_verify},
      {"parity",
       "  parity IR --weights W [--constants C] --io IO [--rtol R] [--atol A] [--device cpu|cuda]\n"
       "      [--criterion rtol|truth64] [--strict-weights] [LIMITS]   (per node, ours vs LibTorch on the device;\n"
       "      truth64, the default off cpu: ours and the device both within 2x LibTorch-cpu's error vs a\n"
       "      float64 run of the graph + 1e-6 x scale; see docs/gpu-parity.md)\n",
       {with_limits({"--weights", "--constants", "--io", "--rtol", "--atol", "--device", "--criterion"}),
        {"--strict-weights"}},
       cmd_parity},
      {"generate", kGenerateUsage,
       {with_limits({"--kv-mapping", "--weights", "--constants", "--prompt-ids", "--max-new-tokens", "--temperature",
                     "--top-k", "--top-p", "--seed", "--stop", "--threads", "--weight-dtype"}),
        {"--no-donate", "--strict-weights"}},
       cmd_generate},
      {"ops", "  ops                       (lists the supported op types)\n", {}, cmd_ops},
  };
  return list;
}

std::string usage() {
  std::string u = "usage: torchir <command> ...\n";
  for (const auto& c : commands()) u += c.usage;
  u += "  torchir --version | --help\n"
       "IO files are .safetensors with input.<graph_input_name> and output.<i> tensors.\n"
       "--weight-dtype float32|float16|bfloat16: how linear/matmul/addmm/mm store the constant weights they\n"
       "pack (halves widened in the kernel, f32 accumulation; default float32).\n"
       "--strict-weights: weights/constants keys that match nothing in the IR are an error (default: a warning).\n"
       "TIR_SIMD_TARGET=SSE4|AVX2|...: caps the SIMD kernels' target (default: the best this CPU runs; run prints it).\n";
  u += kLimitsUsage;
  return u + "Exit status: 0 success, 1 error (verify: outputs differ; parity: a node diverges), 2 usage error,\n"
             "3 the --device is not available to LibTorch (e.g. \"CUDA is not available to LibTorch ...\").\n";
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

const std::string& ir_path(const Args& a) {
  if (a.positional.empty()) throw UsageError("missing IR file argument");
  return a.positional[0];
}


int cmd_info(const Args& a) {
  Model m = load_model_file(ir_path(a));
  write_text(a.has("--json") ? model_info_json(m) : model_info_text(m), a.get("-o"));
  return 0;
}

int cmd_visualize(const Args& a) {
  Model m = load_model_file(ir_path(a));
  write_text(ir_to_mermaid(m, int(a.num("--max-nodes", 30)), !a.has("--no-weights")), a.get("-o"));
  return 0;
}

int cmd_pie(const Args& a) {
  Model m = load_model_file(ir_path(a));
  write_text(op_distribution_pie(m, int(a.num("--top", 10))), a.get("-o"));
  return 0;
}

// The weights and constants files, their keys checked against the IR.
std::pair<TensorMap, TensorMap> read_sources(const Args& a, const Model& model) {
  std::pair<TensorMap, TensorMap> s{read_weights_file(required(a, "--weights")),
                                    load_optional_tensors(a.get("--constants"))};
  check_weight_keys({&model}, s.first, "weights", a.has("--strict-weights"));
  check_weight_keys({&model}, s.second, "constants", a.has("--strict-weights"));
  return s;
}

// --threads N (0 or absent: every core).
void apply_threads(const Args& a) {
  const int64_t threads = int64_t(a.num("--threads", 0));
  if (threads < 0) throw UsageError("--threads must be positive");
  if (threads > 0) set_num_threads(int(threads));
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
  const std::string io_path = required(a, "--inputs");
  TensorMap io = read_weights_file(io_path);
  auto inputs = io_inputs(m, io, io_path);
  const int64_t repeat = a.num("--repeat", 1);
  if (repeat < 1) throw UsageError("--repeat must be at least 1");
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
  const std::string io_path = required(a, "--io");
  TensorMap io = read_weights_file(io_path);
  auto inputs = io_inputs(m, io, io_path);
  auto expected = io_outputs(m, io, io_path);
  const std::string truth_path = a.get("--reference64");
  const std::vector<Tensor> truth =
      truth_path.empty() ? std::vector<Tensor>{} : io_outputs(m, read_weights_file(truth_path), truth_path);
  const std::string backend = a.get("--backend", "native");
  if (backend != "native" && backend != "libtorch") throw UsageError("unknown backend '" + backend + "' (native|libtorch)");
  apply_threads(a);
  std::vector<Tensor> actual;
  if (backend == "native") {
    actual = open_session(a, m)->run(inputs);
  } else {
    auto [weights, constants] = read_sources(a, m);
    actual = run_reference(m, weights, constants, inputs, device);
  }
  VerifyReport r = verify_outputs(actual, expected, a.num("--rtol", 1e-5), a.num("--atol", 1e-5));
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
  o.rtol = a.num("--rtol", 1e-4);
  o.atol = a.num("--atol", 1e-4);
  o.device = a.get("--device", "cpu");
  o.criterion = a.get("--criterion");
  o.criterion = parity_criterion(o);
  o.limits = limits_from_args(a);
  require_device(o.device);  // before anything is loaded
  Model m = load_model_file(ir_path(a));
  const std::string io_path = required(a, "--io");
  TensorMap io = read_weights_file(io_path);
  auto [weights, constants] = read_sources(a, m);
  return run_parity(m, weights, constants, io_inputs(m, io, io_path), o, std::cout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help") {
    std::cout << usage();
    return argc < 2 ? 2 : 0;
  }
  const std::string name = argv[1];
  if (name == "--version") {
    std::cout << "torchir " << TIR_VERSION << "\n";
    return 0;
  }
  const auto& list = commands();
  const auto cmd = std::find_if(list.begin(), list.end(), [&](const Command& c) { return name == c.name; });
  if (cmd == list.end()) {
    std::cerr << "torchir: unknown command '" << name << "'\n" << usage();
    return 2;
  }
  try {
    simd_target_from_env();
    return cmd->run(parse_args(argc, argv, 2, cmd->options));
  } catch (const DeviceUnavailableError& e) {
    std::cerr << "torchir: " << e.kind() << ": " << e.what() << "\n";
    return kExitNoDevice;
  } catch (const UsageError& e) {
    std::cerr << "torchir: usage error: " << e.what() << "\nusage: torchir " << cmd->usage.substr(2)
              << "(torchir --help lists every command and option)\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "torchir: " << e.kind() << ": " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "torchir: error: " << e.what() << "\n";
    return 1;
  }
}
