#include "kernels/upsample.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/parallel.h"

namespace tir {

namespace {

// torch's compute_scales_value / area_pixel_compute_scale, in type S.
template <typename S>
S axis_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? S(in - 1) / S(out - 1) : S(0);
  return scale > 0 ? S(1.0 / scale) : S(in) / S(out);
}

// torch's area_pixel_compute_source_index: the half-pixel form is evaluated
// in double (torch's literal 0.5 promotes it) and stored in S.
template <typename S>
S source_index(S scale, int64_t dst, bool align_corners, bool cubic) {
  if (align_corners) return scale * S(dst);
  const S src = S(double(scale) * (double(dst) + 0.5) - 0.5);
  return (!cubic && src < S(0)) ? S(0) : src;
}

// floor of the source index clamped to in-1, and the fraction clamped to [0, 1].
template <typename S>
void index_and_lambda(S real, int64_t in, int64_t* index, S* lambda) {
  *index = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
  *lambda = std::min(std::max(real - S(*index), S(0)), S(1));
}

template <typename T>
void cubic_coeffs(T t, T c[4]) {
  const T A = T(-0.75);
  auto conv1 = [A](T x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };           // |x| <= 1
  auto conv2 = [A](T x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };     // 1 < |x| < 2
  c[0] = conv2(t + T(1));
  c[1] = conv1(t);
  c[2] = conv1(T(1) - t);
  c[3] = conv2(T(2) - t);
}

// One separable pass: y[o][k][i] = sum_j w[k][j] * x[o][idx[k][j]][i] for
// x [outer, in_len, inner] and y [outer, out_len, inner].
template <typename T>
void interp_axis(const T* x, T* y, int64_t outer, int64_t in_len, int64_t inner, const AxisTaps<T>& t) {
  const int64_t out_len = int64_t(t.index.size()) / std::max<int64_t>(t.taps, 1);
  parallel_for(outer, grain_for(out_len * inner * t.taps), [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      const T* src = x + o * in_len * inner;
      T* dst = y + o * out_len * inner;
      for (int64_t k = 0; k < out_len; ++k) {
        const int64_t* ix = t.index.data() + k * t.taps;
        const T* wt = t.weight.data() + k * t.taps;
        T* d = dst + k * inner;
        if (inner == 1) {
          T acc = src[ix[0]] * wt[0];
          for (int64_t j = 1; j < t.taps; ++j) acc += src[ix[j]] * wt[j];
          *d = acc;
          continue;
        }
        const T* r0 = src + ix[0] * inner;
        for (int64_t i = 0; i < inner; ++i) d[i] = r0[i] * wt[0];
        for (int64_t j = 1; j < t.taps; ++j) {
          const T* r = src + ix[j] * inner;
          for (int64_t i = 0; i < inner; ++i) d[i] += r[i] * wt[j];
        }
      }
    }
  });
}

}  // namespace

std::vector<int64_t> nearest_indices(int64_t in, int64_t out, double scale, bool exact) {
  std::vector<int64_t> idx(size_t(std::max<int64_t>(out, 0)));
  const bool shortcuts = !exact;  // torch's nearest_idx; nearest_exact_idx has none
  const float s = scale > 0 ? float(1.0 / scale) : float(in) / float(out);
  for (int64_t i = 0; i < out; ++i) {
    int64_t src;
    if (shortcuts && out == in) src = i;
    else if (shortcuts && out == 2 * in) src = i >> 1;
    else if (exact) src = static_cast<int64_t>(std::floor(float((double(i) + 0.5) * double(s))));
    else src = static_cast<int64_t>(std::floor(float(i) * s));
    idx[size_t(i)] = std::min(src, in - 1);
  }
  return idx;
}

template <typename T>
AxisTaps<T> interp_taps(Interp mode, int64_t in, int64_t out, bool align_corners, double scale) {
  AxisTaps<T> t;
  const T s = axis_scale<T>(in, out, align_corners, scale);
  if (mode == Interp::Linear || mode == Interp::Cubic) {
    const bool cubic = mode == Interp::Cubic;
    t.taps = cubic ? 4 : 2;
    t.index.resize(size_t(out * t.taps));
    t.weight.resize(t.index.size());
    for (int64_t i = 0; i < out; ++i) {
      int64_t i0;
      T lambda;
      index_and_lambda(source_index<T>(s, i, align_corners, cubic), in, &i0, &lambda);
      int64_t* ix = t.index.data() + i * t.taps;
      T* w = t.weight.data() + i * t.taps;
      if (cubic) {
        cubic_coeffs(lambda, w);
        for (int64_t j = 0; j < 4; ++j) ix[j] = std::max<int64_t>(std::min(i0 - 1 + j, in - 1), 0);
      } else {
        ix[0] = i0;
        ix[1] = i0 + (i0 < in - 1 ? 1 : 0);
        w[0] = T(1) - lambda;
        w[1] = lambda;
      }
    }
    return t;
  }
  // Antialiased linear (torch's _compute_weights_aa): a triangle filter widened
  // by the downscale factor, normalized over the taps inside the input.
  const T support = s >= T(1) ? T(1) * s : T(1);
  const T invscale = s >= T(1) ? T(1) / s : T(1);
  t.taps = int64_t(std::ceil(support)) * 2 + 1;
  t.index.assign(size_t(out * t.taps), 0);
  t.weight.assign(t.index.size(), T(0));
  for (int64_t i = 0; i < out; ++i) {
    const T center = T(double(s) * (double(i) + 0.5));
    const int64_t xmin = std::max(static_cast<int64_t>(double(center - support) + 0.5), int64_t(0));
    const int64_t xsize = std::min(static_cast<int64_t>(double(center + support) + 0.5), in) - xmin;
    int64_t* ix = t.index.data() + i * t.taps;
    T* w = t.weight.data() + i * t.taps;
    T total = 0;
    for (int64_t j = 0; j < xsize && j < t.taps; ++j) {
      const T x = std::fabs(T((double(T(j + xmin) - center) + 0.5) * double(invscale)));
      w[j] = x < T(1) ? T(1) - x : T(0);
      ix[j] = j + xmin;
      total += w[j];
    }
    if (total != T(0))
      for (int64_t j = 0; j < xsize && j < t.taps; ++j) w[j] /= total;
    for (int64_t j = std::max<int64_t>(xsize, 0); j < t.taps; ++j) ix[j] = std::max<int64_t>(xmin, 0);  // weight 0
  }
  return t;
}

template <typename T>
void interpolate(const T* x, T* y, int64_t planes, const int64_t in[3], const int64_t out[3],
                 const AxisTaps<T>* taps[3]) {
  int64_t cur[3] = {in[0], in[1], in[2]};
  int last = -1;  // the last pass (the outermost changing axis) writes straight into y
  for (int a = 2; a >= 0; --a)
    if (taps[a]) last = a;
  if (last < 0) {
    std::memcpy(y, x, size_t(planes * in[0] * in[1] * in[2]) * sizeof(T));
    return;
  }
  std::vector<T> buf[2];
  const T* src = x;
  for (int a = 2, n = 0; a >= 0; --a) {  // W, then H, then D
    if (!taps[a]) continue;
    int64_t outer = planes, inner = 1;
    for (int b = 0; b < a; ++b) outer *= cur[b];
    for (int b = a + 1; b < 3; ++b) inner *= cur[b];
    T* dst = y;
    if (a != last) {
      buf[n & 1].resize(size_t(outer * out[a] * inner));
      dst = buf[n & 1].data();
    }
    interp_axis(src, dst, outer, cur[a], inner, *taps[a]);
    cur[a] = out[a];
    src = dst;
    ++n;
  }
}

template AxisTaps<float> interp_taps<float>(Interp, int64_t, int64_t, bool, double);
template AxisTaps<double> interp_taps<double>(Interp, int64_t, int64_t, bool, double);
template void interpolate<float>(const float*, float*, int64_t, const int64_t*, const int64_t*,
                                 const AxisTaps<float>**);
template void interpolate<double>(const double*, double*, int64_t, const int64_t*, const int64_t*,
                                  const AxisTaps<double>**);

}  // namespace tir
