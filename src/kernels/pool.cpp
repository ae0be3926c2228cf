#include "kernels/pool.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/parallel.h"

namespace tir {

template <typename T>
void max_pool2d(const Pool2dGeom& g, const T* x, T* y, int64_t* indices) {
  // Planes are independent: split over them.
  parallel_for(g.planes, grain_for(g.OH * g.OW * g.KH * g.KW), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* in = x + p * g.H * g.W;
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          int64_t h0 = oh * g.SH - g.PH, w0 = ow * g.SW - g.PW;
          const int64_t h1 = std::min(h0 + (g.KH - 1) * g.DH + 1, g.H);
          const int64_t w1 = std::min(w0 + (g.KW - 1) * g.DW + 1, g.W);
          while (h0 < 0) h0 += g.DH;
          while (w0 < 0) w0 += g.DW;
          int64_t best_i = h0 * g.W + w0;
          T best = -std::numeric_limits<T>::infinity();
          for (int64_t h = h0; h < h1; h += g.DH)
            for (int64_t w = w0; w < w1; w += g.DW) {
              const T v = in[h * g.W + w];
              if (v > best || std::isnan(v)) {  // NaN wins and stays (torch)
                best = v;
                best_i = h * g.W + w;
              }
            }
          const int64_t o = (p * g.OH + oh) * g.OW + ow;
          y[o] = best;
          if (indices) indices[o] = best_i;
        }
    }
  });
}

template <typename T>
void avg_pool2d(const Pool2dGeom& g, bool count_include_pad, int64_t divisor_override, const T* x, T* y) {
  // Planes are independent: split over them.
  parallel_for(g.planes, grain_for(g.OH * g.OW * g.KH * g.KW), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* in = x + p * g.H * g.W;
      for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          int64_t h0 = oh * g.SH - g.PH, w0 = ow * g.SW - g.PW;
          // The window clipped to the padded input: count_include_pad's divisor.
          int64_t h1 = std::min(h0 + g.KH, g.H + g.PH), w1 = std::min(w0 + g.KW, g.W + g.PW);
          const int64_t pool_size = (h1 - h0) * (w1 - w0);
          h0 = std::max<int64_t>(h0, 0);
          w0 = std::max<int64_t>(w0, 0);
          h1 = std::min(h1, g.H);
          w1 = std::min(w1, g.W);
          T& out = y[(p * g.OH + oh) * g.OW + ow];
          if (h0 >= h1 || w0 >= w1) {
            out = T(0);
            continue;
          }
          T sum = 0;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) sum += in[h * g.W + w];
          const int64_t div = divisor_override > 0 ? divisor_override
                              : count_include_pad  ? pool_size
                                                   : (h1 - h0) * (w1 - w0);
          out = sum / T(div);
        }
    }
  });
}

namespace {
inline int64_t bin_start(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
inline int64_t bin_end(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }
}  // namespace

template <typename T>
void adaptive_avg_pool2d(const Pool2dGeom& g, const T* x, T* y) {
  // Planes are independent: split over them.
  parallel_for(g.planes, grain_for(g.H * g.W + g.OH * g.OW), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* in = x + p * g.H * g.W;
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        const int64_t h0 = bin_start(oh, g.OH, g.H), h1 = bin_end(oh, g.OH, g.H);
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const int64_t w0 = bin_start(ow, g.OW, g.W), w1 = bin_end(ow, g.OW, g.W);
          T sum = 0;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) sum += in[h * g.W + w];
          y[(p * g.OH + oh) * g.OW + ow] = sum / T(h1 - h0) / T(w1 - w0);
        }
      }
    }
  });
}

template <typename T>
void adaptive_max_pool2d(const Pool2dGeom& g, const T* x, T* y, int64_t* indices) {
  // Planes are independent: split over them.
  parallel_for(g.planes, grain_for(g.H * g.W + g.OH * g.OW), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* in = x + p * g.H * g.W;
      for (int64_t oh = 0; oh < g.OH; ++oh) {
        const int64_t h0 = bin_start(oh, g.OH, g.H), h1 = bin_end(oh, g.OH, g.H);
        for (int64_t ow = 0; ow < g.OW; ++ow) {
          const int64_t w0 = bin_start(ow, g.OW, g.W), w1 = bin_end(ow, g.OW, g.W);
          int64_t best_i = h0 * g.W + w0;
          T best = -std::numeric_limits<T>::infinity();
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) {
              const T v = in[h * g.W + w];
              if (v > best || std::isnan(v)) {
                best = v;
                best_i = h * g.W + w;
              }
            }
          const int64_t o = (p * g.OH + oh) * g.OW + ow;
          y[o] = best;
          if (indices) indices[o] = best_i;
        }
      }
    }
  });
}

#define TIR_POOL_INSTANTIATE(T)                                                \
  template void max_pool2d<T>(const Pool2dGeom&, const T*, T*, int64_t*);      \
  template void avg_pool2d<T>(const Pool2dGeom&, bool, int64_t, const T*, T*); \
  template void adaptive_avg_pool2d<T>(const Pool2dGeom&, const T*, T*);       \
  template void adaptive_max_pool2d<T>(const Pool2dGeom&, const T*, T*, int64_t*);
TIR_POOL_INSTANTIATE(float)
TIR_POOL_INSTANTIATE(double)
#undef TIR_POOL_INSTANTIATE

}  // namespace tir
