// Ops that copy their input into a new order: flip, roll, repeat,
// pixel_shuffle / pixel_unshuffle. flip and roll are per-dim index maps
// (reindex_copy); repeat and the pixel shuffles are a strided view of the
// input copied into a reshaped view of the output (copy_into), so neither
// needs a contiguous input.
#include <string>

#include "core/checked.h"
#include "kernels/reindex.h"
#include "ops/op.h"

namespace tir {
namespace {

using Maps = std::vector<std::vector<int64_t>>;

// Identity index map for every dim of `shape`.
Maps identity_maps(const Shape& shape) {
  Maps maps(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    maps[d].resize(size_t(shape[d]));
    for (int64_t o = 0; o < shape[d]; ++o) maps[d][size_t(o)] = o;
  }
  return maps;
}

void copy_by_maps(const Tensor& x, const Tensor& out, const Maps& maps, const Strides& strides) {
  if (out.numel() == 0) return;
  reindex_copy(x.raw(), strides, dtype_size(x.dtype), maps, out.raw(), nullptr);
}

void plan_same_shape(OpCall& c) {
  c.expect_inputs(1, 1);
  c.fresh(0, c.in[0].dtype, c.in[0].shape);
}

// --- flip ---------------------------------------------------------------------
std::vector<bool> flip_dims(const OpCall& c, const Tensor& x) {
  std::vector<bool> flip(size_t(x.dim()), false);
  for (int64_t d : c.ints("dims")) {
    const int64_t w = c.wrap_dim(d, x.dim());
    if (x.dim() == 0) continue;
    c.check(!flip[size_t(w)], "dim " + std::to_string(w) + " appears multiple times in the list of dims");
    flip[size_t(w)] = true;
  }
  return flip;
}

void plan_flip(OpCall& c) {
  plan_same_shape(c);
  flip_dims(c, c.in[0]);
}

void run_flip(OpCall& c) {
  const Tensor& x = c.in[0];
  const std::vector<bool> flip = flip_dims(c, x);
  Maps maps = identity_maps(x.shape);
  for (size_t d = 0; d < maps.size(); ++d)
    if (flip[d])
      for (int64_t o = 0; o < x.shape[d]; ++o) maps[d][size_t(o)] = x.shape[d] - 1 - o;
  copy_by_maps(x, c.out[0], maps, x.strides);
}

// --- roll ---------------------------------------------------------------------
// Source index of output o for a roll by `shift` over `size` elements.
int64_t rolled(int64_t o, int64_t shift, int64_t size) {
  const int64_t s = shift % size;
  return ((o - s) % size + size) % size;
}

void plan_roll(OpCall& c) {
  plan_same_shape(c);
  const auto shifts = c.ints("shifts");
  const auto dims = c.ints("dims", std::vector<int64_t>{});
  c.check(!shifts.empty(), "roll: `shifts` required");
  c.check(dims.empty() ? shifts.size() == 1 : shifts.size() == dims.size(),
          "shifts and dimensions must align. shifts: " + std::to_string(shifts.size()) +
              ", dims: " + std::to_string(dims.size()));
  for (int64_t d : dims) c.wrap_dim(d, c.in[0].dim());
}

void run_roll(OpCall& c) {
  const Tensor& x = c.in[0];
  const auto shifts = c.ints("shifts");
  const auto dims = c.ints("dims", std::vector<int64_t>{});
  if (x.numel() == 0) return;
  if (dims.empty()) {  // roll over the flattened tensor
    const Tensor flat = contiguous_or_self(x);
    Maps maps(1, std::vector<int64_t>(size_t(x.numel())));
    for (int64_t o = 0; o < x.numel(); ++o) maps[0][size_t(o)] = rolled(o, shifts[0], x.numel());
    return copy_by_maps(flat, c.out[0], maps, {1});
  }
  // Repeated dims roll repeatedly: shifts add up.
  std::vector<int64_t> total(size_t(x.dim()), 0);
  for (size_t k = 0; k < dims.size() && x.dim() > 0; ++k)
    total[size_t(c.wrap_dim(dims[k], x.dim()))] += shifts[k] % x.numel();
  Maps maps = identity_maps(x.shape);
  for (size_t d = 0; d < maps.size(); ++d)
    for (int64_t o = 0; o < x.shape[d]; ++o) maps[d][size_t(o)] = rolled(o, total[d], x.shape[d]);
  copy_by_maps(x, c.out[0], maps, x.strides);
}

// --- repeat -------------------------------------------------------------------
// Output seen as [r0, s0, r1, s1, ...]; the input expands over the r dims.
struct RepeatViews {
  Shape split;        // [r0, s0, r1, s1, ...]
  Strides in_strides; // [0, st0, 0, st1, ...]
  Shape out;          // [r0*s0, r1*s1, ...]
};

RepeatViews repeat_views(const OpCall& c, const Tensor& x) {
  const auto reps = c.ints("repeats");
  c.check(reps.size() >= size_t(x.dim()),
          "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  RepeatViews v;
  const size_t lead = reps.size() - size_t(x.dim());
  for (size_t i = 0; i < reps.size(); ++i) {
    c.check(reps[i] >= 0, "repeat: negative repeat count " + std::to_string(reps[i]));
    const int64_t s = i < lead ? 1 : x.shape[i - lead];
    v.split.insert(v.split.end(), {reps[i], s});
    v.in_strides.insert(v.in_strides.end(), {0, i < lead ? 0 : x.strides[i - lead]});
    v.out.push_back(checked_mul(reps[i], s, "repeat"));
  }
  return v;
}

void plan_repeat(OpCall& c) {
  c.expect_inputs(1, 1);
  c.fresh(0, c.in[0].dtype, repeat_views(c, c.in[0]).out);
}

void run_repeat(OpCall& c) {
  const Tensor& x = c.in[0];
  const Tensor& y = c.out[0];
  const RepeatViews v = repeat_views(c, x);
  copy_into(y.view_as(v.split, contiguous_strides(v.split), y.offset), x.view_as(v.split, v.in_strides, x.offset));
}

// --- pixel_shuffle / pixel_unshuffle ----------------------------------------------
struct ShuffleViews {
  Shape out;               // output shape
  Shape split;             // shape both views share
  Strides in_strides;      // input seen with `split`
};

// shuffle:   out[*, c, h*r+i, w*r+j] = in[*, c*r*r + i*r + j, h, w]; split = [*, C/r², H, r, W, r]
// unshuffle: out[*, c*r*r + i*r + j, h, w] = in[*, c, h*r+i, w*r+j]; split = [*, C, r, r, H/r, W/r]
ShuffleViews shuffle_views(const OpCall& c, const Tensor& x, bool up) {
  const char* name = up ? "pixel_shuffle" : "pixel_unshuffle";
  const int64_t r = c.i(up ? "upscale_factor" : "downscale_factor");
  c.check(x.dim() >= 3, std::string(name) + " expects input to have at least 3 dimensions, but got input with " +
                            std::to_string(x.dim()) + " dimension(s)");
  c.check(r > 0, std::string(name) + " expects a positive factor, but got " + std::to_string(r));
  const size_t b = size_t(x.dim() - 3);
  const int64_t C = x.shape[b], H = x.shape[b + 1], W = x.shape[b + 2];
  const int64_t sc = x.strides[b], sh = x.strides[b + 1], sw = x.strides[b + 2];
  ShuffleViews v;
  v.out = v.split = Shape(x.shape.begin(), x.shape.begin() + std::ptrdiff_t(b));
  v.in_strides = Strides(x.strides.begin(), x.strides.begin() + std::ptrdiff_t(b));
  if (up) {
    c.check(C % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                              "upscale_factor, but input.size(-3)=" + std::to_string(C) + " is not divisible by " +
                                  std::to_string(r * r));
    v.out.insert(v.out.end(), {C / (r * r), H * r, W * r});
    v.split.insert(v.split.end(), {C / (r * r), H, r, W, r});
    v.in_strides.insert(v.in_strides.end(), {sc * r * r, sh, sc * r, sw, sc});
  } else {
    c.check(H % r == 0 && W % r == 0, "pixel_unshuffle expects height " + std::to_string(H) + " and width " +
                                          std::to_string(W) + " to be divisible by downscale_factor " +
                                          std::to_string(r));
    v.out.insert(v.out.end(), {C * r * r, H / r, W / r});
    v.split.insert(v.split.end(), {C, r, r, H / r, W / r});
    v.in_strides.insert(v.in_strides.end(), {sc, sh, sw, sh * r, sw * r});
  }
  return v;
}

OpDef shuffle_def(bool up) {
  auto plan = [up](OpCall& c) {
    c.expect_inputs(1, 1);
    c.fresh(0, c.in[0].dtype, shuffle_views(c, c.in[0], up).out);
  };
  auto run = [up](OpCall& c) {
    const Tensor& x = c.in[0];
    const Tensor& y = c.out[0];
    const ShuffleViews v = shuffle_views(c, x, up);
    copy_into(y.view_as(v.split, contiguous_strides(v.split), y.offset), x.view_as(v.split, v.in_strides, x.offset));
  };
  return {plan, run};
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::flip(Tensor self, int[] dims) -> Tensor
    {"aten.flip.default", {plan_flip, run_flip}},
    // aten::roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor
    {"aten.roll.default", {plan_roll, run_roll}},
    // aten::repeat(Tensor self, SymInt[] repeats) -> Tensor
    {"aten.repeat.default", {plan_repeat, run_repeat}},
    // aten::pixel_shuffle(Tensor self, int upscale_factor) -> Tensor
    {"aten.pixel_shuffle.default", shuffle_def(true)},
    // aten::pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor
    {"aten.pixel_unshuffle.default", shuffle_def(false)});

}  // namespace tir
