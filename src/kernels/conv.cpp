#include "kernels/conv.h"

#include <algorithm>
#include <vector>

#include "kernels/gemm.h"
#include "kernels/parallel.h"

namespace tir {

namespace {

template <typename T>
void gemm_t(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, bool ta, const T* B, int64_t ldb,
            bool tb, T* C, int64_t ldc, T beta) {
  if constexpr (std::is_same_v<T, float>)
    gemm_f32(M, N, K, A, lda, ta, B, ldb, tb, C, ldc, 1.0f, beta);
  else
    gemm_f64(M, N, K, A, lda, ta, B, ldb, tb, C, ldc, 1.0, beta);
}

template <typename T>
void add_bias(const Conv2dGeom& g, const T* bias, T* y) {
  if (!bias) return;
  const int64_t plane = g.OH * g.OW;
  parallel_for(g.N * g.OC, grain_for(plane), [&](int64_t p0, int64_t p1) {
    for (int64_t np = p0; np < p1; ++np) {  // np = n * OC + oc
      T* p = y + np * plane;
      const T b = bias[np % g.OC];
      for (int64_t i = 0; i < plane; ++i) p[i] += b;
    }
  });
}

// cols[(c*KH+kh)*KW+kw][oh*OW+ow] = x[c][ih][iw] (0 outside the input).
// Channels [c0, c1) only, so callers can split the work.
template <typename T>
void im2col(const Conv2dGeom& g, int64_t c0, int64_t c1, const T* x, T* cols) {
  const int64_t P = g.OH * g.OW;
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t kh = 0; kh < g.KH; ++kh)
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        T* row = cols + ((c * g.KH + kh) * g.KW + kw) * P;
        const T* plane = x + c * g.H * g.W;
        for (int64_t oh = 0; oh < g.OH; ++oh) {
          const int64_t ih = oh * g.SH - g.PH + kh * g.DH;
          T* r = row + oh * g.OW;
          if (ih < 0 || ih >= g.H) {
            std::fill(r, r + g.OW, T(0));
            continue;
          }
          for (int64_t ow = 0; ow < g.OW; ++ow) {
            const int64_t iw = ow * g.SW - g.PW + kw * g.DW;
            r[ow] = (iw >= 0 && iw < g.W) ? plane[ih * g.W + iw] : T(0);
          }
        }
      }
}

// One input channel per group: direct loops beat im2col (MobileNet's depthwise).
template <typename T>
void conv_depthwise(const Conv2dGeom& g, const T* x, const T* w, T* y) {
  const int64_t ocg = g.OC / g.G;
  parallel_for(g.N * g.OC, grain_for(g.OH * g.OW * g.KH * g.KW), [&](int64_t p0, int64_t p1) {
    for (int64_t np = p0; np < p1; ++np) {
      const int64_t n = np / g.OC, oc = np % g.OC;
      const T* plane = x + (n * g.C + oc / ocg) * g.H * g.W;
      const T* k = w + oc * g.KH * g.KW;
      T* out = y + (n * g.OC + oc) * g.OH * g.OW;
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          T acc = 0;
          for (int64_t kh = 0; kh < g.KH; ++kh) {
            const int64_t ih = oh * g.SH - g.PH + kh * g.DH;
            if (ih < 0 || ih >= g.H) continue;
            for (int64_t kw = 0; kw < g.KW; ++kw) {
              const int64_t iw = ow * g.SW - g.PW + kw * g.DW;
              if (iw >= 0 && iw < g.W) acc += plane[ih * g.W + iw] * k[kh * g.KW + kw];
            }
          }
          out[oh * g.OW + ow] = acc;
        }
    }
  });
}

}  // namespace

template <typename T>
void conv2d(const Conv2dGeom& g, const T* x, const T* w, const T* bias, T* y) {
  const int64_t cg = g.C / g.G, ocg = g.OC / g.G;
  const int64_t K = cg * g.KH * g.KW, P = g.OH * g.OW;
  if (g.N * g.OC * P == 0) return;
  if (cg == 1 && g.G > 1) {
    conv_depthwise(g, x, w, y);
    add_bias(g, bias, y);
    return;
  }
  // A 1x1, stride-1, unpadded conv reads the input planes as the column matrix.
  const bool pointwise = g.KH == 1 && g.KW == 1 && g.SH == 1 && g.SW == 1 && g.PH == 0 && g.PW == 0 &&
                         g.OH == g.H && g.OW == g.W;
  // One (image, group) slice: im2col into `cols`, then gemm. With enough
  // slices each task takes whole slices (nested parallel_for runs inline);
  // otherwise the slices run in turn and im2col/gemm split internally.
  auto slice = [&](int64_t ng, std::vector<T>& cols, bool split) {
    const int64_t n = ng / g.G, gi = ng % g.G;
    const T* xg = x + (n * g.C + gi * cg) * g.H * g.W;
    const T* B = xg;
    if (!pointwise) {
      cols.resize(size_t(K * P));
      if (split)
        parallel_for(cg, grain_for(g.KH * g.KW * P),
                     [&](int64_t c0, int64_t c1) { im2col(g, c0, c1, xg, cols.data()); });
      else
        im2col(g, 0, cg, xg, cols.data());
      B = cols.data();
    }
    T* yg = y + (n * g.OC + gi * ocg) * P;
    gemm_t<T>(ocg, P, K, w + gi * ocg * K, K, false, B, P, false, yg, P, T(0));
  };
  const int64_t slices = g.N * g.G;
  if (slices >= num_threads() && slices > 1) {
    parallel_for(slices, grain_for(ocg * P * K), [&](int64_t s0, int64_t s1) {
      std::vector<T> cols;  // per task
      for (int64_t s = s0; s < s1; ++s) slice(s, cols, false);
    });
  } else {
    std::vector<T> cols;
    for (int64_t s = 0; s < slices; ++s) slice(s, cols, true);
  }
  add_bias(g, bias, y);
}

template <typename T>
void conv_transpose2d(const Conv2dGeom& g, const T* x, const T* w, const T* bias, T* y) {
  const int64_t cg = g.C / g.G, ocg = g.OC / g.G;
  const int64_t M = ocg * g.KH * g.KW, HW = g.H * g.W, OP = g.OH * g.OW;
  if (g.N * g.OC * OP == 0) return;
  std::fill(y, y + g.N * g.OC * OP, T(0));
  // col2im for output channels [oc0, oc1): scatter-add every tap into the output.
  auto col2im = [&](const T* cols, T* yg, int64_t oc0, int64_t oc1) {
    for (int64_t oc = oc0; oc < oc1; ++oc)
      for (int64_t kh = 0; kh < g.KH; ++kh)
        for (int64_t kw = 0; kw < g.KW; ++kw) {
          const T* row = cols + ((oc * g.KH + kh) * g.KW + kw) * HW;
          T* out = yg + oc * OP;
          for (int64_t ih = 0; ih < g.H; ++ih) {
            const int64_t oh = ih * g.SH - g.PH + kh * g.DH;
            if (oh < 0 || oh >= g.OH) continue;
            for (int64_t iw = 0; iw < g.W; ++iw) {
              const int64_t ow = iw * g.SW - g.PW + kw * g.DW;
              if (ow >= 0 && ow < g.OW) out[oh * g.OW + ow] += row[ih * g.W + iw];
            }
          }
        }
  };
  // As conv2d: whole (image, group) slices per task when there are enough.
  auto slice = [&](int64_t ng, std::vector<T>& cols, bool split) {
    const int64_t n = ng / g.G, gi = ng % g.G;
    cols.resize(size_t(M * HW));
    // cols[M, HW] = w_g^T [M, cg] x x_g [cg, HW]
    gemm_t<T>(M, HW, cg, w + gi * cg * M, M, true, x + (n * g.C + gi * cg) * HW, HW, false, cols.data(), HW,
              T(0));
    T* yg = y + (n * g.OC + gi * ocg) * OP;
    if (split)
      parallel_for(ocg, grain_for(g.KH * g.KW * HW),
                   [&](int64_t o0, int64_t o1) { col2im(cols.data(), yg, o0, o1); });
    else
      col2im(cols.data(), yg, 0, ocg);
  };
  const int64_t slices = g.N * g.G;
  if (slices >= num_threads() && slices > 1) {
    parallel_for(slices, grain_for(M * HW * std::max<int64_t>(cg, 1)), [&](int64_t s0, int64_t s1) {
      std::vector<T> cols;  // per task
      for (int64_t s = s0; s < s1; ++s) slice(s, cols, false);
    });
  } else {
    std::vector<T> cols;
    for (int64_t s = 0; s < slices; ++s) slice(s, cols, true);
  }
  add_bias(g, bias, y);
}

template void conv2d<float>(const Conv2dGeom&, const float*, const float*, const float*, float*);
template void conv2d<double>(const Conv2dGeom&, const double*, const double*, const double*, double*);
template void conv_transpose2d<float>(const Conv2dGeom&, const float*, const float*, const float*, float*);
template void conv_transpose2d<double>(const Conv2dGeom&, const double*, const double*, const double*,
                                       double*);

}  // namespace tir
