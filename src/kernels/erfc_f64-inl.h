// erfc(z) on float64 Highway lanes, for float32 results (gelu): relative error
// below 3e-13 for |z| <= 13.5 (tools/fit_erfc.cpp prints the fit and measures it
// against long-double erfcl). erfc(a) = t exp(-a^2 + g(t)) for a = |z|,
// t = 1 / (1 + a/2) (Numerical Recipes' erfcc form), g a polynomial fitted on
// t in [1/8, 1] (a <= 14; past it erfc < 1e-86, so g at a = 14 is used);
// erfc(-a) = 2 - erfc(a).
// Per-target include guard (kernels/simd_dispatch.h): included once per target pass.
#if defined(TIR_KERNELS_ERFC_F64_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TIR_KERNELS_ERFC_F64_INL_H_
#undef TIR_KERNELS_ERFC_F64_INL_H_
#else
#define TIR_KERNELS_ERFC_F64_INL_H_
#endif
#include "hwy/highway.h"
#include "hwy/contrib/math/math-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tir {
namespace HWY_NAMESPACE {

// g as a polynomial in u (tools/fit_erfc.cpp: a Chebyshev fit expanded), lowest power first.
constexpr double kErfcPoly[18] = {
    -5.87067670300221008646e-01, 5.96937880376975975967e-01, 2.22101566054133708356e-02,
    -3.37670342283623615399e-02, -2.40640477948356720704e-03, 4.81013820747540136608e-03,
    -1.14038697467869383488e-04, -8.43233147822149720964e-04, 1.71494102100875252706e-04,
    1.32719342242879376513e-04, -6.55589720501065848526e-05, -1.14897163315962212860e-05,
    1.68353128365704583941e-05, -2.01411842721328011096e-06, -2.92022829253804319350e-06,
    1.02671313806368402766e-06, 2.65405717551440526820e-07, -1.51877493495236295634e-07,
};

template <class D, class V = hwy::HWY_NAMESPACE::Vec<D>> HWY_INLINE V erfc_f64(D d, V z) {
  namespace hn = hwy::HWY_NAMESPACE;
  const V a = hn::Abs(z);
  const V half = hn::Set(d, 0.5), one = hn::Set(d, 1.0);
  const V t = hn::Div(one, hn::MulAdd(half, a, one));
  const V tc = hn::Max(t, hn::Set(d, 0.125));  // t at min(a, 14): t falls as a grows
  // u = (2 tc - (1 + 1/8)) / (1 - 1/8) maps [1/8, 1] to [-1, 1]; g = even(u^2) + u odd(u^2):
  // two Horner chains of half the length (the latency, not the multiplies, bounds this loop).
  const V u = hn::Mul(hn::Sub(hn::Add(tc, tc), hn::Set(d, 1.125)), hn::Set(d, 1.0 / 0.875));
  const V uu = hn::Mul(u, u);
  V even = hn::Set(d, kErfcPoly[16]), odd = hn::Set(d, kErfcPoly[17]);
  for (int j = 14; j >= 0; j -= 2) {
    even = hn::MulAdd(even, uu, hn::Set(d, kErfcPoly[j]));
    odd = hn::MulAdd(odd, uu, hn::Set(d, kErfcPoly[j + 1]));
  }
  const V g = hn::MulAdd(odd, u, even);
  const V pos = hn::Mul(t, hn::Exp(d, hn::Sub(g, hn::Mul(a, a))));
  return hn::IfThenElse(hn::Lt(z, hn::Zero(d)), hn::Sub(hn::Set(d, 2.0), pos), pos);
}

}  // namespace HWY_NAMESPACE
}  // namespace tir
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
