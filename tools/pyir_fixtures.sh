#!/usr/bin/env bash
# pyir_fixtures.sh [--update] [--only M1,M2] — re-export every committed training-flavor fixture IR
# (tests/fixtures/models/<model>/torch<M>.<m>-training/model.json) with the real pytorch-ir, in the
# torch 2.x chroot of tools/torch2-chroot.sh, and byte-compare it with the committed file and with
# tools/ir_writer.py's output (tools/pyir_export.py --cross-check). --update rewrites committed
# files that differ. Run as root. Environment: TIR_CHROOT_DIR (default: torch2-chroot.sh's sid
# chroot; /var/cache/tir-torch2/trixie checks the torch2.6-training directories).
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
chroot_args=()
[[ -n ${TIR_CHROOT_DIR:-} ]] && chroot_args=("$TIR_CHROOT_DIR")
exec bash "$REPO/tools/torch2-chroot.sh" "${chroot_args[@]}" run -- \
    python3 tools/pyir_export.py --cross-check "$@"
