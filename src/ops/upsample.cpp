// Resampling: upsample_nearest{1,2,3}d, _upsample_nearest_exact{1,2,3}d,
// upsample_linear1d / bilinear2d / trilinear3d / bicubic2d and the antialiased
// _upsample_bilinear2d_aa, each in the `.default` form (output_size plus
// optional per-axis scales) and the `.vec` form (output_size or scale_factors).
// Input [N, C, spatial...]; the math and torch's index rules are in
// kernels/upsample.h (docs/spec/OPS.md §3.8).
#include "kernels/upsample.h"

#include <cmath>
#include <string>
#include <type_traits>

#include "core/dispatch.h"
#include "ops/op.h"

namespace tir {
namespace {

enum class Mode { Nearest, NearestExact, Linear, Cubic, LinearAA };

struct UpArgs {
  int64_t planes = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1};  // right-aligned spatial sizes
  double scale[3] = {0, 0, 0};                     // 0: not given
  bool align_corners = false;
  Shape out_shape;
};

bool is_nearest(Mode m) { return m == Mode::Nearest || m == Mode::NearestExact; }

// A float[]? attribute (scale_factors); empty when absent.
std::vector<double> opt_floats(const OpCall& call, const std::string& name) {
  std::vector<double> v;
  const Attr* a = call.attr(name);
  if (!a) return v;
  if (a->is_number()) return std::vector<double>(1, a->as_double());
  call.check(a->kind == Attr::Kind::List, name + " must be a list of floats, got " + a->to_string());
  for (const Attr& e : a->list) {
    call.check(e.is_number(), name + " must be a list of floats, got " + a->to_string());
    v.push_back(e.as_double());
  }
  return v;
}

UpArgs parse_upsample(const OpCall& call, Mode mode, size_t nsp, bool vec) {
  call.expect_inputs(1, 1);
  const Tensor& x = call.in[0];
  const int64_t n = int64_t(nsp);
  call.check(x.dim() == n + 2, "expected a " + std::to_string(n + 2) + "-D input [N, C, " +
                                   std::to_string(n) + " spatial dims], got " + shape_to_string(x.shape));
  if (!is_nearest(mode))
    call.check(x.dtype == DType::F32 || x.dtype == DType::F64,
               std::string("interpolation supports float32/float64, got ") + dtype_name(x.dtype));
  UpArgs a;
  a.planes = x.shape[0] * x.shape[1];
  if (!is_nearest(mode)) a.align_corners = call.b("align_corners");
  std::vector<int64_t> size;
  std::vector<double> scales(nsp, 0.0);
  if (vec) {
    const auto os = call.opt_ints("output_size");
    const auto sf = opt_floats(call, "scale_factors");
    call.check(os.has_value() != !sf.empty(), "exactly one of output_size and scale_factors must be given");
    if (os) {
      size = *os;
    } else {
      call.check(sf.size() == nsp, "scale_factors must have " + std::to_string(nsp) + " values");
      scales = sf;
      for (size_t d = 0; d < nsp; ++d) {
        // Checked before the cast: a NaN, infinite or huge scale has no int64 size.
        const double out = double(x.shape[2 + d]) * sf[d];
        call.check(std::isfinite(out) && out >= 0.0 && out < 9.2e18,
                   "scale_factors[" + std::to_string(d) + "] = " + std::to_string(sf[d]) +
                       " gives no valid output size for input " + shape_to_string(x.shape));
        size.push_back(static_cast<int64_t>(out));
      }
    }
  } else {
    size = call.ints("output_size", std::nullopt, nsp);
    static const char* names[3][3] = {{"scales"}, {"scales_h", "scales_w"}, {"scales_d", "scales_h", "scales_w"}};
    for (size_t d = 0; d < nsp; ++d)
      if (call.has(names[nsp - 1][d])) scales[d] = call.f(names[nsp - 1][d]);
  }
  call.check(size.size() == nsp, "output_size must have " + std::to_string(nsp) + " values");
  a.out_shape = {x.shape[0], x.shape[1]};
  const size_t off = 3 - nsp;
  for (size_t d = 0; d < nsp; ++d) {
    const int64_t in = x.shape[2 + d];
    call.check(in > 0 && size[d] > 0, "input and output sizes should be greater than 0, but got input " +
                                          shape_to_string(x.shape) + " and output size " +
                                          std::to_string(size[d]));
    a.in[off + d] = in;
    a.out[off + d] = size[d];
    a.scale[off + d] = scales[d];
    a.out_shape.push_back(size[d]);
  }
  return a;
}

void plan_upsample(OpCall& call, Mode mode, size_t nsp, bool vec) {
  const UpArgs a = parse_upsample(call, mode, nsp, vec);
  call.fresh(0, call.in[0].dtype, a.out_shape);
}

void run_upsample(OpCall& call, Mode mode, size_t nsp, bool vec) {
  const UpArgs a = parse_upsample(call, mode, nsp, vec);
  if (call.out[0].numel() == 0) return;
  const Tensor x = contiguous_or_self(call.in[0]);
  if (is_nearest(mode)) {
    std::vector<int64_t> idx[3];
    const std::vector<int64_t>* ptr[3];
    for (int d = 0; d < 3; ++d) {
      idx[d] = nearest_indices(a.in[d], a.out[d], a.scale[d], mode == Mode::NearestExact);
      ptr[d] = &idx[d];
    }
    dispatch_compute(x.dtype, [&](auto tag) {
      using T = decltype(tag);
      gather_nearest<T>(x.data<T>(), call.out[0].data<T>(), a.planes, a.in, a.out, ptr);
    });
    return;
  }
  const Interp interp = mode == Mode::Linear ? Interp::Linear
                        : mode == Mode::Cubic ? Interp::Cubic
                                              : Interp::LinearAntialias;
  dispatch_compute(x.dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      AxisTaps<T> taps[3];
      const AxisTaps<T>* ptr[3] = {nullptr, nullptr, nullptr};
      for (int d = 0; d < 3; ++d)
        if (a.in[d] != a.out[d]) {
          taps[d] = interp_taps<T>(interp, a.in[d], a.out[d], a.align_corners, a.scale[d]);
          ptr[d] = &taps[d];
        }
      interpolate<T>(x.data<T>(), call.out[0].data<T>(), a.planes, a.in, a.out, ptr);
    } else {
      call.fail("interpolation supports float32/float64 only");
    }
  });
}

OpDef up_def(Mode mode, size_t nsp, bool vec) {
  return {[=](OpCall& c) { plan_upsample(c, mode, nsp, vec); },
          [=](OpCall& c) { run_upsample(c, mode, nsp, vec); }};
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::upsample_nearest1d(Tensor self, SymInt[1] output_size, float? scales=None) -> Tensor
    {"aten.upsample_nearest1d.default", up_def(Mode::Nearest, 1, false)},
    // aten::upsample_nearest1d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor
    {"aten.upsample_nearest1d.vec", up_def(Mode::Nearest, 1, true)},
    // aten::upsample_nearest2d(Tensor self, SymInt[2] output_size, float? scales_h=None,
    //   float? scales_w=None) -> Tensor
    {"aten.upsample_nearest2d.default", up_def(Mode::Nearest, 2, false)},
    // aten::upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor
    {"aten.upsample_nearest2d.vec", up_def(Mode::Nearest, 2, true)},
    // aten::upsample_nearest3d(Tensor self, SymInt[3] output_size, float? scales_d=None,
    //   float? scales_h=None, float? scales_w=None) -> Tensor
    {"aten.upsample_nearest3d.default", up_def(Mode::Nearest, 3, false)},
    // aten::upsample_nearest3d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor
    {"aten.upsample_nearest3d.vec", up_def(Mode::Nearest, 3, true)},
    // aten::_upsample_nearest_exact1d(Tensor self, SymInt[1] output_size, float? scales=None) -> Tensor
    {"aten._upsample_nearest_exact1d.default", up_def(Mode::NearestExact, 1, false)},
    // aten::_upsample_nearest_exact1d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors)
    {"aten._upsample_nearest_exact1d.vec", up_def(Mode::NearestExact, 1, true)},
    // aten::_upsample_nearest_exact2d(Tensor self, SymInt[2] output_size, float? scales_h=None,
    //   float? scales_w=None) -> Tensor
    {"aten._upsample_nearest_exact2d.default", up_def(Mode::NearestExact, 2, false)},
    // aten::_upsample_nearest_exact2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors)
    {"aten._upsample_nearest_exact2d.vec", up_def(Mode::NearestExact, 2, true)},
    // aten::_upsample_nearest_exact3d(Tensor self, SymInt[3] output_size, float? scales_d=None,
    //   float? scales_h=None, float? scales_w=None) -> Tensor
    {"aten._upsample_nearest_exact3d.default", up_def(Mode::NearestExact, 3, false)},
    // aten::_upsample_nearest_exact3d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors)
    {"aten._upsample_nearest_exact3d.vec", up_def(Mode::NearestExact, 3, true)},
    // aten::upsample_linear1d(Tensor self, SymInt[1] output_size, bool align_corners,
    //   float? scales=None) -> Tensor
    {"aten.upsample_linear1d.default", up_def(Mode::Linear, 1, false)},
    // aten::upsample_linear1d.vec(Tensor input, SymInt[]? output_size, bool align_corners,
    //   float[]? scale_factors) -> Tensor
    {"aten.upsample_linear1d.vec", up_def(Mode::Linear, 1, true)},
    // aten::upsample_bilinear2d(Tensor self, SymInt[2] output_size, bool align_corners,
    //   float? scales_h=None, float? scales_w=None) -> Tensor
    {"aten.upsample_bilinear2d.default", up_def(Mode::Linear, 2, false)},
    // aten::upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners,
    //   float[]? scale_factors) -> Tensor
    {"aten.upsample_bilinear2d.vec", up_def(Mode::Linear, 2, true)},
    // aten::upsample_trilinear3d(Tensor self, SymInt[3] output_size, bool align_corners,
    //   float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor
    {"aten.upsample_trilinear3d.default", up_def(Mode::Linear, 3, false)},
    // aten::upsample_trilinear3d.vec(Tensor input, SymInt[]? output_size, bool align_corners,
    //   float[]? scale_factors) -> Tensor
    {"aten.upsample_trilinear3d.vec", up_def(Mode::Linear, 3, true)},
    // aten::upsample_bicubic2d(Tensor self, SymInt[2] output_size, bool align_corners,
    //   float? scales_h=None, float? scales_w=None) -> Tensor
    {"aten.upsample_bicubic2d.default", up_def(Mode::Cubic, 2, false)},
    // aten::upsample_bicubic2d.vec(Tensor input, SymInt[]? output_size, bool align_corners,
    //   float[]? scale_factors) -> Tensor
    {"aten.upsample_bicubic2d.vec", up_def(Mode::Cubic, 2, true)},
    // aten::_upsample_bilinear2d_aa(Tensor self, SymInt[2] output_size, bool align_corners,
    //   float? scales_h=None, float? scales_w=None) -> Tensor
    {"aten._upsample_bilinear2d_aa.default", up_def(Mode::LinearAA, 2, false)},
    // aten::_upsample_bilinear2d_aa.vec(Tensor input, SymInt[]? output_size, bool align_corners,
    //   float[]? scale_factors) -> Tensor
    {"aten._upsample_bilinear2d_aa.vec", up_def(Mode::LinearAA, 2, true)});

}  // namespace tir
