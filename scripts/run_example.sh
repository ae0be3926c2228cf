#!/usr/bin/env bash
# The main job: builds the WASM engine and classifies the 360 held-out handwritten digits
# of scikit-learn's load_digits with the small CNN in examples/digits (trained by
# tools/train_digits.py) through the JavaScript API in Node: a few digits as ASCII art
# beside their predicted and true labels, the accuracy next to PyTorch's on the same
# digits, and the time per image. Exits 1 when the engine disagrees with PyTorch.
# Arguments go to examples/node/digits.mjs (--threads N, --runs N, --show N).
set -euo pipefail
cd "$(dirname "$0")/.."
# Builds only the WASM variant it runs: in Node the threaded one, the
# single-threaded one for --threads 1 (as the loader picks, npm/lib/backend.js).
variant=threaded
args=("$@")
for ((i = 0; i + 1 < ${#args[@]}; ++i)); do
  if [ "${args[i]}" = --threads ]; then
    if [[ "${args[i + 1]}" =~ ^0*1(\.0*)?$ ]]; then variant=simd; else variant=threaded; fi
  fi
done
bash scripts/build_wasm.sh "$variant"
node examples/node/digits.mjs "$@"
