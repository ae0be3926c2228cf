// Creation ops (arange, linspace, full/zeros/ones/empty and their *_like / new_*
// forms, scalar_tensor) and the triangle masks tril/triu. dtype attrs may be
// strings or ScalarType ints (OpCall::dtype); device/layout/pin_memory are
// ignored. f16/bf16 requests give f32 tensors (the engine's compute dtype).
#include <algorithm>
#include <cmath>
#include <memory>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/dispatch.h"
#include "core/strided.h"
#include "ops/op.h"

namespace tir {
namespace {

template <typename T>
T scalar_as(const Scalar& s) {
  return s.is_floating() ? convert<T>(s.f) : convert<T>(s.i);
}

// Fills a fresh (contiguous) tensor.
void fill(const Tensor& t, const Scalar& s) {
  dispatch_compute(t.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T v = scalar_as<T>(s);
    T* p = t.data<T>();
    for (int64_t i = 0, n = t.numel(); i < n; ++i) p[i] = v;
  });
}

// dtype attr, else `def`; always a compute dtype.
DType out_dtype(const OpCall& call, DType def) { return compute_dtype(call.dtype("dtype").value_or(def)); }

// full's fill_value decides the dtype when none is given: bool, int64 or f32.
DType scalar_dtype(const Scalar& s) {
  return s.kind == Scalar::Kind::Bool ? DType::Bool : s.kind == Scalar::Kind::Int ? DType::I64 : DType::F32;
}

Shape size_attr(const OpCall& call) {
  Shape s = call.ints("size");
  for (int64_t d : s) call.check(d >= 0, "negative dimension in size " + shape_to_string(s));
  return s;
}

// --- constant fills ----------------------------------------------------------
// How a creation op gets its shape, dtype and value.
enum class Src { Size, Like, New };  // size attr; self's shape; size attr + self's dtype

struct FillSpec {
  Src src;
  const char* value_attr;  // nullptr: constant `value`
  double value;
};

Shape spec_shape(const OpCall& call, Src src) {
  if (src == Src::Like) {
    call.expect_inputs(1, 1);
    return call.in[0].shape;
  }
  if (src == Src::New) call.expect_inputs(1, 1);
  return size_attr(call);
}

Scalar spec_value(const OpCall& call, const FillSpec& f) {
  return f.value_attr ? call.scalar(f.value_attr) : Scalar::of_int(int64_t(f.value));
}

OpDef fill_def(FillSpec f) {
  auto plan = [f](OpCall& call) {
    const Shape shape = spec_shape(call, f.src);
    DType def = DType::F32;
    if (f.src != Src::Size)
      def = call.in[0].dtype;
    else if (f.value_attr)
      def = scalar_dtype(spec_value(call, f));
    call.fresh(0, out_dtype(call, def), shape);
  };
  auto run = [f](OpCall& call) { fill(call.out[0], spec_value(call, f)); };
  return foldable({plan, run});
}

// --- scalar_tensor: always f32 unless dtype is given --------------------------
void plan_scalar_tensor(OpCall& call) {
  call.scalar("s");
  call.fresh(0, out_dtype(call, DType::F32), {});
}
void run_scalar_tensor(OpCall& call) { fill(call.out[0], call.scalar("s")); }

// --- arange -------------------------------------------------------------------
struct Range {
  Scalar start, end, step;
  DType dtype;
  int64_t count;
};

Range parse_range(const OpCall& call) {
  Range r;
  r.start = call.scalar("start", Scalar::of_int(0));
  r.end = call.scalar("end");
  r.step = call.scalar("step", Scalar::of_int(1));
  const bool any_float = r.start.is_floating() || r.end.is_floating() || r.step.is_floating();
  r.dtype = out_dtype(call, any_float ? DType::F32 : DType::I64);
  // Integer dtypes see the bounds truncated to int64 (torch's accumulate type).
  const bool integral = !is_floating(r.dtype);
  const double s = integral ? double(scalar_as<int64_t>(r.start)) : r.start.f;
  const double e = integral ? double(scalar_as<int64_t>(r.end)) : r.end.f;
  const double st = integral ? double(scalar_as<int64_t>(r.step)) : r.step.f;
  call.check(st != 0.0, "step must be nonzero");
  call.check((st > 0 && e >= s) || (st < 0 && e <= s),
             "upper bound and larger bound inconsistent with step sign");
  // The length is computed where it cannot overflow (128-bit for int64, a
  // finite bounded double otherwise) and refused past int64 before conversion;
  // the tensor and work caps then bound what is allocated and filled.
  if (r.dtype == DType::I64) {
    const __int128 si = scalar_as<int64_t>(r.start), ei = scalar_as<int64_t>(r.end),
                   sti = scalar_as<int64_t>(r.step);
    const __int128 n = (ei - si + sti - ((sti > 0) - (sti < 0))) / sti;
    call.check(n <= INT64_MAX, "arange length does not fit int64");
    r.count = int64_t(n);
  } else {
    // Count computed in double from the original bounds, as torch does.
    const double n = std::ceil((r.end.f - r.start.f) / r.step.f);
    call.check(std::isfinite(n), "arange: the length (end - start) / step is not finite (start " +
                                     std::to_string(r.start.f) + ", end " + std::to_string(r.end.f) + ", step " +
                                     std::to_string(r.step.f) + ")");
    call.check(n < 9.2e18, "arange length does not fit int64");
    r.count = int64_t(n);
  }
  call.check(r.count >= 0, "invalid arange size");
  return r;
}

void plan_arange(OpCall& call) {
  auto r = std::make_shared<Range>(parse_range(call));
  call.fresh(0, r->dtype, {r->count});
  call.state = r;
}

void run_arange(OpCall& call) {
  const Range& r = call.state_as<Range>();
  dispatch_compute(r.dtype, [&](auto tag) {
    using T = decltype(tag);
    T* p = call.out[0].data<T>();
    if constexpr (std::is_floating_point_v<T>) {
      // start + step * i in double (torch's CPU accumulate type), then rounded.
      const double s = r.start.f, st = r.step.f;
      for (int64_t i = 0; i < r.count; ++i) p[i] = T(s + st * double(i));
    } else {
      const int64_t s = scalar_as<int64_t>(r.start), st = scalar_as<int64_t>(r.step);
      // Unsigned: the exact result fits (it lies between start and end), the
      // intermediate product may not.
      for (int64_t i = 0; i < r.count; ++i) p[i] = convert<T>(int64_t(uint64_t(s) + uint64_t(st) * uint64_t(i)));
    }
  });
}

// --- linspace -------------------------------------------------------------------
// torch's CPU kernel: the step is computed in the output type (double for
// integer outputs); the first half counts up from start, the second half down
// from end, so both ends are exact.
void plan_linspace(OpCall& call) {
  const int64_t steps = call.i("steps");
  call.check(steps >= 0, "number of steps must be non-negative");
  call.scalar("start");
  call.scalar("end");
  call.fresh(0, out_dtype(call, DType::F32), {steps});
}

void run_linspace(OpCall& call) {
  const int64_t steps = call.i("steps");
  const Scalar s0 = call.scalar("start"), s1 = call.scalar("end");
  dispatch_compute(call.out[0].dtype, [&](auto tag) {
    using T = decltype(tag);
    using Step = std::conditional_t<std::is_integral_v<T>, double, T>;
    T* p = call.out[0].data<T>();
    const T start = scalar_as<T>(s0), end = scalar_as<T>(s1);
    if (steps == 1) p[0] = start;
    if (steps <= 1) return;
    const Step step = (Step(end) - Step(start)) / Step(steps - 1);
    const int64_t half = steps / 2;
    // torch's AVX2 build contracts these into fused multiply-adds; match it
    // (for integer outputs the rounding decides the truncated value).
    for (int64_t i = 0; i < steps; ++i)
      p[i] = i < half ? convert<T>(std::fma(step, Step(i), Step(start)))
                      : convert<T>(std::fma(-step, Step(steps - i - 1), Step(end)));
  });
}

// --- tril / triu ----------------------------------------------------------------
// Zeroes (through t's strides) every element outside the kept triangle:
// tril keeps j <= i + diagonal, triu keeps j >= i + diagonal.
void zero_outside_triangle(const Tensor& t, bool lower, int64_t diag) {
  const size_t nd = t.shape.size();
  const int64_t rows = t.shape[nd - 2], cols = t.shape[nd - 1];
  // Past the matrix either way a diagonal keeps all or nothing; clamping keeps i + diag + 1 in range.
  diag = std::clamp<int64_t>(diag, -rows - 1, cols + 1);
  const int64_t rs = t.strides[nd - 2], cs = t.strides[nd - 1];
  const size_t esz = dtype_size(t.dtype);
  uint8_t* base = t.raw();
  const Shape batch(t.shape.begin(), t.shape.end() - 2);
  const Strides bst(t.strides.begin(), t.strides.end() - 2);
  auto zero_matrix = [&](int64_t off) {
    for (int64_t i = 0; i < rows; ++i) {
      int64_t j0 = lower ? std::max<int64_t>(0, i + diag + 1) : 0;
      int64_t j1 = lower ? cols : std::min<int64_t>(cols, i + diag);
      for (int64_t j = j0; j < j1; ++j) std::memset(base + (off + i * rs + j * cs) * int64_t(esz), 0, esz);
    }
  };
  for_each_row<1>(batch, {bst.data()}, {0},
                  [&](std::array<int64_t, 1> off, int64_t n, std::array<int64_t, 1> st) {
                    for (int64_t k = 0; k < n; ++k) zero_matrix(off[0] + k * st[0]);
                  });
}

void check_tri_input(const OpCall& call) {
  call.expect_inputs(1, 1);
  call.check(call.in[0].dim() >= 2,
             "tril/triu need a tensor with at least 2 dims, got " + shape_to_string(call.in[0].shape));
}

OpDef tri_def(bool lower, bool in_place) {
  auto plan = [in_place](OpCall& call) {
    check_tri_input(call);
    if (in_place)
      call.alias(0, call.in[0]);
    else
      call.fresh(0, call.in[0].dtype, call.in[0].shape);
  };
  auto run = [lower, in_place](OpCall& call) {
    if (!in_place) copy_into(call.out[0], call.in[0]);
    if (call.in[0].numel() > 0)
      zero_outside_triangle(in_place ? call.in[0] : call.out[0], lower, call.i("diagonal", 0));
  };
  return {plan, run};
}

}  // namespace

TIR_REGISTER_OPS(
    // aten::arange(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,
    //   bool? pin_memory=None) -> Tensor
    {"aten.arange.default", foldable({plan_arange, run_arange})},
    // aten::arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, ...) -> Tensor
    {"aten.arange.start", foldable({plan_arange, run_arange})},
    // aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *,
    //   ScalarType? dtype=None, ...) -> Tensor
    {"aten.arange.start_step", foldable({plan_arange, run_arange})},
    // aten::linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? layout=None,
    //   Device? device=None, bool? pin_memory=None) -> Tensor
    {"aten.linspace.default", foldable({plan_linspace, run_linspace})},
    // aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, ...) -> Tensor
    {"aten.full.default", fill_def({Src::Size, "fill_value", 0})},
    // aten::full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, ...,
    //   MemoryFormat? memory_format=None) -> Tensor
    {"aten.full_like.default", fill_def({Src::Like, "fill_value", 0})},
    // aten::new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, ...) -> Tensor
    {"aten.new_full.default", fill_def({Src::New, "fill_value", 0})},
    // aten::zeros(SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor
    {"aten.zeros.default", fill_def({Src::Size, nullptr, 0})},
    // aten::zeros_like(Tensor self, *, ScalarType? dtype=None, ...,
    //   MemoryFormat? memory_format=None) -> Tensor
    {"aten.zeros_like.default", fill_def({Src::Like, nullptr, 0})},
    // aten::new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor
    {"aten.new_zeros.default", fill_def({Src::New, nullptr, 0})},
    // aten::ones(SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor
    {"aten.ones.default", fill_def({Src::Size, nullptr, 1})},
    // aten::ones_like(Tensor self, *, ScalarType? dtype=None, ...,
    //   MemoryFormat? memory_format=None) -> Tensor
    {"aten.ones_like.default", fill_def({Src::Like, nullptr, 1})},
    // aten::new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor
    {"aten.new_ones.default", fill_def({Src::New, nullptr, 1})},
    // empty*: contents are undefined in torch and always overwritten; we give zeros.
    // aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, ...,
    //   MemoryFormat? memory_format=None) -> Tensor
    {"aten.empty.memory_format", fill_def({Src::Size, nullptr, 0})},
    // aten::empty_like(Tensor self, *, ScalarType? dtype=None, ...,
    //   MemoryFormat? memory_format=None) -> Tensor
    {"aten.empty_like.default", fill_def({Src::Like, nullptr, 0})},
    // aten::new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, ...) -> Tensor
    {"aten.new_empty.default", fill_def({Src::New, nullptr, 0})},
    // aten::scalar_tensor(Scalar s, *, ScalarType? dtype=None, ...) -> Tensor
    {"aten.scalar_tensor.default", foldable({plan_scalar_tensor, run_scalar_tensor})},
    // aten::tril(Tensor self, SymInt diagonal=0) -> Tensor
    {"aten.tril.default", tri_def(true, false)},
    // aten::triu(Tensor self, SymInt diagonal=0) -> Tensor
    {"aten.triu.default", tri_def(false, false)},
    // aten::tril_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)
    {"aten.tril_.default", tri_def(true, true)},
    // aten::triu_(Tensor(a!) self, SymInt diagonal=0) -> Tensor(a!)
    {"aten.triu_.default", tri_def(false, true)});

}  // namespace tir
