// Sliding-window geometry along one axis (convolution, im2col / col2im), in
// checked arithmetic: window attrs come from the IR, so a hostile padding or
// dilation must fail at plan time with a clear error, not wrap in a kernel.
#pragma once
#include <cstdint>
#include <string>

#include "core/checked.h"
#include "ops/op.h"

namespace tir {

// Kernels index up to one stride past the last window (pos * stride - pad +
// tap * dilation, then += stride); bounding the padded extent keeps all of
// that far inside int64. No real tensor has an axis near 2^40 elements.
constexpr int64_t kMaxWindowExtent = int64_t(1) << 40;

// floor((in + 2*pad - (dil*(k-1) + 1)) / stride) + 1, torch's formula; may be
// <= 0 (the caller names the op's own "too small" error). Refuses a padded
// extent or dilated window of kMaxWindowExtent or more, naming the values.
inline int64_t window_positions(const OpCall& call, int64_t in, int64_t k, int64_t dil, int64_t pad,
                                int64_t stride) {
  const std::string what = "sliding window geometry";
  const int64_t span = checked_add(checked_mul(dil, k - 1, what), 1, what);
  const int64_t padded = checked_add(in, checked_mul(2, pad, what), what);
  call.check(padded < kMaxWindowExtent && span < kMaxWindowExtent,
             "window geometry too large: the padded input (" + std::to_string(in) + " + 2 * " + std::to_string(pad) +
                 ") and the dilated kernel (" + std::to_string(dil) + " * (" + std::to_string(k) +
                 " - 1) + 1) must each stay below 2^40");
  return padded < span ? 0 : (padded - span) / stride + 1;
}

}  // namespace tir
