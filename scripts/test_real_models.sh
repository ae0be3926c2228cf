#!/usr/bin/env bash
# Real models end to end (issue 24), as root: needs build/native/torchir (scripts/build.sh) and
# npm/dist/ (scripts/build_wasm.sh).
#  1. scripts/prepare_models.sh: the torch 2.x chroot (created on first use: a few minutes of
#     Debian downloads) and all-MiniLM-L6-v2 exported by the real pytorch-ir, with PyTorch's
#     reference embeddings of held-out sentences;
#  2. tools/pyir_fixtures.sh: every committed torch2.14-training fixture IR re-exported by the real
#     pytorch-ir in that chroot must equal the committed file byte for byte (and ir_writer's
#     output too);
#  3. tools/minilm_fidelity.py: the native engine (torchir CLI) vs PyTorch, cosine >= 0.99999;
#     then --int8: models/all-MiniLM-L6-v2-int8 (PyTorch's PT2E dynamic int8) vs PyTorch's
#     quantized module and vs float32 (within PyTorch int8's own noise), every int8 linear lowered;
#  4. node --test tests/minilm/: examples/node/embed.mjs --json on WASM vs PyTorch (float32 and
#     int8), and tokenizers.js vs transformers' token ids.
set -euo pipefail
cd "$(dirname "$0")/.."
step() {
    local t0=$SECONDS
    "$@"
    echo "test_real_models: '$*' took $((SECONDS - t0)) s"
}
step bash scripts/build_npm.sh  # examples/node/embed.mjs imports npm/index.js (from npm/src)
step bash scripts/prepare_models.sh
step bash tools/pyir_fixtures.sh
step /usr/bin/python3 tools/minilm_fidelity.py --torchir build/native/torchir
step /usr/bin/python3 tools/minilm_fidelity.py --torchir build/native/torchir --int8
step node --test tests/minilm/
