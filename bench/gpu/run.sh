#!/usr/bin/env bash
# run.sh [--out DIR] [--work DIR] [--runs N] [--threads N] [--models a,b] [--no-llm] [--no-torch] — the WebGPU comparison on a GPU
# machine (bench/gpu/README.md); scripts/gpu_check.sh --webgpu runs it. Needs the folder that
# bench/gpu/pack.sh wrote (.gpu-carry, uploaded with the working tree) and a python3 (TIR_PYTHON) with torch,
# torchvision, transformers, safetensors and onnx. Steps:
#   1. unpack Node, dawn.node, onnxruntime-web's WebGPU build and our npm/dist (with the package's
#      compiled JavaScript) from .gpu-carry;
#      the Vulkan loader too when the system has none
#   2. regenerate the models' weights, PyTorch outputs and ONNX files there (they do not travel):
#      bench/export_bench.py (resnet50, bert_base), bench/gpu/make_llm.py (llm_gpt2_small)
#   3. PyTorch's CUDA time for the same models (bench/gpu/torch_cuda.py)
#   4. bench/gpu/peers.mjs: ours on WebGPU vs onnxruntime-web's WebGPU EP vs ours on WASM
#   5. bench/gpu/tiles.mjs: the tiled kernels' time per output tile on the models' shapes
# Writes DIR/gpu-bench.md (the tables), gpu-bench.json, gpu-tiles.md and gpu-bench.log. Exit 0 when the tables
# were written (a failed engine is a row that says so), 1 when a step before them failed.
set -uo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$REPO"
OUT=build/gpu-bench WORK=${TMPDIR:-/tmp}/tir-gpu-bench RUNS=20 THREADS=8 MODELS=resnet50,bert_base
PY=${TIR_PYTHON:-python3} LLM=1 TORCH=1
while [[ $# -gt 0 ]]; do
    case $1 in
        --out) OUT=$2; shift 2 ;;
        --work) WORK=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        --threads) THREADS=$2; shift 2 ;;
        --models) MODELS=$2; shift 2 ;;
        --no-llm) LLM=0; shift ;;      # the decoder rows (weights, ONNX, timings) are skipped
        --no-torch) TORCH=0; shift ;;  # no PyTorch CUDA column
        *) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
mkdir -p "$OUT" "$WORK"
OUT=$(cd "$OUT" && pwd)
LOG=$OUT/gpu-bench.log
: >"$LOG"
CARRY=$REPO/.gpu-carry
step() { echo "gpu-bench: $* ($(date -u +%H:%M:%S))" | tee -a "$LOG"; }
fail() { step "FAILED: $*"; exit 1; }
[[ -f $CARRY/node.xz ]] || fail "no $CARRY/node.xz: run bench/gpu/pack.sh here and upload .gpu-carry"

step "1. unpack"
T=$WORK/tools
mkdir -p "$T/webgpu/dist" "$T/ort"
xz -dc "$CARRY/node.xz" >"$T/node" && chmod +x "$T/node" || fail "node"
cp "$CARRY"/webgpu/*.js* "$T/webgpu/"
xz -dc "$CARRY/webgpu/dist/linux-x64.dawn.node.xz" >"$T/webgpu/dist/linux-x64.dawn.node" || fail "dawn.node"
cp "$CARRY"/ort/*.mjs "$T/ort/"
xz -dc "$CARRY/ort/ort-wasm-simd-threaded.asyncify.wasm.xz" >"$T/ort/ort-wasm-simd-threaded.asyncify.wasm" || fail "ort"
tar -C npm -xJf "$CARRY/dist.tar.xz" || fail "npm/dist and npm/lib"
# NVIDIA's Vulkan driver (libGLX_nvidia) needs the Vulkan loader and glvnd's libraries; without
# them there it answers "Found no drivers". Only on a machine with the NVIDIA driver mounted.
nv=/usr/local/nvidia/share
if [[ -d $nv ]]; then
    for deb in "$CARRY"/debs/*.deb; do dpkg -x "$deb" /; done
    ldconfig
    [[ -z ${VK_DRIVER_FILES:-} && -f $nv/vulkan/icd.d/nvidia_icd.json ]] && export VK_DRIVER_FILES=$nv/vulkan/icd.d/nvidia_icd.json
    [[ -z ${__EGL_VENDOR_LIBRARY_FILENAMES:-} && -f $nv/glvnd/egl_vendor.d/10_nvidia.json ]] \
        && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv/glvnd/egl_vendor.d/10_nvidia.json
fi
{ "$T/node" --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"; ls /usr/local/nvidia/share/vulkan/icd.d /usr/share/vulkan/icd.d /etc/vulkan/icd.d; ldd "$(ldconfig -p | awk '/libGLX_nvidia.so.0 /{print $NF; exit}')" | grep -i "not found"; } >>"$LOG" 2>&1

step "2. models"
"$PY" bench/export_bench.py --models "$MODELS" --out "$WORK/bench" >>"$LOG" 2>&1 || fail "export_bench.py"
[[ $LLM -eq 0 ]] || "$PY" bench/gpu/make_llm.py --out "$WORK/llm" >>"$LOG" 2>&1 || step "make_llm.py failed: the decoder rows will say so"

step "3. PyTorch CUDA"
llm_w=(); [[ $LLM -eq 1 && -f $WORK/llm/weights.safetensors ]] && llm_w=(--llm-weights "$WORK/llm/weights.safetensors")
[[ $TORCH -eq 0 ]] || timeout 150 "$PY" bench/gpu/torch_cuda.py --json "$WORK/torch.json" --models "$MODELS" "${llm_w[@]}" >>"$LOG" 2>&1 \
    || step "torch_cuda.py failed: no PyTorch column"

step "4. ours vs onnxruntime-web on WebGPU"
TIR_DAWN_NODE=$T/webgpu/index.js TIR_ORT_WEBGPU=$T/ort/ort.webgpu.min.mjs timeout 330 "$T/node" bench/gpu/peers.mjs --timeout-s 120 \
    --bench "$WORK/bench" --models "$MODELS" --runs "$RUNS" --threads "$THREADS" --torch "$WORK/torch.json" \
    --llm-model bench/models/llm_gpt2_small "${llm_w[@]}" --llm-onnx "$WORK/llm/decode.onnx" \
    --md "$OUT/gpu-bench.md" --json "$OUT/gpu-bench.json" >>"$LOG" 2>&1
rc=$?

step "5. tile sweep (bench/gpu/tiles.mjs)"
TIR_DAWN_NODE=$T/webgpu/index.js timeout 120 "$T/node" bench/gpu/tiles.mjs --md "$OUT/gpu-tiles.md" >>"$LOG" 2>&1 \
    || step "tiles.mjs failed"
step "done (peers.mjs exit $rc)"
[[ $rc -eq 0 && -f $OUT/gpu-bench.md ]]
