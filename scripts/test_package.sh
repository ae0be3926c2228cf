#!/usr/bin/env bash
# The npm package as users get it: packs npm/ (`npm pack`), checks the tarball's
# file list and runs publint on it (tests/npm-package/check_package.mjs,
# publint pinned in that folder's package-lock.json), then installs the tarball
# into a fresh project (only `npm i TARBALL`) and runs a fixture model from ESM
# `import`, CommonJS `require` and the `torch-ir-wasm` bin.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
check=$root/tests/npm-package
model=$root/tests/fixtures/models/small_cnn/torch2.14-training
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bash scripts/build_npm.sh  # the package's JavaScript and declarations, from npm/src
(cd "$check" && npm ci --no-audit --no-fund --loglevel=error)
# --json: the tarball's name and file list, as npm publish would send them.
(cd npm && npm pack --json --pack-destination "$tmp" --loglevel=error) > "$tmp/pack.json"
tarball=$tmp/$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1]))[0].filename)' "$tmp/pack.json")
mapfile -t files < <(node -e 'for (const f of JSON.parse(require("fs").readFileSync(process.argv[1]))[0].files) console.log(f.path)' "$tmp/pack.json")
echo "packed $(basename "$tarball"): ${#files[@]} files, $(du -k "$tarball" | cut -f1) KiB"
node "$check/check_package.mjs" "$tarball" "${files[@]}"

# A fresh project: nothing but the tarball (no registry needed: no dependencies).
app=$tmp/app
mkdir "$app"
printf '{"name": "app", "private": true}\n' > "$app/package.json"
(cd "$app" && npm i --no-audit --no-fund --offline --loglevel=error "$tarball")
cp "$check/app_esm.mjs" "$check/app_cjs.cjs" "$app/"
(cd "$app" && node app_esm.mjs "$model" && node app_cjs.cjs "$model")
version=$(cd "$app" && npx --no-install torch-ir-wasm --version)
[ "$version" = "torch-ir-wasm $(node -p 'require("./npm/package.json").version')" ] || { echo "FAIL: bin --version printed '$version'"; exit 1; }
(cd "$app" && npx --no-install torch-ir-wasm verify "$model/model.json" --weights "$model/weights.safetensors" \
  --io "$model/io.safetensors" | head -1)
echo "package check passed"
