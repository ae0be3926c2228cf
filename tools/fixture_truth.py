#!/usr/bin/env python3
"""Float64 truth for model fixtures: the same module, weights and inputs computed in double.

Usage (tools/make_fixtures.sh runs it once for every stale fixture directory):
    fixture_truth.py < "MODEL WEIGHTS IO OUTDIR" lines

For each line: builds MODEL (export_fixture.MODELS / zoo.ZOO, seed 0, so that constants and
non-persistent buffers are the fixture's), loads WEIGHTS (the fixture's state_dict, in its own
dtype: half-precision fixtures keep their half-rounded values), converts every floating
parameter, buffer and plain tensor attribute to float64, casts the floating inputs of IO to
float64 (integer and bool inputs unchanged) and writes OUTDIR/truth64.safetensors with
"output.<i>" in graph_outputs order (floating outputs float64, others as the model gives them).
Stateful fixtures (io_step<k>.safetensors beside IO: kv_cache, llama_decoder, qwen2_decoder) get
OUTDIR/truth64_step<k>.safetensors, computed on the same float64 module after the earlier steps,
as the float32 references were.

Forward code that casts to a fixed floating dtype (`x.to(torch.float32)` in RMSNorm, `.float()`
in rotary embeddings, `.half()`, `softmax(dtype=torch.float32)`) would round the truth back to
float32/16: while the truth is computed those casts give float64, and tensors made in forward
(`torch.ones`, `torch.tensor`) are float64 (default dtype).

The model tests (tests/cpp/unit/models_test.cpp, npm/test/fixtures.test.mjs) and
`torchir verify --reference64` read these files: ours vs truth against PyTorch float32 vs truth.
"""

import collections
import contextlib
import json
import os
import struct
import sys

import torch
from torch.overrides import TorchFunctionMode

import export_fixture as ef

_DTYPES = {
    "F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16,
    "I64": torch.int64, "I32": torch.int32, "I16": torch.int16, "I8": torch.int8,
    "U8": torch.uint8, "BOOL": torch.bool,
}


def read_safetensors(path):
    """name -> tensor, in the file's header order."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"), object_pairs_hook=collections.OrderedDict)
    base = 8 + n
    out = collections.OrderedDict()
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES[meta["dtype"]]
        lo, hi = meta["data_offsets"]
        raw = bytearray(data[base + lo:base + hi])
        if dtype == torch.bfloat16:
            t = torch.frombuffer(raw, dtype=torch.int16).view(torch.bfloat16) if raw else \
                torch.empty(0, dtype=dtype)
        else:
            t = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        out[name] = t.reshape(meta["shape"]).clone()
    return out


_FLOATS = (torch.float32, torch.float16, torch.bfloat16)


class _KeepFloat64(TorchFunctionMode):
    """Inside forward: a cast or a dtype= argument naming float32/16/bf16 gives float64."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        name = getattr(func, "__name__", "")
        if name in ("float", "half", "bfloat16"):
            return args[0].to(torch.float64)
        if name == "view" and len(args) == 2 and isinstance(args[1], torch.dtype):
            return _view_dtype(args[0], args[1])
        args = tuple(torch.float64 if a in _FLOATS else a for a in args)
        if kwargs.get("dtype") in _FLOATS:
            kwargs["dtype"] = torch.float64
        return func(*args, **kwargs)


def _view_dtype(t, dtype):
    """x.view(dtype) reinterprets bits, which only the recorded dtype defines: a float64 tensor
    is rounded to the float type of the target's width first (float32 bits for int32)."""
    size = torch.empty(0, dtype=dtype).element_size()
    if t.dtype == torch.float64 and size != 8:
        t = t.to({4: torch.float32, 2: torch.bfloat16 if dtype == torch.bfloat16 else torch.float16,
                  1: torch.float32}[size])
    return t.view(dtype)


@contextlib.contextmanager
def _casts_keep_float64():
    """Fixed-dtype casts keep float64, and tensors made in forward (torch.ones, torch.tensor)
    default to float64."""
    default = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        with _KeepFloat64():
            yield
    finally:
        torch.set_default_dtype(default)


def to_float64(model):
    """Parameters, buffers and plain tensor attributes (lifted constants) to float64."""
    model.double()
    for mod in model.modules():
        for attr, v in list(vars(mod).items()):
            if isinstance(v, torch.Tensor) and not isinstance(v, torch.nn.Parameter) \
                    and v.is_floating_point():
                setattr(mod, attr, v.detach().to(torch.float64))
    return model


def _inputs(model_inputs, io, path):
    """The io file's inputs, in the model's argument order, floating ones as float64."""
    given = [(k, t) for k, t in io.items() if k.startswith("input.")]
    if len(given) != len(model_inputs):
        raise ef.FixtureError("%s has %d inputs, the model takes %d"
                              % (path, len(given), len(model_inputs)))
    out = collections.OrderedDict()
    for (arg, example), (key, t) in zip(model_inputs.items(), given):
        if list(t.shape) != list(example.shape):
            raise ef.FixtureError("%s: %s has shape %s, the model's %s is %s"
                                  % (path, key, list(t.shape), arg, list(example.shape)))
        out[arg] = t.to(torch.float64) if t.is_floating_point() else t
    return out


def _outputs(model, inputs):
    with _casts_keep_float64():
        outs = ef.expected_outputs(model, inputs)
    return collections.OrderedDict(("output.%d" % i, t.detach().contiguous())
                                   for i, t in enumerate(outs))


def write_truth(name, weights_path, io_path, out_dir):
    model, example = ef.build_model(name, 0)
    model.load_state_dict(read_safetensors(weights_path), strict=True)
    to_float64(model).eval()
    steps = [(io_path, "truth64.safetensors")]
    io_dir = os.path.dirname(io_path)
    k = 2
    while os.path.exists(os.path.join(io_dir, "io_step%d.safetensors" % k)):
        steps.append((os.path.join(io_dir, "io_step%d.safetensors" % k),
                      "truth64_step%d.safetensors" % k))
        k += 1
    os.makedirs(out_dir, exist_ok=True)
    for path, out_name in steps:  # one module: the state carries over like the references
        io = read_safetensors(path)
        outs = _outputs(model, _inputs(example, io, path))
        ref = [k for k in io if k.startswith("output.")]
        if len(ref) != len(outs):
            raise ef.FixtureError("%s: %d outputs in float64, %d recorded"
                                  % (path, len(outs), len(ref)))
        for key in ref:
            if list(io[key].shape) != list(outs[key].shape):
                raise ef.FixtureError("%s: %s has shape %s in float64, %s recorded"
                                      % (path, key, list(outs[key].shape), list(io[key].shape)))
        ef.write_safetensors(os.path.join(out_dir, out_name), outs,
                             {"truth": "float64", "torch": torch.__version__,
                              "io": os.path.basename(path)})


def main():
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    failed = []
    for line in sys.stdin:
        if not line.strip():
            continue
        name, weights, io, out_dir = line.split()
        try:
            write_truth(name, weights, io, out_dir)
            print("%s: float64 truth -> %s" % (name, out_dir))
        except Exception as e:  # keep going: one report for every fixture that fails
            failed.append(out_dir)
            print("fixture_truth: %s (%s): %s: %s" % (name, out_dir, type(e).__name__, e),
                  file=sys.stderr)
    if failed:
        print("fixture_truth: no truth for: %s" % ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
