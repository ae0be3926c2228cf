#!/usr/bin/env bash
# Native unit tests under sanitizers (issue 10): tir_unit_tests with
# AddressSanitizer + UBSan in build/asan, and again with ThreadSanitizer in
# build/tsan (the thread pool and every test's parallel kernels). LibTorch parity
# tests are not sanitized (LibTorch itself is not instrumented, and CI time).
# Usage: scripts/test_sanitizers.sh [asan|tsan]...   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh clang-14 libclang-rt-14-dev cmake make ccache libhwy-dev libgtest-dev libgmock-dev
export CCACHE_BASEDIR="$PWD"
# Sanitizer objects carry -g; without this ccache keys them on the build
# folder, and build/asan could not reuse build/fuzz's objects (or vice versa).
export CCACHE_NOHASHDIR=1
jobs="${JOBS:-$(nproc)}"
suites=("$@"); [ ${#suites[@]} -gt 0 ] || suites=(asan tsan)

build() {  # build dir, sanitizers, extra cmake args
  # -O1: sanitizer builds compile faster and still run the kernels at a usable speed.
  CC=clang-14 CXX=clang++-14 cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
    -DTIR_LIBTORCH=OFF -DTIR_SANITIZE="$2" "${@:3}" >/dev/null
  cmake --build "$1" --target tir_unit_tests -j"$jobs"
}

export TIR_FIXTURES="$PWD/tests/fixtures" TIR_GENERATED_FIXTURES="$PWD/build/fixtures"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
for s in "${suites[@]}"; do
  case "$s" in
    asan)
      # TIR_FUZZ=ON: the same compile flags as scripts/fuzz.sh's build/fuzz (its
      # coverage counters cost the tests little), so the engine compiles once for both.
      build build/asan "address,undefined" -DTIR_FUZZ=ON
      # detect_leaks: the engine owns everything through RAII, so a leak is a bug.
      ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1" \
        build/asan/tests/tir_unit_tests --gtest_brief=1
      ;;
    tsan)
      build build/tsan thread
      # The unit tests run their kernels on the thread pool, so TSan runs nearly all of them, not
      # only ThreadPoolTest/GemmKernel/Conv*/Session. Left to the ASan run, being about input, not
      # threads: the fuzz replay, the hostile-file and limits suites, the per-SIMD-target numeric
      # sweeps (the same parallel_for as EwMath/EwSimd, which stay) and the decomposed flavor of
      # every fixture model (its training flavor runs the same kernels). 2026-11-28, 2 cores: 270 s
      # for all of them under TSan, 101 s of it in those.
      TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
        build/tsan/tests/tir_unit_tests --gtest_brief=1 --gtest_filter='-Targets/FuzzRegressions.*:Fixtures/ModelFixtureTest.*_decomposed:HostilePickle.*:HostileZip.*:Limits.*:Usable/SimdTargets.*'
      ;;
    *) echo "test_sanitizers: unknown suite '$s' (asan, tsan)" >&2; exit 2 ;;
  esac
done
