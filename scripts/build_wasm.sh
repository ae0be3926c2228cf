#!/usr/bin/env bash
# Builds both WebAssembly variants with Debian's Emscripten 3.1.6 into npm/dist/:
#   torch-ir-wasm-simd-threaded.{js,wasm,worker.js}  (build/wasm-threaded)
#   torch-ir-wasm-simd.{js,wasm}                     (build/wasm-simd)
# --tests also links, from the same objects, the test-only modules that npm/test
# needs into build/wasm-test/ (same file names, plus the internal hooks of
# bindings/embind_debug.cpp; never shipped in npm/dist).
# Incremental: re-running recompiles only what changed; ccache serves fresh build dirs.
# First it builds the package's JavaScript from npm/src (scripts/build_npm.sh): every path that
# uses the package runs this script first.
# Usage: scripts/build_wasm.sh [--tests] [threaded|simd]...   (default: both variants)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build_npm.sh

# Debian packages: the compiler, and the header-only libraries the build reuses
# from /usr/include (exposed to Emscripten through build/wasm-*/wasm-include).
bash scripts/setup.sh emscripten cmake ninja-build libhwy-dev ccache

# Emscripten's JS optimizer needs Debian's acorn. Do not set EM_CACHE: the
# packaged cache is frozen and prebuilt (including the -mt libraries).
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}
unset EM_CACHE
export CCACHE_BASEDIR="$PWD"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
jobs="$(nproc)"
targets=()
variants=()
for a in "$@"; do
  case "$a" in
    --tests) targets=(--target all tir_wasm_test) ;;
    *) variants+=("$a") ;;
  esac
done
[ ${#variants[@]} -gt 0 ] || variants=(threaded simd)

for v in "${variants[@]}"; do
  case "$v" in
    threaded) threads=ON ;;
    simd) threads=OFF ;;
    *) echo "build_wasm: unknown variant '$v' (threaded|simd)" >&2; exit 2 ;;
  esac
  dir="build/wasm-$v"
  start=$SECONDS
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    emcmake cmake -S . -B "$dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DTIR_WASM_THREADS=$threads -DTIR_WASM_DIST_DIR="$PWD/npm/dist" \
      -DTIR_WASM_TEST_DIR="$PWD/build/wasm-test" >/dev/null
  fi
  cmake --build "$dir" -j"$jobs" "${targets[@]}"
  echo "build_wasm: $v built in $((SECONDS - start))s"
done
ls -l npm/dist/torch-ir-wasm-simd*
[ ${#targets[@]} -eq 0 ] || ls -l build/wasm-test/torch-ir-wasm-simd*
