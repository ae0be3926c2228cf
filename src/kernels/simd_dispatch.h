// Which Highway target the SIMD kernels run on, and the one dispatch pattern
// every kernel source follows.
//
// Native builds compile each kernel source once per Highway target (SSE4,
// AVX2, AVX3 and the portable fallback; CMakeLists.txt says why these) and pick
// the best one this CPU supports at run time; the rest of the binary keeps the
// compiler's x86-64 baseline, so it runs on any x86-64. WASM builds compile one
// target, SIMD128, and dispatch statically (Highway's HWY_EXPORT and
// HWY_DYNAMIC_DISPATCH reduce to HWY_STATIC_DISPATCH when one target is compiled).
//
// The pattern (Highway's own; a source foo.cpp in src/kernels/):
//   #undef HWY_TARGET_INCLUDE
//   #define HWY_TARGET_INCLUDE "kernels/foo.cpp"
//   #include "hwy/foreach_target.h"  // re-includes foo.cpp once per target
//   #include "hwy/highway.h"
//   HWY_BEFORE_NAMESPACE(); namespace tir { namespace HWY_NAMESPACE { ...kernels... } } HWY_AFTER_NAMESPACE();
//   #if HWY_ONCE  // the last pass: target-independent code and the entry points
//   namespace tir { HWY_EXPORT(kernel); void entry(...) { HWY_DYNAMIC_DISPATCH(kernel)(...); } }
//   #endif
// Code outside HWY_NAMESPACE goes under HWY_ONCE (it would be defined once per
// pass otherwise); a header of per-target code (*-inl.h) uses Highway's
// per-target include guard instead of #pragma once.
#pragma once
#include <string>
#include <vector>

namespace tir {

// The Highway target the kernels dispatch to now ("AVX3", "AVX2", "SSE4",
// "EMU128"/"SCALAR", "WASM", ...).
std::string simd_target();

// The targets this build compiled that this CPU supports, best first.
std::vector<std::string> simd_targets();

// Caps dispatch at `name` (one of simd_targets(), case-insensitive): every
// better target is disabled through Highway's own selection (hwy::DisableTargets),
// so a run shows what a lesser CPU computes. A new cap replaces the previous one;
// a name this build or CPU lacks returns false (and lifts any cap). Packed gemm
// operands have the target's tile layout: cap before a model is prepared.
bool simd_limit_target(const std::string& name);

// Applies TIR_SIMD_TARGET from the environment when set (the CLI and benches
// call it first); throws tir::Error for an unusable name.
void simd_target_from_env();

}  // namespace tir
