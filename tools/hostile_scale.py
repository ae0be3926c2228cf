#!/usr/bin/env python3
"""Writes the scale cases of issue 10 and times `torchir run` on each.

  chain    N-node relu chain (memory planner)
  mapping  N weight_name_mapping entries, each weight read by one add
  inputs   N graph inputs summed by a chain of adds

Each case is an IR JSON, a weights .safetensors and an inputs .safetensors.
Usage: hostile_scale.py OUT_DIR [--torchir PATH ...] [--chain N] [--mapping N]
[--inputs N] [--timeout S]. Every --torchir binary is timed on every case
(wall time of load + compile + bind + one run), so an old and a new build can
be compared side by side. Standard library only.
"""
import argparse
import json
import os
import struct
import subprocess
import time


def meta(name, shape, producer=None):
    m = {"name": name, "shape": shape, "dtype": "float32"}
    if producer is not None:
        m["producer_node"] = producer
        m["producer_output_idx"] = 0
    return m


def write_safetensors(path, tensors):
    """tensors: list of (name, float) stored as float32 [1]."""
    header, offset = {}, 0
    for name, _ in tensors:
        header[name] = {"dtype": "F32", "shape": [1], "data_offsets": [offset, offset + 4]}
        offset += 4
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        f.write(b"".join(struct.pack("<f", v) for _, v in tensors))


def ir(graph_inputs, nodes, outputs, weights=(), mapping=None):
    return {"model_name": "hostile_scale", "pytorch_version": "2.5", "graph_inputs": graph_inputs,
            "graph_outputs": outputs, "weights": list(weights), "weight_name_mapping": mapping or {},
            "nodes": nodes, "constants": {}}


def node(name, op, inputs, out):
    return {"name": name, "op_type": op, "inputs": inputs, "outputs": [meta(out, [1])], "attrs": {}}


def chain_case(n):
    nodes, prev = [], "x"
    for i in range(n):
        nodes.append(node(f"r{i}", "aten.relu.default", [meta(prev, [1], prev)], f"r{i}"))
        prev = f"r{i}"
    return ir([meta("x", [1])], nodes, [meta(prev, [1], prev)]), [], [("input.x", -1.0)]


def mapping_case(n):
    nodes, prev, weights, mapping = [], "x", [], {}
    for i in range(n):
        weights.append(meta(f"layer{i}.w", [1]))
        mapping[f"p_layer{i}_w"] = f"layer{i}.w"
        nodes.append(node(f"a{i}", "aten.add.Tensor", [meta(prev, [1], prev), meta(f"p_layer{i}_w", [1])], f"a{i}"))
        prev = f"a{i}"
    w = [(f"layer{i}.w", 1.0) for i in range(n)]
    return ir([meta("x", [1])], nodes, [meta(prev, [1], prev)], weights, mapping), w, [("input.x", 0.0)]


def inputs_case(n):
    gi = [meta(f"x{i}", [1]) for i in range(n)]
    nodes, prev = [], "x0"
    for i in range(1, n):
        nodes.append(node(f"a{i}", "aten.add.Tensor", [meta(prev, [1], prev), meta(f"x{i}", [1], f"x{i}")], f"a{i}"))
        prev = f"a{i}"
    return ir(gi, nodes, [meta(prev, [1], prev)]), [], [(f"input.x{i}", 1.0) for i in range(n)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--torchir", action="append", default=[])
    p.add_argument("--chain", type=int, default=300000)
    p.add_argument("--mapping", type=int, default=100000)
    p.add_argument("--inputs", type=int, default=40000)
    p.add_argument("--timeout", type=float, default=600)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    cases = {"chain": (chain_case, a.chain), "mapping": (mapping_case, a.mapping), "inputs": (inputs_case, a.inputs)}
    for name, (make, n) in cases.items():
        if n <= 0:
            continue
        model, weights, inputs = make(n)
        base = os.path.join(a.out, f"{name}_{n}")
        with open(base + ".json", "w") as f:
            json.dump(model, f)
        write_safetensors(base + ".weights.safetensors", weights)
        write_safetensors(base + ".inputs.safetensors", inputs)
        for exe in a.torchir:
            cmd = [exe, "run", base + ".json", "--weights", base + ".weights.safetensors", "--inputs",
                   base + ".inputs.safetensors"]
            t0 = time.monotonic()
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=a.timeout)
                status = "ok" if r.returncode == 0 else f"exit {r.returncode}: {r.stderr.strip()[:200]}"
            except subprocess.TimeoutExpired:
                status = f"timeout after {a.timeout:.0f} s"
            print(f"{name:8s} n={n:<7d} {time.monotonic() - t0:8.2f} s  {status}  [{exe}]", flush=True)


if __name__ == "__main__":
    main()
