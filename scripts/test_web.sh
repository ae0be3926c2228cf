#!/usr/bin/env bash
# Browser tests of the graph viewer (web/): installs its npm dependencies,
# builds it, and runs the Playwright tests (playwright-core driving Debian's
# chromium headless). Screenshots and exports go to build/web-artifacts/.
#   scripts/test_web.sh            (CHROMIUM=/path overrides /usr/bin/chromium)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
if [ ! -f npm/dist/torch-ir-wasm-simd.wasm ]; then
  echo "test_web: npm/dist is missing, building the WASM package"
  bash scripts/build_wasm.sh
fi
bash scripts/build_npm.sh  # the page imports npm/index.js (compiled from npm/src)
CHROMIUM_BIN=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM_BIN" ]; then
  echo "test_web: chromium not found at $CHROMIUM_BIN (apt-get install chromium, or set CHROMIUM)" >&2
  exit 1
fi
export WEB_ARTIFACTS=${WEB_ARTIFACTS:-$ROOT/build/web-artifacts}
rm -rf "$WEB_ARTIFACTS"
mkdir -p "$WEB_ARTIFACTS"
cd web
npm ci --no-audit --no-fund --loglevel=error
node tools/build.mjs
node --test --test-concurrency=1 --test-timeout=600000 test/*.test.mjs
echo "test_web: screenshots and exports in $WEB_ARTIFACTS"
