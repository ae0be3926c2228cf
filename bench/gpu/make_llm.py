#!/usr/bin/env python3
"""Weights and the ONNX decode step of the GPU comparison's decoder (bench/gpu/README.md).

    make_llm.py --model bench/models/llm_gpt2_small --out DIR [--no-onnx]

The model folder holds config.json and the committed prefill/decode IRs (tools/export_llm.py,
torch 2.14 chroot). This writes, on the machine that runs the comparison (weights of ~650 MB do
not travel):
    DIR/weights.safetensors  seeded float32 weights with the Hugging Face LLaMA keys; the same
                             kinds and scales as tools/llm_weights.py (which is pure Python and
                             too slow for 160M values), drawn with torch's generator instead
    DIR/decode.onnx          the decode wrapper (tools/export_llm.py's TinyLlamaDecode: the IR's
                             ABI, caches in and out, out-of-place index_copy) for onnxruntime-web,
                             TorchScript exporter, opset 17
"""

import argparse
import inspect
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))

import torch  # noqa: E402

import llm_weights  # noqa: E402


def write_weights(cfg, path, seed=0):
    import safetensors.torch

    g = torch.Generator().manual_seed(seed)
    sd = {}
    for key, shape, kind in llm_weights.state_dict_shapes(cfg):
        a = llm_weights.SCALES[kind] * math.sqrt(3.0)
        t = (torch.rand(shape, generator=g) * 2.0 - 1.0) * a
        sd[key] = (t + 1.0) if kind == "norm" else t
    safetensors.torch.save_file(sd, path, metadata={"format": "pt"})
    return sum(t.numel() for t in sd.values())


def export_decode_onnx(lm, cfg, P, C, path):
    import export_llm as el

    decode = el.TinyLlamaDecode(lm, P, C).eval()
    L = cfg["num_hidden_layers"]
    kv = [torch.zeros(el.kv_shape(cfg, C)) for _ in range(2 * L)]
    din = el.decode_inputs(5, P, C, kv)
    names = list(el.FIXED_DECODE_INPUTS) + ["past_kv_%d" % i for i in range(2 * L)]
    outs = ["logits"] + ["present_kv_%d" % i for i in range(2 * L)]
    kw = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    with torch.no_grad():
        torch.onnx.export(decode, tuple(din.values()), path, input_names=names, output_names=outs,
                          opset_version=17, **kw)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default=os.path.join(REPO, "bench", "models", "llm_gpt2_small"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--no-onnx", action="store_true")
    args = ap.parse_args()
    with open(os.path.join(args.model, "config.json")) as f:
        cfg = json.load(f)
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    w = os.path.join(args.out, "weights.safetensors")
    n = write_weights(cfg, w)
    print("make_llm: %d parameters -> %s (%.1f s)" % (n, w, time.time() - t0))
    if args.no_onnx:
        return 0
    import export_llm as el

    with open(os.path.join(args.model, "kv_mapping.json")) as f:
        mapping = json.load(f)
    P, C = mapping["prefill_seq_len"], mapping["max_cache_len"]

    t0 = time.time()
    lm, cfg = el.build_model(os.path.join(args.model, "config.json"), w)
    path = os.path.join(args.out, "decode.onnx")
    export_decode_onnx(lm, cfg, P, C, path)
    print("make_llm: decode step (P %d, C %d) -> %s, %.0f MB (%.1f s)"
          % (P, C, path, os.path.getsize(path) / 1e6, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
