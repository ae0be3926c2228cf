#!/usr/bin/env bash
# gpu_deps.sh [DIR] — fetch, on a machine with apt and a network, the build dependencies that a
# GPU machine without them needs for scripts/gpu_check.sh, and unpack them into DIR (default
# <repo>/.gpu-deps, ignored by git): upload that folder with the working tree.
#
# Today: Highway's headers (libhwy-dev; the engine uses Highway header-only, nothing links
# libhwy). The CLI build needs nothing else beyond a compiler, CMake and LibTorch (a Python
# torch install is enough: gpu_check.sh asks it for torch.utils.cmake_prefix_path); the tests,
# which need GoogleTest, are not built there. gpu_check.sh uses DIR/usr/include when the
# system has no hwy/highway.h.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEST=${1:-$REPO/.gpu-deps}
PACKAGES=(libhwy-dev)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download "${PACKAGES[@]}")
rm -rf "$DEST"
mkdir -p "$DEST"
for deb in "$tmp"/*.deb; do
    dpkg -x "$deb" "$DEST"
    echo "gpu_deps: $(basename "$deb") -> $DEST"
done
[[ -f $DEST/usr/include/hwy/highway.h ]] || { echo "gpu_deps: no hwy/highway.h under $DEST/usr/include" >&2; exit 1; }
# Only the headers travel: drop the docs and the (unused) shared-library symlinks.
rm -rf "$DEST/usr/share" "$DEST/usr/lib"
echo "gpu_deps: $(du -sh "$DEST" | cut -f1) in $DEST (upload it with the working tree)"
