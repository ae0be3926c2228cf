#!/usr/bin/env bash
# bench/quantized_llm.sh [options] — decode of the GPT-2-small-sized decoder (bench/models/
# llm_gpt2_small: LLaMA architecture, 12 layers, d 768, vocabulary 50257, 162M parameters) in
# int4 against float32, our engine on WASM, side by side in one node process per thread count
# (bench/README.md, "Quantized LLM decode"). Run as root (the torch 2.x chroot).
#
# Made once into build/bench/quantized_llm (skipped when there):
#   f32/     the committed IR pair, seeded float32 weights (bench/gpu/make_llm.py, 650 MB) and
#            expected.json (Hugging Face generate() of the float model; tools/export_llm.py
#            --skip-export)
#   8da4w/   the same model quantized by torchao, Int8DynamicActivationIntxWeightConfig(int4,
#            PerGroup(32)) on every linear (tools/export_llm.py --quantize 8da4w), its IR pair,
#            quantized weights and expected.json (generate() of the quantized module)
# then runs bench/quantized_llm.mjs for each thread count and prints its table.
#
#   --threads 1,2      default 1,2
#   --rounds N         default 4 (each round: one generation per variant, order rotating)
#   --new-tokens N     default 48
#   --pairs LIST       default f32,8da4w+f32,f32:int4: one process per pair ('+' between pairs;
#                      f32:int4 = the float model, weightDtype int4); two 650 MB float32 copies
#                      and more do not fit one WASM memory
#   --no-export        use build/bench/quantized_llm as it is
set -euo pipefail
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$BENCH")
THREADS=1,2
ROUNDS=4
NEW=48
PAIRS=f32,8da4w+f32,f32:int4
EXPORT=1
while [[ $# -gt 0 ]]; do
    case $1 in
        --threads) THREADS=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --new-tokens) NEW=$2; shift 2 ;;
        --pairs) PAIRS=$2; shift 2 ;;
        --no-export) EXPORT=0; shift ;;
        -h|--help) sed -n '2,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "quantized_llm.sh: unknown option $1 (--help)" >&2; exit 2 ;;
    esac
done
MODEL=$REPO/bench/models/llm_gpt2_small
OUT=$REPO/build/bench/quantized_llm
P=$(node -e "console.log(require('$MODEL/kv_mapping.json').prefill_seq_len)")
C=$(node -e "console.log(require('$MODEL/kv_mapping.json').max_cache_len)")

chroot_py() {
    # torchao prints that its CUDA extensions do not load (harmless): keep the rest.
    set +e
    bash "$REPO/tools/torch2-chroot.sh" run -- python3 "$@" 2>&1 | grep -v \
        -e '^Failed to load /repo/build/pyir/torchao/' -e 'is an Enum subclass and is now natively supported' \
        -e 'SyntaxWarning' -e "regex for parameter names"
    local st=${PIPESTATUS[0]}
    set -e
    [[ $st == 0 ]] || { echo "quantized_llm.sh: $1 failed" >&2; exit 1; }
}

if [[ $EXPORT == 1 ]]; then
    rel=${OUT#"$REPO"/}
    mkdir -p "$OUT/f32" "$OUT/8da4w"
    cp "$MODEL"/{config.json,prefill.json,decode.json,kv_mapping.json} "$OUT/f32/"
    cp "$MODEL/config.json" "$OUT/8da4w/"
    [[ -f $OUT/f32/weights.safetensors ]] ||
        chroot_py /repo/bench/gpu/make_llm.py --model "/repo/bench/models/llm_gpt2_small" --out "/repo/$rel/f32" --no-onnx
    [[ -f $OUT/f32/expected.json ]] ||
        chroot_py /repo/tools/export_llm.py --out "/repo/$rel/f32" --weights "/repo/$rel/f32/weights.safetensors" \
            --prefill-len "$P" --cache-len "$C" --skip-export --skip-io
    [[ -f $OUT/8da4w/expected.json ]] ||
        chroot_py /repo/tools/export_llm.py --out "/repo/$rel/8da4w" --weights "/repo/$rel/f32/weights.safetensors" \
            --prefill-len "$P" --cache-len "$C" --skip-io --quantize 8da4w --group-size 32
fi

IFS=, read -ra TS <<< "$THREADS"
IFS=+ read -ra PS <<< "$PAIRS"
for p in "${PS[@]}"; do
    for t in "${TS[@]}"; do
        echo "quantized_llm.sh: $p, $t thread(s)" >&2
        node "$BENCH/quantized_llm.mjs" --dir "$OUT" --threads "$t" --rounds "$ROUNDS" --new-tokens "$NEW" --variants "$p"
    done
done
