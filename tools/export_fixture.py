#!/usr/bin/env python3
"""Export a test fixture for torch-ir-wasm: pytorch-ir style IR + weights + reference I/O.

Usage:
    export_fixture.py MODEL --out DIR [--flavor auto|training|decomposed] [--seed N]
                      [--ir-only] [--from-ir EXISTING.json]
    export_fixture.py --zoo [--out ROOT] [--only M1,M2] [--flavor ...]
    export_fixture.py --from-ir-batch < "MODEL JSON OUTDIR" lines

Writes into DIR:
    model.json          the IR, in the JSON format written by pytorch-ir (torch_ir.IR.save)
    weights.safetensors the (seeded, re-initialised) state_dict, original keys
    io.safetensors      "input.<graph input name>" and "output.<i>" (graph_outputs order);
                        outputs come from the real nn.Module in eval mode under no_grad

Flavors:
    training    torch >= 2.5: torch.export.export(model, args), no run_decompositions();
                this is what pytorch-ir writes.
    decomposed  torch 1.13 (also works later): make_fx of a functionalized
                functional_call(model, params+buffers, inputs) with the part of the core-ATen
                decomposition table that 1.13 knows (aten.t -> permute, _reshape_alias -> view,
                ...). Close to the "old default export"/core forms.
    auto        training when torch.export exists (torch >= 2.5), else decomposed.

--zoo exports every zoo family (tools/zoo.py, plus resnet18/mobilenet_v2/vit_tiny) into
tests/fixtures/models/<model>/<flavor dir>/ (or --out ROOT), the big ones as model.json only.

--ir-only writes just model.json. --from-ir X.json skips the export and writes the weights and
I/O for the model whose IR is X.json (exported elsewhere, e.g. in the torch 2.x chroot); the
model's state_dict keys must match X.json's weights.

The training flavor's IR is written by the real pytorch-ir package (tools/pyir_export.py, pinned in
tools/requirements-export.txt). The decomposed flavor (torch 1.13, which pytorch-ir cannot run on)
is written by tools/ir_writer.py, pytorch-ir's serializer re-implemented over an FX graph; the
cross-check (pyir_export.py --cross-check) byte-compares the two on every training fixture.

Runs under Debian's torch 1.13 (/usr/bin/python3) and torch 2.x. Deterministic: the same
MODEL/seed gives the same files.
"""

import argparse
import collections
import json
import os
import re
import struct
import sys

import torch
import torch.nn as nn

import ir_writer
import pyir_export
import zoo

TORCH_VERSION = torch.__version__
_m = re.match(r"(\d+)\.(\d+)", TORCH_VERSION)
TORCH_MAJOR_MINOR = (int(_m.group(1)), int(_m.group(2)))


FixtureError = ir_writer.FixtureError
build_ir = ir_writer.build_ir
_placeholder_name = ir_writer._placeholder_name
_constants_json = ir_writer._constants_json


from fixture_models import MODELS, build_model  # noqa: E402  (also used as ef.build_model)


# ----------------------------------------------------------------------------------------
# safetensors (written by hand: 8-byte LE header length, JSON header, raw little-endian data)
# ----------------------------------------------------------------------------------------

_ST_DTYPES = {
    torch.float32: "F32", torch.float64: "F64", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}


def _tensor_bytes(t):
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()  # x86/ARM little-endian hosts


def write_safetensors(path, tensors, metadata=None):
    header = collections.OrderedDict()
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    blobs, offset = [], 0
    for name, t in tensors.items():
        if t.dtype not in _ST_DTYPES:
            raise FixtureError("cannot store %s (%s) in safetensors" % (name, t.dtype))
        b = _tensor_bytes(t)
        header[name] = {"dtype": _ST_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


# ----------------------------------------------------------------------------------------
# Export flavors (training: pytorch-ir; decomposed: FX graph -> IR through ir_writer.build_ir)
# ----------------------------------------------------------------------------------------

# ---- training flavor: torch.export.export -------------------------------------------------


def export_training(model, inputs):
    """The training-flavor IR as a dict, written by the real pytorch-ir package (pyir_export.py).
    Graphs with data-dependent sizes, which pytorch-ir 0.2.3 refuses, go through ir_writer."""
    if not hasattr(torch, "export") or TORCH_MAJOR_MINOR < (2, 5):
        raise FixtureError("flavor 'training' needs torch >= 2.5 (this is %s)" % TORCH_VERSION)
    return pyir_export.export_ir(model, inputs)


# ---- decomposed flavor: make_fx + functionalization + core decompositions ----------------

# Ops in torch 2.x's core_aten_decompositions() that torch 1.13's decomposition table also
# knows (out/backward/fft/loss variants left out). Looked up by name; missing ones are skipped.
_CORE_DECOMPS = """
_reshape_alias.default _unsafe_view.default addcdiv.default addcmul.default addr.default
all.default all.dim arange.default arange.start celu.default clamp_max.Tensor clamp_max.default
clamp_min.Tensor clamp_min.default detach.default diag_embed.default dot.default
empty_like.default eye.default eye.m floor_divide.default frac.default glu.default
hardshrink.default hardsigmoid.default hardswish.default hardswish_.default hardtanh_.default
heaviside.default index_add.default index_copy.default index_fill.int_Scalar
index_fill.int_Tensor isneginf.default isposinf.default leaky_relu_.default logit.default
logsumexp.default masked_fill.Scalar masked_fill.Tensor meshgrid.default meshgrid.indexing
mish.default mv.default nan_to_num.default new_empty.default new_full.default new_ones.default
new_zeros.default norm.Scalar norm.ScalarOpt_dim ones.default prelu.default relu6.default
roll.default rot90.default rsub.Scalar rsub.Tensor selu.default sgn.default silu.default
silu_.default sinc.default softplus.default softshrink.default split.Tensor squeeze.default
squeeze.dim stack.default std.correction sum.default t.default threshold.default
trace.default transpose.int tril.default triu.default unbind.int var_mean.default
var_mean.dim where.Scalar where.ScalarOther where.ScalarSelf where.default xlogy.Tensor
zeros.default
""".split()


# 1.13 decomposes these into prims.* ops (prims.arange, prims.where, prims.squeeze, prims.abs
# in frac), which no exported IR contains; keep the aten ops (tril/triu and masked_fill
# decompositions then emit aten.arange / aten.where.Scalar*).
_PRIMS_DECOMPS_1_13 = {"arange.default", "arange.start", "where.Scalar", "where.ScalarOther",
                       "where.ScalarSelf", "squeeze.default", "squeeze.dim", "frac.default",
                       "hardshrink.default", "softshrink.default"}


def _decomposition_table():
    import torch._decomp as D

    if hasattr(D, "core_aten_decompositions"):
        return D.core_aten_decompositions()
    ops = []
    for name in _CORE_DECOMPS:
        if name in _PRIMS_DECOMPS_1_13:
            continue
        packet, overload = name.rsplit(".", 1)
        op = getattr(getattr(torch.ops.aten, packet, None), overload, None)
        if op is not None and op in D.decomposition_table:
            ops.append(op)
    return D.get_decompositions(ops)


class _NoMHAFastPath:
    """torch 1.13's nn.MultiheadAttention / TransformerEncoderLayer take a fused fast path
    (aten._native_multi_head_attention) in eval mode; make it report has_torch_function so
    that the traced graph has the ordinary ops instead."""

    def __enter__(self):
        import torch.overrides as ov

        self._orig = ov.has_torch_function
        orig = self._orig

        def patched(*args, **kwargs):
            f = sys._getframe(1).f_code.co_filename.replace("\\", "/")
            if f.endswith("nn/modules/activation.py") or f.endswith("nn/modules/transformer.py"):
                return True
            return orig(*args, **kwargs)

        ov.has_torch_function = patched
        return self

    def __exit__(self, *exc):
        import torch.overrides as ov

        ov.has_torch_function = self._orig
        return False


def export_decomposed(model, inputs):
    from torch.fx.experimental.proxy_tensor import make_fx

    try:
        from torch.func import functional_call, functionalize  # torch >= 2.0
    except ImportError:
        from functorch.experimental import functionalize
        from torch.nn.utils.stateless import functional_call

    params = collections.OrderedDict((k, v.detach()) for k, v in model.state_dict(keep_vars=True).items()
                                     if isinstance(v, nn.Parameter))  # tied weights under each key
    buffers = collections.OrderedDict(model.named_buffers())
    input_names = list(inputs)

    def fn(p, b, *args):
        state = dict(p)
        state.update(b)
        return functional_call(model, state, tuple(args))

    flat_args = list(params.values()) + list(buffers.values()) + list(inputs.values())
    with torch.no_grad(), _NoMHAFastPath():
        gm = make_fx(functionalize(fn), decomposition_table=_decomposition_table())(
            params, buffers, *inputs.values()
        )
    gm.graph.eliminate_dead_code()
    gm.recompile()

    # Record every node's real value.
    values = {}

    class Recorder(torch.fx.Interpreter):
        def run_node(self, n):
            r = super().run_node(n)
            values[n] = r
            return r

    with torch.no_grad():
        Recorder(gm).run(*flat_args)

    phs = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(phs) != len(flat_args):
        raise FixtureError("expected %d placeholders, traced %d" % (len(flat_args), len(phs)))
    kinds = ([("param", "p_", k) for k in params] + [("buffer", "b_", k) for k in buffers]
             + [("input", "", k) for k in input_names])
    ph_info = {}
    for node, (kind, prefix, key) in zip(phs, kinds):
        if kind == "input":
            ph_info[node] = ("input", key, None)
        else:
            ph_info[node] = (kind, _placeholder_name(prefix, key), key)

    # Lifted constants: get_attr nodes holding module tensor attributes.
    known = {}
    for mod_name, mod in model.named_modules():
        for attr, v in vars(mod).items():
            if isinstance(v, torch.Tensor) and not isinstance(v, nn.Parameter):
                known.setdefault(id(v), (mod_name + "." + attr) if mod_name else attr)
    constants = collections.OrderedDict()
    n_lifted = 0
    for node in gm.graph.nodes:
        if node.op != "get_attr":
            continue
        t = getattr(gm, node.target)
        key = known.get(id(t))
        if key is None:
            key = "lifted_tensor_%d" % n_lifted
            n_lifted += 1
        ph_info[node] = ("constant", _placeholder_name("c_", key), key)
        constants[key] = t
    # Non-persistent buffers (HF position_ids, rotary inv_freq) are not in the state_dict: like
    # torch.export's ep.constants, carry their values in the IR's constants.
    persistent = set(model.state_dict())
    for k, v in buffers.items():
        if k not in persistent:
            constants[k] = v

    out_node = [n for n in gm.graph.nodes if n.op == "output"][0]
    outs = out_node.args[0] if isinstance(out_node.args[0], (list, tuple)) else [out_node.args[0]]
    ir = build_ir(gm.graph, model_name=type(model).__name__, ph_info=ph_info,
                  value_of=lambda n: values.get(n), user_outputs=list(outs))
    if constants:
        ir["constants"] = _constants_json(constants)
    return ir


# ----------------------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------------------


def expected_outputs(model, inputs):
    # Debian trixie's torch 2.6 (oneDNN 3.7.2) computes a 2-layer bidirectional LSTM wrongly
    # on its mkldnn path (off by ~0.3 from torch 1.13, 2.14 and its own native kernel): RNN
    # references come from the native kernels.
    use_mkldnn = not any(isinstance(m, nn.RNNBase) for m in model.modules())
    with torch.no_grad(), torch.backends.mkldnn.flags(enabled=use_mkldnn):
        out = model(*inputs.values())
    flat = []

    def walk(o):
        if isinstance(o, torch.Tensor):
            flat.append(o)
        elif isinstance(o, (list, tuple)):
            for x in o:
                walk(x)
        elif isinstance(o, dict):
            for x in o.values():
                walk(x)

    walk(out)
    return flat


def write_weights_and_io(model, inputs, out_dir, ir):
    sd = model.state_dict()
    write_safetensors(os.path.join(out_dir, "weights.safetensors"), sd, {"format": "pt"})
    outs = expected_outputs(model, inputs)
    if len(outs) != len(ir["graph_outputs"]):
        raise FixtureError("model returns %d tensors but the IR has %d graph outputs"
                           % (len(outs), len(ir["graph_outputs"])))
    io = collections.OrderedDict()
    for (name, t), meta in zip(inputs.items(), ir["graph_inputs"]):
        io["input." + meta["name"]] = t
    for i, (t, meta) in enumerate(zip(outs, ir["graph_outputs"])):
        if list(t.shape) != list(meta["shape"]):
            raise FixtureError("output %d: model gives shape %s, IR says %s"
                               % (i, list(t.shape), meta["shape"]))
        io["output.%d" % i] = t
    write_safetensors(os.path.join(out_dir, "io.safetensors"), io)
    # Stateful models (buffers mutated in forward): later calls on the same module.
    steps = model.fixture_extra_steps() if hasattr(model, "fixture_extra_steps") else []
    for k, step_inputs in enumerate(steps, start=2):
        io = collections.OrderedDict()
        for (name, t), meta in zip(step_inputs.items(), ir["graph_inputs"]):
            io["input." + meta["name"]] = t
        for i, t in enumerate(expected_outputs(model, step_inputs)):
            io["output.%d" % i] = t
        write_safetensors(os.path.join(out_dir, "io_step%d.safetensors" % k), io)


def check_against_ir(model, inputs, ir, path):
    """--from-ir: the IR must describe this model (same state_dict keys, same inputs)."""
    mapping = ir.get("weight_name_mapping", {})
    const_keys = {v for k, v in mapping.items() if k.startswith("c_")}
    ir_keys = [w["name"] for w in ir["weights"] if w["name"] not in const_keys]
    ir_keys = [mapping.get(k, k) for k in ir_keys]  # older files list placeholder names
    sd = model.state_dict()
    named = dict(list(model.named_parameters()) + list(model.named_buffers()) + list(sd.items()))
    missing = [k for k in ir_keys if k not in named]
    extra = [k for k in sd if k not in set(ir_keys)]
    if missing or extra:
        raise FixtureError(
            "%s does not match this model's state_dict: in IR but not in model: %s; "
            "in model but not in IR: %s" % (path, missing[:10], extra[:10])
        )
    for w in ir["weights"]:
        k = mapping.get(w["name"], w["name"])
        if k in named and list(named[k].shape) != list(w["shape"]):
            raise FixtureError("%s: weight %s has shape %s in the IR but %s in the model"
                               % (path, k, w["shape"], list(named[k].shape)))
    gi = ir["graph_inputs"]
    if len(gi) != len(inputs):
        raise FixtureError("%s has %d graph inputs, the model takes %d"
                           % (path, len(gi), len(inputs)))
    for meta, (name, t) in zip(gi, inputs.items()):
        if list(meta["shape"]) != list(t.shape):
            raise FixtureError("%s: input %s has shape %s, the model's example input is %s"
                               % (path, meta["name"], meta["shape"], list(t.shape)))


def flavor_dir_name(flavor):
    return "torch%d.%d-%s" % (TORCH_MAJOR_MINOR[0], TORCH_MAJOR_MINOR[1], flavor)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", nargs="?", help="one of: " + ", ".join(MODELS))
    ap.add_argument("--out", help="output directory (with --zoo: the models root, default "
                    "tests/fixtures/models)")
    ap.add_argument("--zoo", action="store_true",
                    help="export every zoo family (%s) into OUT/<model>/<flavor dir>; the "
                    "big ones (%s) as model.json only"
                    % (", ".join(ZOO_MODELS), ", ".join(sorted(zoo.ZOO_IR_ONLY))))
    ap.add_argument("--only", metavar="M1,M2", help="with --zoo: just these families")
    ap.add_argument("--from-ir-batch", action="store_true",
                    help="read 'MODEL JSON OUTDIR' lines from stdin and do --from-ir for each "
                    "(one torch import for all: tools/make_fixtures.sh)")
    ap.add_argument("--flavor", default="auto", choices=["auto", "training", "decomposed"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ir-only", action="store_true", help="write model.json only")
    ap.add_argument("--from-ir", metavar="JSON",
                    help="skip the export; write weights/io for the model of this IR")
    args = ap.parse_args(argv)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    if args.zoo:
        return export_zoo(args)
    if args.from_ir_batch:
        failed = []
        for line in sys.stdin:
            if line.strip():
                name, json_path, out_dir = line.split()
                try:
                    export_one(name, out_dir, args.flavor, args.seed, False, json_path)
                except Exception as e:  # keep going: the others are still wanted
                    failed.append(json_path)
                    print("export_fixture: %s failed: %s: %s" % (json_path, type(e).__name__, e),
                          file=sys.stderr)
        if failed:
            raise FixtureError("--from-ir failed for: %s" % ", ".join(failed))
        return 0
    if not args.model or not args.out:
        ap.error("MODEL and --out are required (or use --zoo)")
    return export_one(args.model, args.out, args.flavor, args.seed, args.ir_only,
                      args.from_ir)


def resolve_flavor(flavor):
    if flavor == "auto":
        return "training" if (hasattr(torch, "export") and TORCH_MAJOR_MINOR >= (2, 5)) \
            else "decomposed"
    return flavor


ZOO_MODELS = zoo.ZOO_REUSED + list(zoo.ZOO)


def export_zoo(args):
    """Every zoo family in this torch's flavor: OUT/<model>/torch<M>.<m>-<flavor>/."""
    import time

    root = args.out or os.path.normpath(os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "models"))
    names = args.only.split(",") if args.only else ZOO_MODELS
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        raise FixtureError("unknown zoo model(s): %s" % ", ".join(unknown))
    flavor = resolve_flavor(args.flavor)
    failed = []
    for name in names:
        out = os.path.join(root, name, flavor_dir_name(flavor))
        t0 = time.time()
        try:
            export_one(name, out, flavor, args.seed, name in zoo.ZOO_IR_ONLY, None)
        except Exception as e:  # keep going: report every family that fails
            failed.append(name)
            print("export_fixture: %s failed: %s: %s" % (name, type(e).__name__, e),
                  file=sys.stderr)
        print("  (%.1f s)" % (time.time() - t0))
    if failed:
        raise FixtureError("zoo export failed for: %s" % ", ".join(failed))
    return 0


def export_one(name, out_dir, flavor, seed, ir_only, from_ir):
    model, inputs = build_model(name, seed)
    os.makedirs(out_dir, exist_ok=True)

    if from_ir:
        if ir_only:
            raise FixtureError("--from-ir and --ir-only together write nothing")
        with open(from_ir) as f:
            ir = json.load(f)
        check_against_ir(model, inputs, ir, from_ir)
        write_weights_and_io(model, inputs, out_dir, ir)
        print("%s: weights+io for %s -> %s" % (name, from_ir, out_dir))
        return 0

    # Tracing may run forward on the real module and mutate its buffers (KV caches): the
    # weights and reference outputs must start from the initial state.
    initial_state = {k: v.clone() for k, v in model.state_dict().items()}
    flavor = resolve_flavor(flavor)
    ir = export_training(model, inputs) if flavor == "training" else \
        export_decomposed(model, inputs)
    pyir_export.save(ir, os.path.join(out_dir, "model.json"))
    model.load_state_dict(initial_state)
    if not ir_only:
        write_weights_and_io(model, inputs, out_dir, ir)
    print("%s: %s flavor (torch %s), %d nodes -> %s"
          % (name, flavor, TORCH_VERSION, len(ir["nodes"]), out_dir))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except FixtureError as e:
        print("export_fixture: error: %s" % e, file=sys.stderr)
        sys.exit(1)
