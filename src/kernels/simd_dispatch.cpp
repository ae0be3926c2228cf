#include "kernels/simd_dispatch.h"

#include <cstdlib>
#include <strings.h>

#include "core/errors.h"
#include "hwy/highway.h"

namespace tir {

namespace {
// Compiled targets this CPU supports (as selected by Highway), best (lowest bit) first.
std::vector<int64_t> usable_targets() {
#if HWY_HAVE_RUNTIME_DISPATCH
  std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  // Highway 1.0.3's SupportedTargets() re-initializes the dispatch with every
  // target the CPU has, ignoring DisableTargets: choose again from the capped set.
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  return targets;
#else
  return {HWY_STATIC_TARGET};  // WASM: one target, chosen at compile time
#endif
}
}  // namespace

std::string simd_target() {
  // HWY_DYNAMIC_DISPATCH takes the best target of SupportedTargets() among those compiled.
  const std::vector<int64_t> t = usable_targets();
  return hwy::TargetName(t.empty() ? HWY_STATIC_TARGET : t.front());
}

std::vector<std::string> simd_targets() {
  std::vector<std::string> names;
  for (int64_t t : usable_targets()) names.emplace_back(hwy::TargetName(t));
  return names;
}

bool simd_limit_target(const std::string& name) {
#if HWY_HAVE_RUNTIME_DISPATCH
  hwy::DisableTargets(0);  // the cap replaces an earlier one, so usable_targets() lists them all
#endif
  for (int64_t t : usable_targets()) {
    if (strcasecmp(name.c_str(), hwy::TargetName(t)) != 0) continue;
#if HWY_HAVE_RUNTIME_DISPATCH
    hwy::DisableTargets(t - 1);  // every better target (lower bits)
#endif
    return true;
  }
  return false;
}

void simd_target_from_env() {
  const char* env = std::getenv("TIR_SIMD_TARGET");
  if (!env || !*env) return;
  if (!simd_limit_target(env)) {
    std::string have;
    for (const std::string& n : simd_targets()) have += (have.empty() ? "" : ", ") + n;
    throw Error("TIR_SIMD_TARGET=" + std::string(env) + ": not a SIMD target of this build and CPU (" + have + ")");
  }
}

}  // namespace tir
