#!/usr/bin/env bash
# gpu_check.sh [--device cuda|cpu] [--out DIR] [--build DIR] [--fixtures DIR] [--jobs N] [--webgpu]
#
# The one command for a GPU machine (docs/gpu-parity.md): builds the torchir CLI with the
# LibTorch backend from the files in this tree, generates the fixture weights that are not
# committed (tools/make_fixtures.sh, float64 truth files skipped), then runs
#   torchir parity IR --weights W --io IO --device DEVICE --criterion truth64
# over every fixture under tests/fixtures/models and the LLM pair (tests/fixtures/llm/tiny_llama
# prefill + decode), and writes DIR/gpu-check.md: a header (GPU, driver, LibTorch, TF32 state,
# date, times) and one row per fixture (name, device, result, first divergent node). The full
# per-node output goes to DIR/gpu-check.log, the build and fixture logs beside it.
#
#   --device   cuda (default) or cpu: cpu runs the same checks on any machine (CI does).
#   --out      report folder (default build/gpu-check).
#   --build    build folder: default build/native when it is configured (CI), else build/gpu
#              (configured here: Release, tests off, LibTorch required, Ninja when present).
#   --fixtures generated fixtures folder (default build/fixtures).
#   --jobs     fixtures checked at a time (default 4 on cuda, 1 on cpu).
#   --webgpu   first run the WebGPU comparison (bench/gpu/run.sh: ours on WebGPU vs onnxruntime-web's
#              WebGPU EP vs ours on WASM vs PyTorch CUDA, in Node over dawn.node), which needs the
#              .gpu-carry folder of bench/gpu/pack.sh; it writes DIR/gpu-bench.{md,json,log}.
# Environment: TIR_PYTHON (the Python with torch + torchvision for make_fixtures.sh; default
# /usr/bin/python3 when it imports them, else python3), TIR_GPU_CHECK_TIMEOUT (seconds per
# fixture, default 300).
#
# Exit status: 0 every fixture passes (or is n/a: an op or dtype this LibTorch lacks), 1 a
# fixture diverges, fails or could not be generated, 2 usage or build error, 3 the device is not
# available to LibTorch (nothing else is run then).
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
T0=$(date +%s)

DEVICE=cuda OUT=build/gpu-check BUILD= FIX=build/fixtures PAR= WEBGPU=0
while [[ $# -gt 0 ]]; do
    case $1 in
        --device) DEVICE=${2:-}; shift 2 ;;
        --out) OUT=${2:-}; shift 2 ;;
        --build) BUILD=${2:-}; shift 2 ;;
        --fixtures) FIX=${2:-}; shift 2 ;;
        --jobs) PAR=${2:-}; shift 2 ;;
        --webgpu) WEBGPU=1; shift ;;
        -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "gpu_check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ $DEVICE == cuda || $DEVICE == cpu ]] || { echo "gpu_check: --device must be cuda or cpu" >&2; exit 2; }
[[ -n $OUT && -n $FIX ]] || { echo "gpu_check: --out and --fixtures need a folder" >&2; exit 2; }
[[ -z $PAR ]] && { [[ $DEVICE == cuda ]] && PAR=4 || PAR=1; }
[[ $PAR =~ ^[1-9][0-9]*$ ]] || { echo "gpu_check: --jobs must be a positive number" >&2; exit 2; }
mkdir -p "$OUT" "$FIX"
OUT=$(cd "$OUT" && pwd) FIX=$(cd "$FIX" && pwd)
REPORT=$OUT/gpu-check.md LOG=$OUT/gpu-check.log
: >"$LOG"
JOBS=$(nproc 2>/dev/null || echo 2)
log() { echo "gpu_check: $*" | tee -a "$LOG"; }
elapsed() { echo $(($(date +%s) - $1)); }

# --- the WebGPU comparison first: its GPU timings want the machine otherwise idle ---
WEBGPU_NOTE="not run (no --webgpu)"
if [[ $WEBGPU -eq 1 ]]; then
    log "webgpu: bench/gpu/run.sh --out $OUT"
    T_WG=$(date +%s)
    if bash bench/gpu/run.sh --out "$OUT"; then WEBGPU_NOTE="gpu-bench.md"; else WEBGPU_NOTE="FAILED (gpu-bench.log)"; fi
    WEBGPU_NOTE+=" ($(elapsed "$T_WG") s)"
fi

# --- Python with torch (fixture export; and LibTorch's CMake files when no system LibTorch) ---
if [[ -n ${TIR_PYTHON:-} ]]; then PY=$TIR_PYTHON
elif /usr/bin/python3 -c 'import torch, torchvision' 2>/dev/null; then PY=/usr/bin/python3
else PY=$(command -v python3 || echo python3); fi
PY_TORCH=$("$PY" -c 'import torch; print(torch.__version__)' 2>/dev/null || echo "none ($PY cannot import torch)")

# --- build ---
T_BUILD=$(date +%s)
if [[ -z $BUILD ]]; then
    if [[ -f build/native/CMakeCache.txt ]]; then BUILD=build/native; else BUILD=build/gpu; fi
fi
if [[ ! -f $BUILD/CMakeCache.txt ]]; then
    cfg=(-S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DTIR_BUILD_TESTS=OFF -DTIR_LIBTORCH=ON)
    command -v ninja >/dev/null && cfg+=(-G Ninja)
    # Highway headers and libhwy: the system's, else those tools/gpu_deps.sh unpacked into .gpu-deps/.
    if [[ ! -f /usr/include/hwy/highway.h && -f .gpu-deps/usr/include/hwy/highway.h ]]; then
        cfg+=(-DHWY_INCLUDE="$REPO/.gpu-deps/usr/include")
        hwy_lib=$(ls "$REPO"/.gpu-deps/usr/lib/*/libhwy.so 2>/dev/null | head -1)
        [[ -n $hwy_lib ]] && cfg+=(-DTIR_HWY_LIB="$hwy_lib")  # the build tree's RPATH finds it at run time
    fi
    prefix=$("$PY" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)
    [[ -n $prefix ]] && cfg+=(-DCMAKE_PREFIX_PATH="$prefix")
    log "configure: cmake ${cfg[*]}"
    cmake "${cfg[@]}" >"$OUT/build.log" 2>&1 || {
        tail -n 30 "$OUT/build.log"
        echo "gpu_check: configure failed (full log: $OUT/build.log; no Highway headers? run tools/gpu_deps.sh and upload .gpu-deps/)" >&2
        exit 2
    }
fi
log "build: $BUILD (target torchir, -j$JOBS)"
cmake --build "$BUILD" --target torchir -j"$JOBS" >>"$OUT/build.log" 2>&1 || {
    tail -n 30 "$OUT/build.log"; echo "gpu_check: build failed (full log: $OUT/build.log)" >&2; exit 2; }
TORCHIR=$REPO/$BUILD/torchir
[[ $BUILD == /* ]] && TORCHIR=$BUILD/torchir
BUILD_S=$(elapsed "$T_BUILD")

# --- can LibTorch use the device? (torchir checks before loading anything: exit 3) ---
probe=$REPO/tests/fixtures/models/SimpleMLP/torch2.14-training
"$TORCHIR" parity "$probe/model.json" --weights "$probe/weights.safetensors" --io "$probe/io.safetensors" \
    --device "$DEVICE" --criterion truth64 >"$OUT/probe.txt" 2>&1
PROBE_RC=$?

# --- fixtures: weights/io that are not committed (a failure leaves rows saying so) ---
T_FIX=$(date +%s)
FIX_NOTE=ok
if [[ $PROBE_RC -eq 3 ]]; then
    FIX_NOTE="not run (no device)"
else
    log "fixtures: tools/make_fixtures.sh $FIX (python: $PY, torch $PY_TORCH)"
    TIR_PYTHON=$PY TIR_FIXTURES_TRUTH=0 bash tools/make_fixtures.sh "$FIX" >"$OUT/fixtures.log" 2>&1 \
        || FIX_NOTE="FAILED for some fixtures (see fixtures.log)"
fi
FIX_S=$(elapsed "$T_FIX")

# --- the fixture list: NAME IR WEIGHTS IO ---
list=()
while IFS= read -r json; do
    dir=$(dirname "$json") rel=${dir#"$REPO"/tests/fixtures/models/}
    w=$dir/weights.safetensors io=$dir/io.safetensors
    [[ -f $w ]] || w=$FIX/$rel/weights.safetensors
    [[ -f $io ]] || io=$FIX/$rel/io.safetensors
    list+=("$rel|$json|$w|$io")
done < <(find "$REPO/tests/fixtures/models" -name model.json | LC_ALL=C sort)
llm=$REPO/tests/fixtures/llm/tiny_llama
for g in prefill decode; do
    list+=("llm/tiny_llama/$g|$llm/$g.json|$FIX/llm/tiny_llama/weights.safetensors|$llm/${g}_io.safetensors")
done

# --- the report: rewritten after every fixture, so a run cut short still leaves one ---
GPU="none (--device cpu)" DRIVER="-"
if [[ $DEVICE == cuda ]]; then
    GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
    DRIVER=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1)
    GPU=${GPU:-"unknown (nvidia-smi gave nothing)"} DRIVER=${DRIVER:-unknown}
fi
CPU=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')
DATE=$(date -u '+%Y-%m-%d %H:%M UTC')
LIBTORCH="?" SETTINGS="?"
rows=() n_pass=0 n_div=0 n_na=0 n_err=0 PARITY_S=0
write_report() {
    local status=$1
    {
        echo "# GPU parity check: \`scripts/gpu_check.sh --device $DEVICE\`"
        echo
        echo "| | |"
        echo "| --- | --- |"
        echo "| date | $DATE |"
        echo "| GPU | $GPU |"
        echo "| driver | $DRIVER |"
        echo "| LibTorch | $LIBTORCH |"
        echo "| device settings (TF32) | $SETTINGS |"
        echo "| CPU | $CPU ($JOBS cores) |"
        echo "| fixture export | python torch $PY_TORCH; make_fixtures: $FIX_NOTE |"
        echo "| times | build ${BUILD_S} s, fixtures ${FIX_S} s, parity ${PARITY_S} s, total $(elapsed "$T0") s |"
        echo "| WebGPU comparison | $WEBGPU_NOTE |"
        echo "| result | $status: $n_pass pass, $n_div diverge, $n_err error, $n_na n/a of ${#list[@]} |"
        echo
        echo "Criterion (torchir parity --criterion truth64, docs/gpu-parity.md): a floating node output"
        echo "passes when ours (native, CPU) and LibTorch-$DEVICE are both within 2 x LibTorch-CPU's error"
        echo "vs a float64 run of the same graph + 1e-6 x its max |value|; other outputs within rtol = atol = 1e-4."
        echo
        echo "| fixture | device | result | first divergent node | node outputs (vs float64) | time |"
        echo "| --- | --- | --- | --- | --- | --- |"
        printf '%s\n' "${rows[@]}"
    } >"$REPORT"
}

if [[ $PROBE_RC -eq 3 ]]; then  # the device is not available: say so and stop
    cat "$OUT/probe.txt" >>"$LOG"
    msg=$(grep -m1 "DeviceUnavailableError" "$OUT/probe.txt" | sed 's/^torchir: DeviceUnavailableError: //')
    rows+=("| (all) | $DEVICE | NOT RUN: ${msg//|/\\|} | | | |")
    write_report "NOT RUN"
    rm -f "$OUT/probe.txt"
    echo "gpu_check: $msg" >&2
    exit 3
fi
rm -f "$OUT/probe.txt"

# PAR fixtures at a time (each process pays LibTorch's and CUDA's start-up; with PAR > 1 each
# gets OMP_NUM_THREADS = cores / PAR). A background launcher runs them; the loop below takes the
# results in list order, so the rows and the log keep that order whatever finishes first.
T_PAR=$(date +%s)
work=$(mktemp -d)
run_one() {  # INDEX IR WEIGHTS IO
    local t1 rc
    t1=$(date +%s.%N)
    timeout "${TIR_GPU_CHECK_TIMEOUT:-300}" "$TORCHIR" parity "$2" --weights "$3" --io "$4" --device "$DEVICE" \
        --criterion truth64 >"$work/$1.out" 2>&1
    rc=$?
    awk -v a="$t1" -v b="$(date +%s.%N)" -v rc=$rc 'BEGIN { printf "%d %.1f s\n", rc, b - a }' >"$work/$1.tmp"
    mv "$work/$1.tmp" "$work/$1.rc"
}
(
    [[ $PAR -gt 1 ]] && export OMP_NUM_THREADS=$((JOBS / PAR > 0 ? JOBS / PAR : 1))
    for i in "${!list[@]}"; do
        IFS='|' read -r _ json w io <<<"${list[i]}"
        [[ -f $w && -f $io ]] || continue
        while [[ $(jobs -rp | wc -l) -ge $PAR ]]; do wait -n; done
        run_one "$i" "$json" "$w" "$io" &
    done
    wait
) &
launcher=$!
trap 'kill "$launcher" 2>/dev/null; rm -rf "$work"' EXIT
for i in "${!list[@]}"; do
    IFS='|' read -r name json w io <<<"${list[i]}"
    if [[ ! -f $w || ! -f $io ]]; then
        rows+=("| $name | $DEVICE | NOT GENERATED: no $( [[ -f $w ]] && echo "${io#"$REPO"/}" || echo "${w#"$REPO"/}") (see fixtures.log) | | | |")
        n_err=$((n_err + 1))
        write_report running
        continue
    fi
    while [[ ! -f $work/$i.rc ]]; do
        kill -0 "$launcher" 2>/dev/null || [[ -f $work/$i.rc ]] || { echo "gpu_check: launcher died" >&2; exit 2; }
        sleep 0.2
    done
    read -r rc secs <"$work/$i.rc"
    tmp=$work/$i.out
    { echo "=== $name (exit $rc, $secs)"; cat "$tmp"; } >>"$LOG"
    if [[ $LIBTORCH == "?" ]] && grep -q "^LibTorch .* vs native" "$tmp"; then
        LIBTORCH=$(sed -n 's/^LibTorch \([^ ]*\) on .*/\1/p' "$tmp" | head -n1)
        SETTINGS=$(sed -n 's/^LibTorch [^ ]* on [^ ]* (\(.*\)) vs native.*/\1/p' "$tmp" | head -n1)
    fi
    counts=$(sed -n 's/^\([0-9]*\) node outputs compared (\([0-9]*\) against float64.*/\1 (\2)/p' "$tmp")
    notes=""
    grep -q "^yardstick: LibTorch" "$tmp" && notes+=" (yardstick: LibTorch-$DEVICE, CPU cannot run it)"
    grep -q "^float64 run: FAILED" "$tmp" && notes+=" (float64 run failed: rtol/atol only)"
    dev_only=$(sed -n 's/^parity: LibTorch-[^ ]* outside the float64 bound (ours within) first at: //p' "$tmp")
    [[ -n $dev_only ]] && notes+=" (LibTorch-$DEVICE itself outside the float64 bound, ours within: first at $dev_only)"
    if [[ $rc -eq 0 ]] && grep -q "^parity: no divergence" "$tmp"; then
        rows+=("| $name | $DEVICE | pass$notes | | $counts | $secs |")
        n_pass=$((n_pass + 1))
    elif [[ $rc -eq 1 ]] && grep -q "^parity: first divergent node:" "$tmp"; then
        node=$(sed -n 's/^parity: first divergent node: //p' "$tmp")
        rows+=("| $name | $DEVICE | DIVERGES$notes | $node | $counts | $secs |")
        n_div=$((n_div + 1))
    elif na=$(grep -o -m1 "No ATen operator [^ ]* in LibTorch [^ ]*\|\"[a-z_0-9]*\" not implemented for '[A-Za-z0-9]*'" "$tmp"); then
        # What this LibTorch cannot run at all (LibTorch 1.13: SDPA, CPU float16 kernels).
        rows+=("| $name | $DEVICE | n/a: ${na//|/\\|} | | | $secs |")
        n_na=$((n_na + 1))
    else
        err=$(grep -m1 "^torchir: " "$tmp" | cut -c1-300)
        [[ $rc -eq 124 ]] && err="timed out after ${TIR_GPU_CHECK_TIMEOUT:-300} s"
        rows+=("| $name | $DEVICE | ERROR (exit $rc): ${err//|/\\|} | | | $secs |")
        n_err=$((n_err + 1))
    fi
    PARITY_S=$(elapsed "$T_PAR")
    write_report running
done
PARITY_S=$(elapsed "$T_PAR")
# (The WebGPU issue adds its GPU timing here when it lands: same script, same report.)
status=PASS
[[ $((n_div + n_err)) -gt 0 ]] && status=FAIL
write_report "$status"
log "$status: $n_pass pass, $n_div diverge, $n_err error, $n_na n/a of ${#list[@]} in $(elapsed "$T0") s; report: $REPORT"
[[ $status == PASS ]]
