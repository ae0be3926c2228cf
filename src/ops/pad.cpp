// Padding ops: constant_pad_nd, pad (all four modes) and the reflection /
// replication pads. Pads list the last dim first ([left, right, top, bottom,
// ...]); negative pads crop. Every mode is a per-dim index map fed to
// reindex_copy, so strided inputs need no copy first.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/checked.h"
#include "core/dispatch.h"
#include "kernels/reindex.h"
#include "ops/op.h"

namespace tir {
namespace {

enum class Mode { Constant, Reflect, Replicate, Circular };

struct PadSpec {
  Mode mode = Mode::Constant;
  std::vector<int64_t> pad;
  Scalar value = Scalar::of_int(0);
};

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::Constant: return "constant";
    case Mode::Reflect: return "reflect";
    case Mode::Replicate: return "replicate";
    default: return "circular";
  }
}

// Output shape, with torch's argument checks.
Shape padded_shape(const OpCall& c, const Tensor& x, const PadSpec& p) {
  const int64_t nd = x.dim();
  const int64_t npad = int64_t(p.pad.size()) / 2;
  c.check(p.pad.size() % 2 == 0, "padding length must be divisible by 2, got " + std::to_string(p.pad.size()));
  c.check(npad <= nd, "padding length (" + std::to_string(p.pad.size()) +
                          ") is too large for a tensor of shape " + shape_to_string(x.shape));
  if (p.mode != Mode::Constant) {
    // Non-constant modes pad the last N dims of an (N+1)-D or (N+2)-D input.
    c.check(npad >= 1 && npad <= 3 && (nd == npad + 1 || nd == npad + 2),
            std::string(mode_name(p.mode)) + " padding of length " + std::to_string(p.pad.size()) +
                " needs a " + std::to_string(npad + 1) + "-D or " + std::to_string(npad + 2) +
                "-D input, got shape " + shape_to_string(x.shape));
  }
  Shape out = x.shape;
  for (int64_t j = 0; j < npad; ++j) {
    const size_t d = size_t(nd - 1 - j);
    const int64_t l = p.pad[size_t(2 * j)], r = p.pad[size_t(2 * j + 1)], size = x.shape[d];
    const std::string where = " (dim " + std::to_string(d) + " of size " + std::to_string(size) + ", pads " +
                              std::to_string(l) + ", " + std::to_string(r) + ")";
    out[d] = checked_add(checked_add(size, l, "pad" + where), r, "pad" + where);
    c.check(out[d] >= 0, "padding would give a negative output size" + where);
    if (p.mode == Mode::Constant) continue;
    c.check(size > 0, std::string(mode_name(p.mode)) + " padding needs a non-empty input dim" + where);
    c.check(p.mode == Mode::Circular || out[d] >= 1, "padding gives an empty output" + where);
    if (p.mode == Mode::Reflect)
      c.check(l < size && r < size, "reflect padding must be smaller than the input dim" + where);
    if (p.mode == Mode::Circular) {
      // Pads wrap within what the negative pads leave; torch reads
      // uninitialized memory past that, so refuse it.
      const int64_t kept = size - std::max<int64_t>(-l, 0) - std::max<int64_t>(-r, 0);
      c.check(l <= kept && r <= kept, "circular padding wraps around more than once" + where);
      c.check(out[d] == 0 || kept > 0, "circular padding crops the whole input" + where);
    }
  }
  return out;
}

// Input index for output index o along one dim (-1: the constant fill).
int64_t source_index(Mode m, int64_t o, int64_t left, int64_t right, int64_t size) {
  int64_t i = o - left;
  switch (m) {
    case Mode::Constant: return i >= 0 && i < size ? i : -1;
    case Mode::Reflect:
      if (i < 0) i = -i;
      if (i >= size) i = 2 * (size - 1) - i;
      return i;
    case Mode::Replicate: return i < 0 ? 0 : i >= size ? size - 1 : i;
    default: {
      // torch crops negative pads first, then wraps within the cropped range.
      const int64_t crop_l = std::max<int64_t>(-left, 0), kept = size - crop_l - std::max<int64_t>(-right, 0);
      const int64_t j = o - std::max<int64_t>(left, 0);
      return crop_l + ((j % kept) + kept) % kept;
    }
  }
}

std::vector<uint8_t> fill_bytes(DType d, const Scalar& s) {
  std::vector<uint8_t> bytes(dtype_size(d));
  dispatch_compute(d, [&](auto tag) {
    using T = decltype(tag);
    const T v = s.is_floating() ? convert<T>(s.f) : convert<T>(s.i);
    std::memcpy(bytes.data(), &v, sizeof(T));
  });
  return bytes;
}

// What a run needs, built once at plan: the per-dim index maps (output index
// -> input index, -1 for the fill) and the fill value's bytes.
struct PadState {
  bool empty = false;  // no output elements: nothing to copy
  std::vector<std::vector<int64_t>> maps;
  std::vector<uint8_t> fill;
};

std::shared_ptr<PadState> pad_state(const Shape& in_shape, const Shape& out_shape, DType dtype, const PadSpec& p) {
  auto st = std::make_shared<PadState>();
  // An empty output may still have a huge dim (0 x 2^60): no maps for it.
  st->empty = shape_numel(out_shape) == 0;
  if (st->empty) return st;
  const int64_t nd = int64_t(in_shape.size()), npad = int64_t(p.pad.size()) / 2;
  st->maps.resize(size_t(nd));
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t j = nd - 1 - d;  // pad pair index of this dim
    const int64_t left = j < npad ? p.pad[size_t(2 * j)] : 0, right = j < npad ? p.pad[size_t(2 * j + 1)] : 0;
    auto& m = st->maps[size_t(d)];
    m.resize(size_t(out_shape[size_t(d)]));
    for (int64_t o = 0; o < int64_t(m.size()); ++o)
      m[size_t(o)] = j < npad ? source_index(p.mode, o, left, right, in_shape[size_t(d)]) : o;
  }
  st->fill = fill_bytes(dtype, p.value);
  return st;
}

Mode parse_mode(const OpCall& c, const std::string& s) {
  if (s == "constant") return Mode::Constant;
  if (s == "reflect") return Mode::Reflect;
  if (s == "replicate") return Mode::Replicate;
  if (s == "circular") return Mode::Circular;
  c.fail("unknown padding mode \"" + s + "\" (expected constant, reflect, replicate or circular)");
}

PadSpec constant_pad_spec(const OpCall& c) {
  return {Mode::Constant, c.ints("pad"), c.scalar("value", Scalar::of_int(0))};
}

PadSpec pad_spec(const OpCall& c) {
  PadSpec p{parse_mode(c, c.str("mode", "constant")), c.ints("pad"), Scalar::of_int(0)};
  if (c.has("value")) {
    const double v = c.f("value");
    c.check(p.mode == Mode::Constant || v == 0.0,
            std::string("padding mode \"") + mode_name(p.mode) + "\" doesn't take in value argument");
    p.value = Scalar::of_double(v);
  }
  return p;
}

// reflection_padNd / replication_padNd: `padding` has exactly 2N entries.
template <Mode M, int N>
PadSpec fixed_pad_spec(const OpCall& c) {
  PadSpec p{M, c.ints("padding"), Scalar::of_int(0)};
  c.check(p.pad.size() == size_t(2 * N), "padding must have " + std::to_string(2 * N) + " entries, got " +
                                             std::to_string(p.pad.size()));
  return p;
}

OpDef pad_def(PadSpec (*spec)(const OpCall&)) {
  auto plan = [spec](OpCall& c) {
    c.expect_inputs(1, 1);
    const PadSpec p = spec(c);
    const Shape out = padded_shape(c, c.in[0], p);
    c.fresh(0, c.in[0].dtype, out);
    c.state = pad_state(c.in[0].shape, out, c.in[0].dtype, p);
  };
  auto run = [](OpCall& c) {
    const auto& st = c.state_as<PadState>();
    if (st.empty) return;
    const Tensor& x = c.in[0];
    reindex_copy(x.raw(), x.strides, dtype_size(x.dtype), st.maps, c.out[0].raw(), st.fill.data());
  };
  return {plan, run};
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor
    {"aten.constant_pad_nd.default", pad_def(constant_pad_spec)},
    // aten::pad(Tensor self, SymInt[] pad, str mode="constant", float? value=None) -> Tensor
    {"aten.pad.default", pad_def(pad_spec)},
    // aten::reflection_pad1d(Tensor self, SymInt[2] padding) -> Tensor
    {"aten.reflection_pad1d.default", pad_def(fixed_pad_spec<Mode::Reflect, 1>)},
    // aten::reflection_pad2d(Tensor self, SymInt[4] padding) -> Tensor
    {"aten.reflection_pad2d.default", pad_def(fixed_pad_spec<Mode::Reflect, 2>)},
    // aten::reflection_pad3d(Tensor self, SymInt[6] padding) -> Tensor
    {"aten.reflection_pad3d.default", pad_def(fixed_pad_spec<Mode::Reflect, 3>)},
    // aten::replication_pad1d(Tensor self, SymInt[2] padding) -> Tensor
    {"aten.replication_pad1d.default", pad_def(fixed_pad_spec<Mode::Replicate, 1>)},
    // aten::replication_pad2d(Tensor self, SymInt[4] padding) -> Tensor
    {"aten.replication_pad2d.default", pad_def(fixed_pad_spec<Mode::Replicate, 2>)},
    // aten::replication_pad3d(Tensor self, SymInt[6] padding) -> Tensor
    {"aten.replication_pad3d.default", pad_def(fixed_pad_spec<Mode::Replicate, 3>)});

}  // namespace tir
