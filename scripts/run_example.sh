#!/usr/bin/env bash
# The main job: builds the engine and verifies the bundled small CNN end to end
# (IR + safetensors weights + inputs/expected outputs) with the native CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
fx=tests/fixtures/models/small_cnn
ir=$(ls -d "$fx"/*/ | head -1)
build/native/torchir info "$ir/model.json"
build/native/torchir run "$ir/model.json" --weights "$ir/weights.safetensors" --inputs "$ir/io.safetensors"
build/native/torchir verify "$ir/model.json" --weights "$ir/weights.safetensors" --io "$ir/io.safetensors"
