#!/usr/bin/env bash
# WebGPU kernel tests (docs/webgpu.md): the WGSL kernels of src/kernels/wgsl run on dawn.node
# (tests/webgpu, webgpu@0.3.8) over Mesa's lavapipe, checked against our engine's CPU kernels
# (npm/dist's single-threaded WASM build) or float64 references. With CI=true a missing adapter
# or engine build fails the run; elsewhere those tests skip with a message.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_webgpu.sh
[ -f npm/dist/torch-ir-wasm-simd.js ] || bash scripts/build_wasm.sh simd
start=$SECONDS
node --test tests/webgpu/
echo "test_webgpu: $((SECONDS - start))s"
