#!/usr/bin/env bash
# WebGPU test environment (docs/webgpu.md): Mesa's lavapipe Vulkan driver from bookworm-backports
# (Debian 12's own mesa 22.3 gives Dawn no adapter) and the pinned `webgpu` npm package (dawn.node)
# in tests/webgpu/node_modules. Idempotent; run as root or with sudo. The backports suite is added
# with the Debian mirror this machine already uses (read from its apt sources), never a fixed host.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo

have_new_lavapipe() {
  local v
  v=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null) || return 1
  dpkg --compare-versions "$v" ge 24
}

# The URI of the apt source that serves the main 'bookworm' suite (deb822 or one-line format).
debian_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk 'BEGIN{RS=""; FS="\n"}
      { uri=""; ok=0; deb=0; signed="";
        for (i=1;i<=NF;i++) { line=$i; sub(/^[ \t]+/, "", line); if (line ~ /^#/) continue;
          if (line ~ /^Types:/ && line ~ /(^|[ \t])deb([ \t]|$)/) deb=1;
          if (line ~ /^URIs:/) { split(line, a, /[ \t]+/); uri=a[2] }
          if (line ~ /^Suites:/ && line ~ /[ \t]bookworm([ \t]|$)/) ok=1;
          if (line ~ /^Signed-By:/) { split(line, b, /[ \t]+/); signed=b[2] } }
        if (deb && ok && uri != "") { print uri " " signed; exit } }' "$f"
  done
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '$1=="deb" { i=2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
         if ($(i+1)=="bookworm") { print $i; exit } }'
}

if ! have_new_lavapipe; then
  read -r uri signed < <(debian_mirror | head -n1) || true
  if [ -z "${uri:-}" ]; then
    echo "setup_webgpu: no apt source serves 'bookworm'; cannot add bookworm-backports" >&2
    exit 1
  fi
  echo "setup_webgpu: adding bookworm-backports from $uri"
  {
    echo "Types: deb"
    echo "URIs: $uri"
    echo "Suites: bookworm-backports"
    echo "Components: main"
    [ -n "${signed:-}" ] && echo "Signed-By: $signed"
  } | $SUDO tee /etc/apt/sources.list.d/torchir-bookworm-backports.sources >/dev/null
  $SUDO apt-get update -qq
  # -t lets apt take mesa-vulkan-drivers (and whichever of its dependencies need newer versions)
  # from backports; nothing else on the machine changes suite.
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    -t bookworm-backports mesa-vulkan-drivers >/dev/null
  have_new_lavapipe || { echo "setup_webgpu: mesa-vulkan-drivers is still older than 24" >&2; exit 1; }
fi
echo "setup_webgpu: mesa-vulkan-drivers $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)"

# dawn.node: exact pin and lockfile in tests/webgpu (a test-only package nothing ships or bundles).
if [ ! -f tests/webgpu/node_modules/webgpu/package.json ]; then
  (cd tests/webgpu && npm ci --no-audit --no-fund --loglevel=error)
fi
