#!/usr/bin/env bash
# check_libtorch2.sh — proves the LibTorch reference backend (src/torch_backend)
# builds against LibTorch 2.x and passes its own tests there. Uses the Debian sid
# chroot made by tools/torch2-chroot.sh: installs the C++ toolchain and
# libtorch-dev inside it, bind-mounts this repo at /repo, configures and builds
# tir_parity_tests in build/torch2, and runs the reference backend's tests.
# Run as root.
#
#   tools/check_libtorch2.sh [DIR]     (default /var/cache/tir-torch2/sid)
#
# Environment: TIR_GTEST_FILTER (default 'Reference.*:ReferenceRunner.*:ParityHarness.*'),
# TIR_JOBS (default 2), TIR_SKIP_APT=1 to skip the package step.
set -euo pipefail

DIR=${1:-/var/cache/tir-torch2/sid}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=build/torch2
FILTER=${TIR_GTEST_FILTER:-Reference.*:ReferenceRunner.*:ParityHarness.*}
JOBS=${TIR_JOBS:-2}
PKGS=(libtorch-dev g++ cmake make libhwy-dev libgtest-dev libgmock-dev)

die() { echo "check_libtorch2: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "must run as root"
[[ -x $DIR/usr/bin/apt-get ]] || die "$DIR is not a Debian chroot; run tools/torch2-chroot.sh first"

# Mount only what is not mounted yet, and unmount only what we mounted (another
# session may be using the same chroot).
MOUNTED=()
cleanup() {
    local i
    for ((i=${#MOUNTED[@]}-1; i>=0; i--)); do umount -l "${MOUNTED[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM
mkdir -p "$DIR/proc" "$DIR/dev" "$DIR/repo"
mountpoint -q "$DIR/proc" || { mount -t proc proc "$DIR/proc"; MOUNTED+=("$DIR/proc"); }
mountpoint -q "$DIR/dev" || { mount --bind /dev "$DIR/dev"; MOUNTED+=("$DIR/dev"); }
if mountpoint -q "$DIR/repo"; then
    [[ -f $DIR/repo/tools/check_libtorch2.sh ]] || die "$DIR/repo is mounted but is not this repo"
else
    mount --bind "$REPO" "$DIR/repo"; MOUNTED+=("$DIR/repo")
fi

in_chroot() {
    chroot "$DIR" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive bash -c "$1"
}

if [[ ${TIR_SKIP_APT:-0} != 1 ]]; then
    if ! in_chroot "dpkg-query -W ${PKGS[*]} >/dev/null 2>&1"; then
        cp -L /etc/resolv.conf "$DIR/etc/resolv.conf" 2>/dev/null || true
        in_chroot "apt-get update && apt-get install -y --no-install-recommends ${PKGS[*]} && apt-get clean"
    fi
fi

echo "check_libtorch2: LibTorch in chroot:"
in_chroot "grep -rh -A1 '#define TORCH_VERSION ' /usr/include/torch | grep -o '\"[0-9][^\"]*\"' | head -n1; \
    g++ --version | head -n1"

# LibTorch 2.10+ headers need C++20; its TorchConfig sets CXX_STANDARD 20 on the
# imported `torch` target, which does not propagate to tir_torch. Until the top
# CMakeLists raises tir_torch itself, raise it here (a no-op once it does).
mkdir -p "$REPO/$BUILD"
cat > "$REPO/$BUILD/tir_torch_std.cmake" <<'CMAKE'
function(_tir_torch_std)
  if(TARGET tir_torch AND TARGET torch)
    get_target_property(want torch CXX_STANDARD)
    get_target_property(have tir_torch CXX_STANDARD)
    if(want AND want GREATER 17 AND (NOT have OR have LESS want))
      set_target_properties(tir_torch PROPERTIES CXX_STANDARD ${want})
      message(STATUS "check_libtorch2: tir_torch raised to C++${want} (LibTorch requires it)")
    endif()
  endif()
endfunction()
cmake_language(DEFER CALL _tir_torch_std)
CMAKE

in_chroot "cd /repo && cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=Release -DTIR_LIBTORCH=ON \
    -DCMAKE_PROJECT_INCLUDE=/repo/$BUILD/tir_torch_std.cmake \
    && cmake --build $BUILD -j$JOBS --target tir_parity_tests"
in_chroot "cd /repo && $BUILD/tests/tir_parity_tests --gtest_filter='$FILTER'"
echo "check_libtorch2: OK (built and passed '$FILTER' against LibTorch 2.x)"
