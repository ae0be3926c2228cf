#!/usr/bin/env bash
# Enforces the layer rule: a layer includes only itself and the layers below it.
#
#   core                    the base: includes nothing of ours
#   kernels                 -> core                  (pointer-based math)
#   ir, weights             -> core                  (IR model and loaders; weight readers)
#   ops                     -> core, kernels, ir     (ops plan from IR nodes and their attrs)
#   runtime                 -> core, kernels, ir, weights, ops
#   verify                  -> core                  (output comparison only)
#   command_line            -> core                  (both CLIs' grammar: commands, options, usage)
#   torch_backend           -> core, ir, weights     (the LibTorch reference never shares our ops
#                                                     or kernels, so parity tests stay independent)
#   bindings (../bindings)  -> every layer of src/ but cli and torch_backend
#   cli                     -> every layer of src/
#
# Third-party headers stay in one layer each: Highway (hwy/) in kernels, LibTorch (torch/, ATen/,
# c10/) in torch_backend, Emscripten (emscripten/) in bindings. Includes that climb out of their
# folder ("../") are refused, as they would dodge the rule.
#
#   check_layers.sh [SRC_DIR]    (default: the repo's src/; bindings/ is read beside it)
#
# Prints every offending include as FILE:LINE and exits 1; run by ctest (test "layering").
set -euo pipefail
src=$(cd "${1:-$(dirname "$0")/../../src}" && pwd)
repo=$(dirname "$src")

# Known violations, tolerated until fixed: one "FILE:INCLUDE" per line (FILE relative to the repo,
# INCLUDE as written between the quotes), each with a comment saying why it is there. An entry
# that no longer matches an include fails the check, so the list cannot go stale. Empty today.
allowed_violations=(
)

ours='core|kernels|ir|weights|ops|runtime|verify|command_line|torch_backend|cli'
declare -A allow=(
  [core]=''
  [kernels]='core'
  [ir]='core'
  [weights]='core'
  [ops]='core|kernels|ir'
  [runtime]='core|kernels|ir|weights|ops'
  [verify]='core'
  [command_line]='core'
  [torch_backend]='core|ir|weights'
  [bindings]='core|kernels|ir|weights|ops|runtime|verify|command_line'
  [cli]='core|kernels|ir|weights|ops|runtime|verify|command_line|torch_backend'
)
declare -A third_party=([kernels]='hwy' [torch_backend]='torch|ATen|c10' [bindings]='emscripten')
all_third_party='hwy|torch|ATen|c10|emscripten'

bad=0
declare -A used_allowance=()
report() {  # report FILE LINE INCLUDE TEXT MESSAGE
  local key="${1#"$repo"/}:$3"
  for a in "${allowed_violations[@]}"; do
    if [ "$a" = "$key" ]; then used_allowance[$a]=1; return; fi
  done
  echo "layering: ${1#"$repo"/}:$2: $4: $5"
  bad=1
}

# A new folder under src/ needs its place in the table above.
for d in "$src"/*/; do
  d=$(basename "$d")
  [ -n "${allow[$d]+x}" ] || { echo "layering: src/$d/ is not a known layer: add it to tests/layering/check_layers.sh"; bad=1; }
done
for f in "$src"/*; do
  [ -f "$f" ] && { echo "layering: ${f#"$repo"/} lies outside every layer"; bad=1; }
done

for layer in "${!allow[@]}"; do
  dir=$src/$layer
  [ "$layer" = bindings ] && dir=$repo/bindings
  [ -d "$dir" ] || { echo "layering: $dir is missing"; bad=1; continue; }
  own="$layer${allow[$layer]:+|${allow[$layer]}}"
  tp=${third_party[$layer]:-}
  while IFS=: read -r file line text; do
    [[ $text =~ ^[[:space:]]*(#[[:space:]]*include[[:space:]]*[\<\"]([^\">]+)[\"\>]) ]] || continue
    text=${BASH_REMATCH[1]} inc=${BASH_REMATCH[2]}
    top=${inc%%/*}
    if [[ $inc == *../* ]]; then
      report "$file" "$line" "$inc" "$text" "includes climb out of their folder"
    elif [[ $inc == */* && $top =~ ^($ours)$ && ! $top =~ ^($own)$ ]]; then
      report "$file" "$line" "$inc" "$text" "a $layer file may include only: ${own//|/, }"
    elif [[ $inc == */* && $top =~ ^($all_third_party)$ && ! ( -n $tp && $top =~ ^($tp)$ ) ]]; then
      report "$file" "$line" "$inc" "$text" "$top/ headers belong to another layer"
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$dir" || true)
done

for a in "${allowed_violations[@]}"; do
  [ -n "${used_allowance[$a]:-}" ] || { echo "layering: allow-list entry '$a' matches nothing: remove it"; bad=1; }
done
[ $bad -eq 0 ] && echo "layering: OK (core <- kernels, ir, weights; ops <- runtime <- bindings, cli; verify; torch_backend)"
exit $bad
