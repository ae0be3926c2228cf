#!/usr/bin/env bash
# Builds and serves the graph viewer (web/) with COOP/COEP headers.
#   scripts/serve_web.sh [--port 8080] [--no-isolation]
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f npm/dist/torch-ir-wasm-simd.wasm ]; then
  echo "npm/dist is missing: building the WASM package (scripts/build_wasm.sh)"
  bash scripts/build_wasm.sh
fi
bash scripts/build_npm.sh  # the page imports npm/index.js (compiled from npm/src)
(cd web && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && node tools/build.mjs)
exec node web/tools/serve.mjs "$@"
