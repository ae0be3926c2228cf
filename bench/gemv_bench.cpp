// tir_gemv_bench: the GEMV of LLM decode (one row times a packed constant
// weight, kernels/gemm.h) with the weights packed as f32, f16 or bf16 halves.
// Prints the median time per GEMV and the weight bytes streamed per second
// (--rows M: an M-row gemm instead, as prefill runs; halves are then widened
// per cache block).
// --stack S runs S distinct matrices per timed pass (sized past the last-level
// cache, every GEMV then streams its weights from memory, as decode through a
// model's layers does); without it one matrix is repeated and stays in cache
// when it fits. Also compiles with em++ against a WASM build's libtir_core.a
// (see bench/README.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/gemm.h"

using namespace tir;

namespace {

const char* kUsage =
    "usage: tir_gemv_bench [--threads 1,2] [--runs N] [--stack S] [--rows M] [KxN ...]\n"
    "  KxN       GEMV shapes, 1 x K times K x N (default 4096x4096 1024x2816)\n"
    "  --threads comma-separated thread counts (default 1,2)\n"
    "  --runs    timed passes per shape, dtype and thread count (default 30; median)\n"
    "  --stack   distinct matrices per pass (default 1: one matrix, cache-warm when it fits)\n"
    "  --rows    rows of A (default 1: the GEMV)\n";

struct Weights {
  const char* name;
  std::vector<std::vector<float>> f32;
  std::vector<std::vector<uint16_t>> half;
  PackedHalf kind = PackedHalf::None;
  std::vector<bool> finite;
  double bytes_per_weight;
};

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void gemv(const Weights& w, size_t i, int64_t M, int64_t K, int64_t N, const float* x, float* y) {
  GemmOperandA A;
  A.data = x;
  A.ld = K;
  GemmOperandB B;
  if (w.kind == PackedHalf::None) {
    B.packed = w.f32[i].data();
  } else {
    B.packed_half = w.half[i].data();
    B.half = w.kind;
    B.half_finite = w.finite[i];
  }
  gemm_f32_ex(M, N, K, A, B, y, N);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> threads = {1, 2};
  int runs = 30, stack = 1, rows = 1;
  std::vector<std::pair<int64_t, int64_t>> shapes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--threads" || a == "--runs" || a == "--stack" || a == "--rows") && i + 1 < argc) {
      const std::string v = argv[++i];
      if (a == "--runs") runs = std::max(1, std::atoi(v.c_str()));
      if (a == "--stack") stack = std::max(1, std::atoi(v.c_str()));
      if (a == "--rows") rows = std::max(1, std::atoi(v.c_str()));
      if (a == "--threads") {
        threads.clear();
        for (size_t p = 0; p < v.size();) {
          const size_t q = v.find(',', p);
          threads.push_back(std::max(1, std::atoi(v.substr(p, q - p).c_str())));
          p = q == std::string::npos ? v.size() : q + 1;
        }
      }
    } else if (a.find('x') != std::string::npos && a[0] >= '0' && a[0] <= '9') {
      shapes.emplace_back(std::atoll(a.c_str()), std::atoll(a.c_str() + a.find('x') + 1));
    } else {
      std::fputs(kUsage, a == "-h" || a == "--help" ? stdout : stderr);
      return a == "-h" || a == "--help" ? 0 : 2;
    }
  }
  if (shapes.empty()) shapes = {{4096, 4096}, {1024, 2816}};
  std::printf("| M x K x N | stack | threads | f32 ms | f16 ms | bf16 ms | f32 GB/s | f16 GB/s | bf16 GB/s |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const auto& shape : shapes) {
    const int64_t K = shape.first, N = shape.second;
    std::mt19937 rng(1);
    std::normal_distribution<float> dist(0.0f, 0.02f);  // LLM-like weights
    Weights ws[3] = {{"f32", {}, {}, PackedHalf::None, {}, 4}, {"f16", {}, {}, PackedHalf::F16, {}, 2},
                     {"bf16", {}, {}, PackedHalf::BF16, {}, 2}};
    std::vector<float> b(size_t(K * N));
    for (int s = 0; s < stack; ++s) {
      for (auto& v : b) v = dist(rng);
      ws[0].f32.emplace_back(size_t(packed_b_size(K, N)));
      pack_b_f32(K, N, b.data(), N, false, ws[0].f32.back().data());
      for (int h = 1; h < 3; ++h) {
        ws[h].half.emplace_back(size_t(packed_b_size(K, N)));
        pack_b_half(K, N, b.data(), N, false, ws[h].kind, ws[h].half.back().data());
        ws[h].finite.push_back(halves_finite(packed_b_size(K, N), ws[h].half.back().data(), ws[h].kind));
      }
    }
    std::vector<float> x(static_cast<size_t>(rows * K)), y(static_cast<size_t>(rows * N));
    for (auto& v : x) v = dist(rng) * 50.0f;
    for (int t : threads) {
      set_num_threads(t);
      std::vector<double> times[3];
      for (int r = -2; r < runs; ++r)  // 2 warm-up passes; dtypes interleaved so drift hits all alike
        for (int d = 0; d < 3; ++d) {
          const double t0 = now_ms();
          for (int s = 0; s < stack; ++s) gemv(ws[d], size_t(s), rows, K, N, x.data(), y.data());
          if (r >= 0) times[d].push_back((now_ms() - t0) / stack);
        }
      double med[3];
      for (int d = 0; d < 3; ++d) {
        std::sort(times[d].begin(), times[d].end());
        med[d] = times[d][times[d].size() / 2];
      }
      auto gbs = [&](int d) { return double(K * N) * ws[d].bytes_per_weight / (med[d] * 1e6); };
      std::printf("| %d x %lld x %lld | %d | %d | %.3f | %.3f | %.3f | %.1f | %.1f | %.1f |\n", rows, (long long)K,
                  (long long)N, stack, t, med[0], med[1], med[2], gbs(0), gbs(1), gbs(2));
      std::fflush(stdout);
    }
  }
  return 0;
}
