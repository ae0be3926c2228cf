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
void add_bias(const ConvGeom& g, const T* bias, T* y) {
  if (!bias) return;
  const int64_t plane = g.out_plane();
  parallel_for(g.N * g.OC, grain_for(plane), [&](int64_t p0, int64_t p1) {
    for (int64_t np = p0; np < p1; ++np) {  // np = n * OC + oc
      T* p = y + np * plane;
      const T b = bias[np % g.OC];
      for (int64_t i = 0; i < plane; ++i) p[i] += b;
    }
  });
}

// cols[((c*KD+kd)*KH+kh)*KW+kw][(od*OH+oh)*OW+ow] = x[c][id][ih][iw] (0 outside
// the input). Channels [c0, c1) only, so callers can split the work.
template <typename T>
void im2col(const ConvGeom& g, int64_t c0, int64_t c1, const T* x, T* cols) {
  const int64_t P = g.out_plane(), OHW = g.OH * g.OW, HW = g.H * g.W;
  for (int64_t c = c0; c < c1; ++c)
    for (int64_t kd = 0; kd < g.KD; ++kd)
      for (int64_t kh = 0; kh < g.KH; ++kh)
        for (int64_t kw = 0; kw < g.KW; ++kw) {
          T* row = cols + (((c * g.KD + kd) * g.KH + kh) * g.KW + kw) * P;
          for (int64_t od = 0; od < g.OD; ++od) {
            T* slab = row + od * OHW;
            const int64_t id = od * g.SD - g.PD + kd * g.DD;
            if (id < 0 || id >= g.D) {
              std::fill(slab, slab + OHW, T(0));
              continue;
            }
            const T* plane = x + (c * g.D + id) * HW;
            for (int64_t oh = 0; oh < g.OH; ++oh) {
              const int64_t ih = oh * g.SH - g.PH + kh * g.DH;
              T* r = slab + oh * g.OW;
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
}

// One input channel per group: direct loops beat im2col (MobileNet's depthwise).
template <typename T>
void conv_depthwise(const ConvGeom& g, const T* x, const T* w, T* y) {
  const int64_t ocg = g.OC / g.G, HW = g.H * g.W;
  parallel_for(g.N * g.OC, grain_for(g.out_plane() * g.taps()), [&](int64_t p0, int64_t p1) {
    for (int64_t np = p0; np < p1; ++np) {
      const int64_t n = np / g.OC, oc = np % g.OC;
      const T* vol = x + (n * g.C + oc / ocg) * g.in_plane();
      const T* k = w + oc * g.taps();
      T* out = y + (n * g.OC + oc) * g.out_plane();
      for (int64_t od = 0; od < g.OD; ++od)
        for (int64_t oh = 0; oh < g.OH; ++oh)
          for (int64_t ow = 0; ow < g.OW; ++ow) {
            T acc = 0;
            for (int64_t kd = 0; kd < g.KD; ++kd) {
              const int64_t id = od * g.SD - g.PD + kd * g.DD;
              if (id < 0 || id >= g.D) continue;
              const T* plane = vol + id * HW;
              const T* kp = k + kd * g.KH * g.KW;
              for (int64_t kh = 0; kh < g.KH; ++kh) {
                const int64_t ih = oh * g.SH - g.PH + kh * g.DH;
                if (ih < 0 || ih >= g.H) continue;
                for (int64_t kw = 0; kw < g.KW; ++kw) {
                  const int64_t iw = ow * g.SW - g.PW + kw * g.DW;
                  if (iw >= 0 && iw < g.W) acc += plane[ih * g.W + iw] * kp[kh * g.KW + kw];
                }
              }
            }
            out[(od * g.OH + oh) * g.OW + ow] = acc;
          }
    }
  });
}

// Runs slice(s, cols, split) for the N*G (image, group) slices: whole slices per
// task when there are enough (nested parallel_for runs inline); otherwise the
// slices run in turn and split their im2col/col2im internally.
template <typename T, typename Slice>
void for_each_slice(const ConvGeom& g, int64_t cost, Slice&& slice) {
  const int64_t slices = g.N * g.G;
  if (slices >= num_threads() && slices > 1) {
    parallel_for(slices, grain_for(cost), [&](int64_t s0, int64_t s1) {
      std::vector<T> cols;  // per task
      for (int64_t s = s0; s < s1; ++s) slice(s, cols, false);
    });
  } else {
    std::vector<T> cols;
    for (int64_t s = 0; s < slices; ++s) slice(s, cols, true);
  }
}

}  // namespace

template <typename T>
void conv_nd(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y) {
  const int64_t cg = g.C / g.G, ocg = g.OC / g.G;
  const int64_t K = cg * g.taps(), P = g.out_plane(), IP = g.in_plane();
  if (g.N * g.OC * P == 0) return;
  if (cg == 1 && g.G > 1) {
    conv_depthwise(g, x, w, y);
    add_bias(g, bias, y);
    return;
  }
  // A 1x1, stride-1, unpadded conv reads the input planes as the column matrix.
  const bool pointwise = g.taps() == 1 && g.SD == 1 && g.SH == 1 && g.SW == 1 && g.PD == 0 && g.PH == 0 &&
                         g.PW == 0 && P == IP;
  // One (image, group) slice: im2col into `cols`, then gemm.
  auto slice = [&](int64_t ng, std::vector<T>& cols, bool split) {
    const int64_t n = ng / g.G, gi = ng % g.G;
    const T* xg = x + (n * g.C + gi * cg) * IP;
    const T* B = xg;
    if (!pointwise) {
      cols.resize(size_t(K * P));
      if (split)
        parallel_for(cg, grain_for(g.taps() * P),
                     [&](int64_t c0, int64_t c1) { im2col(g, c0, c1, xg, cols.data()); });
      else
        im2col(g, 0, cg, xg, cols.data());
      B = cols.data();
    }
    T* yg = y + (n * g.OC + gi * ocg) * P;
    gemm_t<T>(ocg, P, K, w + gi * ocg * K, K, false, B, P, false, yg, P, T(0));
  };
  for_each_slice<T>(g, ocg * P * K, slice);
  add_bias(g, bias, y);
}

template <typename T>
void conv_transpose_nd(const ConvGeom& g, const T* x, const T* w, const T* bias, T* y) {
  const int64_t cg = g.C / g.G, ocg = g.OC / g.G;
  const int64_t M = ocg * g.taps(), IP = g.in_plane(), OP = g.out_plane();
  if (g.N * g.OC * OP == 0) return;
  std::fill(y, y + g.N * g.OC * OP, T(0));
  // col2im for output channels [oc0, oc1): scatter-add every tap into the output.
  auto col2im = [&](const T* cols, T* yg, int64_t oc0, int64_t oc1) {
    for (int64_t oc = oc0; oc < oc1; ++oc)
      for (int64_t kd = 0; kd < g.KD; ++kd)
        for (int64_t kh = 0; kh < g.KH; ++kh)
          for (int64_t kw = 0; kw < g.KW; ++kw) {
            const T* row = cols + (((oc * g.KD + kd) * g.KH + kh) * g.KW + kw) * IP;
            for (int64_t id = 0; id < g.D; ++id) {
              const int64_t od = id * g.SD - g.PD + kd * g.DD;
              if (od < 0 || od >= g.OD) continue;
              T* out = yg + (oc * g.OD + od) * g.OH * g.OW;
              const T* src = row + id * g.H * g.W;
              for (int64_t ih = 0; ih < g.H; ++ih) {
                const int64_t oh = ih * g.SH - g.PH + kh * g.DH;
                if (oh < 0 || oh >= g.OH) continue;
                for (int64_t iw = 0; iw < g.W; ++iw) {
                  const int64_t ow = iw * g.SW - g.PW + kw * g.DW;
                  if (ow >= 0 && ow < g.OW) out[oh * g.OW + ow] += src[ih * g.W + iw];
                }
              }
            }
          }
  };
  auto slice = [&](int64_t ng, std::vector<T>& cols, bool split) {
    const int64_t n = ng / g.G, gi = ng % g.G;
    cols.resize(size_t(M * IP));
    // cols[M, IP] = w_g^T [M, cg] x x_g [cg, IP]
    gemm_t<T>(M, IP, cg, w + gi * cg * M, M, true, x + (n * g.C + gi * cg) * IP, IP, false, cols.data(), IP,
              T(0));
    T* yg = y + (n * g.OC + gi * ocg) * OP;
    if (split)
      parallel_for(ocg, grain_for(g.taps() * IP),
                   [&](int64_t o0, int64_t o1) { col2im(cols.data(), yg, o0, o1); });
    else
      col2im(cols.data(), yg, 0, ocg);
  };
  for_each_slice<T>(g, M * IP * std::max<int64_t>(cg, 1), slice);
  add_bias(g, bias, y);
}

template void conv_nd<float>(const ConvGeom&, const float*, const float*, const float*, float*);
template void conv_nd<double>(const ConvGeom&, const double*, const double*, const double*, double*);
template void conv_transpose_nd<float>(const ConvGeom&, const float*, const float*, const float*, float*);
template void conv_transpose_nd<double>(const ConvGeom&, const double*, const double*, const double*,
                                        double*);

}  // namespace tir
