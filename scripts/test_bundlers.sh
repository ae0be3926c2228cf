#!/usr/bin/env bash
# Bundler tests of the npm package (npm/test/bundlers/): packs npm/ as users
# get it (npm pack), installs the tarball next to esbuild, vite and
# playwright-core (pinned in that folder's package-lock.json), then builds a
# tiny app with esbuild and vite (build and dev server) and runs it in
# headless chromium with and without COOP/COEP, in the page and in proxy mode.
#   scripts/test_bundlers.sh            (CHROMIUM=/path overrides /usr/bin/chromium)
# Needs npm/dist (scripts/build_wasm.sh). Outputs go to build/bundlers/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
if [ ! -f npm/dist/torch-ir-wasm-simd.wasm ]; then
  echo "test_bundlers: npm/dist is missing: run scripts/build_wasm.sh first" >&2
  exit 1
fi
bash scripts/build_npm.sh  # the package's JavaScript and declarations, from npm/src
OUT=$ROOT/build/bundlers
mkdir -p "$OUT"
rm -f "$OUT"/torch-ir-wasm-*.tgz
(cd npm && npm pack --pack-destination "$OUT" --loglevel=error >/dev/null)
TARBALL=$(ls "$OUT"/torch-ir-wasm-*.tgz)
cd npm/test/bundlers
npm ci --no-audit --no-fund --loglevel=error
# The package itself: not in package.json (its tarball changes with every
# commit, a lockfile entry would pin one); installed as a user's `npm i` does.
npm install --no-save --no-audit --no-fund --loglevel=error "$TARBALL"
TIR_BUNDLER_TESTS=1 TIR_BUNDLER_OUT="$OUT" node --test --test-concurrency=1 --test-timeout=120000 bundlers.test.mjs
