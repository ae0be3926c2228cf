#!/usr/bin/env bash
# The main job: builds the WASM engine and runs the bundled small CNN through
# the JavaScript API in Node (top-5 outputs, time per run, verification report).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build_wasm.sh
node examples/node/run.mjs "$@"
