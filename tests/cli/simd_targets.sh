#!/usr/bin/env bash
# The CLI under each SIMD target below the one this CPU picks (TIR_SIMD_TARGET caps
# Highway's dispatch: kernels/simd_dispatch.h): `run` reports the capped target, and
# `verify --reference64` on model fixtures that cover every SIMD kernel (gemm and
# Winograd/im2col/depthwise convolution, pooling, attention, the elementwise rows)
# stays within the float64-truth bound that run_cli_tests.sh holds the default
# target to. The SSE4 and fallback runs also show that nothing outside the
# per-target kernels needs more than the x86-64 baseline on the paths these models take.
# Usage: simd_targets.sh TORCHIR [GENERATED_FIXTURES_DIR]
set -uo pipefail
torchir=$1
here=$(cd "$(dirname "$0")/.." && pwd)
fixtures=$here/fixtures
generated=${2:-$here/../build/fixtures}
pass=0 fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# fixture DIR -> w, io, t: its weights, io and float64 truth (committed or generated).
files() {
  local rel=${1#"$fixtures"/models/}
  w=$1/weights.safetensors; io=$1/io.safetensors; t=$generated/$rel/truth64.safetensors
  [ -f "$w" ] || w=$generated/$rel/weights.safetensors
  [ -f "$io" ] || io=$generated/$rel/io.safetensors
}
seed=$fixtures/seeds/SimpleMLP.json
mlp=$fixtures/models/SimpleMLP/torch2.14-training
files "$mlp"
best=$("$torchir" run "$mlp/model.json" --weights "$w" --inputs "$io" 2>&1 | sed -n 's/^simd target: //p')
[ -n "$best" ] || { echo "FAIL: torchir run prints no 'simd target:' line (SimpleMLP fixture generated?)"; exit 1; }
echo "default target: $best"
out=$(TIR_SIMD_TARGET=NO_SUCH "$torchir" info "$seed" 2>&1) && rc=0 || rc=$?
if [ $rc -eq 1 ] && grep -q "not a SIMD target" <<<"$out"; then pass=$((pass + 1)); else bad "unknown target (exit $rc): $out"; fi

models="resnet18 mobilenet_v2 efficientnet_b0 bert_encoder small_cnn spatial_probe elem_probe"
for target in AVX3 AVX2 SSE4 EMU128 SCALAR; do
  [ "$target" = "$best" ] && continue
  # Targets this build or CPU lacks are refused by name.
  if ! TIR_SIMD_TARGET=$target "$torchir" info "$seed" >/dev/null 2>&1; then echo "skip $target (not usable here)"; continue; fi
  for m in $models; do
    for dir in "$fixtures"/models/$m/*/; do
      dir=${dir%/}; rel=${dir#"$fixtures"/models/}
      files "$dir"
      if [ ! -f "$w" ] || [ ! -f "$io" ] || [ ! -f "$t" ]; then echo "skip $rel (not generated)"; continue; fi
      got=$(TIR_SIMD_TARGET=$target "$torchir" run "$dir/model.json" --weights "$w" --inputs "$io" 2>&1 | sed -n 's/^simd target: //p')
      [ "$got" = "$target" ] || { bad "$target $rel: run reports target '$got'"; continue; }
      out=$(TIR_SIMD_TARGET=$target "$torchir" verify "$dir/model.json" --weights "$w" --io "$io" --reference64 "$t" 2>&1) && rc=0 || rc=$?
      if { [ $rc -eq 0 ] || grep -q "only reassociation" <<<"$out"; } && grep -q "within bound" <<<"$out" \
         && ! grep -q "OUTSIDE" <<<"$out"; then pass=$((pass + 1))
      else bad "$target verify --reference64 $rel (exit $rc): $out"; fi
    done
  done
done
echo "simd_targets: $pass passed, $fail failed"
[ $fail -eq 0 ]
