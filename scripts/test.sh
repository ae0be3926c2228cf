#!/usr/bin/env bash
# Runs every test: installs missing packages, builds the native engine and both
# WASM variants (with their test-only modules in build/wasm-test), generates the
# large fixtures (weights and expected outputs of models whose IR is committed
# without them), then runs CTest (unit, LibTorch
# parity, native CLI), scripts/gpu_check.sh --device cpu (per-node float64 parity of every
# fixture against LibTorch), the JS suites (node --test) on the WASM builds, the
# WGSL kernels on dawn.node over lavapipe (scripts/test_webgpu.sh), the
# package's TypeScript types (scripts/test_types.sh: tsc over npm/test/types), the
# packed npm package in a fresh project (scripts/test_package.sh), the
# graph viewer's browser tests (scripts/test_web.sh: headless chromium), the
# npm package built into an app by esbuild and vite (scripts/test_bundlers.sh), then
# the unit tests under ASan+UBSan / TSan and a short libFuzzer run of every
# fuzz target (TIR_CI_FUZZ_RUNS inputs each, default 100000, libFuzzer seed TIR_CI_FUZZ_SEED,
# default 1: the same inputs every run on any machine, so a finding fails the change that causes
# it; any finding fails).
# Right after the JS suites, scripts/test_real_models.sh: the fixtures re-exported by the real
# pytorch-ir, and all-MiniLM-L6-v2 natively and on WASM against PyTorch (the torch 2.x chroot);
# then scripts/build_relaxed_kernels.sh --check in that chroot.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step prints its wall time, so a slow CI run says which step grew.
step() {
  local t0=$SECONDS
  "$@"
  local what="$*"
  echo "[test.sh] $((SECONDS - t0)) s (total $SECONDS s): ${what:0:100}" >&2
}
step bash scripts/build.sh
step bash tools/make_fixtures.sh build/fixtures
# pytorch-ir (pure Python, pinned; from PyPI) for CTest's pyir_fixture_format: into build/pyir.
# Not in make_fixtures.sh, which must run offline (scripts/gpu_check.sh on the GPU machine).
step bash tools/pyir_env.sh build/pyir pytorch-ir
step env TIR_GENERATED_FIXTURES="$PWD/build/fixtures" ctest --test-dir build/native --output-on-failure -j"$(nproc)"
# The GPU machine's parity script on CPU, so it cannot rot (docs/gpu-parity.md; ~2.5 min on 2 cores).
step bash scripts/gpu_check.sh --device cpu --build build/native --fixtures build/fixtures --out build/gpu-check
step bash scripts/build_wasm.sh --tests
step node tests/wasm_smoke.mjs
step env TIR_GENERATED_FIXTURES="$PWD/build/fixtures" TIR_NATIVE_CLI="$PWD/build/native/torchir" node --test npm/test/
step bash scripts/test_real_models.sh
# the committed relaxed-SIMD kernel module is what its source builds (the chroot exists by now)
step bash scripts/build_relaxed_kernels.sh --check
step bash scripts/test_webgpu.sh
step bash scripts/test_types.sh
step bash scripts/test_package.sh
step bash scripts/test_web.sh
step bash scripts/test_bundlers.sh
step bash scripts/test_sanitizers.sh
# A fixed input count and seed: the same inputs on any machine (180 s is only a ceiling).
step bash scripts/fuzz.sh --runs "${TIR_CI_FUZZ_RUNS:-100000}" --time 180 --seed "${TIR_CI_FUZZ_SEED:-1}"
