#!/usr/bin/env python3
"""Fidelity of the native engine (the torchir CLI) on all-MiniLM-L6-v2 against PyTorch.

    minilm_fidelity.py --torchir build/native/torchir [--models models/all-MiniLM-L6-v2]
                       [--min-cosine 0.99999] [--json]
    minilm_fidelity.py --torchir build/native/torchir --int8 [--models models/all-MiniLM-L6-v2-int8]
                       [--min-cosine 0.9999] [--max-abs-diff D] [--f32-slack 0.001] [--json]

For every held-out sentence of OUT/reference.json (written by tools/export_minilm.py: the token
ids of transformers' tokenizer, max_length 256, and the embedding of transformers' AutoModel +
mean pooling + L2 normalisation), runs `torchir run` on the smallest exported length that holds
the ids (padded, attention_mask 0 on the padding) and on the 256 one, and prints the cosine and
the max abs difference with the reference. Exits 1 when a cosine is below --min-cosine.

--int8: the PT2E dynamic int8 model (tools/export_minilm.py --int8; its reference.json holds
PyTorch's quantized module's embedding at the sentence's length `seq` and at 256, the float32
one, and `perturbed`: how far PyTorch's own quantized module moves when its input moves by 1e-5
relative). Dynamic int8 is chaotic (export_minilm.py's docstring): an engine whose float sums
differ from PyTorch's by one rounding matches PyTorch's quantized embedding to 1e-7 when no
activation crosses an int8 rounding boundary, and is otherwise another draw of the same int8
noise. So each run is compared with PyTorch's quantized embedding of the same length within what
PyTorch's own perturbed runs of that sentence and length moved, doubled as an angle (cosine >=
1 - 4 (1 - their min cosine), capped at --min-cosine 0.9999; max |diff| <= 2x theirs), and with
float32: the engine's min and mean cosine at the sentences' lengths must be at least the lowest
min and mean of PyTorch's perturbed draws minus --f32-slack (0.001). Also runs `torchir run --profile` on one length and
fails if a quantized_decomposed node is left in it (every int8 linear must be lowered onto the
int8 GEMM, its quantize / dequantize nodes skipped).
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


def padded_inputs(seq, ids, tmp):
    if len(ids) > seq:
        raise ValueError("%d ids do not fit length %d" % (len(ids), seq))
    x = np.zeros((1, seq), np.int64)
    m = np.zeros((1, seq), np.int64)
    x[0, :len(ids)] = ids
    m[0, :len(ids)] = 1
    inp = os.path.join(tmp, "in.safetensors")
    write_safetensors(inp, {"input.input_ids": x, "input.attention_mask": m})
    return inp


def unlowered_ops(torchir, models, seq, ids, tmp):
    """{op type: count} of the quantized_decomposed steps that `torchir run --profile` timed at
    length `seq` (none when every quantized linear was lowered), and the profile text."""
    inp = padded_inputs(seq, ids, tmp)
    ir = os.path.join(models, "model_s%d.json" % seq)
    r = subprocess.run([torchir, "run", ir, "--weights", os.path.join(models, "weights.safetensors"),
                        "--inputs", inp, "--profile"], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("torchir run --profile %s failed: %s" % (ir, r.stderr.strip()))
    text = r.stdout + r.stderr
    left = {}
    in_nodes = False
    for line in text.splitlines():
        if line.startswith("per node:"):
            in_nodes = True
            continue
        f = line.split()
        if in_nodes and len(f) >= 2 and f[1].startswith("quantized_decomposed."):
            left[f[1]] = left.get(f[1], 0) + 1
    return left, text


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


def cos(a, b):
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def main_int8(a, here):
    if a.models is None:
        a.models = os.path.join(here, "..", "models", "all-MiniLM-L6-v2-int8")
    if a.min_cosine is None:
        a.min_cosine = 0.9999
    with open(os.path.join(a.models, "manifest.json")) as f:
        manifest = json.load(f)
    seq_lens = sorted(manifest["seq_lens"])
    with open(os.path.join(a.models, "reference.json")) as f:
        ref = json.load(f)
    top = seq_lens[-1]
    print("minilm fidelity (native, int8): %s" % manifest.get("quantization", "?"))
    pert = ref["perturbed"]
    bound_f32 = pert["min_cosine_vs_f32"] - a.f32_slack
    bound_mean = pert["min_mean_cosine_vs_f32"] - a.f32_slack
    print("bounds: per run, vs PyTorch int8 within twice what its %d draws of input noise %g moved "
          "it (overall: min cosine %.6f, max |diff| %.2e); vs float32: min cosine >= %.6f, mean >= "
          "%.6f" % (pert["draws"], pert["relative"], pert["min_cosine_vs_unperturbed"],
                    pert["max_abs_diff_vs_unperturbed"], bound_f32, bound_mean))
    rows, problems = [], []
    worst_q, worst_diff, ours_f32, torch_f32, exact = 1.0, 0.0, 1.0, 1.0, 0
    ours_sum, torch_sum, n_sum = 0.0, 0.0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for s in ref["sentences"]:
            ids = s["input_ids"]
            bucket = next(L for L in seq_lens if L >= len(ids))
            if bucket != s["seq"]:
                raise SystemExit("reference.json: %d ids ran at length %d, the engine's is %d"
                                 % (len(ids), s["seq"], bucket))
            f32 = np.array(s["embedding_f32"], np.float64)
            runs = {top: "embedding_s%d" % top}
            runs[bucket] = "embedding"  # the 256-piece text runs once
            for seq, key in sorted(runs.items()):
                want = np.array(s[key], np.float64)
                got = embed(a.torchir, a.models, seq, ids, tmp)
                cq, cf, ct = cos(got, want), cos(got, f32), cos(want, f32)
                diff = float(np.max(np.abs(got - want)))
                worst_q, worst_diff = min(worst_q, cq), max(worst_diff, diff)
                exact += diff <= 1e-5
                if seq == bucket:
                    ours_f32, torch_f32 = min(ours_f32, cf), min(torch_f32, ct)
                    ours_sum, torch_sum, n_sum = ours_sum + cf, torch_sum + ct, n_sum + 1
                spread = s["perturbed_vs_unperturbed"][str(seq)]
                bc = min(a.min_cosine, 1 - 4 * (1 - spread["min_cosine"]))
                bd = a.max_abs_diff if a.max_abs_diff is not None else 2 * spread["max_abs_diff"]
                if cq < bc or diff > bd:
                    problems.append("%d tokens at S=%d: cosine %.6f (>= %.6f), max |diff| %.2e "
                                    "(<= %.2e) with PyTorch int8" % (len(ids), seq, cq, bc, diff, bd))
                rows.append({"tokens": len(ids), "seq": seq, "cosine_vs_pytorch_int8": cq,
                             "max_abs_diff_vs_pytorch_int8": diff, "cosine_vs_f32": cf,
                             "pytorch_int8_cosine_vs_f32": ct, "bound_cosine": bc,
                             "bound_max_abs_diff": bd})
                text = s["text"] if len(s["text"]) <= 40 else s["text"][:37] + "..."
                print("%4d tokens  S=%3d  vs PyTorch int8: cos %.6f (>= %.6f) max|diff| %.2e (<= %.2e)"
                      "  vs f32: cos %.6f (PyTorch int8 %.6f)  %s"
                      % (len(ids), seq, cq, bc, diff, bd, cf, ct, text))
        left, profile = unlowered_ops(a.torchir, a.models, ref["sentences"][0]["seq"],
                                      ref["sentences"][0]["input_ids"], tmp)
    ours_mean, torch_mean = ours_sum / n_sum, torch_sum / n_sum
    if ours_f32 < bound_f32:
        problems.append("min cosine with float32 %.6f < %.6f" % (ours_f32, bound_f32))
    if ours_mean < bound_mean:
        problems.append("mean cosine with float32 %.6f < %.6f" % (ours_mean, bound_mean))
    if left:
        problems.append("quantized_decomposed nodes not lowered: %s" % ", ".join(
            "%s x%d" % kv for kv in sorted(left.items())))
    print("minilm fidelity (native, int8): %d runs (%d within 1e-5 of PyTorch int8); vs PyTorch "
          "int8: min cosine %.6f, max |diff| %.2e; vs float32 at the sentences' lengths: min cosine "
          "%.6f, mean %.6f (PyTorch int8 %.6f, %.6f; its perturbed draws down to %.6f, %.6f); "
          "quantized_decomposed nodes left at S=%d: %d: %s"
          % (len(rows), exact, worst_q, worst_diff, ours_f32, ours_mean, torch_f32, torch_mean,
             pert["min_cosine_vs_f32"], pert["min_mean_cosine_vs_f32"],
             ref["sentences"][0]["seq"], sum(left.values()), "; ".join(problems) or "ok"))
    if a.json:
        print(json.dumps({"min_cosine_vs_pytorch_int8": worst_q, "max_abs_diff": worst_diff,
                          "min_cosine_vs_f32": ours_f32, "pytorch_int8_min_cosine_vs_f32": torch_f32,
                          "mean_cosine_vs_f32": ours_mean, "pytorch_int8_mean_cosine_vs_f32": torch_mean,
                          "unlowered": left, "runs": rows}))
    return 1 if problems else 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--torchir", required=True)
    ap.add_argument("--models", help="default: models/all-MiniLM-L6-v2 (--int8: "
                    "models/all-MiniLM-L6-v2-int8)")
    ap.add_argument("--min-cosine", type=float,
                    help="default 0.99999 (--int8: 0.9999, against PyTorch's quantized module)")
    ap.add_argument("--json", action="store_true", help="also print one JSON summary line")
    ap.add_argument("--int8", action="store_true", help="the int8 model (see above)")
    ap.add_argument("--max-abs-diff", type=float,
                    help="--int8: bound on max |ours - PyTorch quantized| (default: per "
                         "sentence and length, twice the max |diff| of PyTorch's perturbed runs)")
    ap.add_argument("--f32-slack", type=float, default=0.001,
                    help="--int8: ours' min cosine with float32 may be this much below PyTorch "
                         "quantized's (default 0.001)")
    a = ap.parse_args()
    if a.int8:
        return main_int8(a, here)
    if a.models is None:
        a.models = os.path.join(here, "..", "models", "all-MiniLM-L6-v2")
    if a.min_cosine is None:
        a.min_cosine = 0.99999
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
