#include "kernels/fft.h"

#include <cmath>
#include <algorithm>
#include <array>
#include <utility>

#include "kernels/lines.h"

namespace tir {
namespace {

constexpr double kPi = 3.14159265358979323846264338327950288;

// exp(sign * 2 pi i num / den), the angle reduced exactly first.
cd root(int64_t num, int64_t den, bool inverse) {
  num %= den;
  if (num < 0) num += den;
  // Quarter turns exactly (sin(pi) is not 0 in floating point).
  const double a = 2 * kPi * double(num) / double(den);
  double c = std::cos(a), s = std::sin(a);
  if (4 * num == den) c = 0, s = 1;
  else if (2 * num == den) c = -1, s = 0;
  else if (4 * num == 3 * den) c = 0, s = -1;
  return inverse ? cd(c, s) : cd(c, -s);
}

std::vector<int64_t> factorize(int64_t n) {
  std::vector<int64_t> f;
  while (n % 4 == 0) f.push_back(4), n /= 4;
  while (n % 2 == 0) f.push_back(2), n /= 2;
  for (int64_t p = 3; p * p <= n; p += 2)
    while (n % p == 0) f.push_back(p), n /= p;
  if (n > 1) f.push_back(n);
  return f;
}

// One Stockham stage: x holds `n` points as [p * m] sequences at stride s; the
// results go to y (stride p * s for the next stage).
void stage(int64_t n, int64_t s, int64_t p, const cd* tw, const cd* rt, bool inverse, const cd* x, cd* y) {
  const int64_t m = n / p;
  if (p == 2) {
    for (int64_t q = 0; q < m; ++q) {
      const cd w = tw[q];
      for (int64_t r = 0; r < s; ++r) {
        const cd a = x[r + s * q], b = x[r + s * (q + m)];
        y[r + s * (2 * q)] = a + b;
        y[r + s * (2 * q + 1)] = (a - b) * w;
      }
    }
    return;
  }
  if (p == 4) {
    for (int64_t q = 0; q < m; ++q) {
      const cd w1 = tw[q], w2 = tw[m + q], w3 = tw[2 * m + q];
      for (int64_t r = 0; r < s; ++r) {
        const cd a = x[r + s * q], b = x[r + s * (q + m)], c = x[r + s * (q + 2 * m)],
                 d = x[r + s * (q + 3 * m)];
        const cd apc = a + c, amc = a - c, bpd = b + d;
        // -i (b - d) forward, +i (b - d) inverse
        const cd bmd = b - d;
        const cd jbmd = inverse ? cd(-bmd.imag(), bmd.real()) : cd(bmd.imag(), -bmd.real());
        y[r + s * (4 * q)] = apc + bpd;
        y[r + s * (4 * q + 1)] = (amc + jbmd) * w1;
        y[r + s * (4 * q + 2)] = (apc - bpd) * w2;
        y[r + s * (4 * q + 3)] = (amc - jbmd) * w3;
      }
    }
    return;
  }
  for (int64_t q = 0; q < m; ++q) {
    for (int64_t r = 0; r < s; ++r) {
      for (int64_t k = 0; k < p; ++k) {
        cd acc = x[r + s * q];
        for (int64_t j = 1; j < p; ++j) acc += x[r + s * (q + j * m)] * rt[(j * k) % p];
        y[r + s * (p * q + k)] = k == 0 ? acc : acc * tw[(k - 1) * m + q];
      }
    }
  }
}

void mixed_radix(const FftPlan& plan, cd* data, cd* work) {
  cd* x = data;
  cd* y = work;
  int64_t n = plan.n, s = 1;
  for (size_t i = 0; i < plan.radix.size(); ++i) {
    const int64_t p = plan.radix[i];
    stage(n, s, p, plan.twiddles[i].data(), plan.roots[i].data(), plan.inverse, x, y);
    std::swap(x, y);
    n /= p;
    s *= p;
  }
  if (x != data)
    for (int64_t k = 0; k < plan.n; ++k) data[k] = x[k];
}

}  // namespace

FftPlan make_fft_plan(int64_t n, bool inverse) {
  FftPlan plan;
  plan.n = n;
  plan.inverse = inverse;
  if (n <= 1) return plan;
  const std::vector<int64_t> f = factorize(n);
  if (f.back() <= kFftMaxRadix) {
    int64_t len = n;
    for (int64_t p : f) {
      const int64_t m = len / p;
      std::vector<cd> tw(static_cast<size_t>((p - 1) * m));
      for (int64_t k = 1; k < p; ++k)
        for (int64_t q = 0; q < m; ++q) tw[size_t((k - 1) * m + q)] = root(q * k, len, inverse);
      std::vector<cd> rt(static_cast<size_t>(p));
      for (int64_t r = 0; r < p; ++r) rt[size_t(r)] = root(r, p, inverse);
      plan.radix.push_back(p);
      plan.twiddles.push_back(std::move(tw));
      plan.roots.push_back(std::move(rt));
      len = m;
    }
    return plan;
  }
  // Bluestein: jk = (j^2 + k^2 - (k - j)^2) / 2, so X = w . ((x . w) * conj(w)).
  int64_t m = 1;
  while (m < 2 * n - 1) m *= 2;
  plan.chirp.resize(size_t(n));
  for (int64_t j = 0; j < n; ++j) plan.chirp[size_t(j)] = root((j * j) % (2 * n), 2 * n, inverse);
  plan.sub = std::make_unique<FftPlan>(make_fft_plan(m, false));
  plan.sub_inv = std::make_unique<FftPlan>(make_fft_plan(m, true));
  plan.kernel.assign(size_t(m), cd(0, 0));
  plan.kernel[0] = std::conj(plan.chirp[0]);
  for (int64_t j = 1; j < n; ++j) plan.kernel[size_t(j)] = plan.kernel[size_t(m - j)] = std::conj(plan.chirp[size_t(j)]);
  std::vector<cd> work(size_t(fft_scratch_size(*plan.sub)));
  fft_execute(*plan.sub, plan.kernel.data(), work.data());
  const double inv_m = 1.0 / double(m);
  for (cd& v : plan.kernel) v *= inv_m;  // folds the inverse transform's 1/m
  return plan;
}

int64_t fft_scratch_size(const FftPlan& plan) {
  if (plan.sub) return plan.sub->n + fft_scratch_size(*plan.sub);
  return plan.n;
}

void fft_execute(const FftPlan& plan, cd* data, cd* scratch) {
  const int64_t n = plan.n;
  if (n <= 1) return;
  if (!plan.sub) {
    mixed_radix(plan, data, scratch);
    return;
  }
  const int64_t m = plan.sub->n;
  cd* a = scratch;
  cd* work = scratch + m;
  for (int64_t j = 0; j < n; ++j) a[j] = data[j] * plan.chirp[size_t(j)];
  for (int64_t j = n; j < m; ++j) a[j] = cd(0, 0);
  fft_execute(*plan.sub, a, work);
  for (int64_t j = 0; j < m; ++j) a[j] *= plan.kernel[size_t(j)];
  fft_execute(*plan.sub_inv, a, work);
  for (int64_t k = 0; k < n; ++k) data[k] = a[k] * plan.chirp[size_t(k)];
}

void fft_reference(const cd* in, cd* out, int64_t n, bool inverse) {
  // In long double, angles from exact integer products mod n: the reference should be
  // far more accurate than what it checks.
  std::vector<long double> c(static_cast<size_t>(n)), s(static_cast<size_t>(n));
  for (int64_t e = 0; e < n; ++e) {
    const long double a = 2.0L * 3.14159265358979323846264338327950288L * (long double)e / (long double)n;
    c[size_t(e)] = std::cos(a);
    s[size_t(e)] = inverse ? std::sin(a) : -std::sin(a);
  }
  for (int64_t k = 0; k < n; ++k) {
    long double re = 0, im = 0;
    for (int64_t j = 0, e = 0; j < n; ++j, e = (e + k) % n) {
      re += (long double)in[j].real() * c[size_t(e)] - (long double)in[j].imag() * s[size_t(e)];
      im += (long double)in[j].real() * s[size_t(e)] + (long double)in[j].imag() * c[size_t(e)];
    }
    out[k] = cd(double(re), double(im));
  }
}

}  // namespace tir

// ---- strided lines ---------------------------------------------------------------

namespace tir {
namespace {

// Element k of a real or complex tensor at `off` (elements) with line stride `st`.
template <typename R>
inline cd load_c(const R* p, int64_t off) { return cd(double(p[2 * off]), double(p[2 * off + 1])); }
template <typename R>
inline void store_c(R* p, int64_t off, cd v) { p[2 * off] = R(v.real()), p[2 * off + 1] = R(v.imag()); }

template <typename F>
void by_real_type(DType d, F&& f) {
  if (d == DType::F64 || d == DType::C128) f(double{});
  else f(float{});
}

}  // namespace

int64_t fft_line_buffer(const FftPlan& plan) { return plan.n + fft_scratch_size(plan); }

void fft_c2c_lines(const Tensor& in, const Tensor& out, int64_t dim, const FftPlan& plan, double scale, cd* buf) {
  const int64_t n = plan.n;
  cd* line = buf;
  cd* scratch = buf + n;
  by_real_type(in.dtype, [&](auto it) {
    using RI = decltype(it);
    by_real_type(out.dtype, [&](auto ot) {
      using RO = decltype(ot);
      const RI* src = reinterpret_cast<const RI*>(in.buffer->data) ;
      RO* dst = reinterpret_cast<RO*>(out.buffer->data);
      const int64_t si = in.strides[size_t(dim)], so = out.strides[size_t(dim)];
      for_each_line<2>(in.shape, dim, {in.strides, out.strides}, {in.offset, out.offset},
                       [&](std::array<int64_t, 2> off) {
                         for (int64_t k = 0; k < n; ++k) line[k] = load_c(src, off[0] + k * si);
                         fft_execute(plan, line, scratch);
                         for (int64_t k = 0; k < n; ++k) store_c(dst, off[1] + k * so, line[k] * scale);
                       });
    });
  });
}

void fft_r2c_lines(const Tensor& in, const Tensor& out, int64_t dim, const FftPlan& plan, double scale, cd* buf) {
  const int64_t n = plan.n, bins = out.shape[size_t(dim)];
  cd* line = buf;
  cd* scratch = buf + n;
  by_real_type(in.dtype, [&](auto it) {
    using RI = decltype(it);
    by_real_type(out.dtype, [&](auto ot) {
      using RO = decltype(ot);
      const RI* src = in.data<RI>() - in.offset;
      RO* dst = reinterpret_cast<RO*>(out.buffer->data);
      const int64_t si = in.strides[size_t(dim)], so = out.strides[size_t(dim)];
      for_each_line<2>(in.shape, dim, {in.strides, out.strides}, {in.offset, out.offset},
                       [&](std::array<int64_t, 2> off) {
                         for (int64_t k = 0; k < n; ++k) line[k] = cd(double(src[off[0] + k * si]), 0.0);
                         fft_execute(plan, line, scratch);
                         for (int64_t k = 0; k < bins; ++k) store_c(dst, off[1] + k * so, line[k] * scale);
                       });
    });
  });
}

void fft_c2r_lines(const Tensor& in, const Tensor& out, int64_t dim, const FftPlan& plan, double scale, cd* buf) {
  const int64_t n = plan.n, have = std::min(in.shape[size_t(dim)], n / 2 + 1);
  cd* line = buf;
  cd* scratch = buf + n;
  by_real_type(in.dtype, [&](auto it) {
    using RI = decltype(it);
    by_real_type(out.dtype, [&](auto ot) {
      using RO = decltype(ot);
      const RI* src = reinterpret_cast<const RI*>(in.buffer->data);
      RO* dst = out.data<RO>() - out.offset;
      const int64_t si = in.strides[size_t(dim)], so = out.strides[size_t(dim)];
      for_each_line<2>(out.shape, dim, {in.strides, out.strides}, {in.offset, out.offset},
                       [&](std::array<int64_t, 2> off) {
                         for (int64_t k = 0; k < n; ++k) line[k] = cd(0, 0);
                         for (int64_t k = 0; k < have; ++k) {
                           const cd v = load_c(src, off[0] + k * si);
                           line[k] = v;
                           if (k > 0 && n - k != k) line[n - k] = std::conj(v);
                         }
                         fft_execute(plan, line, scratch);
                         for (int64_t k = 0; k < n; ++k) dst[off[1] + k * so] = RO(line[k].real() * scale);
                       });
    });
  });
}

void stft_lines(const Tensor& in, const Tensor& window, const Tensor& out, int64_t hop, const FftPlan& plan,
                double scale, cd* buf) {
  const int64_t n = plan.n, batch = out.shape[0], bins = out.shape[1], frames = out.shape[2];
  cd* line = buf;
  cd* scratch = buf + n;
  by_real_type(in.dtype, [&](auto it) {
    using RI = decltype(it);
    by_real_type(out.dtype, [&](auto ot) {
      using RO = decltype(ot);
      const RI* src = in.data<RI>();
      RO* dst = out.data<RO>();
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t t = 0; t < frames; ++t) {
          const RI* x = src + b * in.strides[0] + t * hop * in.strides[1];
          for (int64_t k = 0; k < n; ++k) line[k] = cd(double(x[k * in.strides[1]]), 0.0);
          if (window.defined()) {
            by_real_type(window.dtype, [&](auto wt) {
              using RW = decltype(wt);
              const RW* w = window.data<RW>();
              const int64_t win = window.shape[0], left = (n - win) / 2;
              for (int64_t k = 0; k < n; ++k)
                line[k] *= (k >= left && k < left + win) ? double(w[(k - left) * window.strides[0]]) : 0.0;
            });
          }
          fft_execute(plan, line, scratch);
          for (int64_t f = 0; f < bins; ++f)
            store_c(dst, b * out.strides[0] + f * out.strides[1] + t * out.strides[2], line[f] * scale);
        }
    });
  });
}

}  // namespace tir
