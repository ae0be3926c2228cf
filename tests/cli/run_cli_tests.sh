#!/usr/bin/env bash
# End-to-end checks of the torchir CLI: Mermaid/pie byte identity on the seed
# IRs, verify (native, --reference64 and LibTorch) and parity on model fixtures, and the
# error messages for bad input. Usage: run_cli_tests.sh TORCHIR [GENERATED_FIXTURES_DIR]
# The fixture loop takes a few fixtures that reach each of its branches (a plain pass, a CNN, an
# op this LibTorch lacks, a float16 model, reassociation only, a higher-order op, buffers):
# every fixture already goes through the same CLI's `parity --criterion truth64` in
# scripts/gpu_check.sh --device cpu (scripts/test.sh runs it after CTest) and through
# ModelParityTest in-process, and each command here loads LibTorch (~1 s), so all 84 fixtures
# took 6 of CTest's 9 minutes. TIR_CLI_ALL_FIXTURES=1 runs the loop over all of them.
set -uo pipefail
torchir=$1
here=$(cd "$(dirname "$0")/.." && pwd)
fixtures=$here/fixtures
generated=${2:-$here/../build/fixtures}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# expect_output NAME EXPECTED_EXIT SUBSTRING CMD...
expect_output() {
  local name=$1 want_rc=$2 needle=$3; shift 3
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [ "$rc" -ne "$want_rc" ]; then bad "$name: exit $rc (want $want_rc): $out"; return; fi
  if [ -n "$needle" ] && ! grep -qF -- "$needle" <<<"$out"; then bad "$name: output lacks '$needle': $out"; return; fi
  ok
}

for json in "$fixtures"/seeds/*.json; do
  base=${json%.json}
  if [ -f "$base.mmd" ]; then
    "$torchir" visualize "$json" -o "$tmp/out.mmd"
    # the CLI prints like Python's print(): one trailing newline
    if cmp -s <(printf '%s\n' "$(cat "$base.mmd")") "$tmp/out.mmd"; then ok; else bad "visualize $(basename "$json")"; fi
  fi
  if [ -f "$base.pie" ]; then
    if cmp -s <(printf '%s\n' "$(cat "$base.pie")") <("$torchir" pie "$json"); then ok; else bad "pie $(basename "$json")"; fi
  fi
  expect_output "info $(basename "$json")" 0 "Op distribution:" "$torchir" info "$json"
done

have_libtorch=0
"$torchir" verify --help >/dev/null 2>&1
while IFS= read -r json; do
  dir=$(dirname "$json"); rel=${dir#"$fixtures"/models/}
  w=$dir/weights.safetensors; io=$dir/io.safetensors
  [ -f "$w" ] || w=$generated/$rel/weights.safetensors
  [ -f "$io" ] || io=$generated/$rel/io.safetensors
  if [ ! -f "$w" ] || [ ! -f "$io" ]; then echo "skip $rel (weights/io not generated)"; continue; fi
  # float64 truth (tools/make_fixtures.sh): every output within 2x PyTorch's error + 1e-6 x scale.
  # `reassoc`: verify's rtol = atol = 1e-5 fails, and the truth report says that is only
  # reassociation (large activations: resnet50_raw, gpt2_wide; float16 references: *_half).
  t=$generated/$rel/truth64.safetensors
  reassoc=0
  if [ ! -f "$t" ]; then
    bad "verify --reference64 $rel: no float64 truth $t (run tools/make_fixtures.sh)"
  else
    out=$("$torchir" verify "$json" --weights "$w" --io "$io" --reference64 "$t" 2>&1) && rc=0 || rc=$?
    grep -q "only reassociation" <<<"$out" && reassoc=1
    if { [ $rc -eq 0 ] || { [ $rc -eq 1 ] && [ $reassoc -eq 1 ]; }; } \
       && grep -q "within bound" <<<"$out" && ! grep -q "OUTSIDE" <<<"$out"; then ok
    else bad "verify --reference64 $rel (exit $rc): $out"; fi
  fi
  if [ $reassoc -eq 1 ]; then
    expect_output "verify $rel (fails rtol by reassociation only)" 1 "Verification FAILED" "$torchir" verify "$json" --weights "$w" --io "$io"
    echo "skip libtorch checks for $rel: rtol = atol = 1e-5 misses by reassociation (ModelParityTest judges it against float64)"
    continue
  fi
  expect_output "verify $rel" 0 "Verification PASSED" "$torchir" verify "$json" --weights "$w" --io "$io"
  if "$torchir" verify "$json" --weights "$w" --io "$io" --backend libtorch >"$tmp/ref.txt" 2>&1; then
    ok; have_libtorch=1
    expect_output "parity $rel" 0 "parity: no divergence" "$torchir" parity "$json" --weights "$w" --io "$io"
  elif grep -q "built without the LibTorch backend" "$tmp/ref.txt"; then
    echo "skip libtorch checks for $rel (no LibTorch backend)"
  elif grep -q "No ATen operator" "$tmp/ref.txt"; then
    echo "skip libtorch checks for $rel: $(grep -o 'No ATen operator [^ ]*' "$tmp/ref.txt" | head -1) in this LibTorch"
  elif grep -q "not implemented for 'Half'" "$tmp/ref.txt"; then
    echo "skip libtorch checks for $rel: this LibTorch has no CPU float16 $(grep -o '"[a-z_0-9]*" not implemented' "$tmp/ref.txt" | head -1 | cut -d'"' -f2)"
  else
    bad "verify --backend libtorch $rel: $(cat "$tmp/ref.txt")"
  fi
done < <(if [ "${TIR_CLI_ALL_FIXTURES:-0}" = 1 ]; then find "$fixtures/models" -name model.json | sort; else
  for f in SimpleMLP/torch1.13-decomposed resnet18/torch1.13-decomposed bert_encoder/torch2.14-training \
           convnext_half/torch2.14-training gpt2_wide/torch2.14-training llama_decoder/torch2.14-training \
           kv_cache/torch2.14-training; do echo "$fixtures/models/$f/model.json"; done; fi)

# Bad input: each gives a clear message and a non-zero exit, never a crash.
seed=$fixtures/seeds/SimpleMLP.json
printf '{"model_name": "x",\n  "nodes": [,]}' > "$tmp/bad.json"
expect_output "malformed json" 1 "line 2, column" "$torchir" info "$tmp/bad.json"
expect_output "missing file" 1 "nope.json" "$torchir" info "$tmp/nope.json"
expect_output "unknown command" 2 "unknown command" "$torchir" frobnicate
# Issue 12: --version, per-command options, usage errors exit 2, file names in file errors.
expect_output "--version" 0 "torchir 0." "$torchir" --version
expect_output "unknown option" 2 "usage error: unknown option --bogus" "$torchir" info "$seed" --bogus
expect_output "another command's option" 2 "usage error: unknown option --weights" "$torchir" info "$seed" --weights x
expect_output "missing required option" 2 "usage error: missing required option --io" "$torchir" verify "$seed" --weights x
expect_output "bad number" 2 "usage error: option --top expects a number, got 'x'" "$torchir" pie "$seed" --top x
expect_output "IR is a directory" 1 "$tmp: cannot open IR file: Is a directory" "$torchir" info "$tmp"
expect_output "unwritable -o" 1 "cannot write '$tmp/no/such.txt': No such file or directory" "$torchir" info "$seed" -o "$tmp/no/such.txt"
printf 'not a weights file at all' > "$tmp/junk.safetensors"
# run --profile --repeat --threads: median timing and the per-op-type table
cnn=$fixtures/models/small_cnn/torch2.14-training
if [ -f "$cnn/weights.safetensors" ]; then
  expect_output "run --repeat" 0 "median of 3 runs" "$torchir" run "$cnn/model.json" --weights "$cnn/weights.safetensors" \
    --inputs "$cnn/io.safetensors" --profile --repeat 3 --threads 1
  expect_output "run profile op table" 0 "per op type (median of 3 run(s)):" "$torchir" run "$cnn/model.json" \
    --weights "$cnn/weights.safetensors" --inputs "$cnn/io.safetensors" --profile --repeat 3
  expect_output "run --repeat 0" 2 "--repeat must be at least 1" "$torchir" run "$cnn/model.json" \
    --weights "$cnn/weights.safetensors" --inputs "$cnn/io.safetensors" --repeat 0
else
  bad "small_cnn fixture missing"
fi
# --weight-dtype: half-precision packed weights (outside 1e-5 of PyTorch, within 1e-2), bad names
mlp=$fixtures/models/SimpleMLP/torch2.14-training
for wd in float16 bfloat16; do
  expect_output "verify --weight-dtype $wd" 0 "Verification PASSED" "$torchir" verify "$mlp/model.json" \
    --weights "$mlp/weights.safetensors" --io "$mlp/io.safetensors" --weight-dtype $wd --rtol 1e-2 --atol 1e-2
done
# --reference64: ours and PyTorch's errors vs float64 side by side; the exit status stays rtol/atol's.
cnn_truth=$generated/small_cnn/torch2.14-training/truth64.safetensors
if [ -f "$cnn_truth" ]; then
  cnn_args=("$cnn/model.json" --weights "$cnn/weights.safetensors" --io "$cnn/io.safetensors" --reference64 "$cnn_truth")
  expect_output "--reference64 passed" 0 "output 0: ours " "$torchir" verify "${cnn_args[@]}"
  expect_output "--reference64 reassociation only" 1 "the rtol/atol failure is only reassociation" \
    "$torchir" verify "${cnn_args[@]}" --rtol 0 --atol 0
  expect_output "--reference64 inaccurate" 1 "not only reassociation: our error vs float64 exceeds 2x PyTorch's" \
    "$torchir" verify "${cnn_args[@]}" --weight-dtype bfloat16
  expect_output "--reference64 missing file" 1 "$tmp/nope.safetensors" "$torchir" verify "$cnn/model.json" \
    --weights "$cnn/weights.safetensors" --io "$cnn/io.safetensors" --reference64 "$tmp/nope.safetensors"
  expect_output "--reference64 wrong outputs" 1 "no tensor 'output.0'" "$torchir" verify "$cnn/model.json" \
    --weights "$cnn/weights.safetensors" --io "$cnn/io.safetensors" --reference64 "$cnn/weights.safetensors"
else
  bad "no float64 truth $cnn_truth (run tools/make_fixtures.sh)"
fi
# Unknown weight keys (issue 12): a warning naming the key and the closest IR key; --strict-weights: an error.
/usr/bin/python3 - "$mlp/weights.safetensors" "$tmp/typo.safetensors" <<'PY'
import json, struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", b[:8])[0]
header, data = json.loads(b[8:8 + n]), b[8 + n:]
header["fc1.wieght"] = {"dtype": "F32", "shape": [1], "data_offsets": [len(data), len(data) + 4]}
h = json.dumps(header).encode()
open(sys.argv[2], "wb").write(struct.pack("<Q", len(h)) + h + data + b"\0\0\0\0")
PY
expect_output "unknown weight key warns" 0 "torchir: warning: weights: 1 key matches no weight, buffer or constant of the IR: 'fc1.wieght' (did you mean 'fc1.weight'?)" \
  "$torchir" verify "$mlp/model.json" --weights "$tmp/typo.safetensors" --io "$mlp/io.safetensors"
expect_output "--strict-weights" 1 "WeightLoadError: weights: 1 key matches no weight" "$torchir" verify "$mlp/model.json" \
  --weights "$tmp/typo.safetensors" --io "$mlp/io.safetensors" --strict-weights
expect_output "run --weight-dtype" 0 "run time:" "$torchir" run "$mlp/model.json" --weights "$mlp/weights.safetensors" \
  --inputs "$mlp/io.safetensors" --weight-dtype bfloat16
expect_output "bad --weight-dtype" 2 "--weight-dtype must be float32, float16, bfloat16, int8, int4 or int4:G (G a positive multiple of 4), got 'int4:6'" \
  "$torchir" run "$mlp/model.json" --weights "$mlp/weights.safetensors" --inputs "$mlp/io.safetensors" --weight-dtype int4:6
# int8 / int4: load-time quantization of the linears (within the quantization's error, not 1e-5)
for wd in int8 int4:4; do
  expect_output "verify --weight-dtype $wd" 0 "Verification PASSED" "$torchir" verify "$mlp/model.json" \
    --weights "$mlp/weights.safetensors" --io "$mlp/io.safetensors" --weight-dtype $wd --rtol 0.1 --atol 0.1
done
# Limits (issue 10): caps from the command line, with suffixes; a bad value is a usage error (exit 2).
expect_output "run --max-tensor-bytes under" 0 "run time:" "$torchir" run "$mlp/model.json" \
  --weights "$mlp/weights.safetensors" --inputs "$mlp/io.safetensors" --max-tensor-bytes 1G --max-arena-bytes 1g \
  --max-run-work 1T
expect_output "run --max-tensor-bytes over" 1 "(max_tensor_bytes); raise it with SessionOptions::limits" "$torchir" run \
  "$mlp/model.json" --weights "$mlp/weights.safetensors" --inputs "$mlp/io.safetensors" --max-tensor-bytes 8
expect_output "verify --max-arena-bytes over" 1 "(max_arena_bytes)" "$torchir" verify "$mlp/model.json" \
  --weights "$mlp/weights.safetensors" --io "$mlp/io.safetensors" --max-arena-bytes 64
expect_output "verify --max-run-work over" 1 "(max_run_work)" "$torchir" verify "$mlp/model.json" \
  --weights "$mlp/weights.safetensors" --io "$mlp/io.safetensors" --max-run-work 10
for v in 12X -1 1.5G "" 99999999999999999999 20000000T; do
  expect_output "bad --max-tensor-bytes '$v'" 2 "usage error: --max-tensor-bytes" "$torchir" run "$mlp/model.json" \
    --weights "$mlp/weights.safetensors" --inputs "$mlp/io.safetensors" --max-tensor-bytes "$v"
done
printf '{"model_name": "z", "graph_inputs": [], "graph_outputs": [{"name": "z", "shape": [4611686018427387904], "dtype": "float32", "producer_node": "z"}], "weights": [], "weight_name_mapping": {}, "nodes": [{"name": "z", "op_type": "aten.zeros.default", "inputs": [], "outputs": [{"name": "z", "shape": [4611686018427387904], "dtype": "float32"}], "attrs": {"size": [4611686018427387904]}}]}' > "$tmp/zeros.json"
printf '\x02\x00\x00\x00\x00\x00\x00\x00{}' > "$tmp/empty.safetensors"
expect_output "zeros 2^62" 1 "node 'z' (aten.zeros.default) output 'z'" "$torchir" run "$tmp/zeros.json" \
  --weights "$tmp/empty.safetensors" --inputs "$tmp/empty.safetensors"
expect_output "junk weights" 1 "junk.safetensors" "$torchir" run "$seed" --weights "$tmp/junk.safetensors" --inputs "$tmp/junk.safetensors"

# --device cuda (issue 23): without CUDA, a clear message and exit 3 before anything is loaded
# (the IR path below does not exist); on a machine with CUDA, parity runs (docs/gpu-parity.md).
if [ -f "$cnn/weights.safetensors" ]; then
  cnn_io=("$cnn/model.json" --weights "$cnn/weights.safetensors" --io "$cnn/io.safetensors")
  out=$("$torchir" parity "${cnn_io[@]}" --device cuda 2>&1) && rc=0 || rc=$?
  if [ $rc -eq 3 ]; then
    expect_output "parity --device cuda without CUDA" 3 "DeviceUnavailableError: CUDA is not available to LibTorch " \
      "$torchir" parity "${cnn_io[@]}" --device cuda
    expect_output "CUDA checked before loading" 3 "CUDA is not available to LibTorch " \
      "$torchir" parity "$tmp/nope.json" --weights x --io y --device cuda:1
    expect_output "verify libtorch --device cuda without CUDA" 3 "CUDA is not available to LibTorch " \
      "$torchir" verify "${cnn_io[@]}" --backend libtorch --device cuda
  elif [ $rc -eq 0 ] && grep -q "parity: no divergence" <<<"$out"; then ok  # a machine with CUDA
  elif grep -q "built without the LibTorch backend" <<<"$out"; then echo "skip --device cuda (no LibTorch backend)"
  else bad "parity --device cuda (exit $rc): $out"; fi
  expect_output "verify native --device cuda" 2 "--device cuda needs --backend libtorch" \
    "$torchir" verify "${cnn_io[@]}" --device cuda
  expect_output "parity --criterion bogus" 2 "--criterion must be rtol or truth64, got 'bogus'" \
    "$torchir" parity "${cnn_io[@]}" --criterion bogus
  expect_output "parity --device bogus" 2 "usage error: --device must be cpu, cuda or cuda:N, got 'bogus'" \
    "$torchir" parity "${cnn_io[@]}" --device bogus
  if [ $have_libtorch -eq 1 ]; then
    expect_output "parity --criterion truth64" 0 "(10 against float64, 0 with rtol/atol)" \
      "$torchir" parity "${cnn_io[@]}" --criterion truth64
  fi
fi

# generate: the tiny LLaMA pair; prefill/decode io files verify each graph, and
# the greedy ids (last stdout line) equal Hugging Face generate()'s.
llm=$fixtures/llm/tiny_llama
llmw=$generated/llm/tiny_llama/weights.safetensors
if [ -f "$llmw" ]; then
  expect_output "verify llm prefill" 0 "Verification PASSED" "$torchir" verify "$llm/prefill.json" --weights "$llmw" --io "$llm/prefill_io.safetensors"
  expect_output "verify llm decode" 0 "Verification PASSED" "$torchir" verify "$llm/decode.json" --weights "$llmw" --io "$llm/decode_io.safetensors"
  read -r prompt want < <(/usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["prompts"][1]
print(",".join(map(str, p["input_ids"])), "_".join(map(str, p["generated_ids"])))' "$llm/expected.json")
  for flag in "" --no-donate; do
    got=$("$torchir" generate "$llm/prefill.json" "$llm/decode.json" --kv-mapping "$llm/kv_mapping.json" --weights "$llmw" \
          --prompt-ids "$prompt" --max-new-tokens 32 $flag 2>/dev/null | tail -n1 | tr ' ' '_')
    if [ "$got" = "$want" ]; then ok; else bad "generate $flag: got $got want $want"; fi
  done
  expect_output "generate prompt too long" 1 "takes at most 32" "$torchir" generate "$llm/prefill.json" "$llm/decode.json" \
    --kv-mapping "$llm/kv_mapping.json" --weights "$llmw" --prompt-ids "$(seq -s, 1 33)"
  expect_output "generate bad id" 2 "--prompt-ids: 'x' is not an integer token id" "$torchir" generate "$llm/prefill.json" \
    "$llm/decode.json" --kv-mapping "$llm/kv_mapping.json" --weights "$llmw" --prompt-ids 1,x
  expect_output "generate one IR" 2 "generate needs two IR files" "$torchir" generate "$llm/prefill.json" --kv-mapping x --weights x --prompt-ids 1
else
  bad "LLM weights missing: $llmw (tools/make_fixtures.sh)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
