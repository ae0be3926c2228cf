#!/usr/bin/env bash
# Type tests of npm/index.d.ts: tsc --noEmit (strict) over a typed example that
# must compile and misuses marked @ts-expect-error that must not, for a browser
# app (DOM lib), a Node app (@types/node, noUncheckedIndexedAccess,
# exactOptionalPropertyTypes), an env.proxy app and an older lib; each with
# TypeScript 5 and 7 (pinned in npm/test/types/package-lock.json).
set -euo pipefail
cd "$(dirname "$0")/../npm/test/types"
npm ci --no-audit --no-fund --loglevel=error
status=0
for tsc in typescript typescript7; do
  version=$(node -p "require('./node_modules/$tsc/package.json').version")
  for config in tsconfig.json tsconfig.node.json tsconfig.proxy.json tsconfig.oldlib.json; do
    if node "node_modules/$tsc/bin/tsc" -p "$config"; then
      echo "ok   tsc $version -p $config"
    else
      echo "FAIL tsc $version -p $config"
      status=1
    fi
  done
done
exit $status
