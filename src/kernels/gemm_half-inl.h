// Widening of packed halves (gemm.h: PackedHalf) to f32 vectors, for the SIMD
// gemm in gemm.cpp (static dispatch: one Highway target per build).
//
// A loader turns one k-row of an NR = 2L column panel into two f32 vectors:
// natural order (columns [0, L) and [L, 2L)) or split (even columns, odd
// columns). Split loaders read the 2L halves as L u32 lanes, each holding
// two halves, so a row costs one load and a few integer ops; the GEMV keeps
// even and odd columns in separate accumulators and interleaves them once at
// the end. Every loader yields exactly the value of the scalar conversion
// (core/half.h), so products and sums match the f32 gemm on widened weights.
//   bf16: the half is the top of the f32 (a shift or a mask).
//   f16 with F16C (x86 AVX2/AVX-512): the hardware conversion.
//   f16 elsewhere (WASM, SSE4): Highway's emulation takes ~12 ops and turns
//   inf/NaN into finite values, so: LoadF16 (exact for every pattern, integer
//   ops plus one exact int -> float conversion) and LoadF16Scaled, 3 ops: the
//   half's bits moved into an f32 whose value is w * 2^-112 (exact, including
//   half subnormals, which become f32 subnormals), the row of A multiplied by
//   2^112 instead. Exact products for finite halves and |x| < 2^16.
// Per-target include guard (kernels/simd_dispatch.h).
#if defined(TIR_KERNELS_GEMM_HALF_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TIR_KERNELS_GEMM_HALF_INL_H_
#undef TIR_KERNELS_GEMM_HALF_INL_H_
#else
#define TIR_KERNELS_GEMM_HALF_INL_H_
#endif
#include <cstdint>

#include "hwy/highway.h"

#undef TIR_GEMM_F16C  // per target
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2 && !defined(HWY_DISABLE_F16C)
#define TIR_GEMM_F16C 1
#else
#define TIR_GEMM_F16C 0
#endif

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {
namespace half_simd {

namespace hn = hwy::HWY_NAMESPACE;
using DF = hn::ScalableTag<float>;
using VF = hn::Vec<DF>;
using DU = hn::RebindToUnsigned<DF>;
using VU = hn::Vec<DU>;
using DU16 = hn::Rebind<uint16_t, DF>;  // L halves (half a vector)
constexpr int64_t kLanes = int64_t(hn::MaxLanes(DF()));

// LoadF16Scaled multiplies A's row by this (and needs |x| < kF16ScaledMaxX).
constexpr float kF16Scale = 0x1p112f;
constexpr float kF16ScaledMaxX = 65536.0f;

struct LoadF32 {
  using T = float;
  static constexpr bool kSplit = false;
  static HWY_INLINE void load(const float* p, VF& a, VF& b) {
    const DF d;
    a = hn::LoadU(d, p);
    b = hn::LoadU(d, p + kLanes);
  }
};

HWY_INLINE VU load_pairs(const uint16_t* p) { return hn::LoadU(DU(), reinterpret_cast<const uint32_t*>(p)); }

struct LoadBF16 {
  using T = uint16_t;
  static constexpr bool kSplit = true;
  static HWY_INLINE void load(const uint16_t* p, VF& even, VF& odd) {
    const DF d;
    const VU w = load_pairs(p);
    even = hn::BitCast(d, hn::ShiftLeft<16>(w));
    odd = hn::BitCast(d, hn::And(w, hn::Set(DU(), 0xFFFF0000u)));
  }
};

#if TIR_GEMM_F16C
struct LoadF16 {
  using T = uint16_t;
  static constexpr bool kSplit = false;
  static HWY_INLINE void load(const uint16_t* p, VF& a, VF& b) {
    const DF d;
    const hn::Rebind<hwy::float16_t, DF> dh;
    a = hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p)));
    b = hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(p + kLanes)));
  }
};
#else
// Every f16 bit pattern (in the low 16 bits of each lane) to its f32: normal,
// inf and NaN (payload kept) by moving the fields, subnormals as m * 2^-24.
HWY_INLINE VF f16_bits_to_f32(VU h) {
  const DF d;
  const DU du;
  const hn::RebindToSigned<DF> di;
  const VU em = hn::And(h, hn::Set(du, 0x7FFFu));
  const VU exp = hn::And(h, hn::Set(du, 0x7C00u));
  VU bits = hn::Add(hn::ShiftLeft<13>(em), hn::Set(du, 112u << 23));
  bits = hn::IfThenElse(hn::Eq(exp, hn::Set(du, 0x7C00u)), hn::Add(bits, hn::Set(du, 112u << 23)), bits);
  const VF sub = hn::Mul(hn::ConvertTo(d, hn::BitCast(di, em)), hn::Set(d, 0x1p-24f));
  bits = hn::IfThenElse(hn::Eq(exp, hn::Zero(du)), hn::BitCast(du, sub), bits);
  return hn::BitCast(d, hn::Or(bits, hn::ShiftLeft<16>(hn::And(h, hn::Set(du, 0x8000u)))));
}

struct LoadF16 {
  using T = uint16_t;
  static constexpr bool kSplit = true;
  static HWY_INLINE void load(const uint16_t* p, VF& even, VF& odd) {
    const VU w = load_pairs(p);
    even = f16_bits_to_f32(hn::And(w, hn::Set(DU(), 0xFFFFu)));
    odd = f16_bits_to_f32(hn::ShiftRight<16>(w));
  }
};

// Finite halves only, A's row times kF16Scale: the sign moved to bit 31 and
// exponent/mantissa to bits 27..13 by an arithmetic shift (the f32 exponent
// is then the f16 one, 112 too small), the sign copies and the other half
// masked off.
struct LoadF16Scaled {
  using T = uint16_t;
  static constexpr bool kSplit = true;
  static HWY_INLINE void load(const uint16_t* p, VF& even, VF& odd) {
    const DF d;
    const hn::RebindToSigned<DF> di;
    const auto w = hn::BitCast(di, load_pairs(p));
    const auto keep = hn::Set(di, int32_t(0x8FFFE000u));
    even = hn::BitCast(d, hn::And(hn::ShiftRight<3>(hn::ShiftLeft<16>(w)), keep));
    odd = hn::BitCast(d, hn::And(hn::ShiftRight<3>(w), keep));
  }
};
#endif

// Split lanes back to natural order: (even, odd) -> columns [0, L), [L, 2L).
HWY_INLINE void unsplit(VF& a, VF& b) {
  const DF d;
  HWY_ALIGN float even[kLanes], odd[kLanes], cols[2 * kLanes];
  hn::Store(a, d, even);
  hn::Store(b, d, odd);
  for (int64_t i = 0; i < kLanes; ++i) {
    cols[2 * i] = even[i];
    cols[2 * i + 1] = odd[i];
  }
  a = hn::Load(d, cols);
  b = hn::Load(d, cols + kLanes);
}

// n halves (a multiple of L) to n floats, in order (the M > 1 scratch).
HWY_INLINE void widen_bf16(const uint16_t* src, int64_t n, float* dst) {
  const DF d;
  for (int64_t i = 0; i < n; i += kLanes)
    hn::StoreU(hn::BitCast(d, hn::ShiftLeft<16>(hn::PromoteTo(DU(), hn::LoadU(DU16(), src + i)))), d, dst + i);
}

HWY_INLINE void widen_f16(const uint16_t* src, int64_t n, float* dst) {
  const DF d;
  for (int64_t i = 0; i < n; i += kLanes) {
#if TIR_GEMM_F16C
    const hn::Rebind<hwy::float16_t, DF> dh;
    hn::StoreU(hn::PromoteTo(d, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(src + i))), d, dst + i);
#else
    hn::StoreU(f16_bits_to_f32(hn::PromoteTo(DU(), hn::LoadU(DU16(), src + i))), d, dst + i);
#endif
  }
}

}  // namespace half_simd
}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
