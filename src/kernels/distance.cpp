#include "kernels/distance.h"

#include <cmath>
#include <limits>

#include "kernels/parallel.h"

namespace tir {
namespace {

enum class Norm { Zero, One, Two, Inf, General };

Norm norm_of(double p) {
  if (p == 0.0) return Norm::Zero;
  if (p == 1.0) return Norm::One;
  if (p == 2.0) return Norm::Two;
  if (std::isinf(p)) return Norm::Inf;
  return Norm::General;
}

template <typename T> T dist(Norm k, double p, int64_t M, const T* x, const T* y) {
  double acc = 0.0;
  switch (k) {
    case Norm::Zero:
      for (int64_t m = 0; m < M; ++m) acc += x[m] != y[m] ? 1.0 : 0.0;
      return T(acc);
    case Norm::One:
      for (int64_t m = 0; m < M; ++m) acc += std::fabs(double(x[m]) - double(y[m]));
      return T(acc);
    case Norm::Two:
      for (int64_t m = 0; m < M; ++m) {
        const double d = double(x[m]) - double(y[m]);
        acc += d * d;
      }
      return T(std::sqrt(acc));
    case Norm::Inf:
      for (int64_t m = 0; m < M; ++m) {
        const double d = std::fabs(double(x[m]) - double(y[m]));
        if (d > acc || std::isnan(d)) acc = d;
        if (std::isnan(acc)) break;
      }
      return T(acc);
    case Norm::General:
      for (int64_t m = 0; m < M; ++m) acc += std::pow(std::fabs(double(x[m]) - double(y[m])), p);
      return T(std::pow(acc, 1.0 / p));
  }
  return T(0);
}

}  // namespace

template <typename T> void cdist_rows(int64_t P, int64_t R, int64_t M, double p, const T* a, const T* b, T* out) {
  const Norm k = norm_of(p);
  parallel_for_chunks(P, chunks_for(P, R * M * (k == Norm::General ? 16 : 2)), [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = 0; j < R; ++j) out[i * R + j] = dist(k, p, M, a + i * M, b + j * M);
  });
}

template <typename T> void pdist_rows(int64_t N, int64_t M, double p, const T* x, T* out) {
  const Norm k = norm_of(p);
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = i + 1; j < N; ++j) *out++ = dist(k, p, M, x + i * M, x + j * M);
}

template void cdist_rows<float>(int64_t, int64_t, int64_t, double, const float*, const float*, float*);
template void cdist_rows<double>(int64_t, int64_t, int64_t, double, const double*, const double*, double*);
template void pdist_rows<float>(int64_t, int64_t, double, const float*, float*);
template void pdist_rows<double>(int64_t, int64_t, double, const double*, double*);

}  // namespace tir
