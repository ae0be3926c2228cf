#!/usr/bin/env python3
"""grid_accuracy.py: isolated accuracy of grid_sampler_2d and affine_grid_generator.

Each case is one op fed float32 inputs; its error is max |out - float64 run of the SAME
float32 inputs| (and the RMS error), for torchir and for each PyTorch that ran it.

  tools/torch2-chroot.sh run -- python3 /repo/tools/grid_accuracy.py gen DIR     # torch 2.x: cases, float64 truth, torch2 outputs
  /usr/bin/python3 tools/grid_accuracy.py torch DIR                              # torch 1.13 outputs
  python3 tools/grid_accuracy.py ours DIR build/native/torchir                   # torchir outputs
  python3 tools/grid_accuracy.py report DIR

Works with torch alone (no numpy needed): safetensors are read and written by hand.
"""
import json
import math
import os
import struct
import subprocess
import sys

import torch
import torch.nn.functional as F

DT = {"F32": torch.float32, "F64": torch.float64}
DN = {torch.float32: "F32", torch.float64: "F64"}


def save_st(path, tensors):
    header, blobs, off = {}, [], 0
    for k, t in tensors.items():
        t = t.contiguous()
        b = bytes(t.view(-1).view(torch.uint8).tolist()) if t.numel() else b""
        header[k] = {"dtype": DN[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def load_st(path):
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    out = {}
    for k, v in header.items():
        if k == "__metadata__":
            continue
        a, b = v["data_offsets"]
        buf = bytearray(data[8 + n + a:8 + n + b])
        t = torch.frombuffer(buf, dtype=DT[v["dtype"]]) if buf else torch.empty(0, dtype=DT[v["dtype"]])
        out[k] = t.reshape(v["shape"]).clone()
    return out


SIZES = [  # N, C, H, W, oH, oW
    (1, 3, 9, 8, 7, 6),      # spatial_probe's first sampler
    (1, 3, 9, 8, 5, 5),      # and its second
    (2, 4, 17, 31, 13, 29),
    (1, 2, 64, 64, 63, 65),
    (1, 1, 1, 1, 3, 3),
    (1, 3, 1, 16, 1, 17),
    (3, 5, 128, 96, 37, 41),
]
MODES = [(0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2), (1, 0)]  # (interp, pad)
INTERP = {0: "bilinear", 1: "nearest", 2: "bicubic"}
PAD = {0: "zeros", 1: "border", 2: "reflection"}
KINDS = ["affine", "uniform", "wide"]
AG_SIZES = [(1, 7, 6), (1, 5, 5), (2, 1, 1), (1, 1, 17), (2, 13, 29), (1, 64, 64), (3, 37, 41), (1, 255, 257)]


def theta_for(g, N):
    s = torch.rand(N, 2, generator=g, dtype=torch.float64) * 0.5 + 0.8
    r = (torch.rand(N, 2, generator=g, dtype=torch.float64) - 0.5) * 0.4
    t = (torch.rand(N, 2, generator=g, dtype=torch.float64) - 0.5) * 0.6
    th = torch.stack([torch.stack([s[:, 0], r[:, 0], t[:, 0]], 1), torch.stack([r[:, 1], s[:, 1], t[:, 1]], 1)], 1)
    return th.float()


def meta(name, t, producer=True):
    m = {"name": name, "shape": list(t.shape), "dtype": "float32"}
    if producer:
        m["producer_node"] = name
        m["producer_output_idx"] = 0
    return m


def write_case(d, name, op, inputs, attrs, out, truth, t2):
    cd = os.path.join(d, name)
    os.makedirs(cd, exist_ok=True)
    ir = {"model_name": name, "pytorch_version": torch.__version__,
          "graph_inputs": [meta(k, v, False) for k, v in inputs.items()],
          "graph_outputs": [{"name": "out", "shape": list(out.shape), "dtype": "float32"}],
          "weights": [], "weight_name_mapping": {},
          "nodes": [{"name": "out", "op_type": op, "inputs": [meta(k, v) for k, v in inputs.items()],
                     "outputs": [{"name": "out", "shape": list(out.shape), "dtype": "float32"}], "attrs": attrs}]}
    json.dump(ir, open(os.path.join(cd, "model.json"), "w"))
    save_st(os.path.join(cd, "weights.safetensors"), {})
    save_st(os.path.join(cd, "io.safetensors"), dict({"input." + k: v for k, v in inputs.items()}, **{"output.0": out}))
    save_st(os.path.join(cd, "truth64.safetensors"), {"output.0": truth})
    save_st(os.path.join(cd, "torch2.safetensors"), {"output.0": t2})
    json.dump({"op": op, "attrs": attrs, "inputs": list(inputs)}, open(os.path.join(cd, "case.json"), "w"))


def run_op(op, inputs, attrs):
    if op == "aten.grid_sampler_2d.default":
        return torch.ops.aten.grid_sampler_2d(inputs["x"], inputs["grid"], attrs["interpolation_mode"],
                                              attrs["padding_mode"], attrs["align_corners"])
    if op == "aten.addmm.default":
        return torch.ops.aten.addmm(inputs["bias"], inputs["mat1"], inputs["mat2"])
    return torch.ops.aten.affine_grid_generator(inputs["theta"], attrs["size"], attrs["align_corners"])


def gen(d):
    g = torch.Generator().manual_seed(1234)
    cases = []
    for si, (N, C, H, W, oH, oW) in enumerate(SIZES):
        for kind in KINDS:
            x = torch.randn(N, C, H, W, generator=g)
            for align in (False, True):
                if kind == "affine":
                    grid = F.affine_grid(theta_for(g, N), [N, C, oH, oW], align_corners=align)
                else:
                    lim = 1.0 if kind == "uniform" else 1.3
                    grid = ((torch.rand(N, oH, oW, 2, generator=g, dtype=torch.float64) * 2 - 1) * lim).float()
                for interp, pad in MODES:
                    name = "gs_%s_%s_%s_a%d_s%d" % (INTERP[interp], PAD[pad], kind, align, si)
                    attrs = {"interpolation_mode": interp, "padding_mode": pad, "align_corners": align}
                    ins = {"x": x, "grid": grid}
                    out = run_op("aten.grid_sampler_2d.default", ins, attrs)
                    truth = run_op("aten.grid_sampler_2d.default", {k: v.double() for k, v in ins.items()}, attrs)
                    write_case(d, name, "aten.grid_sampler_2d.default", ins, attrs, out, truth, out)
                    cases.append(name)
    for si, (N, H, W) in enumerate(AG_SIZES):
        for kind in ("near_identity", "randn"):
            th = theta_for(g, N) if kind == "near_identity" else torch.randn(N, 2, 3, generator=g)
            for align in (False, True):
                name = "ag_%s_a%d_s%d" % (kind, align, si)
                attrs = {"size": [N, 3, H, W], "align_corners": align}
                ins = {"theta": th}
                out = run_op("aten.affine_grid_generator.default", ins, attrs)
                truth = run_op("aten.affine_grid_generator.default", {"theta": th.double()}, attrs)
                write_case(d, name, "aten.affine_grid_generator.default", ins, attrs, out, truth, out)
                cases.append(name)
    json.dump(cases, open(os.path.join(d, "cases.json"), "w"))
    print("%d cases, torch %s" % (len(cases), torch.__version__))


def torch_outputs(d):
    tag = "torch" + ".".join(torch.__version__.split(".")[:2])
    for name in json.load(open(os.path.join(d, "cases.json"))):
        cd = os.path.join(d, name)
        case = json.load(open(os.path.join(cd, "case.json")))
        io = load_st(os.path.join(cd, "io.safetensors"))
        out = run_op(case["op"], {k: io["input." + k] for k in case["inputs"]}, case["attrs"])
        save_st(os.path.join(cd, tag + ".safetensors"), {"output.0": out})
    print("wrote", tag)


def ours(d, exe):
    for name in json.load(open(os.path.join(d, "cases.json"))):
        cd = os.path.join(d, name)
        subprocess.run([exe, "run", os.path.join(cd, "model.json"), "--weights", os.path.join(cd, "weights.safetensors"),
                        "--inputs", os.path.join(cd, "io.safetensors"), "-o", os.path.join(cd, "ours.safetensors")],
                       check=True, stdout=subprocess.DEVNULL)
    print("wrote ours")


def report(d, tags):
    rows = {}
    for name in json.load(open(os.path.join(d, "cases.json"))):
        cd = os.path.join(d, name)
        truth = load_st(os.path.join(cd, "truth64.safetensors"))["output.0"]
        group = name.rsplit("_s", 1)[0]
        r = rows.setdefault(group, {t: [0.0, 0.0, 0] for t in tags})
        r.setdefault("scale", 0.0)
        r["scale"] = max(r["scale"], truth.abs().max().item() if truth.numel() else 0.0)
        for t in tags:
            p = os.path.join(cd, t + ".safetensors")
            if not os.path.exists(p):
                continue
            e = (load_st(p)["output.0"].double() - truth).abs()
            r[t][0] = max(r[t][0], e.max().item())
            r[t][1] += (e * e).sum().item()
            r[t][2] += e.numel()
        o = load_st(os.path.join(cd, "ours.safetensors"))["output.0"] if os.path.exists(os.path.join(cd, "ours.safetensors")) else None
        t2 = load_st(os.path.join(cd, "torch2.safetensors"))["output.0"]
        if o is not None:
            r.setdefault("diff_t2", 0.0)
            r["diff_t2"] = max(r["diff_t2"], (o.double() - t2.double()).abs().max().item())
    print("%-40s %s  %s" % ("case (all sizes)", "  ".join("%-21s" % (t + " max/rms") for t in tags), "max|ours-torch2|"))
    for group, r in rows.items():
        cells = []
        for t in tags:
            mx, ss, n = r[t]
            cells.append("%9.3e/%9.3e  " % (mx, math.sqrt(ss / n)) if n else "%-21s" % "-")
        print("%-40s %s  %.3e" % (group, " ".join(cells), r.get("diff_t2", float("nan"))))


if __name__ == "__main__":
    cmd, d = sys.argv[1], sys.argv[2]
    os.makedirs(d, exist_ok=True)
    if cmd == "gen":
        gen(d)
    elif cmd == "torch":
        torch_outputs(d)
    elif cmd == "ours":
        ours(d, sys.argv[3])
    elif cmd == "report":
        report(d, sys.argv[3].split(",") if len(sys.argv) > 3 else ["ours", "torch2", "torch1.13"])
