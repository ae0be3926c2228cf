// grid_sampler_2d / grid_sampler_3d and affine_grid_generator, with torch's
// index math (ATen/native/GridSampler.h): unnormalize, then border clip or
// reflection, then bilinear / nearest (round half to even) / bicubic (cubic
// convolution A = -0.75, each tap's coordinate padded on its own). Scalar
// code over contiguous data (plus a SIMD f32 bilinear path), threads over output positions (each position is
// computed the same way on any thread); instantiated for float and double.
#pragma once
#include <cstdint>

namespace tir {

enum class GridInterp : int { Bilinear = 0, Nearest = 1, Bicubic = 2 };
enum class GridPad : int { Zeros = 0, Border = 1, Reflection = 2 };

struct GridSampleArgs {
  int64_t N = 0, C = 0;
  int64_t D = 1, H = 0, W = 0;      // input spatial (D = 1 for 2-D)
  int64_t oD = 1, oH = 0, oW = 0;   // grid positions
  bool three_d = false;
  GridInterp interp = GridInterp::Bilinear;
  GridPad pad = GridPad::Zeros;
  bool align_corners = false;
};

// The input coordinate of a grid value along an axis of `size` (torch's
// grid_sampler_unnormalize): (g + 1) * size / 2 - 0.5, or (g + 1) * (size - 1) / 2
// with align_corners, evaluated as g * scale + offset (scale = size / 2 or
// (size - 1) / 2, offset = (size - 1) / 2: the same value, exact constants). A
// float32 g is widened to double, where the product (24 x <= 29 significant bits)
// is exact, and the sum is rounded to double then float: the coordinate is the
// float nearest the exact one (ties of the two roundings aside), where PyTorch's
// float32 (g + 1), product and - 0.5 each round, and an error in the coordinate
// is multiplied by the image's gradient in the output. The SIMD path
// (grid_sample_f32.cpp) does the same operations per lane.
struct GridScale {
  double scale, offset;
};
inline GridScale grid_scale(int64_t size, bool align_corners) {
  return {align_corners ? double(size - 1) / 2 : double(size) / 2, double(size - 1) / 2};
}
inline float grid_unnormalize(float g, GridScale s) { return float(double(g) * s.scale + s.offset); }
inline double grid_unnormalize(double g, GridScale s) { return g * s.scale + s.offset; }

// in [N, C, (D,) H, W], grid [N, (oD,) oH, oW, 2 or 3] (x, y(, z)), out [N, C, (oD,) oH, oW].
// Takes the SIMD path where it applies, else grid_sample_ref.
template <typename T> void grid_sample(const GridSampleArgs& a, const T* in, const T* grid, T* out);
// The scalar reference, every mode.
template <typename T> void grid_sample_ref(const GridSampleArgs& a, const T* in, const T* grid, T* out);
// SIMD f32 2-D bilinear with zeros / border padding (kernels/grid_sample_f32.cpp),
// bit-identical to grid_sample_ref; false (nothing written) for any other case.
bool grid_sample_f32_fast(const GridSampleArgs& a, const float* in, const float* grid, float* out);

// theta [N, 2, 3] (2-D: sizes = {H, W}) or [N, 3, 4] (3-D: {D, H, W});
// grid [N, (D,) H, W, 2 or 3] = base @ theta^T, base = (x, y(, z), 1) on
// linspace(-1, 1) scaled by (n-1)/n without align_corners (0 for a size of 1).
template <typename T> void affine_grid(int64_t N, const int64_t* sizes, int nsp, bool align_corners, const T* theta,
                                       T* grid);

}  // namespace tir
