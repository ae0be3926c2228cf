// Resampling (upsample_* / interpolate) over contiguous [planes, D, H, W] data;
// 1-D and 2-D use leading sizes 1. Index/weight tables follow torch's CPU
// kernels (ATen UpSample.h): the scale is 1/scale_factor when one is given
// (scale <= 0 means "not given": in/out), computed in the compute type, and
// source coordinates round like torch's (float where torch uses float).
// Interpolating modes run separably, W first, then H, then D, skipping axes
// whose size does not change (torch does the same; they would be identities).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tir {

// Nearest source index of every output index along one axis. `exact` is
// nearest-exact (pixel centers); otherwise torch's legacy floor(dst*scale).
// Like torch's nearest_idx, legacy nearest maps out == in to i and out == 2*in
// to i/2 without float arithmetic. That differs from the formula only when a
// scale other than 1 or 2 still gives exactly 1x or 2x sizes (5 * 2.1 -> 10),
// where torch builds and kernel paths disagree among themselves (1.13's 1-D
// path and 2.x's 3-D depth axis skip the shortcut); not matched there.
std::vector<int64_t> nearest_indices(int64_t in, int64_t out, double scale, bool exact);

// y[p][od][oh][ow] = x[p][id[od]][ih[oh]][iw[ow]]; any element type (a copy).
template <typename T>
void gather_nearest(const T* x, T* y, int64_t planes, const int64_t in[3], const int64_t out[3],
                    const std::vector<int64_t>* idx[3]) {
  const int64_t in_hw = in[1] * in[2];
  for (int64_t p = 0; p < planes; ++p) {
    const T* src = x + p * in[0] * in_hw;
    for (int64_t d = 0; d < out[0]; ++d)
      for (int64_t h = 0; h < out[1]; ++h) {
        const T* row = src + (*idx[0])[size_t(d)] * in_hw + (*idx[1])[size_t(h)] * in[2];
        for (int64_t w = 0; w < out[2]; ++w) *y++ = row[(*idx[2])[size_t(w)]];
      }
  }
}

enum class Interp { Linear, Cubic, LinearAntialias };

// Output o along one axis is sum_j weight[o*taps+j] * x[index[o*taps+j]].
template <typename T>
struct AxisTaps {
  int64_t taps = 0;
  std::vector<int64_t> index;
  std::vector<T> weight;
};

// The taps of one axis for `mode` (align_corners as torch; `scale` as above).
template <typename T>
AxisTaps<T> interp_taps(Interp mode, int64_t in, int64_t out, bool align_corners, double scale);

// Separable interpolation of [planes, in[0], in[1], in[2]] into [planes, out...];
// taps[a] is null for axes with in[a] == out[a]. T = float or double.
template <typename T>
void interpolate(const T* x, T* y, int64_t planes, const int64_t in[3], const int64_t out[3],
                 const AxisTaps<T>* taps[3]);

}  // namespace tir
