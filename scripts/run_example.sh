#!/usr/bin/env bash
# The main job: builds the WASM engine and classifies the 360 held-out handwritten digits
# of scikit-learn's load_digits with the small CNN in examples/digits (trained by
# tools/train_digits.py) through the JavaScript API in Node: a few digits as ASCII art
# beside their predicted and true labels, the accuracy next to PyTorch's on the same
# digits, and the time per image. Exits 1 when the engine disagrees with PyTorch.
# Arguments go to examples/node/digits.mjs (--threads N, --runs N, --show N).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build_wasm.sh
node examples/node/digits.mjs "$@"
