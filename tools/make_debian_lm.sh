#!/usr/bin/env bash
# make_debian_lm.sh — retrain and re-export the text-generation demo's language model, committed in
# tests/fixtures/llm/debian_lm (tools/train_lm.py says what it is). Run as root from anywhere:
#
#   bash tools/make_debian_lm.sh [--steps N] [--install]
#
# 1. Debian 12's English package descriptions: bookworm's main/i18n/Translation-en.xz from the
#    host's Debian mirror into build/lm/ (its sha256 is checked against the one trained on; a
#    mirror that moved on warns and goes on: the model then differs a little).
# 2. tools/train_lm.py in the torch 2.x chroot (tools/torch2-chroot.sh, with python3-transformers,
#    which brings `tokenizers`, and OpenBLAS: Debian's torch calls the reference BLAS otherwise,
#    5-20x slower): tokenizer + float32 model into build/lm/debian-lm (about 15 minutes on 2 cores).
# 3. tools/export_llm.py --quantize 8da4w --group-size 32 (prefill 64 tokens, cache 256) and
#    tools/lm_text_reference.py into build/lm/debian_lm, with the tokenizer and training report.
# --install copies that folder over tests/fixtures/llm/debian_lm.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STEPS=()
INSTALL=0
while [[ $# -gt 0 ]]; do
    case $1 in
        --steps) STEPS=(--steps "$2"); shift 2 ;;
        --install) INSTALL=1; shift ;;
        *) echo "usage: $0 [--steps N] [--install]" >&2; exit 2 ;;
    esac
done
CORPUS_SHA=a3d4a0bfd8e9242810b0885eda7c1a6e05dac15b333ddbaab03ba56f2dfa4bf0
LM=$REPO/build/lm
mkdir -p "$LM"

corpus=$LM/Translation-en.xz
if [[ ! -f $corpus ]]; then
    mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    mirror=${TIR_DEBIAN_MIRROR:-${mirror:-http://deb.debian.org/debian}}
    curl -fsSL -o "$corpus.part" "${mirror%/}/dists/bookworm/main/i18n/Translation-en.xz"
    mv "$corpus.part" "$corpus"
fi
got=$(sha256sum "$corpus" | cut -d' ' -f1)
[[ $got == "$CORPUS_SHA" ]] || echo "make_debian_lm: warning: $corpus has sha256 $got, not the $CORPUS_SHA the committed model was trained on" >&2

bash "$REPO/tools/pyir_env.sh" "$REPO/build/pyir"
TIR_CHROOT_EXTRA="python3-transformers libopenblas0-openmp ${TIR_CHROOT_EXTRA:-}" bash "$REPO/tools/torch2-chroot.sh"
run() { bash "$REPO/tools/torch2-chroot.sh" run -- "$@"; }

run python3 tools/train_lm.py --corpus /repo/build/lm/Translation-en.xz --out /repo/build/lm/debian-lm "${STEPS[@]}"
out=$LM/debian_lm
rm -rf "$out"
mkdir -p "$out"
cp "$LM/debian-lm/config.json" "$LM/debian-lm/tokenizer.json" "$LM/debian-lm/training.json" "$out/"
run python3 tools/export_llm.py --out /repo/build/lm/debian_lm --weights /repo/build/lm/debian-lm/weights.safetensors \
    --prefill-len 64 --cache-len 256 --max-new-tokens 48 --quantize 8da4w --group-size 32 --skip-io
run python3 tools/lm_text_reference.py --dir /repo/build/lm/debian_lm \
    --weights /repo/build/lm/debian-lm/weights.safetensors --quantize 8da4w --group-size 32 \
    --corpus /repo/build/lm/Translation-en.xz
echo "make_debian_lm: wrote $out"
if ((INSTALL)); then
    rm -rf "$REPO/tests/fixtures/llm/debian_lm"
    cp -r "$out" "$REPO/tests/fixtures/llm/debian_lm"
    echo "make_debian_lm: installed into tests/fixtures/llm/debian_lm"
fi
