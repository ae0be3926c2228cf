#!/usr/bin/env python3
"""Export the int8-vs-float32 benchmark models (bench/README.md, "Quantized int8 vs float32").

Usage (the torch 2.x chroot: torch 2.14, torchvision, torchao and pytorch-ir on PYTHONPATH; as
root, from the repository root):

    tools/torch2-chroot.sh run -- python3 /repo/bench/export_quantized_bench.py \
        [--out build/bench/quantized] [--only NAME,...] [--force]

writes, for every model of BENCH, OUT/<name>/ with
    f32/{model.json, weights.safetensors, io.safetensors}    the float32 module
    int8/{model.json, weights.safetensors, io.safetensors}   PyTorch's PT2E int8 module
    meta.json                                                flow, shapes, FLOPs, sizes, errors
Both IRs are pytorch-ir's (torch_ir.extract_ir of the real module, CPU, grad mode), as
tools/export_quantized.py writes its fixtures (its helpers do the work here): weights.safetensors
holds the weights some node reads (convert_pt2e's unused float weights left out), under the
state_dict keys of the IR's weight_name_mapping. io.safetensors:
    input.<graph input>   the seeded input (the same for f32 and int8)
    output.0              f32: the float32 module's output; int8: PyTorch's quantized module's
    float_output.0        (int8 only) the float32 module's output
    __metadata__          (int8) flow, quantizer config, versions, quant_error = max |output.0 -
                          float_output.0| (the check: an engine's int8 output verifies within a
                          quarter of it)

Models (weights seeded by bench/export_bench.py's build: tools/fixture_models.init_model, seed 0;
input from zoo.seeded_generator(0, "input.<arg>")):
    resnet18  torchvision ResNet-18, 1x3x224x224, PT2E static int8 (XNNPACKQuantizer,
              get_symmetric_quantization_config(is_per_channel=True)), calibrated on
              CALIB_BATCHES seeded random batches (not the test input)
    mlp       export_bench's mlp (Linear 1024-4096-4096-1000, ReLU), 1x1024, PT2E dynamic int8
              (is_dynamic=True: activations quantized per tensor at run time)
    mlp_b32   the same module on 32x1024
    gemm      nn.Linear(1024, 1024, bias=False) on 1024x1024, PT2E dynamic int8
    mlp_8da4w, mlp_b32_8da4w   the mlp at batch 1 and 32 as torchao's 8da4w
              (Int8DynamicActivationIntxWeightConfig: int4 weights in groups of 32, int8
              activations per token; the int8/ folder holds it)
    encoder, encoder_8da4w   export_bench's transformer_encoder (nn.TransformerEncoder, 4 layers,
              d 256, 8 heads, FF 1024) on 1x128x256, PT2E dynamic int8 and 8da4w

Deterministic (seeded; torch at 1 thread while making the references); a model whose outputs are
newer than this script and the exporters it imports is skipped (--force: export anyway). Each
int8 export is checked as export_quantized.py checks its fixtures: two eager runs give
bit-identical outputs, and replaying the written files node by node with the torch ops
reproduces output.0 within a quarter of the quantization error.
"""

import argparse
import collections
import copy
import inspect
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tools"))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import export_bench as eb  # noqa: E402
import export_fixture as ef  # noqa: E402
import export_quantized as eq  # noqa: E402
import pyir_export  # noqa: E402
import zoo  # noqa: E402
from fixture_models import init_model  # noqa: E402

SEED = 0
CALIB_BATCHES = 8
DEFAULT_OUT = os.path.join(REPO, "build", "bench", "quantized")

# name -> (export_bench model, input shape, flow, multiply-add FLOPs (2 per MAC) of the dense part)
BENCH = collections.OrderedDict([
    ("resnet18", ("resnet18", (1, 3, 224, 224), "pt2e_static", 2 * 1.814e9)),
    ("mlp", ("mlp", (1, 1024), "pt2e_dynamic", 2 * (1024 * 4096 + 4096 * 4096 + 4096 * 1000))),
    ("mlp_b32", ("mlp", (32, 1024), "pt2e_dynamic",
                 32 * 2 * (1024 * 4096 + 4096 * 4096 + 4096 * 1000))),
    ("gemm", ("gemm", (1024, 1024), "pt2e_dynamic", 2 * 1024 ** 3)),
    # torchao 8da4w (int8 per-token activations, int4 weights in groups of 32): batch 1 is a
    # decode step's GEMVs, memory-bound
    ("mlp_8da4w", ("mlp", (1, 1024), "8da4w", 2 * (1024 * 4096 + 4096 * 4096 + 4096 * 1000))),
    ("mlp_b32_8da4w", ("mlp", (32, 1024), "8da4w", 32 * 2 * (1024 * 4096 + 4096 * 4096 + 4096 * 1000))),
    # the transformer encoder (4 layers, d 256, seq 128): the BERT-style encoder in int8
    ("encoder", ("transformer_encoder", (1, 128, 256), "pt2e_dynamic", eb._encoder_flops())),
    ("encoder_8da4w", ("transformer_encoder", (1, 128, 256), "8da4w", eb._encoder_flops())),
])

FILES = ("model.json", "weights.safetensors", "io.safetensors")


class BenchExportError(Exception):
    pass


def build(name):
    """(float module, inputs, calibration batches): export_bench.build's seeding, this shape."""
    base, shape, _, _ = BENCH[name]
    ctor = eb.MODELS[base][0]
    torch.manual_seed(SEED)
    model = ctor()
    init_model(model, SEED)
    model.eval()
    arg = list(inspect.signature(model.forward).parameters)[0]

    def batch(key):
        return collections.OrderedDict([(arg, torch.randn(
            shape, generator=zoo.seeded_generator(SEED, key + arg), dtype=torch.float32))])

    inputs = batch("input.")
    calib = [batch("calib%d." % k) for k in range(CALIB_BATCHES)]
    return model, inputs, calib


def write_io(path, ir, inputs, outputs, float_outputs=None, meta=None):
    io = collections.OrderedDict()
    for (arg, t), g in zip(inputs.items(), ir["graph_inputs"]):
        if list(t.shape) != list(g["shape"]):
            raise BenchExportError("%s: input %s is %s, IR says %s" % (path, arg, list(t.shape),
                                                                     g["shape"]))
        io["input." + g["name"]] = t
    if len(outputs) != len(ir["graph_outputs"]):
        raise BenchExportError("%s: %d outputs, the IR has %d" % (path, len(outputs),
                                                                 len(ir["graph_outputs"])))
    for i, (t, g) in enumerate(zip(outputs, ir["graph_outputs"])):
        if list(t.shape) != list(g["shape"]) or t.dtype != torch.float32:
            raise BenchExportError("%s: output %d is %s %s, IR says %s %s"
                                   % (path, i, t.dtype, list(t.shape), g["dtype"], g["shape"]))
        io["output.%d" % i] = t
    for i, t in enumerate(float_outputs or []):
        io["float_output.%d" % i] = t
    ef.write_safetensors(path, io, meta)


def export_f32(model, inputs, out_dir):
    ir = pyir_export.export_ir(copy.deepcopy(model), inputs)
    state = {k: v.detach().clone() for k, v in model.state_dict().items()}
    weights = eq.weights_of(ir, state)
    outs = eq.run_eager(model, inputs)
    os.makedirs(out_dir, exist_ok=True)
    pyir_export.save(ir, os.path.join(out_dir, "model.json"))
    ef.write_safetensors(os.path.join(out_dir, "weights.safetensors"), weights, {"format": "pt"})
    write_io(os.path.join(out_dir, "io.safetensors"), ir, inputs, outs)
    return outs, sum(t.numel() * t.element_size() for t in weights.values())


def export_int8(name, model, inputs, calib, float_outs, out_dir):
    import torchao

    import torch_ir

    _, _, flow, _ = BENCH[name]
    with torch.no_grad():
        q, desc = eq.quantize(flow, model, inputs, calib)
    state = {k: v.detach().clone() for k, v in q.state_dict().items()}
    ir = json.loads(pyir_export.dumps(
        torch_ir.extract_ir(copy.deepcopy(q), tuple(inputs.values()), strict=False).to_dict()))
    q_outs = eq.run_eager(q, inputs)
    q_outs2 = eq.run_eager(q, inputs)
    if any(not torch.equal(a, b) for a, b in zip(q_outs, q_outs2)):
        raise BenchExportError("%s: two runs of the quantized module differ" % name)
    errors = [float((t - f).abs().max()) for t, f in zip(q_outs, float_outs)]
    weights = eq.weights_of(ir, state)
    os.makedirs(out_dir, exist_ok=True)
    pyir_export.save(ir, os.path.join(out_dir, "model.json"))
    ef.write_safetensors(os.path.join(out_dir, "weights.safetensors"), weights, {"format": "pt"})
    meta = collections.OrderedDict([
        ("model", name), ("flow", flow), ("quantizer", desc), ("torch", torch.__version__),
        ("torchao", torchao.__version__), ("pytorch_ir", torch_ir.__version__), ("seed", SEED),
        ("deterministic", "true"), ("quant_error", json.dumps(errors)),
    ])
    write_io(os.path.join(out_dir, "io.safetensors"), ir, inputs, q_outs, float_outs, meta)
    replayed = eq.replay(out_dir)
    diff = max(float((a - b).abs().max()) for a, b in zip(replayed, q_outs))
    if any(float((a - b).abs().max()) > e / 4 for a, b, e in zip(replayed, q_outs, errors)):
        raise BenchExportError("%s: replaying the written files misses output.0 by %g (more than "
                               "a quarter of the quantization error %s)" % (name, diff, errors))
    ops = collections.Counter(n["op_type"] for n in ir["nodes"])
    quant_ops = {eq._short_op(k): v for k, v in sorted(ops.items())
                 if k.startswith(eq.QUANT_PREFIXES)}
    return (errors, diff, desc, quant_ops,
            sum(t.numel() * t.element_size() for t in weights.values()))


def deps():
    return [os.path.abspath(__file__)] + [
        os.path.join(REPO, "tools", f) for f in ("export_quantized.py", "llm_quantize.py",
                                                "pyir_export.py", "export_fixture.py", "fixture_models.py",
                                                "zoo.py")] + [os.path.join(HERE, "export_bench.py")]


def up_to_date(mdir):
    outs = [os.path.join(mdir, v, f) for v in ("f32", "int8") for f in FILES]
    outs.append(os.path.join(mdir, "meta.json"))
    if not all(os.path.exists(p) for p in outs):
        return False
    oldest = min(os.path.getmtime(p) for p in outs)
    return all(os.path.getmtime(d) < oldest for d in deps() if os.path.exists(d))


def export_model(name, out_root, force):
    mdir = os.path.join(out_root, name)
    if not force and up_to_date(mdir):
        print("%s: up to date (%s)" % (name, mdir), flush=True)
        return
    t0 = time.time()
    os.makedirs(mdir, exist_ok=True)
    meta_path = os.path.join(mdir, "meta.json")
    if os.path.exists(meta_path):
        os.remove(meta_path)  # stale until everything is written
    model, inputs, calib = build(name)
    float_outs, f32_bytes = export_f32(model, inputs, os.path.join(mdir, "f32"))
    errors, replay_diff, desc, quant_ops, int8_bytes = export_int8(
        name, model, inputs, calib, float_outs, os.path.join(mdir, "int8"))
    with open(os.path.join(mdir, "f32", "model.json")) as f:
        ir = json.load(f)
    base, shape, flow, flops = BENCH[name]
    meta = collections.OrderedDict([
        ("name", name), ("model", base), ("flow", flow), ("quantizer", desc),
        ("input", ir["graph_inputs"][0]["name"]), ("input_shape", list(shape)),
        ("output_shape", ir["graph_outputs"][0]["shape"]), ("flops", flops),
        ("calibration_batches", CALIB_BATCHES if flow == "pt2e_static" else None),
        ("weight_tensor_bytes", {"f32": f32_bytes, "int8": int8_bytes}),
        ("quant_error", errors), ("replay_diff", replay_diff), ("quant_ops", quant_ops),
        ("torch", torch.__version__), ("seed", SEED),
    ])
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    print("%s: %s, max |int8 - f32| = %s, replay diff %g, weights %.1f -> %.1f MB (%.1f s) -> %s"
          % (name, flow, ", ".join("%.4g" % e for e in errors), replay_diff, f32_bytes / 1e6,
             int8_bytes / 1e6, time.time() - t0, mdir), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT, help="default: build/bench/quantized")
    ap.add_argument("--only", metavar="NAME,...", help="some of: " + ", ".join(BENCH))
    ap.add_argument("--force", action="store_true", help="ignore timestamps")
    a = ap.parse_args(argv)
    names = a.only.split(",") if a.only else list(BENCH)
    unknown = [n for n in names if n not in BENCH]
    if unknown:
        ap.error("unknown model(s): %s" % ", ".join(unknown))
    failed = eq.run_exports("export_quantized_bench", names,
                            lambda name: export_model(name, a.out, a.force))
    if failed:
        print("export_quantized_bench: failed: %s" % ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
