// tir_bench: times Session::run on every whole-model fixture at several
// thread counts and prints a markdown table (see bench/README.md).
#include <algorithm>
#include <chrono>
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
    "  --profile    also print per-op-type time of one profiled run to stderr\n";

struct Options {
  std::string fixtures, generated, filter;
  std::vector<int> threads{1, 2};
  int runs = 10, warmup = 2;
  bool profile = false;
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
    else if (a == "--runs")
      o.runs = std::max(1, std::stoi(value()));
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

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options opt = parse(argc, argv);
    std::printf("| model | flavor | threads | median ms | min ms | runs | arena MB | speedup | verified |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
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
