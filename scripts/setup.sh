#!/usr/bin/env bash
# Installs the Debian packages the native build and tests need (idempotent; run as root).
# With arguments, installs just those packages (scripts/build_wasm.sh uses this).
set -euo pipefail
default_packages=(cmake g++ make ccache libhwy-dev libgtest-dev libgmock-dev googletest
          libtorch-dev python3-torch python3-torchvision python3-numpy
          chromium chromium-driver
          clang-14 libclang-rt-14-dev)  # libFuzzer + sanitizer runtimes: scripts/fuzz.sh, scripts/test_sanitizers.sh
if [ $# -gt 0 ]; then packages=("$@"); else packages=("${default_packages[@]}"); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
