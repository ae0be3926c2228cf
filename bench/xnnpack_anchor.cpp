// xnnpack_anchor: times Debian's XNNPACK (libxnnpack-dev, native x86-64
// kernels) on the benchmark's GEMM/GEMV and on ResNet-18's convolution shapes
// at 224x224, as an anchor for what a tuned native kernel library reaches on
// this machine. Not part of the CMake build: bench/run.mjs compiles it with
//   g++ -O2 -std=c++17 bench/xnnpack_anchor.cpp -lXNNPACK -lpthreadpool
// Prints one JSON line per case (random data: timing only, no reference).
//   xnnpack_anchor [--threads N] [--runs N] [--warmup N] [--cases gemm,gemv,conv]
#include <xnnpack.h>
#include <pthreadpool.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

struct Conv {
  const char* name;
  int cin, cout, k, stride, pad, h;  // square input h x h, NHWC
};

// ResNet-18 at 224x224: the stem, one 3x3 conv of each stage, the strided
// stage entries and a 1x1 downsample (each FLOP count is per conv).
const Conv kConvs[] = {
    {"conv1 7x7/2 3->64 @224", 3, 64, 7, 2, 3, 224},
    {"layer1 3x3 64->64 @56", 64, 64, 3, 1, 1, 56},
    {"layer2.0 3x3/2 64->128 @56", 64, 128, 3, 2, 1, 56},
    {"layer2 3x3 128->128 @28", 128, 128, 3, 1, 1, 28},
    {"layer3 3x3 256->256 @14", 256, 256, 3, 1, 1, 14},
    {"layer4 3x3 512->512 @7", 512, 512, 3, 1, 1, 7},
    {"downsample 1x1/2 64->128 @56", 64, 128, 1, 2, 0, 56},
};

std::vector<float> random_vec(size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = d(gen) * 0.05f;
  return v;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = double(v.size() - 1) * q;
  const size_t lo = size_t(std::floor(pos)), hi = size_t(std::ceil(pos));
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

void check(xnn_status s, const char* what) {
  if (s != xnn_status_success) {
    std::fprintf(stderr, "xnnpack_anchor: %s failed (status %d)\n", what, int(s));
    std::exit(1);
  }
}

void report(const std::string& model, int threads, int runs, int warmup, double flops,
            const std::function<void()>& run) {
  for (int i = 0; i < warmup; ++i) run();
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  const double med = quantile(t, 0.5);
  std::printf(
      "{\"engine\":\"xnnpack-native\",\"model\":\"%s\",\"threads\":%d,\"median_ms\":%.6g,\"min_ms\":%.6g,"
      "\"p90_ms\":%.6g,\"runs\":%d,\"gflops\":%.4g}\n",
      model.c_str(), threads, med, *std::min_element(t.begin(), t.end()), quantile(t, 0.9), runs,
      flops / (med * 1e6));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, runs = 20, warmup = 3;
  std::string cases = "gemm,gemv,conv";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--threads") threads = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--warmup") warmup = std::max(0, std::atoi(argv[i + 1]));
    else if (a == "--cases") cases = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: xnnpack_anchor [--threads N] [--runs N] [--warmup N] [--cases gemm,gemv,conv]\n");
      return 2;
    }
  }
  check(xnn_initialize(nullptr), "xnn_initialize");
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(size_t(threads)) : nullptr;
  const auto want = [&](const char* c) { return ("," + cases + ",").find("," + std::string(c) + ",") != std::string::npos; };

  // y[M,1024] = x[M,1024] @ W^T, W [out=1024, in=1024] as nn.Linear stores it.
  for (const auto& [name, m] : {std::pair<const char*, size_t>{"gemm", 1024}, {"gemv", 1}}) {
    if (!want(name)) continue;
    const size_t k = 1024, n = 1024;
    std::vector<float> w = random_vec(n * k, 1), x = random_vec(m * k, 2), y(m * n);
    xnn_operator_t op = nullptr;
    check(xnn_create_fully_connected_nc_f32(k, n, k, n, w.data(), nullptr, -INFINITY, INFINITY, 0, &op),
          "create fully_connected");
    check(xnn_setup_fully_connected_nc_f32(op, m, x.data(), y.data(), pool), "setup fully_connected");
    report(name, threads, runs, warmup, 2.0 * double(m) * n * k, [&] { check(xnn_run_operator(op, pool), "run"); });
    xnn_delete_operator(op);
  }

  if (want("conv")) {
    for (const Conv& c : kConvs) {
      const int oh = (c.h + 2 * c.pad - c.k) / c.stride + 1;
      std::vector<float> w = random_vec(size_t(c.cout) * c.k * c.k * c.cin, 3), b = random_vec(c.cout, 4);
      std::vector<float> x = random_vec(size_t(c.h) * c.h * c.cin, 5), y(size_t(oh) * oh * c.cout);
      xnn_operator_t op = nullptr;
      check(xnn_create_convolution2d_nhwc_f32(c.pad, c.pad, c.pad, c.pad, c.k, c.k, c.stride, c.stride, 1, 1, 1,
                                              c.cin, c.cout, c.cin, c.cout, w.data(), b.data(), -INFINITY,
                                              INFINITY, 0, &op),
            "create convolution");
      check(xnn_setup_convolution2d_nhwc_f32(op, 1, c.h, c.h, x.data(), y.data(), pool), "setup convolution");
      const double flops = 2.0 * oh * oh * c.cout * c.cin * c.k * c.k;
      report(std::string("conv ") + c.name, threads, runs, warmup, flops,
             [&] { check(xnn_run_operator(op, pool), "run"); });
      xnn_delete_operator(op);
    }
  }
  if (pool) pthreadpool_destroy(pool);
  return 0;
}
