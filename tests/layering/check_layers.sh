#!/usr/bin/env bash
# Enforces the layer rule: each layer includes only itself and the layers below.
#   core    -> (nothing of ours)
#   kernels -> core
#   ir, weights -> core (ir), core + ir (weights)
# Prints every offending include and exits 1; run by ctest (test "layering").
set -euo pipefail
src=${1:-$(cd "$(dirname "$0")/../../src" && pwd)}
bad=0
check() {  # check LAYER ALLOWED_REGEX
  local layer=$1 allowed=$2 line
  while IFS= read -r line; do
    echo "layering: $line (a $layer file may include only: $allowed)"
    bad=1
  done < <(grep -rnE '^#include "(core|kernels|ops|runtime|ir|weights|verify|torch_backend|cli)/' "$src/$layer" | grep -vE "#include \"($allowed)/" || true)
}
check core 'core'
check kernels 'core|kernels'
check ir 'core|ir'
check weights 'core|ir|weights'
[ $bad -eq 0 ] && echo "layering: OK (core <- kernels; core <- ir <- weights)"
exit $bad
