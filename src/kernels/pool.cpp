#include "kernels/pool.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "kernels/parallel.h"

namespace tir {

namespace {

// A window of input positions: [d0, d1) x [h0, h1) x [w0, w1), every
// dd/dh/dw-th element, all inside the input.
struct Window {
  int64_t d0, d1, h0, h1, w0, w1, dd = 1, dh = 1, dw = 1;
};

// Max over a window. NaN wins and stays (torch).
template <typename T>
void window_max(const PoolGeom& g, const T* in, const Window& win, T* y, int64_t* idx) {
  int64_t best_i = (win.d0 * g.H + win.h0) * g.W + win.w0;
  T best = -std::numeric_limits<T>::infinity();
  for (int64_t d = win.d0; d < win.d1; d += win.dd)
    for (int64_t h = win.h0; h < win.h1; h += win.dh) {
      const T* row = in + (d * g.H + h) * g.W;
      for (int64_t w = win.w0; w < win.w1; w += win.dw) {
        const T v = row[w];
        if (v > best || std::isnan(v)) {
          best = v;
          best_i = (d * g.H + h) * g.W + w;
        }
      }
    }
  *y = best;
  if (idx) *idx = best_i;
}

// The dilated max-pool window of output (od, oh, ow), padding skipped.
inline Window pool_window(const PoolGeom& g, int64_t od, int64_t oh, int64_t ow) {
  auto axis = [](int64_t o, int64_t s, int64_t p, int64_t k, int64_t dil, int64_t in, int64_t* a, int64_t* b) {
    int64_t start = o * s - p;
    *b = std::min(start + (k - 1) * dil + 1, in);
    while (start < 0) start += dil;
    *a = start;
  };
  Window w{0, 0, 0, 0, 0, 0, g.DD, g.DH, g.DW};
  axis(od, g.SD, g.PD, g.KD, g.DD, g.D, &w.d0, &w.d1);
  axis(oh, g.SH, g.PH, g.KH, g.DH, g.H, &w.h0, &w.h1);
  axis(ow, g.SW, g.PW, g.KW, g.DW, g.W, &w.w0, &w.w1);
  return w;
}

// An empty output may still have huge other dims (a 0 beside 2^40): their
// product overflows and looping over them never ends, so every entry point
// returns first.
inline bool empty_output(const PoolGeom& g) { return g.planes == 0 || g.OD == 0 || g.OH == 0 || g.OW == 0; }

// Calls f(in_plane, od, oh, ow, o) for every output element, o its flat index;
// planes are independent, so the work splits over them.
template <typename T, typename F>
void for_each_output(const PoolGeom& g, const T* x, int64_t cost_per_out, F&& f) {
  const int64_t IP = g.D * g.H * g.W, OP = g.OD * g.OH * g.OW;
  parallel_for(g.planes, grain_for(OP * cost_per_out), [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const T* in = x + p * IP;
      int64_t o = p * OP;
      for (int64_t od = 0; od < g.OD; ++od)
        for (int64_t oh = 0; oh < g.OH; ++oh)
          for (int64_t ow = 0; ow < g.OW; ++ow) f(in, od, oh, ow, o++);
    }
  });
}

inline int64_t bin_start(int64_t i, int64_t out, int64_t in) { return (i * in) / out; }
inline int64_t bin_end(int64_t i, int64_t out, int64_t in) { return ((i + 1) * in + out - 1) / out; }

// The adaptive bin of output (od, oh, ow); shared by avg and max.
inline Window adaptive_bin(const PoolGeom& g, int64_t od, int64_t oh, int64_t ow) {
  return {bin_start(od, g.OD, g.D), bin_end(od, g.OD, g.D), bin_start(oh, g.OH, g.H),
          bin_end(oh, g.OH, g.H),   bin_start(ow, g.OW, g.W), bin_end(ow, g.OW, g.W)};
}

}  // namespace

template <typename T>
void max_pool(const PoolGeom& g, const T* x, T* y, int64_t* indices) {
  if (empty_output(g)) return;
  if constexpr (std::is_same_v<T, float>)
    if (!indices && max_pool_f32_fast(g, x, y)) return;
  for_each_output(g, x, g.KD * g.KH * g.KW, [&](const T* in, int64_t od, int64_t oh, int64_t ow, int64_t o) {
    window_max(g, in, pool_window(g, od, oh, ow), y + o, indices ? indices + o : nullptr);
  });
}

template <typename T>
void avg_pool(const PoolGeom& g, bool count_include_pad, int64_t divisor_override, const T* x, T* y) {
  if (empty_output(g)) return;
  for_each_output(g, x, g.KD * g.KH * g.KW, [&](const T* in, int64_t od, int64_t oh, int64_t ow, int64_t o) {
    int64_t d0 = od * g.SD - g.PD, h0 = oh * g.SH - g.PH, w0 = ow * g.SW - g.PW;
    // The window clipped to the padded input: count_include_pad's divisor.
    int64_t d1 = std::min(d0 + g.KD, g.D + g.PD), h1 = std::min(h0 + g.KH, g.H + g.PH),
            w1 = std::min(w0 + g.KW, g.W + g.PW);
    const int64_t pool_size = (d1 - d0) * (h1 - h0) * (w1 - w0);
    d0 = std::max<int64_t>(d0, 0), h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
    d1 = std::min(d1, g.D), h1 = std::min(h1, g.H), w1 = std::min(w1, g.W);
    if (d0 >= d1 || h0 >= h1 || w0 >= w1) {
      y[o] = T(0);
      return;
    }
    T sum = 0;
    for (int64_t d = d0; d < d1; ++d)
      for (int64_t h = h0; h < h1; ++h) {
        const T* row = in + (d * g.H + h) * g.W;
        for (int64_t w = w0; w < w1; ++w) sum += row[w];
      }
    const int64_t div = divisor_override > 0 ? divisor_override
                        : count_include_pad  ? pool_size
                                             : (d1 - d0) * (h1 - h0) * (w1 - w0);
    y[o] = sum / T(div);
  });
}

template <typename T>
void adaptive_avg_pool(const PoolGeom& g, const T* x, T* y) {
  if (empty_output(g)) return;
  const int64_t cost = g.D * g.H * g.W / std::max<int64_t>(g.OD * g.OH * g.OW, 1) + 1;
  for_each_output(g, x, cost, [&](const T* in, int64_t od, int64_t oh, int64_t ow, int64_t o) {
    const Window b = adaptive_bin(g, od, oh, ow);
    T sum = 0;
    for (int64_t d = b.d0; d < b.d1; ++d)
      for (int64_t h = b.h0; h < b.h1; ++h) {
        const T* row = in + (d * g.H + h) * g.W;
        for (int64_t w = b.w0; w < b.w1; ++w) sum += row[w];
      }
    // Divide per dim, as torch does (bit-identical for the 2-D case).
    y[o] = sum / T(b.d1 - b.d0) / T(b.h1 - b.h0) / T(b.w1 - b.w0);
  });
}

template <typename T>
void adaptive_max_pool(const PoolGeom& g, const T* x, T* y, int64_t* indices) {
  if (empty_output(g)) return;
  const int64_t cost = g.D * g.H * g.W / std::max<int64_t>(g.OD * g.OH * g.OW, 1) + 1;
  for_each_output(g, x, cost, [&](const T* in, int64_t od, int64_t oh, int64_t ow, int64_t o) {
    window_max(g, in, adaptive_bin(g, od, oh, ow), y + o, indices ? indices + o : nullptr);
  });
}

#define TIR_POOL_INSTANTIATE(T)                                              \
  template void max_pool<T>(const PoolGeom&, const T*, T*, int64_t*);      \
  template void avg_pool<T>(const PoolGeom&, bool, int64_t, const T*, T*); \
  template void adaptive_avg_pool<T>(const PoolGeom&, const T*, T*);       \
  template void adaptive_max_pool<T>(const PoolGeom&, const T*, T*, int64_t*);
TIR_POOL_INSTANTIATE(float)
TIR_POOL_INSTANTIATE(double)
#undef TIR_POOL_INSTANTIATE

}  // namespace tir
