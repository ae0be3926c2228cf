#!/usr/bin/env python3
"""Export PyTorch's own quantized models to pytorch-ir IR + weights + reference I/O.

Usage (torch 2.14 + torchao 0.18 + pytorch-ir 0.2.3: the chroot of tools/torch2-chroot.sh, which
puts build/pyir -- pytorch-ir and torchao, tools/pyir_env.sh -- on PYTHONPATH; as root, from the
repository root):

    tools/torch2-chroot.sh run -- python3 /repo/tools/export_quantized.py [--out DIR] [--only A,B]

writes DIR/<name>/{model.json, weights.safetensors, io.safetensors} for every fixture of FIXTURES
(default DIR: tests/fixtures/quantized) and then DIR/README.md, a table made from the files in
DIR (so `--only` refreshes some fixtures and the table still lists all of them). Deterministic:
a rerun reproduces every file byte for byte (torchao warns that its C++ extensions do not load:
harmless, none is used).

Models: `mlp` (Linear 64-128, ReLU, Linear 128-10; batch 4), `small_cnn` (tools/fixture_models.py:
conv-BN-ReLU-maxpool-conv-BN-ReLU-avgpool-linear, 1x3x32x32), `tiny_resnet` (torchvision's ResNet
class and BasicBlock, layers [1, 1, 1, 1], widths 8/16/32/64 instead of 64..512, 10 classes,
1x3x32x32), `bert_encoder` and `llama_decoder` (tools/zoo.py, as the float zoo fixtures). Float
weights come from fixture_models.init_model and inputs from zoo.seeded_generator (seed 0), as in
export_fixture.py.

Flows:
  pt2e_static   PT2E static int8: torch.export.export(m, args).module(), prepare_pt2e with
                XNNPACKQuantizer().set_global(get_symmetric_quantization_config(
                is_per_channel=True)), calibration on CALIB_BATCHES seeded batches (not the
                test input), convert_pt2e. Weights: int8 per-channel (symmetric, qmin -127) with
                float32 scales and int64 zero points, read through
                quantized_decomposed.dequantize_per_channel; activations: int8 per-tensor with
                constant scale/zero point in the attrs (quantize/dequantize_per_tensor.default).
                Convolutions get their BatchNorm folded in by convert_pt2e.
  pt2e_dynamic  the same with is_dynamic=True: activations quantized at run time,
                quantized_decomposed.choose_qparams.tensor (float64 scale, int64 zero point,
                both [1]) -> getitem -> quantize/dequantize_per_tensor.tensor. XNNPACKQuantizer's
                dynamic config only annotates linear layers.
  int4_weight_only
                torchao quantize_(m, IntxWeightOnlyConfig(weight_dtype=torch.int4,
                granularity=PerGroup(32))) then unwrap_tensor_subclass(m): every nn.Linear weight
                becomes int8-stored int4 values (-8..7), float32 scales and int8 zero points
                [out, in/32] (parametrizations.weight.original0/1/2) read by
                torchao.dequantize_affine.default (block_size [1, 32]).
  8da4w         torchao Int8DynamicActivationIntxWeightConfig(weight_dtype=torch.int4,
                weight_granularity=PerGroup(32)): the int4 weights above plus per-token
                asymmetric int8 activations: torchao.choose_qparams_affine (float32 scale, int8
                zero point) -> getitem -> quantize_affine -> dequantize_affine before each linear.
Every linear here has in_features 32, 64 or 128, so PerGroup(32) divides them all.

The IR is torch_ir.extract_ir(module, inputs, strict=False) of the quantized module (a deep copy;
pyir_export.dumps writes the torch dtypes of the quant ops' attrs as "torch.int8"), saved as
pytorch-ir's IR.save writes it (pyir_export.save), exactly as pytorch-ir made it: convert_pt2e
keeps the float weights (l1.weight, ...) as attributes, so they stay in the IR's "weights" /
"weight_name_mapping" though no node reads them. The module is exported on CPU in grad mode, as
export_fixture.py does: from the meta device (pytorch-ir's own recipe) the PT2E graphs fail
(torch.export records `_assert_tensor_metadata(device=cpu)` nodes in them), and so does
llama_decoder (it makes `arange` on the CPU in forward), and the constants (bert's position_ids,
llama's inv_freq) would lose their values. Exported under no_grad, llama's rotary module would
become wrap_with_autocast instead of the float fixture's wrap_with_set_grad_enabled.

weights.safetensors: the quantized module's state_dict, taken before it first runs (llama's KV
caches are zeros), under the IR's weight_name_mapping keys, limited to the weights some node
reads (the unused float weights left by convert_pt2e are left out) and without the IR's
constants (their values are in model.json). Integer weights keep their dtypes (int8 weights and
torchao zero points, int64 PT2E zero points).

io.safetensors (same key names as tests/fixtures/models):
    input.<graph input name>   every graph input, seeded
    output.<i>                 the quantized module's outputs (PyTorch, eager, CPU), float32
    float_output.<i>           the float32 module's outputs on the same inputs
    __metadata__               model, flow, quantizer config, versions, deterministic, and the
                               quantization error of each output
The quantization error of output i is max |output.<i> - float_output.<i>|. A quantized model
verifies when the engine's output i is within a quarter of that error of output.<i> (element-
wise max). PyTorch's quantized run is repeated on a fresh copy and must be bit-identical
("deterministic": true), and torch.export of the quantized module run as a GraphModule must
reproduce output.<i> within 1e-6 (the exported graph is the module that made the references).
Last, the written files are replayed without the module: model.json run node by node with the
torch op each op_type names, on weights.safetensors and the io inputs (replay()); this must land
within a quarter of the quantization error of output.<i> (it reproduces them exactly).
"""

import argparse
import collections
import copy
import hashlib
import json
import os
import struct
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

import export_fixture as ef  # noqa: E402
import llm_quantize  # noqa: E402
import pyir_export  # noqa: E402
import zoo  # noqa: E402
from fixture_models import SmallCNN, build_model, init_model  # noqa: E402

DEFAULT_OUT = os.path.normpath(os.path.join(HERE, "..", "tests", "fixtures", "quantized"))
SEED = 0
CALIB_BATCHES = 4
GROUP_SIZE = 32


class QuantExportError(Exception):
    pass


# ---- models ---------------------------------------------------------------------------------


class MLP(nn.Module):
    """Linear(64, 128) - ReLU - Linear(128, 10)."""

    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(64, 128)
        self.relu = nn.ReLU()
        self.l2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.l2(self.relu(self.l1(x)))


def tiny_resnet(num_classes=10, widths=(8, 16, 32, 64)):
    """torchvision's ResNet (its forward, _make_layer and BasicBlock) with layers [1, 1, 1, 1] and
    stage widths 8/16/32/64: ResNet.__init__ hard-codes 64..512, so this sets up what it would."""
    from torchvision.models.resnet import BasicBlock, ResNet

    class TinyResNet(ResNet):
        def __init__(self):
            nn.Module.__init__(self)
            self._norm_layer = nn.BatchNorm2d
            self.inplanes = widths[0]
            self.dilation = 1
            self.groups = 1
            self.base_width = 64
            self.conv1 = nn.Conv2d(3, widths[0], kernel_size=7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(widths[0])
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
            self.layer1 = self._make_layer(BasicBlock, widths[0], 1)
            self.layer2 = self._make_layer(BasicBlock, widths[1], 1, stride=2)
            self.layer3 = self._make_layer(BasicBlock, widths[2], 1, stride=2)
            self.layer4 = self._make_layer(BasicBlock, widths[3], 1, stride=2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(widths[3] * BasicBlock.expansion, num_classes)

    return TinyResNet()


def _randn(shape):
    return lambda g: torch.randn(shape, generator=g, dtype=torch.float32)


def _own_model(ctor, input_makers):
    """(model, ordered inputs, calibration batch maker) of a model defined here, seeded like
    fixture_models.build_model."""

    def build(seed):
        torch.manual_seed(seed)
        model = ctor()
        init_model(model, seed)
        model.eval()
        return model, _make_inputs(model, input_makers, seed, "input.")

    return build, lambda model, seed, k: _make_inputs(model, input_makers, seed, "calib%d." % k)


def _make_inputs(model, makers, seed, prefix):
    import inspect

    names = list(inspect.signature(model.forward).parameters)[: len(makers)]
    return collections.OrderedDict(
        (n, mk(zoo.seeded_generator(seed, prefix + n))) for n, mk in zip(names, makers))


def _zoo_model(name):
    """A model of fixture_models.MODELS (zoo included): built by build_model; calibration
    batches come from the same input makers with other seeds."""
    ctor, shapes = ef.MODELS[name]
    makers = [s if callable(s) else _randn(s) for s in shapes]

    def build(seed):
        return build_model(name, seed)

    return build, lambda model, seed, k: _make_inputs(model, makers, seed, "calib%d." % k)


MODELS = collections.OrderedDict([
    ("mlp", _own_model(MLP, [_randn((4, 64))])),
    ("small_cnn", _own_model(SmallCNN, [_randn((1, 3, 32, 32))])),
    ("tiny_resnet", _own_model(tiny_resnet, [_randn((1, 3, 32, 32))])),
    ("bert_encoder", _zoo_model("bert_encoder")),
    ("llama_decoder", _zoo_model("llama_decoder")),
])

# name -> (model, flow)
FIXTURES = collections.OrderedDict([
    ("mlp_pt2e_static", ("mlp", "pt2e_static")),
    ("mlp_pt2e_dynamic", ("mlp", "pt2e_dynamic")),
    ("mlp_int4_weight_only", ("mlp", "int4_weight_only")),
    ("mlp_8da4w", ("mlp", "8da4w")),
    ("cnn_pt2e_static", ("small_cnn", "pt2e_static")),
    ("resnet_pt2e_static", ("tiny_resnet", "pt2e_static")),
    ("bert_pt2e_dynamic", ("bert_encoder", "pt2e_dynamic")),
    ("bert_8da4w", ("bert_encoder", "8da4w")),
    ("llama_int4_weight_only", ("llama_decoder", "int4_weight_only")),
    ("llama_8da4w", ("llama_decoder", "8da4w")),
])


# ---- quantization flows ---------------------------------------------------------------------


def _pt2e(model, inputs, calib, is_dynamic):
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from torchao.testing.pt2e._xnnpack_quantizer import (XNNPACKQuantizer,
                                                        get_symmetric_quantization_config)

    cfg = get_symmetric_quantization_config(is_per_channel=True, is_dynamic=is_dynamic)
    quantizer = XNNPACKQuantizer().set_global(cfg)
    gm = torch.export.export(model, tuple(inputs.values())).module()
    prepared = prepare_pt2e(gm, quantizer)
    for batch in calib:
        prepared(*batch.values())
    desc = ("XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True, "
            "is_dynamic=%s)), %d calibration batches" % (is_dynamic, len(calib)))
    return convert_pt2e(prepared), desc


def _torchao(model, config, desc):
    from torchao.quantization import quantize_
    from torchao.utils import unwrap_tensor_subclass

    q = copy.deepcopy(model)
    quantize_(q, config)
    return unwrap_tensor_subclass(q), desc


def quantize(flow, model, inputs, calib):
    """(quantized module, description of the config). `model` is not modified."""
    model = copy.deepcopy(model)
    if flow == "pt2e_static":
        return _pt2e(model, inputs, calib, False)
    if flow == "pt2e_dynamic":
        return _pt2e(model, inputs, calib, True)
    if flow in llm_quantize.QUANT_FLOWS:
        return _torchao(model, *llm_quantize.torchao_config(flow, GROUP_SIZE))
    raise QuantExportError("unknown flow %r" % flow)


# ---- export ---------------------------------------------------------------------------------


def run_eager(module, inputs):
    """Outputs (flat list, float32) of a fresh copy of `module` (stateful models: KV caches
    start from the initial state every time)."""
    return ef.expected_outputs(copy.deepcopy(module), inputs)


read_weights = llm_quantize.read_weights  # noqa: E305 (the rule export_llm.py uses too)


def weights_of(ir, state):
    out = collections.OrderedDict()
    shapes = {w["name"]: w for w in ir["weights"]}
    for ph, key in read_weights(ir).items():
        if key not in state:
            raise QuantExportError("weight %s (%s) is not in the quantized state_dict" % (key, ph))
        t = state[key]
        w = shapes.get(key)
        if w is not None and (list(t.shape) != list(w["shape"])
                              or str(t.dtype).replace("torch.", "") != w["dtype"]):
            raise QuantExportError("weight %s: state_dict %s %s, IR %s %s"
                                   % (key, t.dtype, list(t.shape), w["dtype"], w["shape"]))
        out[key] = t
    return out


def export_one(name, out_dir):
    import torchao

    import torch_ir

    model_name, flow = FIXTURES[name]
    build, calib_maker = MODELS[model_name]
    model, inputs = build(SEED)
    calib = [calib_maker(model, SEED, k) for k in range(CALIB_BATCHES)]
    float_outs = run_eager(model, inputs)
    with torch.no_grad():
        q, desc = quantize(flow, model, inputs, calib)
    # the float module is untouched by quantization
    again = run_eager(model, inputs)
    if any(not torch.equal(a, b) for a, b in zip(again, float_outs)):
        raise QuantExportError("%s: quantizing changed the float model" % name)
    state = {k: v.detach().clone() for k, v in q.state_dict().items()}

    ir = json.loads(pyir_export.dumps(
        torch_ir.extract_ir(copy.deepcopy(q), tuple(inputs.values()), strict=False).to_dict()))
    q_outs = run_eager(q, inputs)
    q_outs2 = run_eager(q, inputs)
    deterministic = all(torch.equal(a, b) for a, b in zip(q_outs, q_outs2))
    with torch.no_grad():
        gm = torch.export.export(copy.deepcopy(q), tuple(inputs.values())).module()
        ex_outs = ef.expected_outputs(gm, inputs)
    export_diff = max(float((a - b).abs().max()) for a, b in zip(ex_outs, q_outs))
    if export_diff > 1e-6:
        raise QuantExportError("%s: the exported graph differs from the module by %g"
                               % (name, export_diff))

    if len(q_outs) != len(ir["graph_outputs"]) or len(float_outs) != len(q_outs):
        raise QuantExportError("%s: %d quantized / %d float outputs, IR has %d"
                               % (name, len(q_outs), len(float_outs), len(ir["graph_outputs"])))
    io = collections.OrderedDict()
    for (arg, t), meta in zip(inputs.items(), ir["graph_inputs"]):
        if list(t.shape) != list(meta["shape"]):
            raise QuantExportError("%s: input %s shape %s, IR %s" % (name, arg, list(t.shape),
                                                                    meta["shape"]))
        io["input." + meta["name"]] = t
    errors = []
    for i, (t, f, meta) in enumerate(zip(q_outs, float_outs, ir["graph_outputs"])):
        if list(t.shape) != list(meta["shape"]) or t.dtype != torch.float32:
            raise QuantExportError("%s: output %d is %s %s, IR says %s %s"
                                   % (name, i, t.dtype, list(t.shape), meta["dtype"],
                                      meta["shape"]))
        io["output.%d" % i] = t
        errors.append(float((t - f).abs().max()))
    for i, f in enumerate(float_outs):
        io["float_output.%d" % i] = f

    os.makedirs(out_dir, exist_ok=True)
    pyir_export.save(ir, os.path.join(out_dir, "model.json"))
    ef.write_safetensors(os.path.join(out_dir, "weights.safetensors"), weights_of(ir, state),
                         {"format": "pt"})
    meta = collections.OrderedDict([
        ("model", model_name), ("flow", flow), ("quantizer", desc),
        ("torch", torch.__version__), ("torchao", torchao.__version__),
        ("pytorch_ir", torch_ir.__version__), ("seed", SEED),
        ("deterministic", "true" if deterministic else "false"),
        ("quant_error", json.dumps(errors)),
    ])
    ef.write_safetensors(os.path.join(out_dir, "io.safetensors"), io, meta)
    replayed = replay(out_dir)
    replay_diff = max(float((a - b).abs().max()) for a, b in zip(replayed, q_outs))
    if any(float((a - b).abs().max()) > e / 4 for a, b, e in zip(replayed, q_outs, errors)):
        raise QuantExportError("%s: replaying the written files misses output.<i> by %g (more "
                               "than a quarter of the quantization error)" % (name, replay_diff))
    print("%-24s %-16s %s output(s), max |quantized - float32| = %s, deterministic: %s, "
          "files replayed: max |replay - output| = %g"
          % (name, flow, len(q_outs), ", ".join("%.4g" % e for e in errors),
             "yes" if deterministic else "NO", replay_diff), flush=True)
    if not deterministic:
        raise QuantExportError("%s: two runs of the quantized module differ" % name)


# ---- replay: the written files, op by op ----------------------------------------------------


def _safetensors_header(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        return json.loads(f.read(n))


_ST_TORCH = {v: k for k, v in ef._ST_DTYPES.items()}


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    n = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + n])
    out = collections.OrderedDict()
    for k, v in header.items():
        if k == "__metadata__":
            continue
        a, b = v["data_offsets"]
        dtype = _ST_TORCH[v["dtype"]]
        if b == a:
            out[k] = torch.empty(v["shape"], dtype=dtype)
        else:
            out[k] = torch.frombuffer(bytearray(blob[8 + n + a:8 + n + b]),
                                      dtype=dtype).reshape(v["shape"])
    return out


def _attr(v):
    return getattr(torch, v[6:]) if isinstance(v, str) and v.startswith("torch.") else v


def replay(out_dir):
    """Run DIR/model.json with the tensors of DIR/weights.safetensors and io.safetensors' inputs,
    node by node with the torch op each op_type names (attrs by schema argument name, tensor
    inputs in schema order): the files alone must reproduce output.<i>. Returns the outputs.
    wrap_with_set_grad_enabled (llama's rotary module; its body is not in the IR) is computed
    by tools/zoo.py's RotaryEmbedding from its two inputs (inv_freq, position ids)."""
    with open(os.path.join(out_dir, "model.json")) as f:
        ir = json.load(f)
    weights = read_safetensors(os.path.join(out_dir, "weights.safetensors"))
    io = read_safetensors(os.path.join(out_dir, "io.safetensors"))
    env = {g["name"]: io["input." + g["name"]] for g in ir["graph_inputs"]}
    consts = {k: torch.tensor(json.loads(v["data"]) if isinstance(v["data"], str) else v["data"],
                              dtype=getattr(torch, v["dtype"]))
              for k, v in ir.get("constants", {}).items()}
    for ph, key in ir["weight_name_mapping"].items():
        if key in consts:
            env[ph] = consts[key]
        elif key in weights:
            env[ph] = weights[key]
    with torch.no_grad():
        for n in ir["nodes"]:
            op = n["op_type"]
            ins = [env[i["name"]] for i in n["inputs"]]
            attrs = {k: _attr(v) for k, v in n["attrs"].items()}
            if op == "<built-in function getitem>":
                res = ins[attrs["index"]]
            elif op == "wrap_with_set_grad_enabled":
                inv_freq, pos = ins
                rope = zoo.RotaryEmbedding(inv_freq.numel() * 2)
                rope.inv_freq.copy_(inv_freq)
                res = rope(torch.zeros((), dtype=torch.float32), pos)
            else:
                ns, packet, overload = op.split(".")
                fn = getattr(getattr(getattr(torch.ops, ns), packet), overload)
                it, kw = iter(ins), {}
                for a in fn._schema.arguments:
                    if a.name in attrs:
                        kw[a.name] = attrs[a.name]
                    elif a.kwarg_only:
                        continue
                    elif str(a.type) == "List[Tensor]":
                        kw[a.name] = list(it)
                    else:
                        nxt = next(it, None)
                        if nxt is None:
                            break
                        kw[a.name] = nxt
                res = fn(**kw)
            outs = n["outputs"]
            if len(outs) > 1:
                for o, r in zip(outs, res):
                    env[o["name"]] = r
            elif outs:
                env[outs[0]["name"]] = res
    return [env[o["name"]] for o in ir["graph_outputs"]]


# ---- README ---------------------------------------------------------------------------------


QUANT_PREFIXES = ("quantized_decomposed.", "torchao.")


def _short_op(op):
    for p in QUANT_PREFIXES:
        if op.startswith(p):
            return op[len(p):]
    return op


def readme_rows(root):
    rows = []
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        files = ["model.json", "weights.safetensors", "io.safetensors"]
        if not all(os.path.exists(os.path.join(d, f)) for f in files):
            continue
        with open(os.path.join(d, "model.json")) as f:
            ir = json.load(f)
        io = _safetensors_header(os.path.join(d, "io.safetensors"))
        meta = io.get("__metadata__", {})
        ops = collections.Counter(n["op_type"] for n in ir["nodes"])
        quant = ["%s %d" % (_short_op(k), v) for k, v in sorted(ops.items())
                 if k.startswith(QUANT_PREFIXES)]
        if ops.get("<built-in function getitem>"):
            quant.append("getitem %d" % ops["<built-in function getitem>"])
        ins = ["`%s` %s %s" % (g["name"], g["dtype"], "x".join(map(str, g["shape"])))
               for g in ir["graph_inputs"]]
        sizes = [os.path.getsize(os.path.join(d, f)) for f in files]
        errs = json.loads(meta.get("quant_error", "[]"))
        order = list(FIXTURES).index(name) if name in FIXTURES else len(FIXTURES)
        rows.append((order, name, meta.get("flow", "?"), meta.get("model", "?"), ", ".join(ins),
                     ", ".join(quant), ", ".join("%.3g" % e for e in errs),
                     meta.get("deterministic", "?"), " / ".join(_kb(s) for s in sizes),
                     sum(sizes)))
    rows.sort()
    return rows


def _kb(n):
    return "%.1f KB" % (n / 1024.0)


README_HEAD = """# Quantized model fixtures

PyTorch's own quantized models (PT2E int8 static and dynamic, torchao int4 weight-only and
int8-dynamic-activation/int4-weight) as pytorch-ir writes them, made by
`tools/export_quantized.py` (its docstring describes each flow). Regenerate, as root from the
repository root (deterministic: the same bytes every time; about 10 s):

```
tools/torch2-chroot.sh run -- python3 /repo/tools/export_quantized.py [--only NAME,...]
```

(torch 2.14.1 in the Debian sid chroot; pytorch-ir 0.2.3 and torchao 0.18.0 from
`tools/requirements-export.txt`, installed into `build/pyir` by `tools/pyir_env.sh`.)

Each `<name>/` holds:

- `model.json`: the quantized module's IR, exactly as pytorch-ir 0.2.3 writes it (dtype attrs
  as `"torch.int8"`). PT2E modules keep their float weights (`l1.weight`, ...) in
  `weights`/`weight_name_mapping` though no node reads them.
- `weights.safetensors`: the weights some node reads, under their state_dict keys (the unused
  float weights are left out; constants are in `model.json`). Int8 weights, int8 (torchao) /
  int64 (PT2E) zero points, float32 scales.
- `io.safetensors`: `input.<graph input>`, `output.<i>` (PyTorch's quantized module, eager, CPU,
  float32), `float_output.<i>` (the float32 model on the same inputs), and metadata (model, flow,
  quantizer config, versions, `deterministic`, `quant_error`).

Verification: the quantization error of output i is `max |output.<i> - float_output.<i>|`; the
engine's output i verifies when `max |engine - output.<i>| <= quant_error / 4`.
"Deterministic" = two eager runs of the quantized module gave bit-identical outputs.

Op names below drop the `quantized_decomposed.` / `torchao.` prefixes; `getitem` is
`<built-in function getitem>` (unpacking choose_qparams' two outputs; llama also has 2 for its
rotary module's cos/sin).

| name | flow | model | inputs | quant ops in the IR | max \\|quantized - float32\\| per output | deterministic | model.json / weights / io |
| --- | --- | --- | --- | --- | --- | --- | --- |
"""

README_TAIL = """
Models: `mlp` = Linear(64, 128)-ReLU-Linear(128, 10); `small_cnn` = `tools/fixture_models.py`'s
SmallCNN (conv-BN-ReLU-maxpool-conv-BN-ReLU-avgpool-linear; convert_pt2e folds the BatchNorms
into the convolutions: no batch_norm node is left); `tiny_resnet` = torchvision's `ResNet` with
`BasicBlock`, layers [1, 1, 1, 1], widths 8/16/32/64, 10 classes (`add_` + `relu_` skips);
`bert_encoder`, `llama_decoder` = the zoo models of `tests/fixtures/models` (`tools/zoo.py`), same
seeded weights and inputs. PT2E static calibrates on 4 seeded batches other than the test input.
Group size 32 for the int4 weights (every linear has in_features 32, 64 or 128).
`llama_decoder`'s KV caches are zero in `weights.safetensors` (the state before the first call);
there is no second step here.

What an engine meets in these IRs:

- PT2E: int8 weights in [-127, 127] (`quant_min` -127), per-channel (axis 0) float32 scales and
  int64 zero points (all 0) as weights; activations int8 [-128, 127] with the scale (float) and
  zero point (int) as attrs of `quantize_per_tensor.default` / `dequantize_per_tensor.default`.
  The static graphs end in a quantize/dequantize pair, so their outputs lie on a quantization
  grid. `choose_qparams.tensor` (dynamic) outputs a float64 scale and an int64 zero point, shape
  [1], read by `quantize_per_tensor.tensor` / `dequantize_per_tensor.tensor`; attr `eps`
  2^-12.
- torchao: int4 weights stored as int8 in [-8, 7], float32 scales and int8 zero points (all 0)
  of shape [out, in/32], `dequantize_affine` with `block_size` [1, 32]. 8da4w activations:
  `choose_qparams_affine` (`mapping_type` "ASYMMETRIC", `eps` null = float32 eps,
  `scale_dtype` null, `zero_point_dtype` torch.int8; outputs a float32 scale and an int8 zero
  point per token, shaped as the input without its last dimension: [1, 8] for [1, 8, 32],
  [4] for [4, 64], as PyTorch computes them)
  then `quantize_affine` / `dequantize_affine`, `block_size` [1, ..., 1, in_features].
- The float weights that convert_pt2e leaves behind (`l1.weight`, `conv1.weight`, ...) are
  listed in the IR's `weights` but absent from `weights.safetensors`: no node reads them.
- Exported like `tests/fixtures/models/*/torch2.14-training` (real CPU module, grad mode):
  `_assert_tensor_metadata`, `dropout` (train=false), llama's `wrap_with_set_grad_enabled`
  rotary node are as in the float fixtures.

`export_quantized.py` checks each fixture as it writes it: the quantized module gives
bit-identical outputs on two runs, torch.export of it reproduces them, and the written files
replayed node by node with the torch op of each `op_type` (no module) reproduce `output.<i>`
exactly.
"""


def write_readme(root):
    rows = readme_rows(root)
    lines = ["| `%s` | %s | %s | %s | %s | %s | %s | %s |" % r[1:9] for r in rows]
    total = sum(r[9] for r in rows)
    text = (README_HEAD + "\n".join(lines) + "\n\nTotal: %s in %d fixtures.\n" % (_kb(total),
                                                                                  len(rows))
            + README_TAIL)
    with open(os.path.join(root, "README.md"), "w") as f:
        f.write(text)


def run_exports(label, names, export):
    """export(name) for each name in one deterministic setting (one torch thread: the same float
    sums every run, whatever the machine; the pinned pytorch-ir), going on past failures; returns
    the names that failed, each reported on stderr."""
    torch.set_num_threads(1)
    warnings.filterwarnings("ignore")
    pyir_export.import_torch_ir()  # the pinned version, or a clear error
    failed = []
    for name in names:
        try:
            export(name)
        except Exception as e:  # keep going: report every one that fails
            failed.append(name)
            print("%s: %s failed: %s: %s" % (label, name, type(e).__name__, e), file=sys.stderr, flush=True)
    return failed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT, help="default: tests/fixtures/quantized")
    ap.add_argument("--only", metavar="NAME,...", help="some of: " + ", ".join(FIXTURES))
    a = ap.parse_args(argv)
    names = a.only.split(",") if a.only else list(FIXTURES)
    unknown = [n for n in names if n not in FIXTURES]
    if unknown:
        ap.error("unknown fixture(s): %s" % ", ".join(unknown))
    failed = run_exports("export_quantized", names, lambda name: export_one(name, os.path.join(a.out, name)))
    write_readme(a.out)
    for name in names:
        d = os.path.join(a.out, name)
        for f in ("model.json", "weights.safetensors", "io.safetensors"):
            p = os.path.join(d, f)
            if os.path.exists(p):
                with open(p, "rb") as fh:
                    print("  %s  %s/%s" % (hashlib.sha256(fh.read()).hexdigest()[:16], name, f))
    if failed:
        print("export_quantized: failed: %s" % ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
