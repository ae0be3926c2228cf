#!/usr/bin/env python3
"""Fidelity of the native engine (the torchir CLI) on all-MiniLM-L6-v2 against PyTorch.

    minilm_fidelity.py --torchir build/native/torchir [--models models/all-MiniLM-L6-v2]
                       [--min-cosine 0.99999] [--json]

For every held-out sentence of OUT/reference.json (written by tools/export_minilm.py: the token
ids of transformers' tokenizer, max_length 256, and the embedding of transformers' AutoModel +
mean pooling + L2 normalisation), runs `torchir run` on the smallest exported length that holds
the ids (padded, attention_mask 0 on the padding) and on the 256 one, and prints the cosine and
the max abs difference with the reference. Exits 1 when a cosine is below --min-cosine.
Needs numpy only.
"""

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

_NP = {"I64": np.int64, "F32": np.float32}


def write_safetensors(path, tensors):
    header, blobs, off = {}, [], 0
    for name, a in tensors.items():
        b = np.ascontiguousarray(a).tobytes()
        dt = {np.dtype(np.int64): "I64", np.dtype(np.float32): "F32"}[a.dtype]
        header[name] = {"dtype": dt, "shape": list(a.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def read_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, m in header.items():
        if name == "__metadata__":
            continue
        a, b = m["data_offsets"]
        out[name] = np.frombuffer(data[a:b], dtype=_NP[m["dtype"]]).reshape(m["shape"])
    return out


def embed(torchir, models, seq, ids, tmp):
    if len(ids) > seq:
        raise ValueError("%d ids do not fit length %d" % (len(ids), seq))
    x = np.zeros((1, seq), np.int64)
    m = np.zeros((1, seq), np.int64)
    x[0, :len(ids)] = ids
    m[0, :len(ids)] = 1
    inp, out = os.path.join(tmp, "in.safetensors"), os.path.join(tmp, "out.safetensors")
    write_safetensors(inp, {"input.input_ids": x, "input.attention_mask": m})
    ir = os.path.join(models, "model_s%d.json" % seq)
    r = subprocess.run([torchir, "run", ir, "--weights", os.path.join(models, "weights.safetensors"),
                        "--inputs", inp, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("torchir run %s failed: %s" % (ir, r.stderr.strip()))
    return read_safetensors(out)["output.0"][0].astype(np.float64)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--torchir", required=True)
    ap.add_argument("--models", default=os.path.join(here, "..", "models", "all-MiniLM-L6-v2"))
    ap.add_argument("--min-cosine", type=float, default=0.99999)
    ap.add_argument("--json", action="store_true", help="also print one JSON summary line")
    a = ap.parse_args()
    with open(os.path.join(a.models, "manifest.json")) as f:
        seq_lens = sorted(json.load(f)["seq_lens"])
    with open(os.path.join(a.models, "reference.json")) as f:
        ref = json.load(f)
    rows, worst_cos, worst_diff = [], 1.0, 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for s in ref["sentences"]:
            ids, want = s["input_ids"], np.array(s["embedding"], np.float64)
            bucket = next(L for L in seq_lens if L >= len(ids))
            for seq in sorted({bucket, seq_lens[-1]}):
                got = embed(a.torchir, a.models, seq, ids, tmp)
                cos = float(got @ want / (np.linalg.norm(got) * np.linalg.norm(want)))
                diff = float(np.max(np.abs(got - want)))
                worst_cos, worst_diff = min(worst_cos, cos), max(worst_diff, diff)
                rows.append({"tokens": len(ids), "seq": seq, "cosine": cos, "max_abs_diff": diff})
                text = s["text"] if len(s["text"]) <= 48 else s["text"][:45] + "..."
                print("%4d tokens  S=%3d  1-cosine %.1e  max|diff| %.2e  %s"
                      % (len(ids), seq, 1 - cos, diff, text))
    ok = worst_cos >= a.min_cosine
    print("minilm fidelity (native): %d runs, min cosine %.12f (1 - cos = %.1e), max |diff| %.2e: "
          "%s (>= %g)" % (len(rows), worst_cos, 1 - worst_cos, worst_diff, "ok" if ok else "FAILED",
                         a.min_cosine))
    if a.json:
        print(json.dumps({"min_cosine": worst_cos, "max_abs_diff": worst_diff, "runs": rows}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
