#!/usr/bin/env bash
# make_fixtures.sh OUTDIR — generate the weights and reference I/O that are not committed.
#
# For every tests/fixtures/models/<model>/<flavor>/model.json that has no weights.safetensors
# beside it (tools/zoo.py's ZOO_IR_ONLY: resnet18/50, mobilenet_v2, gpt2_wide...: too big to
# commit), runs
#   export_fixture.py <model> --from-ir model.json --out OUTDIR/<model>/<flavor>
# on the host torch (Debian python3-torch 1.13 + python3-torchvision), and copies model.json
# there too, so OUTDIR/<model>/<flavor>/ holds model.json, weights.safetensors, io.safetensors.
# All of them run in one exporter process (export_fixture.py --from-ir-batch).
# Output is deterministic (fixed seeds); a directory whose files are newer than its model.json
# and than export_fixture.py / tools/zoo*.py is left as it is.
#
# Also writes OUTDIR/llm/<name>/weights.safetensors for every tests/fixtures/llm/<name>/config.json
# (tools/llm_weights.py: pure Python, no torch; skipped when newer than config.json and
# llm_weights.py).
#
# Then, for EVERY fixture directory (committed or generated), writes the float64 truth
# OUTDIR/<model>/<flavor>/truth64.safetensors (+ truth64_step<k>.safetensors for io_step<k>):
# tools/fixture_truth.py runs the same module with the fixture's weights and inputs in float64,
# all fixtures in one process; a truth file newer than the fixture's weights/io files and than
# the fixture tools (export_fixture.py, zoo*.py, fixture_truth.py) is left as it is.
#
# Environment: TIR_PYTHON (default /usr/bin/python3), TIR_FIXTURES (default
# <repo>/tests/fixtures/models), TIR_FIXTURES_TRUTH=0 (skip the float64 truth files).
# A fixture the exporter cannot make does not stop the others; the exit status is then 1.
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
OUT=$1
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC=${TIR_FIXTURES:-$REPO/tests/fixtures/models}
PY=${TIR_PYTHON:-/usr/bin/python3}
EXPORTER=$REPO/tools/export_fixture.py
ZOO=$(ls -t "$REPO"/tools/zoo*.py | head -n1)  # the newest zoo module (zoo.py, zoo_<family>.py)
LLM_WEIGHTS=$REPO/tools/llm_weights.py

# LLM fixtures (tests/fixtures/llm/<name>): weights from a pure-Python generator, no torch needed.
llm_made=0
for cfg in "$REPO"/tests/fixtures/llm/*/config.json; do
    [[ -f $cfg ]] || continue
    name=$(basename "$(dirname "$cfg")")
    # a quantized LLM fixture carries PyTorch's quantized weights itself (export_llm.py --quantize)
    [[ -f $(dirname "$cfg")/weights.safetensors ]] && continue
    dest=$OUT/llm/$name/weights.safetensors
    if [[ -f $dest && $dest -nt $cfg && $dest -nt $LLM_WEIGHTS ]]; then
        continue
    fi
    "$PY" "$LLM_WEIGHTS" --config "$cfg" --out "$dest"
    llm_made=$((llm_made + 1))
done
echo "make_fixtures: generated $llm_made LLM weight file(s) under $OUT/llm"

"$PY" -c 'import torch, torchvision' 2>/dev/null || {
    echo "make_fixtures: $PY cannot import torch and torchvision" \
         "(apt-get install python3-torch python3-torchvision)" >&2
    exit 1
}

mkdir -p "$OUT"
# One exporter process for every stale directory (importing torch dominates the run time).
jobs=()
while IFS= read -r json; do
    dir=$(dirname "$json")
    [[ -f $dir/weights.safetensors ]] && continue
    rel=${dir#"$SRC"/}
    model=${rel%%/*}
    dest=$OUT/$rel
    if [[ -f $dest/weights.safetensors && -f $dest/io.safetensors && -f $dest/model.json
          && $dest/io.safetensors -nt $json && $dest/io.safetensors -nt $EXPORTER
          && $dest/io.safetensors -nt $ZOO ]] \
       && cmp -s "$json" "$dest/model.json"; then
        continue
    fi
    mkdir -p "$dest"
    rm -f "$dest/model.json" "$dest/io.safetensors"  # stale until the exporter has succeeded
    jobs+=("$model $json $dest")
done < <(find "$SRC" -name model.json | LC_ALL=C sort)
export_failed=0
if [[ ${#jobs[@]} -gt 0 ]]; then
    # The exporter goes on past a fixture it cannot make (and exits 1 at the end): copy
    # model.json (which marks a directory done) only where it wrote io.safetensors.
    printf '%s\n' "${jobs[@]}" | "$PY" "$EXPORTER" --from-ir-batch || export_failed=1
    for job in "${jobs[@]}"; do
        read -r _ json dest <<<"$job"
        if [[ -f $dest/io.safetensors ]]; then cp "$json" "$dest/model.json"; fi
    done
fi
echo "make_fixtures: generated ${#jobs[@]} fixture(s) under $OUT$( ((export_failed)) && echo ' (SOME FAILED, see above)')"
# TIR_FIXTURES_TRUTH=0: weights and io only (scripts/gpu_check.sh computes its own float64).
if [[ ${TIR_FIXTURES_TRUTH:-1} == 0 ]]; then exit "$export_failed"; fi

# Float64 truth for every fixture directory (the model tests fail without it).
TRUTH=$REPO/tools/fixture_truth.py
tools_newest=$(ls -t "$EXPORTER" "$TRUTH" "$REPO"/tools/zoo*.py | head -1)
truth_jobs=()
while IFS= read -r json; do
    dir=$(dirname "$json")
    rel=${dir#"$SRC"/}
    model=${rel%%/*}
    base=$dir
    [[ -f $base/weights.safetensors ]] || base=$OUT/$rel
    dest=$OUT/$rel/truth64.safetensors
    fresh=1
    [[ -f $dest ]] || fresh=0
    for f in "$base"/weights.safetensors "$base"/io.safetensors "$base"/io_step*.safetensors \
             "$tools_newest"; do
        [[ -f $f ]] || continue  # an unmatched io_step* glob
        [[ $dest -nt $f ]] || fresh=0
    done
    ((fresh)) && continue
    truth_jobs+=("$model $base/weights.safetensors $base/io.safetensors $OUT/$rel")
done < <(find "$SRC" -name model.json | LC_ALL=C sort)
if [[ ${#truth_jobs[@]} -gt 0 ]]; then
    printf '%s\n' "${truth_jobs[@]}" | "$PY" "$TRUTH"
fi
echo "make_fixtures: wrote ${#truth_jobs[@]} float64 truth file(s) under $OUT"
exit "$export_failed"
