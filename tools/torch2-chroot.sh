#!/usr/bin/env bash
# torch2-chroot.sh — a Debian sid chroot with python3-torch 2.x, for exporting
# fixtures in the torch.export ("training") flavor. Run as root.
#
#   tools/torch2-chroot.sh [DIR]              create/update the chroot (default DIR below)
#   tools/torch2-chroot.sh [DIR] run -- CMD…  run CMD inside it, repo bind-mounted at /repo, with
#                                             PYTHONPATH=/repo/build/pyir (the real pytorch-ir,
#                                             installed there first by tools/pyir_env.sh)
#
# Environment: TIR_CHROOT_SUITE (default sid), TIR_CHROOT_MIRROR (default: the
# first Debian mirror found in the host's apt sources; none found is an error), TIR_CHROOT_EXTRA (extra Debian
# packages, e.g. "python3-transformers" for tools/export_llm.py; installed when missing).
set -euo pipefail

DEFAULT_DIR=/var/cache/tir-torch2/sid
SUITE=${TIR_CHROOT_SUITE:-sid}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "torch2-chroot: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "must run as root"

# Several checkouts may use one chroot at the same time: each call mounts /repo, /proc and /dev in
# a mount namespace of its own, so one call never sees (or unmounts) another checkout at /repo.
if [[ -z ${TIR_CHROOT_PRIVATE_NS:-} ]]; then
    command -v unshare >/dev/null || die "unshare (util-linux) not found"
    TIR_CHROOT_PRIVATE_NS=1 exec unshare --mount --propagation private bash "${BASH_SOURCE[0]}" "$@"
fi

DIR=$DEFAULT_DIR
if [[ $# -gt 0 && $1 != run ]]; then DIR=$1; shift; fi

host_mirror() {
    # Prefer an explicit override, then deb822 .sources files, then sources.list.
    if [[ -n ${TIR_CHROOT_MIRROR:-} ]]; then echo "$TIR_CHROOT_MIRROR"; return; fi
    local f url
    for f in /etc/apt/sources.list.d/*.sources; do
        [[ -f $f ]] || continue
        url=$(awk 'tolower($1)=="uris:" {for (i=2;i<=NF;i++) print $i}' "$f" \
              | grep -E '/debian/?$' | grep -v security | head -n1 || true)
        [[ -n $url ]] && { echo "${url%/}"; return; }
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [[ -f $f ]] || continue
        url=$(awk '$1=="deb" {for (i=2;i<=NF;i++) if ($i ~ /^(https?|file):/) {print $i; break}}' "$f" \
              | grep -E '/debian/?$' | grep -v security | head -n1 || true)
        [[ -n $url ]] && { echo "${url%/}"; return; }
    done
    return 1
}

have_torch() { [[ -d $DIR/usr/lib/python3/dist-packages/torch ]]; }

install_extra() {
    [[ -n ${TIR_CHROOT_EXTRA:-} ]] || return 0
    with_mounts chroot "$DIR" /usr/bin/env DEBIAN_FRONTEND=noninteractive \
        bash -c "dpkg -s $TIR_CHROOT_EXTRA >/dev/null 2>&1 || { apt-get update && apt-get install -y --no-install-recommends $TIR_CHROOT_EXTRA && apt-get clean; }"
}

setup() {
    if have_torch; then
        echo "torch2-chroot: $DIR already has python3-torch"
        install_extra
        return
    fi
    command -v debootstrap >/dev/null || {
        apt-get update
        apt-get install -y debootstrap
    }
    local mirror
    mirror=$(host_mirror) || die "no Debian mirror in the host's apt configuration (/etc/apt/sources.list, /etc/apt/sources.list.d/); set TIR_CHROOT_MIRROR to one"
    mkdir -p "$DIR"
    if [[ ! -x $DIR/usr/bin/apt-get ]]; then
        echo "torch2-chroot: debootstrap $SUITE into $DIR from $mirror"
        debootstrap --variant=minbase "$SUITE" "$DIR" "$mirror"
    fi
    cp -L /etc/resolv.conf "$DIR/etc/resolv.conf" 2>/dev/null || true
    # The mirror may serve a frozen snapshot whose Release file is past Valid-Until.
    echo 'Acquire::Check-Valid-Until "false";' > "$DIR/etc/apt/apt.conf.d/99tir-no-check-valid-until"
    with_mounts chroot "$DIR" /usr/bin/env DEBIAN_FRONTEND=noninteractive \
        bash -c 'apt-get update && apt-get install -y --no-install-recommends python3-torch python3-torchvision && apt-get clean'
    have_torch || die "python3-torch did not install"
    with_mounts chroot "$DIR" /usr/bin/python3 -c 'import torch, torchvision; print("torch", torch.__version__, "torchvision", torchvision.__version__)'
    install_extra
}

MOUNTED=()
cleanup() {
    local i
    for ((i=${#MOUNTED[@]}-1; i>=0; i--)); do umount -l "${MOUNTED[i]}" 2>/dev/null || true; done
    MOUNTED=()
}

with_mounts() {
    trap cleanup EXIT INT TERM
    mkdir -p "$DIR/proc" "$DIR/dev" "$DIR/repo"
    # In this call's own mount namespace: mount over whatever another call left there.
    mount -t proc proc "$DIR/proc"; MOUNTED+=("$DIR/proc")
    mount --bind /dev "$DIR/dev"; MOUNTED+=("$DIR/dev")
    mount --bind "$REPO" "$DIR/repo"; MOUNTED+=("$DIR/repo")
    local rc=0
    "$@" || rc=$?
    cleanup
    trap - EXIT INT TERM
    return $rc
}

if [[ ${1:-} == run ]]; then
    shift
    [[ ${1:-} == -- ]] && shift
    [[ $# -gt 0 ]] || die "usage: $0 [DIR] run -- CMD..."
    have_torch || die "$DIR has no python3-torch; run '$0 $DIR' first"
    # The exporters' pure-Python packages (pytorch-ir, ...) at their pinned versions.
    bash "$REPO/tools/pyir_env.sh" "$REPO/build/pyir" pytorch-ir
    with_mounts chroot "$DIR" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=/repo/build/pyir \
        bash -c 'cd /repo && exec "$@"' bash "$@"
else
    [[ $# -eq 0 ]] || die "usage: $0 [DIR] | $0 [DIR] run -- CMD..."
    setup
fi
