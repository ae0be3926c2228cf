// tir_elementwise_bench: the float32 elementwise kernels (kernels/elementwise.h)
// on their SIMD rows (EwPath::Auto) and on the scalar reference (EwPath::Scalar),
// timed alternately (A, B, A, B ...) in one process so machine noise hits both
// alike. Prints the median ns per element of each and their ratio.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "kernels/elementwise.h"
#include "kernels/simd_dispatch.h"

using namespace tir;

namespace {

const char* kUsage =
    "usage: tir_elementwise_bench [--n N] [--runs R] [--threads T] [--filter SUBSTR]\n"
    "  --n        elements per call (default 16384: 64 KB per operand, in L2; a slow call\n"
    "             stays well under a scheduler time slice, which on a loaded machine would\n"
    "             otherwise add a preemption to every scalar call)\n"
    "  --runs     timed calls per path and op (default 200; median)\n"
    "  --threads  thread count (default 1)\n"
    "  --filter   only ops whose name contains SUBSTR\n";

struct Case {
  const char* name;
  bool binary;
  BinaryOp bop;
  UnaryOp uop;
  UnaryParams p;
  bool scalar_b;  // binary: b is one broadcast element
};

UnaryParams params(double a, double b = 0, double c = 0) {
  UnaryParams p;
  p.a = a, p.b = b, p.c = c, p.has_a = true, p.has_b = true;
  return p;
}

std::vector<Case> cases() {
  const auto bin = [](const char* n, BinaryOp op, bool s = false) { return Case{n, true, op, UnaryOp::Relu, {}, s}; };
  const auto un = [](const char* n, UnaryOp op, UnaryParams p = {}) { return Case{n, false, BinaryOp::Add, op, p, false}; };
  return {bin("add", BinaryOp::Add),         bin("add_scalar", BinaryOp::Add, true), bin("mul", BinaryOp::Mul),
          bin("div", BinaryOp::Div),         bin("maximum", BinaryOp::Maximum),      un("relu", UnaryOp::Relu),
          un("clamp", UnaryOp::Clamp, params(-1, 1)), un("hardswish", UnaryOp::Hardswish),
          un("sqrt", UnaryOp::Sqrt),         un("rsqrt", UnaryOp::Rsqrt),            un("exp", UnaryOp::Exp),
          un("log", UnaryOp::Log),           un("tanh", UnaryOp::Tanh),              un("sigmoid", UnaryOp::Sigmoid),
          un("silu", UnaryOp::Silu),         un("gelu", UnaryOp::Gelu),              un("gelu_tanh", UnaryOp::GeluTanh),
          un("elu", UnaryOp::Elu, params(1, 1, 1)), un("softplus", UnaryOp::Softplus, params(1, 20)),
          un("mish", UnaryOp::Mish)};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int64_t n = 16384;
  int runs = 200, threads = 1;
  std::string filter;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has = i + 1 < argc;
    if (a == "--n" && has) n = std::atoll(argv[++i]);
    else if (a == "--runs" && has) runs = std::atoi(argv[++i]);
    else if (a == "--threads" && has) threads = std::atoi(argv[++i]);
    else if (a == "--filter" && has) filter = argv[++i];
    else {
      std::fputs(kUsage, a == "--help" ? stdout : stderr);
      return a == "--help" ? 0 : 2;
    }
  }
  set_num_threads(threads);
  simd_target_from_env();
  Tensor x = make_owned(DType::F32, {n}), y = make_owned(DType::F32, {n}), out = make_owned(DType::F32, {n});
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  for (int64_t i = 0; i < n; ++i) x.data<float>()[i] = u(rng), y.data<float>()[i] = u(rng) + 8.0f;  // y > 0: log, sqrt
  const Tensor y_scalar = y.view_as({n}, {0}, 0);
  std::printf("n = %lld, %d thread(s), median of %d calls per path, SIMD target %s\n", (long long)n, threads, runs,
              simd_target().c_str());
  std::printf("| op | simd ns/elem | scalar ns/elem | scalar / simd |\n|---|---:|---:|---:|\n");
  for (const Case& c : cases()) {
    if (!filter.empty() && std::string(c.name).find(filter) == std::string::npos) continue;
    const auto call = [&](EwPath path) {
      if (c.binary) binary_kernel(c.bop, out, x, c.scalar_b ? y_scalar : y, Scalar::of_int(1), path);
      else unary_kernel(c.uop, out, c.uop == UnaryOp::Log || c.uop == UnaryOp::Sqrt || c.uop == UnaryOp::Rsqrt ? y : x,
                        c.p, path);
    };
    std::vector<double> t_simd, t_scalar;
    for (int w = 0; w < 5; ++w) call(EwPath::Auto), call(EwPath::Scalar);
    for (int r = 0; r < runs; ++r) {
      for (EwPath path : {EwPath::Auto, EwPath::Scalar}) {
        const auto t0 = std::chrono::steady_clock::now();
        call(path);
        const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
        (path == EwPath::Auto ? t_simd : t_scalar).push_back(ns / double(n));
      }
    }
    const double a = median(t_simd), b = median(t_scalar);
    std::printf("| %s | %.3f | %.3f | %.2fx |\n", c.name, a, b, b / a);
  }
  return 0;
}
