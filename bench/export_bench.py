#!/usr/bin/env python3
"""Export the cross-engine benchmark models (bench/README.md, "Cross-engine benchmark").

    export_bench.py [--out build/bench] [--models a,b] [--decomposed] [--force]
        host torch 1.13: for each model, OUT/models/<name>/ gets
          weights.safetensors  seeded state_dict (original keys)
          io.safetensors       input.<graph input name>, output.0 (PyTorch, eval, no_grad)
          model.onnx           torch.onnx.export of the same module and weights (opset 17)
          meta.json            input name/shape, FLOPs, flavors
        and one OUT/models/<name>/<flavor>/ per IR flavor with model.json and hard links to the
        weights/io (the layout `tir_bench --fixtures OUT` reads):
          torch2.X-training    the committed bench/models/<name>/torch2.X-training/model.json
          torch1.13-decomposed exported here (with --decomposed, or when nothing is committed)

    export_bench.py --ir-only [--out bench/models]
        torch >= 2.5 (the sid chroot, tools/torch2-chroot.sh): writes the training-flavor IRs
        that are committed under bench/models/<name>/torch2.X-training/model.json.

Deterministic (fixed seeds); a model whose files are newer than its inputs (this script, the
exporter, the committed IR) is skipped. Models are built and seeded like the test fixtures
(tools/fixture_models.py: init_model, per-key generators).
"""

import argparse
import collections
import glob
import inspect
import json
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tools"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import export_fixture as ef  # noqa: E402
from fixture_models import init_model  # noqa: E402
import zoo  # noqa: E402

SEED = 0
OPSET = 17


def _encoder():
    layer = nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024, dropout=0.0,
                                       batch_first=True)
    # enable_nested_tensor only matters with a padding mask; off avoids its warning.
    return nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False)


def _bert_base():
    # BERT-base-sized: 12 post-norm layers, d 768, 12 heads, FFN 3072, GELU (as BERT).
    layer = nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072, dropout=0.0,
                                       activation="gelu", batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=12, enable_nested_tensor=False)


def _mlp():
    return nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(),
                         nn.Linear(4096, 1000))


def _encoder_flops(s=128, d=256, ff=1024, layers=4):
    per = 2 * s * d * 3 * d + 2 * 2 * s * s * d + 2 * s * d * d + 2 * 2 * s * d * ff
    return layers * per


# name -> (constructor, input shape, multiply-add FLOPs (2 per MAC) of the dense parts, kind).
# FLOPs are used for GFLOP/s only; for the CNNs they are the usual published counts.
MODELS = collections.OrderedDict([
    ("resnet18", (lambda: zoo._tv().models.resnet18(), (1, 3, 224, 224), 2 * 1.814e9, "model")),
    ("mobilenet_v2", (lambda: zoo._tv().models.mobilenet_v2(), (1, 3, 224, 224), 2 * 0.300e9,
                      "model")),
    ("transformer_encoder", (_encoder, (1, 128, 256), _encoder_flops(), "model")),
    # The GPU comparison's models (bench/gpu/README.md): exported on the GPU machine.
    ("resnet50", (lambda: zoo._tv().models.resnet50(), (1, 3, 224, 224), 2 * 4.09e9, "model")),
    ("bert_base", (_bert_base, (1, 128, 768), _encoder_flops(128, 768, 3072, 12), "model")),
    ("mlp", (_mlp, (1, 1024), 2 * (1024 * 4096 + 4096 * 4096 + 4096 * 1000), "model")),
    ("gemm", (lambda: nn.Linear(1024, 1024, bias=False), (1024, 1024), 2 * 1024 ** 3, "gemm")),
    ("gemv", (lambda: nn.Linear(1024, 1024, bias=False), (1, 1024), 2 * 1024 ** 2, "gemm")),
])


def build(name):
    ctor, shape, _, _ = MODELS[name]
    torch.manual_seed(SEED)
    model = ctor()
    init_model(model, SEED)
    model.eval()
    arg = list(inspect.signature(model.forward).parameters)[0]
    x = torch.randn(shape, generator=zoo.seeded_generator(SEED, "input." + arg),
                    dtype=torch.float32)
    return model, collections.OrderedDict([(arg, x)])


def training_dir():
    return "torch%d.%d-training" % ef.TORCH_MAJOR_MINOR


def committed_irs(name):
    """bench/models/<name>/<flavor>/model.json files (training flavor from the chroot)."""
    return sorted(glob.glob(os.path.join(HERE, "models", name, "*", "model.json")))


def export_ir_only(names, out_root):
    for name in names:
        model, inputs = build(name)
        ir = ef.export_training(model, inputs)
        d = os.path.join(out_root, name, training_dir())
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "model.json"), "w") as f:
            json.dump(ir, f, indent=1)
            f.write("\n")
        print("%s: training IR (torch %s), %d nodes -> %s"
              % (name, ef.TORCH_VERSION, len(ir["nodes"]), d))


def export_onnx(model, inputs, path):
    # torch 1.13's eval TransformerEncoderLayer would trace its fused fast path
    # (_transformer_encoder_layer_fwd, no ONNX symbolic): export the ordinary ops.
    # torch >= 2.9 defaults to the torch.export-based exporter: keep the TorchScript one, which
    # every torch here has, so each machine writes the same kind of graph.
    kw = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    with torch.no_grad(), ef._NoMHAFastPath():
        torch.onnx.export(model, tuple(inputs.values()), path, opset_version=OPSET,
                          input_names=list(inputs), output_names=["output"],
                          do_constant_folding=True, **kw)


def _link(src, dst):
    if os.path.exists(dst):
        os.remove(dst)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def up_to_date(mdir, deps, flavors):
    outs = [os.path.join(mdir, f) for f in ("weights.safetensors", "io.safetensors", "model.onnx",
                                           "meta.json")]
    outs += [os.path.join(mdir, fl, "model.json") for fl in flavors]
    if not all(os.path.exists(p) for p in outs):
        return False
    oldest = min(os.path.getmtime(p) for p in outs)
    return all(os.path.getmtime(d) < oldest for d in deps)


def export_model(name, out_root, decomposed, force):
    mdir = os.path.join(out_root, "models", name)
    committed = committed_irs(name)
    flavors = [os.path.basename(os.path.dirname(p)) for p in committed]
    dec_dir = "torch%d.%d-decomposed" % ef.TORCH_MAJOR_MINOR
    if decomposed or not committed:
        flavors.append(dec_dir)
    deps = [os.path.abspath(__file__)] + committed + [
        os.path.join(REPO, "tools", f) for f in ("export_fixture.py", "zoo.py", "ir_writer.py")]
    if not force and up_to_date(mdir, deps, flavors):
        print("%s: up to date (%s)" % (name, mdir))
        return
    t0 = time.time()
    os.makedirs(mdir, exist_ok=True)
    meta_path = os.path.join(mdir, "meta.json")
    if os.path.exists(meta_path):
        os.remove(meta_path)  # marks the directory stale until everything is written
    model, inputs = build(name)
    irs = collections.OrderedDict()
    for path in committed:
        with open(path) as f:
            ir = json.load(f)
        ef.check_against_ir(model, inputs, ir, path)
        irs[os.path.basename(os.path.dirname(path))] = (ir, path)
    if dec_dir in flavors:
        irs[dec_dir] = (ef.export_decomposed(model, inputs), None)
    ir0 = next(iter(irs.values()))[0]
    # weights.safetensors + io.safetensors (input.<IR input name>, output.<i>): the exporter's own.
    ef.write_weights_and_io(model, inputs, mdir, ir0)
    export_onnx(model, inputs, os.path.join(mdir, "model.onnx"))
    for fl, (ir, src) in irs.items():
        d = os.path.join(mdir, fl)
        os.makedirs(d, exist_ok=True)
        if src:
            shutil.copyfile(src, os.path.join(d, "model.json"))
        else:
            with open(os.path.join(d, "model.json"), "w") as f:
                json.dump(ir, f, indent=1)
                f.write("\n")
        for fn in ("weights.safetensors", "io.safetensors"):
            _link(os.path.join(mdir, fn), os.path.join(d, fn))
    _, shape, flops, kind = MODELS[name]
    sd = model.state_dict()
    meta = collections.OrderedDict([
        ("name", name), ("kind", kind), ("input", ir0["graph_inputs"][0]["name"]),
        ("input_shape", list(shape)), ("onnx_input", list(inputs)[0]),
        ("output_shape", ir0["graph_outputs"][0]["shape"]), ("flops", flops),
        ("flavors", list(irs)), ("torch", ef.TORCH_VERSION), ("opset", OPSET),
        ("weight_key", "weight" if kind == "gemm" else None),
        ("params", sum(t.numel() for t in sd.values() if t.is_floating_point())),
    ])
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print("%s: %s -> %s (%.1f s)" % (name, ", ".join(irs), mdir, time.time() - t0))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", help="output root (default build/bench; --ir-only: bench/models)")
    ap.add_argument("--models", help="comma-separated subset of: " + ", ".join(MODELS))
    ap.add_argument("--ir-only", action="store_true",
                    help="write the committed training-flavor IRs (torch >= 2.5)")
    ap.add_argument("--decomposed", action="store_true",
                    help="also export the host torch's decomposed flavor")
    ap.add_argument("--force", action="store_true", help="ignore timestamps")
    args = ap.parse_args()
    names = args.models.split(",") if args.models else list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error("unknown model(s): %s" % ", ".join(unknown))
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    if args.ir_only:
        export_ir_only(names, args.out or os.path.join(HERE, "models"))
        return 0
    out = args.out or os.path.join(REPO, "build", "bench")
    for name in names:
        export_model(name, out, args.decomposed, args.force)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ef.FixtureError as e:
        print("export_bench: error: %s" % e, file=sys.stderr)
        sys.exit(1)
