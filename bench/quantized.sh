#!/usr/bin/env bash
# bench/quantized.sh [options] — our int8 vs our float32 in one command (bench/README.md,
# "Quantized int8 vs float32"): exports the models with PyTorch's PT2E quantization in the
# torch 2.x chroot (bench/export_quantized_bench.py, skipped when up to date), then for each
# model and thread count runs bench/quantized.mjs (one node process: f32 and int8 alternating in
# rounds, every output checked) and prints a markdown table. Run as root (the chroot).
#
#   --models a,b       default resnet18,mlp,mlp_b32,gemm
#   --threads 1,2      default 1,2
#   --rounds N         default 6       (rounds per process; each runs f32 and int8)
#   --round-ms MS      default 1500    (timed time per variant per round; at least 3 runs)
#   --warmup-ms MS     default 2000
#   --no-export        use build/bench/quantized as it is
#   --weight-dtype D   the quantized variant is the f32 model loaded with weightDtype D (int8,
#                      int4, int4:G: load-time quantization) instead of PyTorch's quantized model
#   --json FILE        also keep every process's JSON line (default build/bench/quantized/results-<date>.json)
# About 6 minutes on a 2-vCPU VM with the defaults; raise --rounds / --round-ms for tighter
# numbers.
set -euo pipefail
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$BENCH")
MODELS=resnet18,mlp,mlp_b32,gemm
THREADS=1,2
ROUNDS=6
ROUND_MS=1500
WARMUP_MS=2000
EXPORT=1
JSON=
WEIGHT_DTYPE=
while [[ $# -gt 0 ]]; do
    case $1 in
        --models) MODELS=$2; shift 2 ;;
        --threads) THREADS=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --round-ms) ROUND_MS=$2; shift 2 ;;
        --warmup-ms) WARMUP_MS=$2; shift 2 ;;
        --no-export) EXPORT=0; shift ;;
        --json) JSON=$2; shift 2 ;;
        --weight-dtype) WEIGHT_DTYPE=$2; shift 2 ;;
        -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "quantized.sh: unknown option $1 (--help)" >&2; exit 2 ;;
    esac
done
OUT=$REPO/build/bench/quantized
JSON=${JSON:-$OUT/results-$(date -u +%Y-%m-%dT%H-%M-%S).json}

if [[ $EXPORT == 1 ]]; then
    # torchao prints that its CUDA extensions do not load (harmless): keep the rest.
    set +e
    bash "$REPO/tools/torch2-chroot.sh" run -- python3 /repo/bench/export_quantized_bench.py \
        --only "$MODELS" 2>&1 | grep -v -e '^Failed to load /repo/build/pyir/torchao/' \
        -e 'is an Enum subclass and is now natively supported'
    st=${PIPESTATUS[0]}
    set -e
    [[ $st == 0 ]] || { echo "quantized.sh: export failed" >&2; exit 1; }
fi

mkdir -p "$(dirname "$JSON")"
: > "$JSON"
IFS=, read -ra MS <<< "$MODELS"
IFS=, read -ra TS <<< "$THREADS"
for m in "${MS[@]}"; do
    for t in "${TS[@]}"; do
        echo "quantized.sh: $m, $t thread(s)" >&2
        # quantized.mjs re-executes node with V8_EAGER_WASM_FLAGS (bench/lib/common.mjs).
        node "$BENCH/quantized.mjs" --model "$m" --threads "$t" --rounds "$ROUNDS" \
            --round-ms "$ROUND_MS" --warmup-ms "$WARMUP_MS" ${WEIGHT_DTYPE:+--weight-dtype "$WEIGHT_DTYPE"} \
            | grep '^{' >> "$JSON" || true
    done
done

node - "$JSON" <<'EOF'
const fs = require('fs');
const rows = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const mb = (b) => (b == null ? '?' : (b / 1e6).toFixed(1));
const ms = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const g = (x) => (x < 0.01 ? x.toExponential(2) : x.toPrecision(3));
console.log('| model | threads | f32 ms | int8 ms | int8/f32 | int8 check: max \\|ours - PyTorch int8\\| (<= quant err / 4) | f32 check | weights f32 -> int8 MB: file; in WASM memory with packed copies | quant nodes not lowered |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  if (r.error) {
    console.log(`| ${r.model} | ${r.threads} | error: ${r.error} | | | | | | |`);
    continue;
  }
  const c = r.checks.int8;
  const f = r.checks.f32;
  const w = r.weights;
  const left = r.int8_quant_nodes_run && !r.int8_quant_nodes_run.error
    ? Object.entries(r.int8_quant_nodes_run).map(([k, v]) => `${k} ${v}`).join(', ') || 'none' : '?';
  const check = c.weight_dtype
    ? `weightDtype ${c.weight_dtype}: max \\|ours - f32\\| ${g(c.vs_float_output)} (${(100 * c.relative_to_max_output).toFixed(1)}% of max \\|y\\|)`
    : `${c.pass ? 'PASS' : `FAIL (${c.over_tol ?? '?'} of ${c.values ?? '?'} values over)`} ${g(c.max_abs_diff)} (<= ${g(c.tol)})`;
  console.log(`| ${r.model} | ${r.threads} | ${ms(r.f32_ms)} | ${ms(r.int8_ms)} | ${r.ratio.toFixed(2)} | ` +
    `${check} | ${f.pass ? 'PASS' : 'FAIL'} ${g(f.max_abs_diff)} | ` +
    `${mb(w.file_bytes.f32)} -> ${mb(w.file_bytes.int8)}; ${mb(w.in_memory_bytes?.f32)} -> ${mb(w.in_memory_bytes?.int8)} | ${left} |`);
}
console.log(`\nJSON lines: ${process.argv[2]}`);
EOF
