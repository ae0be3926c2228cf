// Sliding blocks and sampling grids: im2col / col2im (F.unfold / F.fold),
// grid_sampler_2d and grid_sampler (F.grid_sample, 4-D or 5-D input) and
// affine_grid_generator (F.affine_grid). Kernels: kernels/im2col.h and
// kernels/grid_sample.h. Float dtypes; f16/bf16 compute in float (im2col
// copies their bits).
#include <memory>
#include <string>

#include "kernels/grid_sample.h"
#include "kernels/im2col.h"
#include "ops/float_compute.h"
#include "ops/op.h"
#include "ops/sliding_window.h"

namespace tir {
namespace {

std::string pair_str(const std::vector<int64_t>& v) { return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ")"; }

// ---- im2col / col2im ----

struct FoldState {
  Im2colGeom g;
  int64_t batch = 1;
  DType cd = DType::F32;
};

// kernel_size, dilation, padding, stride as torch checks them (Im2Col.cpp / Col2Im.cpp).
Im2colGeom parse_geom(const OpCall& call) {
  const auto k = call.ints("kernel_size", std::nullopt, 2), d = call.ints("dilation", std::nullopt, 2),
             p = call.ints("padding", std::nullopt, 2), s = call.ints("stride", std::nullopt, 2);
  call.check(k.size() == 2 && d.size() == 2 && p.size() == 2 && s.size() == 2,
             "kernel_size, dilation, padding and stride must have 2 values each");
  call.check(k[0] > 0 && k[1] > 0, "kernel size should be greater than zero, but got " + pair_str(k));
  call.check(d[0] > 0 && d[1] > 0, "dilation should be greater than zero, but got " + pair_str(d));
  call.check(p[0] >= 0 && p[1] >= 0, "padding should be non-negative, but got " + pair_str(p));
  call.check(s[0] > 0 && s[1] > 0, "stride should be greater than zero, but got " + pair_str(s));
  Im2colGeom g;
  g.kh = k[0], g.kw = k[1], g.dh = d[0], g.dw = d[1], g.ph = p[0], g.pw = p[1], g.sh = s[0], g.sw = s[1];
  return g;
}

void check_blocks(const OpCall& call, const Im2colGeom& g) {
  if (g.oh < 1 || g.ow < 1)
    call.fail("given input with spatial size (" + std::to_string(g.H) + ", " + std::to_string(g.W) +
                  "), kernel_size (" + std::to_string(g.kh) + ", " + std::to_string(g.kw) + "), dilation (" +
                  std::to_string(g.dh) + ", " + std::to_string(g.dw) + "), padding (" + std::to_string(g.ph) + ", " +
                  std::to_string(g.pw) + "), the calculated shape of the array of sliding blocks is (" +
                  std::to_string(g.oh) + ", " + std::to_string(g.ow) + "), but its components must be at least one");
}

// aten::im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride)
void plan_im2col(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& x = call.in[0];
  auto st = std::make_shared<FoldState>();
  st->cd = fc::float_compute(call, x.dtype, "im2col input");
  call.check(x.dim() == 3 || x.dim() == 4,
             "expected a 3-D [C, H, W] or 4-D [N, C, H, W] input, got " + shape_to_string(x.shape));
  const bool batched = x.dim() == 4;
  const int64_t off = batched ? 1 : 0;
  call.check(x.shape[off] > 0 && x.shape[off + 1] > 0 && x.shape[off + 2] > 0,
             "expected non-empty channel and spatial dimensions (batch may be 0), got " + shape_to_string(x.shape));
  Im2colGeom g = parse_geom(call);
  g.C = x.shape[off], g.H = x.shape[off + 1], g.W = x.shape[off + 2];
  g.oh = window_positions(call, g.H, g.kh, g.dh, g.ph, g.sh);
  g.ow = window_positions(call, g.W, g.kw, g.dw, g.pw, g.sw);
  check_blocks(call, g);
  st->g = g;
  st->batch = batched ? x.shape[0] : 1;
  const std::string what = "im2col output";
  Shape os{checked_mul(checked_mul(g.C, g.kh, what), g.kw, what), checked_mul(g.oh, g.ow, what)};
  if (batched) os.insert(os.begin(), x.shape[0]);
  call.fresh(0, x.dtype, os);
  call.state = st;
}

void run_im2col(OpCall& call) {
  const auto& st = call.state_as<FoldState>();
  const Tensor& out = call.out[0];
  const Tensor x = contiguous_or_self(call.in[0]);
  const int64_t in_n = st.g.C * st.g.H * st.g.W, out_n = st.g.C * st.g.kh * st.g.kw * st.g.oh * st.g.ow;
  auto go = [&](auto tag) {
    using T = decltype(tag);
    for (int64_t n = 0; n < st.batch; ++n) im2col<T>(st.g, x.data<T>() + n * in_n, out.data<T>() + n * out_n);
  };
  if (x.dtype == DType::F64) go(double{});
  else if (x.dtype == DType::F32) go(float{});
  else go(uint16_t{});  // f16 / bf16: a bit copy
}

// aten::col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding,
//     int[2] stride)
void plan_col2im(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& x = call.in[0];
  auto st = std::make_shared<FoldState>();
  st->cd = fc::float_compute(call, x.dtype, "col2im input");
  call.check(x.dim() == 2 || x.dim() == 3,
             "expected a 2-D [C*kh*kw, L] or 3-D [N, C*kh*kw, L] input, got " + shape_to_string(x.shape));
  const bool batched = x.dim() == 3;
  const int64_t off = batched ? 1 : 0;
  const auto os = call.ints("output_size", std::nullopt, 2);
  call.check(os.size() == 2 && os[0] > 0 && os[1] > 0,
             "output_size must be 2 positive values, got " + shape_to_string(os));
  Im2colGeom g = parse_geom(call);
  call.check(x.shape[off] > 0 && x.shape[off + 1] > 0,
             "expected non-empty dimensions besides the batch, got " + shape_to_string(x.shape));
  const std::string what = "col2im geometry";
  const int64_t taps = checked_mul(g.kh, g.kw, what);
  call.check(x.shape[off] % taps == 0,
             "expected size of input's dimension " + std::to_string(off) + " (" + std::to_string(x.shape[off]) +
                 ") to be divisible by the product of kernel_size (" + std::to_string(taps) + ")");
  g.C = x.shape[off] / taps, g.H = os[0], g.W = os[1];
  g.oh = window_positions(call, g.H, g.kh, g.dh, g.ph, g.sh);
  g.ow = window_positions(call, g.W, g.kw, g.dw, g.pw, g.sw);
  check_blocks(call, g);
  const int64_t blocks = checked_mul(g.oh, g.ow, what);
  call.check(x.shape[off + 1] == blocks,
             "given output_size " + pair_str(os) + ", the calculated number of sliding blocks is " +
                 std::to_string(g.oh) + " * " + std::to_string(g.ow) + " = " + std::to_string(blocks) +
                 ", but input's dimension " + std::to_string(off + 1) + " is " + std::to_string(x.shape[off + 1]));
  st->g = g;
  st->batch = batched ? x.shape[0] : 1;
  Shape out_shape{g.C, g.H, g.W};
  if (batched) out_shape.insert(out_shape.begin(), x.shape[0]);
  call.fresh(0, x.dtype, out_shape);
  call.state = st;
}

void run_col2im(OpCall& call) {
  const auto& st = call.state_as<FoldState>();
  const Tensor x = fc::dense(call.in[0], st.cd);
  const int64_t in_n = st.g.C * st.g.kh * st.g.kw * st.g.oh * st.g.ow, out_n = st.g.C * st.g.H * st.g.W;
  fc::dispatch_fd(st.cd, [&](auto tag) {
    using T = decltype(tag);
    fc::into<T>(call.out[0], st.cd, [&](T* o) {
      for (int64_t n = 0; n < st.batch; ++n) col2im<T>(st.g, x.data<T>() + n * in_n, o + n * out_n);
    });
  });
}

// ---- grid_sampler_2d / grid_sampler ----

struct GridState {
  GridSampleArgs a;
  DType cd = DType::F32;
};

// aten::grid_sampler_2d / grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode,
//     bool align_corners)
void plan_grid_sampler(OpCall& call, bool only_2d) {
  call.expect_inputs(2, 2);
  const Tensor &x = call.in[0], &grid = call.in[1];
  auto st = std::make_shared<GridState>();
  st->cd = fc::float_compute(call, x.dtype, "grid_sampler input");
  call.check(grid.dtype == x.dtype, std::string("grid_sampler(): expected input and grid to have the same dtype, got ") +
                                        dtype_name(x.dtype) + " and " + dtype_name(grid.dtype));
  const bool three = !only_2d && x.dim() == 5;
  call.check(x.dim() == 4 || three,
             std::string("grid_sampler") + (only_2d ? "_2d" : "") + "(): expected " +
                 (only_2d ? "4-D input" : "4-D or 5-D input") + ", got " + shape_to_string(x.shape));
  const int64_t nsp = three ? 3 : 2;
  call.check(grid.dim() == x.dim() && grid.shape.back() == nsp,
             "grid_sampler(): expected grid of shape [N, " + std::string(three ? "D, " : "") + "H, W, " +
                 std::to_string(nsp) + "] for input " + shape_to_string(x.shape) + ", got " + shape_to_string(grid.shape));
  call.check(grid.shape[0] == x.shape[0], "grid_sampler(): expected grid and input to have the same batch size, got " +
                                              shape_to_string(grid.shape) + " and " + shape_to_string(x.shape));
  for (int64_t d = 2; d < x.dim(); ++d)
    call.check(x.shape[size_t(d)] > 0, "grid_sampler(): expected input to have non-empty spatial dimensions, got " +
                                           shape_to_string(x.shape));
  const int64_t im = call.i("interpolation_mode"), pm = call.i("padding_mode");
  call.check(im >= 0 && im <= 2, "interpolation_mode must be 0 (bilinear), 1 (nearest) or 2 (bicubic), got " +
                                     std::to_string(im));
  call.check(pm >= 0 && pm <= 2, "padding_mode must be 0 (zeros), 1 (border) or 2 (reflection), got " + std::to_string(pm));
  call.check(!(three && im == 2), "grid_sampler(): bicubic interpolation only supports 4-D input");
  GridSampleArgs& a = st->a;
  a.three_d = three;
  a.interp = GridInterp(im);
  a.pad = GridPad(pm);
  a.align_corners = call.b("align_corners");
  a.N = x.shape[0], a.C = x.shape[1];
  a.D = three ? x.shape[2] : 1, a.H = x.shape[size_t(x.dim() - 2)], a.W = x.shape.back();
  a.oD = three ? grid.shape[1] : 1, a.oH = grid.shape[size_t(grid.dim() - 3)], a.oW = grid.shape[size_t(grid.dim() - 2)];
  Shape os{a.N, a.C};
  if (three) os.push_back(a.oD);
  os.push_back(a.oH);
  os.push_back(a.oW);
  call.fresh(0, x.dtype, os);
  call.state = st;
}

void run_grid_sampler(OpCall& call) {
  const auto& st = call.state_as<GridState>();
  const Tensor x = fc::dense(call.in[0], st.cd), grid = fc::dense(call.in[1], st.cd);
  fc::dispatch_fd(st.cd, [&](auto tag) {
    using T = decltype(tag);
    fc::into<T>(call.out[0], st.cd, [&](T* o) { grid_sample<T>(st.a, x.data<T>(), grid.data<T>(), o); });
  });
}

// ---- affine_grid_generator ----

struct AffineState {
  int64_t N = 0;
  std::vector<int64_t> sizes;  // spatial
  bool align = false;
  DType cd = DType::F32;
};

// aten::affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners)
void plan_affine_grid(OpCall& call) {
  call.expect_inputs(1, 1);
  const Tensor& theta = call.in[0];
  auto st = std::make_shared<AffineState>();
  st->cd = fc::float_compute(call, theta.dtype, "affine_grid theta");
  const auto size = call.ints("size");
  call.check(size.size() == 4 || size.size() == 5,
             "affine_grid only supports 4-D and 5-D sizes (2-D and 3-D affine transforms), got size " + shape_to_string(size));
  const int64_t nsp = int64_t(size.size()) - 2;
  for (int64_t s : size) call.check(s >= 0, "size must be non-negative, got " + shape_to_string(size));
  call.check(theta.dim() == 3 && theta.shape[0] == size[0] && theta.shape[1] == nsp && theta.shape[2] == nsp + 1,
             "expected theta of shape [" + std::to_string(size[0]) + ", " + std::to_string(nsp) + ", " +
                 std::to_string(nsp + 1) + "] for size " + shape_to_string(size) + ", got " + shape_to_string(theta.shape));
  st->N = size[0];
  st->sizes.assign(size.begin() + 2, size.end());
  st->align = call.b("align_corners");
  Shape os{st->N};
  os.insert(os.end(), st->sizes.begin(), st->sizes.end());
  os.push_back(nsp);
  call.fresh(0, theta.dtype, os);
  call.state = st;
}

void run_affine_grid(OpCall& call) {
  const auto& st = call.state_as<AffineState>();
  const Tensor theta = fc::dense(call.in[0], st.cd);
  fc::dispatch_fd(st.cd, [&](auto tag) {
    using T = decltype(tag);
    fc::into<T>(call.out[0], st.cd, [&](T* o) {
      affine_grid<T>(st.N, st.sizes.data(), int(st.sizes.size()), st.align, theta.data<T>(), o);
    });
  });
}

}  // namespace

TIR_REGISTER_OPS({"aten.im2col.default", {plan_im2col, run_im2col}},
                 {"aten.col2im.default", {plan_col2im, run_col2im}},
                 {"aten.grid_sampler_2d.default", {[](OpCall& c) { plan_grid_sampler(c, true); }, run_grid_sampler}},
                 {"aten.grid_sampler.default", {[](OpCall& c) { plan_grid_sampler(c, false); }, run_grid_sampler}},
                 {"aten.affine_grid_generator.default", {plan_affine_grid, run_affine_grid}});

}  // namespace tir
