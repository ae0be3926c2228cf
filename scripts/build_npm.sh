#!/usr/bin/env bash
# Builds the npm package's JavaScript: tsc (TypeScript pinned in npm/package-lock.json)
# compiles npm/src/**/*.ts into the published layout, npm/index.js, npm/lib/**/*.js and
# npm/bin/torch-ir-wasm.js, with the declarations beside them (npm/index.d.ts is generated,
# not hand-written). Those outputs are gitignored: every script that uses the package runs
# this first (scripts/build_wasm.sh does; it takes a few seconds). npm/dist (the WASM
# builds) is scripts/build_wasm.sh's.
set -euo pipefail
cd "$(dirname "$0")/../npm"
# The compiler and @types/node: installed from the lockfile when missing or stale.
locked=$(node -p 'require("./package-lock.json").packages["node_modules/typescript"].version')
installed=$(node -p 'try { require("./node_modules/typescript/package.json").version } catch { "" }')
if [ "$locked" != "$installed" ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
# Outputs of sources that no longer exist must not linger (and get packed): start clean.
rm -rf index.js index.d.ts lib bin
node node_modules/typescript/bin/tsc -p tsconfig.json
# @huggingface/tokenizers (a devDependency, pinned in the lock): its browser build is vendored
# into lib/vendor/ (lib/text.js imports it when a tokenizer is loaded), so the package keeps no
# runtime dependency and pages need no import map.
tok=node_modules/@huggingface/tokenizers
mkdir -p lib/vendor
{ printf '// @huggingface/tokenizers %s (%s, https://github.com/huggingface/tokenizers.js: its LICENSE applies),\n' \
    "$(node -p "require('./$tok/package.json').version")" "$(node -p "require('./$tok/package.json').license")"
  printf '// dist/tokenizers.min.mjs as published, vendored by scripts/build_npm.sh.\n'
  cat "$tok/dist/tokenizers.min.mjs"; } > lib/vendor/tokenizers.js
# The CLI has no API to declare (and the package's files list ships bin/ as it is).
rm -f bin/torch-ir-wasm.d.ts
chmod +x bin/torch-ir-wasm.js
