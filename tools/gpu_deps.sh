#!/usr/bin/env bash
# gpu_deps.sh [DIR] — fetch, on a machine with apt and a network, the build dependencies that a
# GPU machine without them needs for scripts/gpu_check.sh, and unpack them into DIR (default
# <repo>/.gpu-deps, ignored by git): upload that folder with the working tree.
#
# Today: Highway's headers and runtime library (libhwy-dev, libhwy1: native builds link libhwy
# for its run-time SIMD target selection). The CLI build needs nothing else beyond a compiler, CMake and LibTorch (a Python
# torch install is enough: gpu_check.sh asks it for torch.utils.cmake_prefix_path); the tests,
# which need GoogleTest, are not built there. gpu_check.sh uses DIR/usr/include when the
# system has no hwy/highway.h (and DIR/usr/lib/*/libhwy.so with them).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEST=${1:-$REPO/.gpu-deps}
PACKAGES=(libhwy-dev libhwy1)

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
# The headers and libhwy.so* travel: drop the docs and the other libraries.
rm -rf "$DEST/usr/share"
find "$DEST/usr/lib" \( -type f -o -type l \) ! -name 'libhwy.so*' -delete
echo "gpu_deps: $(du -sh "$DEST" | cut -f1) in $DEST (upload it with the working tree)"
