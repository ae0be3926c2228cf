#include "kernels/im2col.h"

#include <algorithm>
#include <cstring>

namespace tir {

template <typename T> void im2col(const Im2colGeom& g, const T* im, T* col) {
  const int64_t L = g.oh * g.ow;
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        T* row = col + ((c * g.kh + i) * g.kw + j) * L;
        const T* plane = im + c * g.H * g.W;
        for (int64_t y = 0; y < g.oh; ++y) {
          T* dst = row + y * g.ow;
          const int64_t iy = y * g.sh - g.ph + i * g.dh;
          if (iy < 0 || iy >= g.H) {
            std::fill(dst, dst + g.ow, T(0));
            continue;
          }
          const T* src = plane + iy * g.W;
          const int64_t x0 = j * g.dw - g.pw;  // ix = x*sw + x0
          if (g.sw == 1 && x0 >= 0 && x0 + g.ow <= g.W) {  // the common dense row: one copy
            std::memcpy(dst, src + x0, size_t(g.ow) * sizeof(T));
            continue;
          }
          for (int64_t x = 0; x < g.ow; ++x) {
            const int64_t ix = x * g.sw + x0;
            dst[x] = ix >= 0 && ix < g.W ? src[ix] : T(0);
          }
        }
      }
}

template <typename T> void col2im(const Im2colGeom& g, const T* col, T* im) {
  std::fill(im, im + g.C * g.H * g.W, T(0));
  const int64_t L = g.oh * g.ow;
  for (int64_t c = 0; c < g.C; ++c)
    for (int64_t i = 0; i < g.kh; ++i)
      for (int64_t j = 0; j < g.kw; ++j) {
        const T* row = col + ((c * g.kh + i) * g.kw + j) * L;
        T* plane = im + c * g.H * g.W;
        for (int64_t y = 0; y < g.oh; ++y) {
          const int64_t iy = y * g.sh - g.ph + i * g.dh;
          if (iy < 0 || iy >= g.H) continue;
          const T* src = row + y * g.ow;
          T* dst = plane + iy * g.W;
          const int64_t x0 = j * g.dw - g.pw;
          for (int64_t x = 0; x < g.ow; ++x) {
            const int64_t ix = x * g.sw + x0;
            if (ix >= 0 && ix < g.W) dst[ix] += src[x];
          }
        }
      }
}

template void im2col<float>(const Im2colGeom&, const float*, float*);
template void im2col<double>(const Im2colGeom&, const double*, double*);
template void im2col<uint16_t>(const Im2colGeom&, const uint16_t*, uint16_t*);  // f16/bf16 bits: a copy
template void col2im<float>(const Im2colGeom&, const float*, float*);
template void col2im<double>(const Im2colGeom&, const double*, double*);

}  // namespace tir
