#!/usr/bin/env bash
# A model larger than the WASM heap, on WebGPU (docs/webgpu.md, "Weights"): makes a LLaMA-style
# decoder of 856M float32 parameters (bench/models/llm_big/config.json: d 2048, 16 layers,
# 3.4 GB of weights, seeded) in the torch 2.14 chroot, exports its prefill IR with pytorch-ir
# (tools/export_llm.py) and PyTorch's outputs on a prompt, then runs bench/gpu/big_decoder.mjs:
# the prefill on WebGPU with the weights streamed to the GPU, checked against PyTorch.
# Manual, not in CI: ~10 GB of disk and RAM, a few minutes on lavapipe after the export.
#
#   bash bench/gpu/big_decoder.sh [DIR (default build/big_decoder)] [--wasm]
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=build/big_decoder
extra=()
for a in "$@"; do
  case "$a" in --*) extra+=("$a") ;; *) dir=$a ;; esac
done
case "$dir" in /*) ;; *) dir=$PWD/$dir ;; esac
case "$dir" in "$PWD"/*) ;; *) echo "big_decoder: DIR must be inside the repository (the chroot sees it as /repo)" >&2; exit 2 ;; esac
rel=${dir#"$PWD"/}
mkdir -p "$dir"
cp bench/models/llm_big/config.json "$dir/"
if [ ! -f "$dir/weights.safetensors" ]; then
  tools/torch2-chroot.sh run -- python3 bench/gpu/make_llm.py --model "/repo/$rel" --out "/repo/$rel" --no-onnx
fi
if [ ! -f "$dir/prefill_io.safetensors" ]; then
  tools/torch2-chroot.sh run -- python3 tools/export_llm.py --out "/repo/$rel" --weights "/repo/$rel/weights.safetensors" \
    --io-dir "/repo/$rel" --skip-reference --prefill-len 16 --cache-len 32
fi
if [ ! -f "$dir/expected.json" ]; then  # PyTorch's greedy tokens (8 per prompt)
  tools/torch2-chroot.sh run -- python3 tools/export_llm.py --out "/repo/$rel" --weights "/repo/$rel/weights.safetensors" \
    --skip-export --skip-io --prefill-len 16 --cache-len 32 --max-new-tokens 8
fi
bash scripts/setup_webgpu.sh  # lavapipe and dawn.node (tests/webgpu)
[ -f npm/dist/torch-ir-wasm-simd.js ] || bash scripts/build_wasm.sh simd
bash scripts/build_npm.sh
node bench/gpu/big_decoder.mjs "$dir" "${extra[@]}"
