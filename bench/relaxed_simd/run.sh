#!/usr/bin/env bash
# bench/relaxed_simd/run.sh: builds microkernel.c with the Emscripten of the torch 2.x sid chroot
# (tools/torch2-chroot.sh; emscripten installed there on first use) into build/relaxed_simd/, then
# times SIMD128 multiply+add against relaxed SIMD's relaxed_madd (run.mjs). Run as root.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$REPO/build/relaxed_simd"
TIR_CHROOT_EXTRA="emscripten ${TIR_CHROOT_EXTRA:-}" bash "$REPO/tools/torch2-chroot.sh" run -- bash -c \
  'HOME=/tmp EM_CACHE=/tmp/tir-emcache emcc -O3 -msimd128 -mrelaxed-simd -sMODULARIZE=1 -sEXPORT_ES6=1 -sENVIRONMENT=node \
   /repo/bench/relaxed_simd/microkernel.c -o /repo/build/relaxed_simd/microkernel.mjs'
node --experimental-wasm-relaxed-simd --no-liftoff "$REPO/bench/relaxed_simd/run.mjs" "$REPO/build/relaxed_simd/microkernel.mjs"
