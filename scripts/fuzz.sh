#!/usr/bin/env bash
# libFuzzer runs (issue 10). Builds the targets in fuzz/ with clang-14 +
# ASan/UBSan into build/fuzz, seeds each corpus from the committed fixtures
# (build/fuzz/corpus/<target>, regenerated each run, never committed), runs each
# target for --time seconds and prints its exec count. A finding (crash,
# sanitizer report, leak, timeout, out-of-memory, non-tir exception) is copied
# to tests/fuzz-regressions/<target>/ (replayed by tir_unit_tests) and the
# script exits 1 after all targets ran.
# Usage: scripts/fuzz.sh [--time SECONDS] [--runs N] [--seed N] [--jobs N] [--keep-going] [target...]
#   targets: ir safetensors torch_save bind op (default: all)
#   --runs N: stop each target after N inputs (libFuzzer's -runs), --time then only a ceiling.
#   --seed N: libFuzzer's -seed (default: a random one per run). CI passes a fixed seed and a run
#     count, so what a run tries depends on the code, not on the machine's speed: a change is
#     judged on the same inputs each time (a time budget reached a new input once on a faster
#     CI machine). Exploring for new findings is a long local run with random seeds.
#   --jobs N: libFuzzer's fork mode with N worker processes per target (default 1: no fork)
#   --keep-going: fork mode that goes on after a finding (-ignore_crashes/timeouts/ooms),
#     to collect every finding of a long run instead of stopping at the first.
set -euo pipefail
cd "$(dirname "$0")/.."
all_targets=(ir safetensors torch_save bind op)
time_s=60; runs=-1; jobs=1; keep_going=0; seed_arg=(); targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) time_s="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --seed) seed_arg=(-seed="$2"); shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --keep-going) keep_going=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    ir|safetensors|torch_save|bind|op) targets+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument '$1' (targets: ${all_targets[*]})" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

bash scripts/setup.sh clang-14 libclang-rt-14-dev cmake make ccache libhwy-dev
export CCACHE_BASEDIR="$PWD"
# Same flags as scripts/test_sanitizers.sh's build/asan; with NOHASHDIR, ccache
# serves one folder's objects to the other.
export CCACHE_NOHASHDIR=1
build=build/fuzz
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DTIR_LIBTORCH=OFF -DTIR_BUILD_TESTS=OFF -DTIR_BUILD_CLI=OFF \
  -DTIR_SANITIZE="address,undefined" -DTIR_FUZZ=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target fuzz_op_seeds "${targets[@]/#/fuzz_}"

# --- seed corpora from the committed fixtures ---
fixtures=tests/fixtures
seed() {  # target
  local dir="$build/corpus/$1"
  rm -rf "$dir"; mkdir -p "$dir"
  case "$1" in
    # Seeds stay under -max_len (64 KiB): a longer one would be cut, i.e. turned into a syntax error.
    ir) find "$fixtures" -name '*.json' -size -64k -exec cp --backup=numbered -t "$dir" {} + ;;
    safetensors) find "$fixtures" -name '*.safetensors' -size -64k -exec cp --backup=numbered -t "$dir" {} + ;;
    torch_save) find "$fixtures" -name '*.pt' -size -64k -exec cp --backup=numbered -t "$dir" {} + ;;
    bind)  # every model.json with its weights file: IR, the marker, weights
      local i=0 ir w
      while IFS= read -r ir; do
        for w in "$(dirname "$ir")"/weights.safetensors "$(dirname "$ir")"/*.pt; do
          [ -f "$w" ] && [ "$(stat -c %s "$w")" -lt 16384 ] || continue
          { cat "$ir"; printf '\0TIRWEIGHTS\0'; cat "$w"; } > "$dir/seed-$i"; i=$((i + 1))
        done
      done < <(find "$fixtures" -name 'model.json' -size -48k | sort) ;;
    op) find "$fixtures" -name 'model.json' -print0 | xargs -0 "$build/fuzz/fuzz_op_seeds" "$dir" >/dev/null ;;
  esac
  # Known findings seed the corpus too, so a short run fails while they still
  # crash. Not with --keep-going: there they would only be found again and again.
  [ "$keep_going" = 0 ] && [ -d tests/fuzz-regressions/"$1" ] && find tests/fuzz-regressions/"$1" -type f ! -name README.md \
    -exec cp --backup=numbered -t "$dir" {} +
  return 0
}
# Tokens for the mutator: op types and attr names of the op target, JSON keys for the IR ones.
dict() {  # target -> dict file path (or nothing)
  local f="$build/$1.dict"
  case "$1" in
    op)
      { grep -ohE '"(aten|prims|higher_order)\.[A-Za-z0-9_.]+"' -r src/ops
        grep -ohE '\.(i|f|b|str|ints|opt_ints|dtype|scalar|opt_scalar|attr|has)\("[A-Za-z_0-9]+"' src/ops/*.cpp src/ops/*.h \
          | sed -E 's/^[^"]*//'
        printf '"%s"\n' float32 float16 bfloat16 int64 int32 bool torch.float32 torch.int64 ; } | sort -u > "$f" ;;
    ir|bind)
      { grep -ohE '"[a-z_]+"' src/ir/json_loader.cpp; printf '"%s"\n' aten.add.Tensor aten.linear.default \
          aten.view.default float32 int64 NaN Infinity; } | sort -u > "$f" ;;
    *) return 0 ;;
  esac
  echo "$f"
}

status=0
printf '%-12s %12s %10s %s\n' target execs exec/s result > "$build/summary.txt"
for t in "${targets[@]}"; do
  seed "$t"
  d="$(dict "$t")"
  art="$build/artifacts/$t"; rm -rf "$art"; mkdir -p "$art"
  log="$build/$t.log"
  args=(-max_total_time="$time_s" -runs="$runs" -rss_limit_mb=2048 -timeout=10 -max_len=65536 -print_final_stats=1
        -artifact_prefix="$art/" ${d:+-dict="$d"} "${seed_arg[@]}")
  if [ "$keep_going" = 1 ]; then args+=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  elif [ "$jobs" -gt 1 ]; then args+=(-fork="$jobs"); fi
  echo "fuzz: $t for ${time_s}s$([ "$runs" -ge 0 ] && echo " or $runs inputs") (log $log)"
  started=$SECONDS
  # libFuzzer's corpus: a scratch copy the run may grow, the seeds stay as generated.
  work="$build/work/$t"; rm -rf "$work"; mkdir -p "$work"
  rc=0
  ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    "$build/fuzz/fuzz_$t" "${args[@]}" "$work" "$build/corpus/$t" >"$log" 2>&1 || rc=$?
  # Plain runs print final stats; fork mode only its '#<execs>: cov: ...' progress lines.
  execs="$(awk '/stat::number_of_executed_units/ {s += $2} END {print s + 0}' "$log")"
  [ "$execs" -gt 0 ] || execs="$(awk 'match($0, /^#[0-9]+/) {n = substr($0, 2, RLENGTH - 1) + 0; if (n > m) m = n} END {print m + 0}' "$log")"
  execs="${execs:-0}"
  rate="$(awk -v e="$execs" -v t="$((SECONDS - started))" 'BEGIN {printf "%.0f", e / (t > 0 ? t : 1)}')"
  found=("$art"/*)
  if [ -e "${found[0]}" ] || [ "$rc" -ne 0 ]; then
    status=1
    mkdir -p tests/fuzz-regressions/"$t"
    for f in "${found[@]}"; do [ -e "$f" ] && cp "$f" tests/fuzz-regressions/"$t"/; done
    result="FINDING (rc $rc): $(ls "$art" | tr '\n' ' ')-> tests/fuzz-regressions/$t/; see $log"
    grep -m1 -A12 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|==ERROR|terminate called' "$log" ||
      tail -20 "$log"
  else
    result=ok
  fi
  printf '%-12s %12s %10s %s\n' "$t" "$execs" "$rate" "$result" | tee -a "$build/summary.txt"
done
echo; cat "$build/summary.txt"
exit "$status"
