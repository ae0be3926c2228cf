#include "kernels/grid_sample.h"

#include <cmath>
#include <type_traits>

#include "kernels/parallel.h"

namespace tir {
namespace {

// One spatial axis of the input: torch's ComputeLocation (GridSamplerKernel.cpp)
// in scalar form.
template <typename T> struct Axis {
  int64_t size;
  GridPad pad;
  bool align;
  GridScale gs;
  Axis(int64_t size_, GridPad pad_, bool align_) : size(size_), pad(pad_), align(align_), gs(grid_scale(size_, align_)) {}
  T unnormalize(T v) const { return size <= 0 ? T(0) : grid_unnormalize(v, gs); }
  T clip(T v) const {
    const T hi = T(size - 1);
    v = v > T(0) ? v : (v == v ? T(0) : v);  // NaN stays NaN (masked out later)
    return v < hi ? v : (v == v ? hi : v);
  }
  // Reflect about the borders (-0.5 / size-0.5 without align_corners, 0 / size-1 with).
  T reflect(T v) const {
    const T low = align ? T(0) : T(-0.5);
    const T twice_span = align ? T(2 * (size - 1)) : T(2 * size);
    if (twice_span <= T(0)) return T(0);
    const T a = std::fabs(v - low);
    const T extra = a - std::trunc(a / twice_span) * twice_span;
    const T r = twice_span - extra;
    return (extra < r ? extra : r) + low;
  }
  T pad_coord(T v) const {
    if (pad == GridPad::Border) return clip(v);
    if (pad == GridPad::Reflection) return clip(reflect(v));
    return v;
  }
  T source(T v) const { return pad_coord(unnormalize(v)); }
  // Index of an integral coordinate when inside [0, size), else -1 (NaN too).
  int64_t index(T v) const { return v >= T(0) && v < T(size) ? int64_t(v) : -1; }
};

template <typename T> void cubic_coeffs(T t, T c[4]) {
  const T A = T(-0.75);
  T x = t + T(1);
  c[0] = ((A * x - T(5) * A) * x + T(8) * A) * x - T(4) * A;
  x = t;
  c[1] = ((A + T(2)) * x - (A + T(3))) * x * x + T(1);
  x = T(1) - t;
  c[2] = ((A + T(2)) * x - (A + T(3))) * x * x + T(1);
  x = T(2) - t;
  c[3] = ((A * x - T(5) * A) * x + T(8) * A) * x - T(4) * A;
}

template <typename T> void sample_2d(const GridSampleArgs& a, const T* in, const T* grid, T* out) {
  const Axis<T> ax{a.W, a.pad, a.align_corners}, ay{a.H, a.pad, a.align_corners};
  const int64_t P = a.oH * a.oW, HW = a.H * a.W;
  for (int64_t n = 0; n < a.N; ++n) {
    const T* g = grid + n * P * 2;
    const T* img = in + n * a.C * HW;
    T* o = out + n * a.C * P;
    parallel_for_chunks(P, chunks_for(P, 16 * a.C), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T gx = g[2 * p], gy = g[2 * p + 1];
      if (a.interp == GridInterp::Bilinear) {
        const T x = ax.source(gx), y = ay.source(gy);
        const T xw = std::floor(x), yn = std::floor(y);
        const T w = x - xw, e = T(1) - w, nn = y - yn, s = T(1) - nn;
        const T nw = s * e, ne = s * w, sw = nn * e, se = nn * w;
        const int64_t x0 = ax.index(xw), x1 = ax.index(xw + T(1));
        const int64_t y0 = ay.index(yn), y1 = ay.index(yn + T(1));
        for (int64_t c = 0; c < a.C; ++c) {
          const T* pl = img + c * HW;
          const T vnw = x0 >= 0 && y0 >= 0 ? pl[y0 * a.W + x0] : T(0);
          const T vne = x1 >= 0 && y0 >= 0 ? pl[y0 * a.W + x1] : T(0);
          const T vsw = x0 >= 0 && y1 >= 0 ? pl[y1 * a.W + x0] : T(0);
          const T vse = x1 >= 0 && y1 >= 0 ? pl[y1 * a.W + x1] : T(0);
          o[c * P + p] = vnw * nw + vne * ne + vsw * sw + vse * se;
        }
      } else if (a.interp == GridInterp::Nearest) {
        const int64_t xi = ax.index(std::nearbyint(ax.source(gx)));
        const int64_t yi = ay.index(std::nearbyint(ay.source(gy)));
        for (int64_t c = 0; c < a.C; ++c)
          o[c * P + p] = xi >= 0 && yi >= 0 ? img[c * HW + yi * a.W + xi] : T(0);
      } else {  // bicubic: unnormalized position, each of the 4x4 taps padded
        const T x = ax.unnormalize(gx), y = ay.unnormalize(gy);
        const T fx = std::floor(x), fy = std::floor(y);
        T cx[4], cy[4];
        cubic_coeffs(x - fx, cx);
        cubic_coeffs(y - fy, cy);
        int64_t xs[4], ys[4];
        for (int k = 0; k < 4; ++k) {
          xs[k] = ax.index(ax.pad_coord(fx - T(1) + T(k)));
          ys[k] = ay.index(ay.pad_coord(fy - T(1) + T(k)));
        }
        for (int64_t c = 0; c < a.C; ++c) {
          const T* pl = img + c * HW;
          auto at = [&](int i, int j) { return xs[j] >= 0 && ys[i] >= 0 ? pl[ys[i] * a.W + xs[j]] : T(0); };
          T r[4];
          for (int i = 0; i < 4; ++i) r[i] = cx[0] * at(i, 0) + cx[1] * at(i, 1) + cx[2] * at(i, 2) + cx[3] * at(i, 3);
          o[c * P + p] = cy[0] * r[0] + cy[1] * r[1] + cy[2] * r[2] + cy[3] * r[3];
        }
      }
    }
    });
  }
}

// grid_sampler_3d (GridSampler.cpp): trilinear or nearest.
template <typename T> void sample_3d(const GridSampleArgs& a, const T* in, const T* grid, T* out) {
  const Axis<T> ax{a.W, a.pad, a.align_corners}, ay{a.H, a.pad, a.align_corners}, az{a.D, a.pad, a.align_corners};
  const int64_t P = a.oD * a.oH * a.oW, S = a.D * a.H * a.W;
  for (int64_t n = 0; n < a.N; ++n) {
    const T* g = grid + n * P * 3;
    const T* img = in + n * a.C * S;
    T* o = out + n * a.C * P;
    parallel_for_chunks(P, chunks_for(P, 32 * a.C), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T x = ax.source(g[3 * p]), y = ay.source(g[3 * p + 1]), z = az.source(g[3 * p + 2]);
      if (a.interp == GridInterp::Nearest) {
        const int64_t xi = ax.index(std::nearbyint(x)), yi = ay.index(std::nearbyint(y)),
                      zi = az.index(std::nearbyint(z));
        for (int64_t c = 0; c < a.C; ++c)
          o[c * P + p] = xi >= 0 && yi >= 0 && zi >= 0 ? img[c * S + (zi * a.H + yi) * a.W + xi] : T(0);
        continue;
      }
      const T x0 = std::floor(x), y0 = std::floor(y), z0 = std::floor(z);
      const T x1 = x0 + T(1), y1 = y0 + T(1), z1 = z0 + T(1);
      // torch's weight expressions and corner order: t/b = z0/z1, n/s = y0/y1, w/e = x0/x1.
      const T wt[8] = {(x1 - x) * (y1 - y) * (z1 - z), (x - x0) * (y1 - y) * (z1 - z),
                       (x1 - x) * (y - y0) * (z1 - z), (x - x0) * (y - y0) * (z1 - z),
                       (x1 - x) * (y1 - y) * (z - z0), (x - x0) * (y1 - y) * (z - z0),
                       (x1 - x) * (y - y0) * (z - z0), (x - x0) * (y - y0) * (z - z0)};
      int64_t off[8];
      for (int k = 0; k < 8; ++k) {
        const int64_t xi = ax.index(k & 1 ? x1 : x0), yi = ay.index(k & 2 ? y1 : y0), zi = az.index(k & 4 ? z1 : z0);
        off[k] = xi >= 0 && yi >= 0 && zi >= 0 ? (zi * a.H + yi) * a.W + xi : -1;
      }
      for (int64_t c = 0; c < a.C; ++c) {
        const T* pl = img + c * S;
        T acc = T(0);
        for (int k = 0; k < 8; ++k)
          if (off[k] >= 0) acc += pl[off[k]] * wt[k];
        o[c * P + p] = acc;
      }
    }
    });
  }
}

// One base-grid coordinate, linspace(-1, 1, n) (times (n-1)/n without
// align_corners; a single step is 0), evaluated as (2i - (n-1)) / (n-1) or / n:
// exact numerator and one division, so correctly rounded in A.
template <typename A> A lin(int64_t i, int64_t n, bool align) {
  if (n <= 1) return A(0);
  return A(2 * i - (n - 1)) / A(align ? n - 1 : n);
}

}  // namespace

template <typename T> void grid_sample_ref(const GridSampleArgs& a, const T* in, const T* grid, T* out) {
  if (a.three_d) sample_3d(a, in, grid, out);
  else sample_2d(a, in, grid, out);
}

template <typename T> void grid_sample(const GridSampleArgs& a, const T* in, const T* grid, T* out) {
  if constexpr (std::is_same_v<T, float>)
    if (grid_sample_f32_fast(a, in, grid, out)) return;
  grid_sample_ref(a, in, grid, out);
}

// float32 grids are computed in double (base coordinates, products and sums)
// and rounded once: the float nearest the exact base @ theta^T but for ~1e-16 of
// the terms' size, where PyTorch's float32 linspace, (n-1)/n scaling and bmm
// round at each step (up to a few ulp).
template <typename T>
void affine_grid(int64_t N, const int64_t* sizes, int nsp, bool align_corners, const T* theta, T* grid) {
  using A = std::conditional_t<std::is_same_v<T, float>, double, T>;
  const int64_t D = nsp == 3 ? sizes[0] : 1, H = sizes[nsp - 2], W = sizes[nsp - 1];
  const int k = nsp + 1;  // theta row length
  // An empty grid writes nothing, but a huge D or H beside a zero would still be looped over.
  if (N == 0 || D == 0 || H == 0 || W == 0) return;
  for (int64_t n = 0; n < N; ++n) {
    const T* th = theta + n * nsp * k;
    T* g = grid + n * D * H * W * nsp;
    for (int64_t d = 0; d < D; ++d)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) {
          const A base[4] = {lin<A>(w, W, align_corners), lin<A>(h, H, align_corners),
                             nsp == 3 ? lin<A>(d, D, align_corners) : A(1), A(1)};
          for (int r = 0; r < nsp; ++r) {
            A acc = A(0);
            for (int j = 0; j < k; ++j) acc += base[j] * A(th[r * k + j]);
            *g++ = T(acc);
          }
        }
  }
}

template void grid_sample_ref<float>(const GridSampleArgs&, const float*, const float*, float*);
template void grid_sample_ref<double>(const GridSampleArgs&, const double*, const double*, double*);
template void grid_sample<float>(const GridSampleArgs&, const float*, const float*, float*);
template void grid_sample<double>(const GridSampleArgs&, const double*, const double*, double*);
template void affine_grid<float>(int64_t, const int64_t*, int, bool, const float*, float*);
template void affine_grid<double>(int64_t, const int64_t*, int, bool, const double*, double*);

}  // namespace tir
