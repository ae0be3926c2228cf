// torchir: native CLI over the engine (info / visualize / pie / run / verify / parity).
#include <algorithm>
#include <chrono>
#include <cstdio>
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
#include "ops/op.h"
#include "runtime/session.h"
#include "verify/verify.h"
#include "weights/safetensors.h"
#include "weights/torch_save.h"

using namespace tir;
using namespace tir::cli;

namespace {

const char* kUsage =
    "usage: torchir <command> ...\n"
    "  info IR [--json] [-o FILE]\n"
    "  visualize IR [--max-nodes N] [--no-weights] [-o FILE]\n"
    "  pie IR [--top N] [-o FILE]\n"
    "  run IR --weights W [--constants C] --inputs IO [-o OUT.safetensors] [--profile] [--repeat N]\n"
    "      [--threads N] [--weight-dtype D] [LIMITS]   (--repeat: N runs, median time and per-node median profile)\n"
    "  verify IR --weights W [--constants C] --io IO [--rtol R] [--atol A] [--backend native|libtorch]\n"
    "      [--weight-dtype D] [LIMITS]\n"
    "  parity IR --weights W [--constants C] --io IO [--rtol R] [--atol A] [--device cpu|cuda] [LIMITS]\n"
    "%GENERATE%"
    "  ops                       (lists the supported op types)\n"
    "IO files are .safetensors with input.<graph_input_name> and output.<i> tensors.\n"
    "--weight-dtype float32|float16|bfloat16: how linear/matmul/addmm/mm store the constant weights they\n"
    "pack (halves widened in the kernel, f32 accumulation; default float32).\n"
    "%LIMITS%";

// kUsage with the generate command's lines in place of %GENERATE%.
std::string usage() {
  std::string u = kUsage;
  const std::string mark = "%GENERATE%";
  u.replace(u.find(mark), mark.size(), kGenerateUsage);
  const std::string limits = "%LIMITS%";
  return u.replace(u.find(limits), limits.size(), kLimitsUsage);
}

void write_text(const std::string& text, const std::string& path) {
  if (path.empty()) {
    std::cout << text << "\n";
    return;
  }
  std::ofstream f(path, std::ios::binary);
  if (!f) throw Error("cannot write '" + path + "'");
  f << text << "\n";
}

const std::string& ir_path(const Args& a) {
  if (a.positional.empty()) throw Error("missing IR file argument");
  return a.positional[0];
}

std::string required(const Args& a, const std::string& opt) {
  if (!a.has(opt)) throw Error("missing required option " + opt);
  return a.get(opt);
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

// Loads IR + weights + constants into a bound native session.
std::unique_ptr<Session> open_session(const Args& a, Model model) {
  auto s = std::make_unique<Session>(std::move(model), session_options(a));
  s->bind(read_weights_file(required(a, "--weights")), load_optional_tensors(a.get("--constants")));
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
    std::printf("  %-40s %-40s %9.3f ms%s\n", t.node.c_str(), t.op_type.c_str(), t.ms,
                covers.empty() ? "" : (covers + ")").c_str());
  }
}

int cmd_run(const Args& a) {
  Model m = load_model_file(ir_path(a));
  const std::string io_path = required(a, "--inputs");
  TensorMap io = read_weights_file(io_path);
  auto inputs = io_inputs(m, io, io_path);
  const int64_t repeat = a.num("--repeat", 1), threads = a.num("--threads", 0);
  if (repeat < 1) throw Error("--repeat must be at least 1");
  if (threads < 0) throw Error("--threads must be positive");
  if (threads > 0) set_num_threads(int(threads));
  auto session = open_session(a, m);
  session->set_profiling(a.has("--profile"));
  std::vector<Tensor> outputs;
  std::vector<double> times;
  std::vector<std::vector<NodeTiming>> profiles;
  for (int64_t r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    outputs = session->run(inputs);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    profiles.push_back(session->last_profile());
  }
  TensorMap out;
  for (size_t i = 0; i < outputs.size(); ++i) {
    out.set("output." + std::to_string(i), outputs[i]);
    std::printf("output %zu: %s %s\n", i, shape_to_string(outputs[i].shape).c_str(), dtype_name(outputs[i].dtype));
  }
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
  Model m = load_model_file(ir_path(a));
  const std::string io_path = required(a, "--io");
  TensorMap io = read_weights_file(io_path);
  auto inputs = io_inputs(m, io, io_path);
  auto expected = io_outputs(m, io, io_path);
  const std::string backend = a.get("--backend", "native");
  std::vector<Tensor> actual;
  if (backend == "native") {
    actual = open_session(a, m)->run(inputs);
  } else if (backend == "libtorch") {
    actual = run_reference(m, read_weights_file(required(a, "--weights")),
                           load_optional_tensors(a.get("--constants")), inputs, a.get("--device", "cpu"));
  } else {
    throw Error("unknown backend '" + backend + "' (native|libtorch)");
  }
  VerifyReport r = verify_outputs(actual, expected, a.num("--rtol", 1e-5), a.num("--atol", 1e-5));
  std::cout << format_report(r);
  return r.is_valid ? 0 : 1;
}

int cmd_ops() {
  for (const auto& op : OpRegistry::instance().op_types()) std::cout << op << "\n";
  return 0;
}

int cmd_parity(const Args& a) {
  Model m = load_model_file(ir_path(a));
  const std::string io_path = required(a, "--io");
  TensorMap io = read_weights_file(io_path);
  ParityOptions o;
  o.rtol = a.num("--rtol", 1e-4);
  o.atol = a.num("--atol", 1e-4);
  o.device = a.get("--device", "cpu");
  o.limits = limits_from_args(a);
  return run_parity(m, read_weights_file(required(a, "--weights")), load_optional_tensors(a.get("--constants")),
                    io_inputs(m, io, io_path), o, std::cout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help") {
    std::cout << usage();
    return argc < 2 ? 2 : 0;
  }
  const std::string cmd = argv[1];
  try {
    const Args a = parse_args(argc, argv, 2, {"--json", "--no-weights", "--profile", "--no-donate"});
    if (cmd == "info") return cmd_info(a);
    if (cmd == "visualize") return cmd_visualize(a);
    if (cmd == "pie") return cmd_pie(a);
    if (cmd == "run") return cmd_run(a);
    if (cmd == "verify") return cmd_verify(a);
    if (cmd == "parity") return cmd_parity(a);
    if (cmd == "generate") return cmd_generate(a);
    if (cmd == "ops") return cmd_ops();
    std::cerr << "torchir: unknown command '" << cmd << "'\n" << usage();
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "torchir: usage error: " << e.what() << " (torchir --help lists the options)\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "torchir: " << e.kind() << ": " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "torchir: error: " << e.what() << "\n";
    return 1;
  }
}
