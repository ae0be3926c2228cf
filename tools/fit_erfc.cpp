// Prints the Chebyshev coefficients of src/kernels/erfc_f64-inl.h and their measured
// error: g(t) = log(erfc(a) / t) + a^2, t = 1 / (1 + a/2), fitted on t in [1/8, 1]
// (a <= 14) from long-double erfcl; then erfc is evaluated in double as the SIMD
// code does (the series expanded to monomials in u, two Horner chains) and compared
// with erfcl on a dense grid.
// Build and run: g++ -O2 -o /tmp/fit_erfc tools/fit_erfc.cpp && /tmp/fit_erfc 18
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
using ld = long double;
const ld T0 = 1.0L / 8;  // a <= 14
ld g_of_t(ld t) { ld a = 2 / t - 2; return logl(erfcl(a) / t) + a * a; }
int main(int argc, char** argv) {
  int N = argc > 1 ? atoi(argv[1]) : 20;
  const int M = 4 * N;  // nodes
  std::vector<ld> f(M), c(N);
  for (int k = 0; k < M; ++k) {
    ld u = cosl(M_PIl * (k + 0.5L) / M);
    ld t = T0 + (1 - T0) * (u + 1) / 2;
    f[k] = g_of_t(t);
  }
  for (int j = 0; j < N; ++j) {
    ld s = 0;
    for (int k = 0; k < M; ++k) s += f[k] * cosl(M_PIl * j * (k + 0.5L) / M);
    c[j] = 2 * s / M;
  }
  c[0] /= 2;
  // Monomial coefficients in u (Chebyshev T_j expanded), for Horner's rule.
  std::vector<ld> m(N, 0), tprev(N, 0), tcur(N, 0), tnext(N, 0);
  tprev[0] = 1;             // T_0
  if (N > 1) tcur[1] = 1;   // T_1
  m[0] += c[0];
  if (N > 1) m[1] += c[1];
  for (int j = 2; j < N; ++j) {  // T_j = 2u T_{j-1} - T_{j-2}
    for (int k = 0; k < N; ++k) tnext[k] = (k ? 2 * tcur[k - 1] : 0) - tprev[k];
    for (int k = 0; k < N; ++k) m[k] += c[j] * tnext[k];
    tprev = tcur;
    tcur = tnext;
  }
  // evaluate in double, as the SIMD code does
  auto erfc_d = [&](double a) {
    double t = 1.0 / (1.0 + 0.5 * a);
    double tc = std::fmax(t, 0.125);
    double u = (2 * tc - (1 + (double)T0)) / (1 - (double)T0);
    // even(u^2) + u odd(u^2), as the SIMD code (N even)
    double uu = u * u, even = (double)m[N - 2], odd = (double)m[N - 1];
    for (int j = N - 4; j >= 0; j -= 2) even = std::fma(even, uu, (double)m[j]), odd = std::fma(odd, uu, (double)m[j + 1]);
    double g = std::fma(odd, u, even);
    return t * std::exp(-a * a + g);
  };
  double worst = 0, wa = 0;
  for (double a = 0; a <= 13.5; a += 1e-4) {
    ld tr = erfcl(a);
    double e = fabsl((erfc_d(a) - tr) / tr);
    if (e > worst) { worst = e; wa = a; }
  }
  printf("// N=%d max rel err %.3g at a=%.4f\n", N, worst, wa);
  for (int j = 0; j < N; ++j) printf("%.20Le,\n", m[j]);
}
