#include "kernels/conv.h"

#include <algorithm>
#include <vector>

#include "kernels/gemm.h"

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
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t oc = 0; oc < g.OC; ++oc) {
      T* p = y + (n * g.OC + oc) * plane;
      for (int64_t i = 0; i < plane; ++i) p[i] += bias[oc];
    }
}

// cols[(c*KH+kh)*KW+kw][oh*OW+ow] = x[c][ih][iw] (0 outside the input).
template <typename T>
void im2col(const Conv2dGeom& g, int64_t channels, const T* x, T* cols) {
  const int64_t P = g.OH * g.OW;
  for (int64_t c = 0; c < channels; ++c)
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
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t oc = 0; oc < g.OC; ++oc) {
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
  std::vector<T> cols(pointwise ? 0 : size_t(K * P));
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t gi = 0; gi < g.G; ++gi) {
      const T* xg = x + (n * g.C + gi * cg) * g.H * g.W;
      const T* B = xg;
      if (!pointwise) {
        im2col(g, cg, xg, cols.data());
        B = cols.data();
      }
      T* yg = y + (n * g.OC + gi * ocg) * P;
      gemm_t<T>(ocg, P, K, w + gi * ocg * K, K, false, B, P, false, yg, P, T(0));
    }
  add_bias(g, bias, y);
}

template <typename T>
void conv_transpose2d(const Conv2dGeom& g, const T* x, const T* w, const T* bias, T* y) {
  const int64_t cg = g.C / g.G, ocg = g.OC / g.G;
  const int64_t M = ocg * g.KH * g.KW, HW = g.H * g.W, OP = g.OH * g.OW;
  std::fill(y, y + g.N * g.OC * OP, T(0));
  std::vector<T> cols(size_t(M * HW));
  for (int64_t n = 0; n < g.N; ++n)
    for (int64_t gi = 0; gi < g.G; ++gi) {
      // cols[M, HW] = w_g^T [M, cg] x x_g [cg, HW]
      gemm_t<T>(M, HW, cg, w + gi * cg * M, M, true, x + (n * g.C + gi * cg) * HW, HW, false, cols.data(), HW,
                T(0));
      // col2im: scatter-add every tap into the output.
      T* yg = y + (n * g.OC + gi * ocg) * OP;
      for (int64_t oc = 0; oc < ocg; ++oc)
        for (int64_t kh = 0; kh < g.KH; ++kh)
          for (int64_t kw = 0; kw < g.KW; ++kw) {
            const T* row = cols.data() + ((oc * g.KH + kh) * g.KW + kw) * HW;
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
    }
  add_bias(g, bias, y);
}

template void conv2d<float>(const Conv2dGeom&, const float*, const float*, const float*, float*);
template void conv2d<double>(const Conv2dGeom&, const double*, const double*, const double*, double*);
template void conv_transpose2d<float>(const Conv2dGeom&, const float*, const float*, const float*, float*);
template void conv_transpose2d<double>(const Conv2dGeom&, const double*, const double*, const double*,
                                       double*);

}  // namespace tir
