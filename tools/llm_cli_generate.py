#!/usr/bin/env python3
"""Greedy generation with the engine's CLI (`torchir run`) on an LLM fixture's prefill/decode IR
pair, compared with the fixture's expected.json. Pure Python (no torch, no numpy).

Usage (from the repository root, after scripts/build.sh and tools/make_fixtures.sh build/fixtures):
    python3 tools/llm_cli_generate.py [--fixture tests/fixtures/llm/tiny_llama]
        [--weights build/fixtures/llm/tiny_llama/weights.safetensors] [--cli build/native/torchir]
        [--prompt I] [--steps N]

For each prompt of expected.json it does what export_llm.py's wrapper path does: prefill with the
prompt padded to prefill_seq_len (pad keys masked), the first token = argmax of the last prompt
row, the prefill K/V copied into zeroed max_cache_len caches (by kv_mapping.json), then one
decode run per further token at slot len(prompt) + k - 1, feeding each run's updated caches to
the next. Exits non-zero unless every token equals expected.json's generated_ids. One CLI process
per step (each loads the weights): about 1 s per step on 2 cores.
"""

import argparse
import array
import json
import os
import struct
import subprocess
import sys
import tempfile

F32_MIN = -3.4028234663852886e38  # torch.finfo(torch.float32).min


def write_st(path, tensors):
    """tensors: [(name, dtype 'F32'|'I64', shape, array or bytes)]"""
    header, blobs, off = {}, [], 0
    for name, dt, shape, data in tensors:
        b = data if isinstance(data, (bytes, bytearray)) else data.tobytes()
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for b in blobs:
            f.write(b)


def read_st(path):
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    out = {}
    for k, v in header.items():
        if k != "__metadata__":
            s, e = v["data_offsets"]
            out[k] = (v["dtype"], v["shape"], raw[8 + n + s:8 + n + e])
    return out


def mask_row(query, keys, valid=None):
    return [0.0 if k <= query and (valid is None or k < valid) else F32_MIN for k in range(keys)]


def argmax_row(blob, row, width):
    vals = array.array("f", blob[4 * row * width:4 * (row + 1) * width])
    best = max(range(width), key=lambda i: vals[i])
    return best


class Runner:
    def __init__(self, cli, weights, tmp):
        self.cli, self.weights, self.tmp = cli, weights, tmp

    def run(self, ir_path, ir, values):
        """values: {graph input name: (dtype, shape, array/bytes)} -> list of output blobs."""
        inp = os.path.join(self.tmp, "in.safetensors")
        out = os.path.join(self.tmp, "out.safetensors")
        write_st(inp, [("input." + m["name"],) + values[m["name"]] for m in ir["graph_inputs"]])
        subprocess.run([self.cli, "run", ir_path, "--weights", self.weights, "--inputs", inp,
                        "-o", out], check=True, stdout=subprocess.DEVNULL)
        o = read_st(out)
        return [o["output.%d" % i] for i in range(len(ir["graph_outputs"]))]


def generate(runner, fx, ids, n_new, pad):
    P, C = fx["kvm"]["prefill_seq_len"], fx["kvm"]["max_cache_len"]
    pre, dec = fx["prefill"], fx["decode"]
    n = len(ids)
    V = pre["graph_outputs"][0]["shape"][-1]
    mask = array.array("f")
    for q in range(P):
        mask.extend(mask_row(q, P, n))
    outs = runner.run(fx["prefill_path"], pre, {
        "input_ids": ("I64", [1, P], array.array("q", list(ids) + [pad] * (P - n))),
        "attention_mask": ("F32", [1, 1, P, P], mask),
        "position_ids": ("I64", [1, P], array.array("q", range(P))),
    })
    tokens = [argmax_row(outs[0][2], n - 1, V)]
    out_index = {m["name"]: i for i, m in enumerate(pre["graph_outputs"])}
    dec_out_index = {m["name"]: i for i, m in enumerate(dec["graph_outputs"])}
    caches = {}  # decode input name -> bytes [1, kv, C, hd]
    for layer in fx["kvm"]["layers"]:
        for kind in ("key", "value"):
            _, shape, blob = outs[out_index[layer["prefill_%s_output" % kind]]]
            b, h, p, d = shape
            full = bytearray(4 * b * h * C * d)
            for i in range(b * h):
                full[4 * i * C * d:4 * (i * C + p) * d] = blob[4 * i * p * d:4 * (i + 1) * p * d]
            caches[layer["decode_%s_input" % kind]] = bytes(full)
    kv_shapes = {m["name"]: m["shape"] for m in dec["graph_inputs"]}
    for step in range(1, n_new):
        slot = n + step - 1
        values = {
            "input_ids": ("I64", [1, 1], array.array("q", [tokens[-1]])),
            "attention_mask": ("F32", [1, 1, 1, C], array.array("f", mask_row(slot, C))),
            "position_ids": ("I64", [1, 1], array.array("q", [slot])),
            "cache_position": ("I64", [1], array.array("q", [slot])),
        }
        for name, blob in caches.items():
            values[name] = ("F32", kv_shapes[name], blob)
        outs = runner.run(fx["decode_path"], dec, values)
        tokens.append(argmax_row(outs[0][2], 0, V))
        for layer in fx["kvm"]["layers"]:
            for kind in ("key", "value"):
                caches[layer["decode_%s_input" % kind]] = \
                    outs[dec_out_index[layer["decode_%s_output" % kind]]][2]
    return tokens


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fixture", default="tests/fixtures/llm/tiny_llama")
    ap.add_argument("--weights", default="build/fixtures/llm/tiny_llama/weights.safetensors")
    ap.add_argument("--cli", default="build/native/torchir")
    ap.add_argument("--prompt", type=int, help="only this prompt (index into expected.json)")
    ap.add_argument("--steps", type=int, help="tokens per prompt (default: all expected)")
    args = ap.parse_args(argv)
    fx = {"prefill_path": os.path.join(args.fixture, "prefill.json"),
          "decode_path": os.path.join(args.fixture, "decode.json")}
    for key in ("prefill", "decode"):
        with open(fx[key + "_path"]) as f:
            fx[key] = json.load(f)
    with open(os.path.join(args.fixture, "kv_mapping.json")) as f:
        fx["kvm"] = json.load(f)
    with open(os.path.join(args.fixture, "expected.json")) as f:
        expected = json.load(f)
    prompts = expected["prompts"]
    if args.prompt is not None:
        prompts = [prompts[args.prompt]]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        runner = Runner(args.cli, args.weights, tmp)
        for p in prompts:
            want = p["generated_ids"][:args.steps] if args.steps else p["generated_ids"]
            got = generate(runner, fx, p["input_ids"], len(want), expected["pad_token_id"])
            same = got == want
            ok &= same
            print("prompt of %d tokens: %d tokens %s" % (len(p["input_ids"]), len(got),
                  "match expected.json" if same else "DIFFER:\n  got      %s\n  expected %s"
                  % (got, want)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
