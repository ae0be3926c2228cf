#!/usr/bin/env bash
# WebGPU tests (docs/webgpu.md) on dawn.node (tests/webgpu, webgpu@0.3.8) over Mesa's lavapipe:
# the WGSL kernels of src/kernels/wgsl against our engine's CPU kernels (npm/dist's
# single-threaded WASM build) or float64 references, and whole models through the npm package's
# WebGPU execution provider against PyTorch and the float64 truth. With CI=true a missing adapter
# or engine build fails the run; elsewhere those tests skip with a message.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_webgpu.sh
[ -f npm/dist/torch-ir-wasm-simd.js ] || bash scripts/build_wasm.sh simd
bash scripts/build_npm.sh  # the package's JavaScript, from npm/src
start=$SECONDS
node tools/gen_wgsl_sources.mjs --check  # npm/src/lib/webgpu/wgsl_sources.ts matches src/kernels/wgsl
node --test tests/webgpu/
echo "test_webgpu: $((SECONDS - start))s"
