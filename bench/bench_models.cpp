// tir_bench: times Session::run on every whole-model fixture at several
// thread counts and prints a markdown table (see bench/README.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/json_loader.h"
#include "runtime/session.h"
#include "core/thread_pool.h"
#include "kernels/simd_dispatch.h"
#include "verify/verify.h"
#include "weights/torch_save.h"

namespace fs = std::filesystem;
using namespace tir;

namespace {

const char* kUsage =
    "usage: tir_bench [--fixtures DIR] [--generated DIR] [--threads 1,2] [--runs N] [--warmup N]\n"
    "                 [--filter SUBSTR]\n"
    "  --fixtures   tests/fixtures (default: env TIR_FIXTURES, else the source tree's)\n"
    "  --generated  generated fixtures with resnet18/mobilenet_v2 weights (default: env\n"
    "               TIR_GENERATED_FIXTURES, else <source>/build/fixtures)\n"
    "  --threads    comma-separated thread counts (default 1,2)\n"
    "  --runs       timed runs per model and thread count (default 10; x10 for models under 10 ms)\n"
    "  --warmup     untimed runs first (default 2)\n"
    "  --filter     only fixtures whose id contains SUBSTR\n"
    "  --profile    also print per-op-type time of one profiled run to stderr\n"
    "  --json       one JSON line per fixture and thread count instead of the table (bench/run.mjs):\n"
    "               exactly --runs timed runs (0: enough for --budget-ms, within --min-runs/--max-runs),\n"
    "               max abs/rel diff vs the recorded outputs, pass at --rtol/--atol (default 1e-4)\n";

struct Options {
  std::string fixtures, generated, filter;
  std::vector<int> threads{1, 2};
  int runs = 10, warmup = 2;
  bool profile = false;
  bool json = false;
  bool runs_given = false;
  double rtol = 1e-4, atol = 1e-4, budget_ms = 3000;
  int min_runs = 10, max_runs = 50;
};

struct Fixture {
  std::string id, model, flavor, ir, weights, io;
};

std::string source_root() {
  const std::string here = __FILE__;
  return here.substr(0, here.rfind("/bench/"));
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

Options parse(int argc, char** argv) {
  Options o;
  o.fixtures = env_or("TIR_FIXTURES", source_root() + "/tests/fixtures");
  o.generated = env_or("TIR_GENERATED_FIXTURES", source_root() + "/build/fixtures");
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error("missing value for " + a);
      return argv[++i];
    };
    if (a == "--fixtures")
      o.fixtures = value();
    else if (a == "--generated")
      o.generated = value();
    else if (a == "--filter")
      o.filter = value();
    else if (a == "--runs") {
      o.runs = std::max(0, std::stoi(value()));
      o.runs_given = true;
    } else if (a == "--json")
      o.json = true;
    else if (a == "--rtol")
      o.rtol = std::stod(value());
    else if (a == "--atol")
      o.atol = std::stod(value());
    else if (a == "--budget-ms")
      o.budget_ms = std::stod(value());
    else if (a == "--min-runs")
      o.min_runs = std::max(1, std::stoi(value()));
    else if (a == "--max-runs")
      o.max_runs = std::max(1, std::stoi(value()));
    else if (a == "--profile")
      o.profile = true;
    else if (a == "--warmup")
      o.warmup = std::max(0, std::stoi(value()));
    else if (a == "--threads") {
      o.threads.clear();
      std::stringstream ss(value());
      for (std::string t; std::getline(ss, t, ',');) o.threads.push_back(std::max(1, std::stoi(t)));
    } else if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      std::exit(0);
    } else {
      throw std::runtime_error("unknown option " + a + "\n" + kUsage);
    }
  }
  if (!o.json && o.runs < 1) o.runs = 1;
  if (o.json && !o.runs_given) o.runs = 0;
  return o;
}

// Same discovery as the model tests: <fixtures>/models/<model>/<flavor>/model.json,
// weights/io beside it or under the generated dir at the same relative path.
std::vector<Fixture> discover(const Options& o) {
  std::vector<Fixture> out;
  const fs::path root = fs::path(o.fixtures) / "models";
  if (!fs::exists(root)) throw std::runtime_error("no fixtures at " + root.string());
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.path().filename() != "model.json") continue;
    const fs::path dir = entry.path().parent_path();
    const fs::path rel = fs::relative(dir, root);
    Fixture f;
    f.id = rel.generic_string();
    if (!o.filter.empty() && f.id.find(o.filter) == std::string::npos) continue;
    f.model = rel.begin()->string();
    f.flavor = dir.filename().string();
    f.ir = entry.path().string();
    for (const fs::path& base : {dir, fs::path(o.generated) / rel}) {
      if (f.weights.empty() && fs::exists(base / "weights.safetensors"))
        f.weights = (base / "weights.safetensors").string();
      if (f.io.empty() && fs::exists(base / "io.safetensors")) f.io = (base / "io.safetensors").string();
    }
    out.push_back(f);
  }
  std::sort(out.begin(), out.end(), [](const Fixture& a, const Fixture& b) { return a.id < b.id; });
  return out;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One profiled run: milliseconds per op type, largest first (stderr).
void print_profile(Session& session, const std::vector<Tensor>& inputs, const std::string& id, int threads) {
  session.set_profiling(true);
  session.reset_buffers();
  session.run(inputs);
  session.set_profiling(false);
  std::map<std::string, std::pair<double, int>> by_op;
  double total = 0;
  for (const NodeTiming& t : session.last_profile()) {
    by_op[t.op_type].first += t.ms;
    by_op[t.op_type].second++;
    total += t.ms;
  }
  std::vector<std::pair<std::string, std::pair<double, int>>> rows(by_op.begin(), by_op.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::fprintf(stderr, "profile %s, %d thread(s): %.3f ms in nodes\n", id.c_str(), threads, total);
  for (const auto& r : rows)
    std::fprintf(stderr, "  %-48s %9.3f ms %5.1f%% x%d\n", r.first.c_str(), r.second.first,
                 total > 0 ? 100.0 * r.second.first / total : 0.0, r.second.second);
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = double(v.size() - 1) * q;
  const size_t lo = size_t(std::floor(pos)), hi = size_t(std::ceil(pos));
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

// Same measures as bench/lib/common.mjs compare(): max |a-e|, max |a-e| / max(|e|, atol),
// torch.allclose for pass (NaN fails); every output, every element.
struct Diff {
  double max_abs = 0, max_rel = 0;
  bool pass = true;
};

Diff diff_outputs(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected, double rtol,
                  double atol) {
  Diff d;
  if (actual.size() != expected.size()) {
    d.pass = false;
    return d;
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    if (actual[i].shape != expected[i].shape) {
      d.pass = false;
      d.max_abs = d.max_rel = INFINITY;
      continue;
    }
    const Tensor a = to_dtype_owned(actual[i], DType::F64), e = to_dtype_owned(expected[i], DType::F64);
    const double *pa = a.data<double>(), *pe = e.data<double>();
    for (int64_t k = 0; k < a.numel(); ++k) {
      const double diff = std::fabs(pa[k] - pe[k]);
      if (!(diff <= atol + rtol * std::fabs(pe[k]))) d.pass = false;
      const double rel = diff / std::max(std::fabs(pe[k]), atol);
      d.max_abs = std::isnan(diff) ? INFINITY : std::max(d.max_abs, diff);
      d.max_rel = std::isnan(rel) ? INFINITY : std::max(d.max_rel, rel);
    }
  }
  return d;
}

// --json: one line per thread count, runs as the JS runners do them (bench/runner.mjs):
// warm-up, then the timed runs back to back; the first and the last output are checked.
void bench_json(const Options& opt, const Fixture& f, Session& session, const std::vector<Tensor>& inputs,
                const std::vector<Tensor>& expected) {
  for (int threads : opt.threads) {
    set_num_threads(threads);
    session.reset_buffers();
    Diff d = diff_outputs(session.run(inputs), expected, opt.rtol, opt.atol);
    double warm_ms = 0;
    for (int i = 0; i < std::max(1, opt.warmup); ++i) {
      session.reset_buffers();
      const auto t0 = std::chrono::steady_clock::now();
      session.run(inputs);
      warm_ms = ms_since(t0);
    }
    const int runs = opt.runs > 0 ? opt.runs
                                  : std::max(opt.min_runs, std::min(opt.max_runs, int(std::ceil(
                                                                         opt.budget_ms / std::max(warm_ms, 1e-3)))));
    std::vector<double> times;
    std::vector<Tensor> last;
    for (int i = 0; i < runs; ++i) {
      session.reset_buffers();
      const auto t0 = std::chrono::steady_clock::now();
      last = session.run(inputs);
      times.push_back(ms_since(t0));
    }
    const Diff d2 = diff_outputs(last, expected, opt.rtol, opt.atol);
    d.max_abs = std::max(d.max_abs, d2.max_abs);
    d.max_rel = std::max(d.max_rel, d2.max_rel);
    d.pass = d.pass && d2.pass;
    std::printf(
        "{\"engine\":\"ours-native\",\"model\":\"%s\",\"flavor\":\"%s\",\"threads\":%d,\"median_ms\":%.6g,"
        "\"min_ms\":%.6g,\"p90_ms\":%.6g,\"runs\":%d,\"max_abs_diff\":%.6g,\"max_rel_diff\":%.6g,"
        "\"rtol\":%g,\"atol\":%g,\"pass\":%s,\"arena_mb\":%.3f}\n",
        f.model.c_str(), f.flavor.c_str(), threads, quantile(times, 0.5),
        *std::min_element(times.begin(), times.end()), quantile(times, 0.9), runs,
        std::isinf(d.max_abs) ? 1e308 : d.max_abs, std::isinf(d.max_rel) ? 1e308 : d.max_rel, opt.rtol, opt.atol,
        d.pass ? "true" : "false", double(session.arena_bytes()) / (1024.0 * 1024.0));
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options opt = parse(argc, argv);
    simd_target_from_env();
    if (!opt.json) {
      std::printf("SIMD target: %s\n", simd_target().c_str());
      std::printf("| model | flavor | threads | median ms | min ms | runs | arena MB | speedup | verified |\n");
      std::printf("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    }
    for (const Fixture& f : discover(opt)) {
      if (f.weights.empty() || f.io.empty()) {
        std::fprintf(stderr, "skip %s: weights/io not generated (tools/make_fixtures.sh)\n", f.id.c_str());
        continue;
      }
      const Model model = load_model_file(f.ir);
      const TensorMap io = read_weights_file(f.io);
      std::vector<Tensor> inputs, expected;
      auto io_tensor = [&](const std::string& key) {
        const Tensor* t = io.find(key);
        if (!t) throw std::runtime_error(f.io + " lacks " + key);
        return *t;
      };
      for (const auto& gi : model.graph_inputs) inputs.push_back(io_tensor("input." + gi.name));
      for (size_t i = 0; i < model.graph_outputs.size(); ++i)
        expected.push_back(io_tensor("output." + std::to_string(i)));
      Session session(model);
      session.bind(read_weights_file(f.weights));
      if (opt.json) {
        bench_json(opt, f, session, inputs, expected);
        continue;
      }
      // Verify and warm up at every thread count; the timed runs then take
      // the thread counts in turn (5 rounds of blocks), so load from
      // elsewhere on the machine hits all of them alike.
      const size_t nt = opt.threads.size();
      std::vector<bool> valid(nt);
      double first_ms = 0;
      for (size_t t = 0; t < nt; ++t) {
        set_num_threads(opt.threads[t]);
        session.reset_buffers();
        valid[t] = verify_outputs(session.run(inputs), expected, 1e-5, 1e-5).is_valid;
        for (int i = 0; i < opt.warmup; ++i) session.run(inputs);
        const auto t0 = std::chrono::steady_clock::now();
        session.run(inputs);
        if (t == 0) first_ms = ms_since(t0);
      }
      const int runs = first_ms < 10.0 ? opt.runs * 10 : opt.runs;
      std::vector<std::vector<double>> times(nt);
      const int rounds = std::min(runs, 5);
      for (int round = 0; round < rounds; ++round)
        for (size_t t = 0; t < nt; ++t) {
          set_num_threads(opt.threads[t]);
          session.run(inputs);  // wakes the new workers
          for (int i = round; i < runs; i += rounds) {
            session.reset_buffers();  // KV-cache models mutate their buffers
            const auto t0 = std::chrono::steady_clock::now();
            session.run(inputs);
            times[t].push_back(ms_since(t0));
          }
        }
      const double base_ms = median(times[0]);
      for (size_t t = 0; t < nt; ++t) {
        const double med = median(times[t]);
        std::printf("| %s | %s | %d | %.4g | %.4g | %d | %.2f | %.2fx | %s |\n", f.model.c_str(), f.flavor.c_str(),
                    opt.threads[t], med, *std::min_element(times[t].begin(), times[t].end()), runs,
                    double(session.arena_bytes()) / (1024.0 * 1024.0), base_ms / med, valid[t] ? "yes" : "NO");
        if (opt.profile) {
          set_num_threads(opt.threads[t]);
          print_profile(session, inputs, f.id, opt.threads[t]);
        }
      }
      std::fflush(stdout);
    }
    set_num_threads(1);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tir_bench: %s\n", e.what());
    return 1;
  }
}
