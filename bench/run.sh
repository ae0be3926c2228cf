#!/usr/bin/env bash
# bench/run.sh [options] — the cross-engine benchmark in one command (bench/README.md):
# installs the pinned peers (npm ci, when node_modules is missing or older than the lock
# file), then bench/run.mjs exports the models if needed and runs the interleaved passes.
# `bench/run.sh --help` lists the options. `bench/run.sh --llm [options]` runs the LLM generation
# benchmark (bench/llm.mjs) instead; `bench/run.sh --llm --help` lists its options.
set -euo pipefail
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# onnxruntime-node's CPU binaries ship in the package; its install script would fetch
# CUDA ones from nuget.org (also set in bench/.npmrc).
export ONNXRUNTIME_NODE_INSTALL=skip
if [[ ! -f $BENCH/node_modules/.package-lock.json
      || $BENCH/package-lock.json -nt $BENCH/node_modules/.package-lock.json ]]; then
    (cd "$BENCH" && npm ci --no-audit --no-fund)
fi
if [[ ${1:-} == --llm ]]; then
    shift
    exec node "$BENCH/llm.mjs" "$@"
fi
exec node "$BENCH/run.mjs" "$@"
