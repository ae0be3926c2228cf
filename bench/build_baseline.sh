#!/usr/bin/env bash
# bench/build_baseline.sh REV [threaded|simd]...: builds revision REV's WASM dist (default both variants) and npm
# JavaScript in a git worktree, build/baseline/<full sha>, and prints that folder's path
# on its last line. bench/run.sh --baseline REV runs it; bench/ab.mjs then loads that
# checkout's npm/ beside this one's. Incremental, and ccache serves every object that
# REV compiles the same as a build already made (CCACHE_BASEDIR: paths hash relative to
# each checkout). Revisions older than emcc's ccache launcher get it from the environment.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bench/build_baseline.sh REV [threaded|simd]..." >&2; exit 2; }
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rev=$(git -C "$REPO" rev-parse --verify --quiet "$1^{commit}") || {
  echo "build_baseline: '$1' is not a revision of $REPO" >&2; exit 2; }
wt="$REPO/build/baseline/$rev"
if [ ! -e "$wt/.git" ]; then
  rm -rf "$wt"
  git -C "$REPO" worktree prune
  git -C "$REPO" worktree add --detach "$wt" "$rev" >&2
fi
bash "$REPO/scripts/setup.sh" ccache >&2
cd "$wt"
export CCACHE_BASEDIR="$wt" CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
start=$SECONDS
bash scripts/build_wasm.sh "${@:2}" >&2
echo "build_baseline: $rev built in $((SECONDS - start)) s" >&2
echo "$wt"
