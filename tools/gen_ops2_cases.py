#!/usr/bin/env python3
"""gen_ops2_cases.py - single-op reference cases from torch 2.x, for ops that the
LibTorch 1.13 parity harness cannot run (the op is missing there).

Runs inside the torch 2.14 chroot, from the repository root:

  flock /tmp/tir-chroot.lock bash tools/torch2-chroot.sh run -- \
      python3 /repo/tools/gen_ops2_cases.py [--only SUBSTRING]

and writes one JSON file per case to tests/fixtures/ops2/<op>/<case>.json
(<op> is the IR op type, e.g. aten._batch_norm_no_update.default), replayed
through the engine by tests/cpp/unit/ops2_cases_test.cpp. A case file holds:

  format   "tir-ops2-case/1"
  torch    the torch version that computed the outputs
  op       IR op type;  attrs: the node's attrs as the IR writes them
  note     how the expected outputs were obtained
  ir       a complete one-node pytorch-ir model (graph inputs x0.. or the
           given names, outputs op_0..), so the replay needs no builder
  inputs   [{name, dtype, shape, data (row-major, flat)}]
  outputs  [{dtype, shape, data}]; data null = only shape/dtype are compared
           (uninitialized memory, e.g. empty_permuted)
  rtol, atol

To add cases for another op: write a function that yields Case(...) objects
and add it to GENERATORS (one file per case; names must be unique per op).
Inputs are drawn from a seeded generator, so reruns give identical files.

The quantization ops (quantized_decomposed.*: --only quantized_decomposed; torchao.*: --only
torchao) need torchao on PYTHONPATH (the chroot's build/pyir has it); --check-pyir also exports
each of their calls through pytorch-ir and checks that the case's node is what pytorch-ir writes.
"""
import argparse
import json
import math
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "ops2")

DTYPE_NAMES = {
    torch.float32: "float32", torch.float64: "float64", torch.float16: "float16", torch.bfloat16: "bfloat16",
    torch.int64: "int64", torch.int32: "int32", torch.int16: "int16", torch.int8: "int8",
    torch.uint8: "uint8", torch.bool: "bool",
}


class Case:
    """One op call: `inputs` is a list of (name, tensor); `outputs` the expected
    tensors (None entries: compare shape/dtype only, taken from `metas`)."""

    def __init__(self, op, name, inputs, attrs, outputs, note, rtol=1e-5, atol=1e-6, metas=None):
        self.op, self.name, self.inputs, self.attrs = op, name, inputs, attrs
        self.outputs, self.note, self.rtol, self.atol = outputs, note, rtol, atol
        self.metas = metas or [(tuple(t.shape), t.dtype) for t in outputs]


def tensor_json(name, t, with_data=True):
    d = {"dtype": DTYPE_NAMES[t.dtype], "shape": list(t.shape)}
    if name is not None:
        d = {"name": name, **d}
    if with_data:
        v = t.detach().reshape(-1)
        v = v.to(torch.int64) if t.dtype == torch.bool else v
        d["data"] = [x for x in v.tolist()]
    return d


def meta(name, shape, dtype, producer=None, idx=0):
    m = {"name": name, "shape": list(shape), "dtype": DTYPE_NAMES[dtype]}
    if producer:
        m["producer_node"], m["producer_output_idx"] = producer, idx
    return m


def case_json(c):
    n_out = len(c.metas)
    out_names = ["op"] if n_out == 1 else ["op_%d" % k for k in range(n_out)]
    ir = {
        "model_name": "ops2_" + c.name,
        "graph_inputs": [meta(n, t.shape, t.dtype) for n, t in c.inputs],
        "graph_outputs": [meta(out_names[k], s, d, "op", k) for k, (s, d) in enumerate(c.metas)],
        "weights": [], "weight_name_mapping": {},
        "nodes": [{
            "name": "op", "op_type": c.op,
            "inputs": [meta(n, t.shape, t.dtype, n) for n, t in c.inputs],
            "outputs": [meta(out_names[k], s, d) for k, (s, d) in enumerate(c.metas)],
            "attrs": c.attrs,
        }],
    }
    outputs = []
    for k, (s, d) in enumerate(c.metas):
        t = c.outputs[k] if k < len(c.outputs) else None
        outputs.append(tensor_json(None, t) if t is not None else {"dtype": DTYPE_NAMES[d], "shape": list(s), "data": None})
    return {
        "format": "tir-ops2-case/1", "torch": torch.__version__, "op": c.op, "attrs": c.attrs, "note": c.note,
        "ir": ir, "inputs": [tensor_json(n, t) for n, t in c.inputs], "outputs": outputs,
        "rtol": c.rtol, "atol": c.atol,
    }


def rand(*shape, dtype=torch.float32, gen=None):
    return (torch.rand(*shape, generator=gen, dtype=torch.float64) * 4 - 2).to(dtype)


# --------------------------------------------------------------------------- batch norm


def batch_norm_cases(g):
    note = "torch.ops.aten.<op> on CPU"
    for op, train in (("aten._batch_norm_no_update.default", False), ("aten._batch_norm_with_update.default", True)):
        fn = getattr(torch.ops.aten, op.split(".")[1])
        for tag, shape, affine, dtype in (("nchw", (2, 3, 4, 5), True, torch.float32),
                                          ("nc", (5, 2), True, torch.float32),
                                          ("noaffine", (3, 4, 3), False, torch.float32),
                                          ("f64_odd", (1, 3, 7), True, torch.float64),
                                          ("batch1_size1", (1, 1, 1), True, torch.float32)):
            if train and tag == "batch1_size1":
                continue  # torch: "Expected more than 1 value per channel when training"
            C = shape[1]
            x = rand(*shape, dtype=dtype, gen=g)
            w, b = rand(C, dtype=dtype, gen=g), rand(C, dtype=dtype, gen=g)
            rm = rand(C, dtype=dtype, gen=g) * 0.5
            rv = torch.rand(C, generator=g, dtype=torch.float64).to(dtype) + 0.5
            ins = [("x", x)]
            if affine:
                ins += [("p_bn_weight", w), ("p_bn_bias", b)]
            ins += [("b_bn_running_mean", rm), ("b_bn_running_var", rv)]
            out = fn(x, w if affine else None, b if affine else None, rm.clone(), rv.clone(), 0.1, 1e-5)
            yield Case(op, tag, ins, {"momentum": 0.1, "eps": 1e-5}, list(out), note,
                       rtol=1e-5 if dtype == torch.float32 else 1e-10, atol=1e-5 if dtype == torch.float32 else 1e-12)


# --------------------------------------------------------------------------- SDPA (CUDA forms)


def sdpa_reference(q, k, v, bias, causal, scale):
    """Output and per-row logsumexp (float64) of softmax(q k^T * scale + bias)."""
    s = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    scores = (q.double() @ k.double().transpose(-2, -1)) * s
    if bias is not None:
        scores = scores + bias.double()
    if causal:
        L, S = scores.shape[-2:]
        scores = scores.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float("-inf"))
    lse = torch.logsumexp(scores, -1)
    out = torch.softmax(scores, -1) @ v.double()
    return out, lse


def meta_outputs(fn, args, kwargs):
    with torch.device("meta"):
        res = fn(*[a.to("meta") if isinstance(a, torch.Tensor) else a for a in args], **kwargs)
    return [(tuple(r.shape), r.dtype) for r in res if isinstance(r, torch.Tensor)], res


def sdpa_cases(g):
    note = ("no CPU kernel in torch: outputs from the float64 math of scaled_dot_product_attention "
            "(softmax(q k^T scale + bias) v, logsumexp of the scores); shapes/dtypes from the op's meta kernel")
    for tag, (B, H, L, S, E, Ev), bias_shape, causal, lse, scale in (
            ("basic_lse", (2, 3, 5, 7, 8, 4), None, False, True, None),
            ("no_lse", (2, 3, 5, 7, 8, 4), None, False, False, None),
            ("causal_lse", (1, 2, 6, 6, 4, 4), None, True, True, None),
            ("bias_bcast_scale", (2, 2, 4, 3, 5, 6), (1, 2, 4, 3), False, True, 0.3),
            ("pad_rows_33", (1, 1, 33, 9, 4, 2), None, False, True, None),
            ("causal_bias_rect", (1, 2, 3, 5, 4, 4), (1, 1, 3, 5), True, True, None),
            ("size1", (1, 1, 1, 1, 1, 1), None, False, True, None)):
        q, k, v = rand(B, H, L, E, gen=g), rand(B, H, S, E, gen=g), rand(B, H, S, Ev, gen=g)
        bias = rand(*bias_shape, gen=g) if bias_shape else None
        out, lse_rows = sdpa_reference(q, k, v, bias, causal, scale)
        ins = [("query", q), ("key", k), ("value", v)] + ([("attn_bias", bias)] if bias is not None else [])
        for op in ("aten._scaled_dot_product_efficient_attention.default",
                   "aten._scaled_dot_product_cudnn_attention.default"):
            cudnn = "cudnn" in op
            if cudnn and tag == "no_lse":
                continue
            fn = getattr(torch.ops.aten, op.split(".")[1])
            kwargs = {"scale": scale} if scale is not None else {}
            args = [q, k, v, bias, lse, 0.0, causal] + ([False] if cudnn else [])
            metas, _ = meta_outputs(fn, args, kwargs)
            expected = [out.float()]
            (ls, ld) = metas[1]
            if cudnn:
                expected.append(lse_rows.float().reshape(ls))
            elif lse:
                pad = torch.full(ls, float("inf"), dtype=torch.float64)
                pad[..., :L] = lse_rows
                expected.append(pad.float())
            else:
                expected.append(torch.empty(ls, dtype=ld))
            expected += [None] * (len(metas) - 2)  # philox seed/offset: not compared
            attrs = {"compute_log_sumexp": lse}
            if causal:
                attrs["is_causal"] = True
            if scale is not None:
                attrs["scale"] = scale
            yield Case(op, tag, ins, attrs, expected, note, rtol=1e-5, atol=1e-5, metas=metas)


# --------------------------------------------------------------------------- empty_permuted


def empty_permuted_cases(g):
    note = "torch.ops.aten.empty_permuted: values are uninitialized, only shape and dtype are compared"
    for tag, size, layout, dtype in (("perm3", [2, 3, 4], [2, 0, 1], None),
                                     ("nhwc_i64", [2, 3, 1, 5], [0, 2, 3, 1], torch.int64),
                                     ("zero_size", [0, 4], [1, 0], torch.float64),
                                     ("scalar", [], [], torch.bool)):
        kw = {"dtype": dtype} if dtype is not None else {}
        t = torch.empty_permuted(size, layout, **kw)
        attrs = {"size": size, "physical_layout": layout}
        if dtype is not None:
            attrs["dtype"] = str(dtype)
        yield Case("aten.empty_permuted.default", tag, [], attrs, [None], note,
                   metas=[(tuple(t.shape), t.dtype)])


def rrelu_with_noise_functional_cases(g):
    # Eval mode only (training draws random slopes): y = x for x >= 0, x * (lower + upper) / 2
    # below; the noise input comes back unchanged as the second output.
    note = "torch.ops.aten.rrelu_with_noise_functional on CPU, training=False"
    op = "aten.rrelu_with_noise_functional.default"
    for tag, shape, lower, upper, dtype in (("default_bounds", (3, 5), 1 / 8, 1 / 3, torch.float32),
                                            ("wide_f64", (2, 1, 4), -0.5, 2.0, torch.float64),
                                            ("zero_size", (0, 3), 0.1, 0.3, torch.float32),
                                            ("scalar", (), 0.25, 0.25, torch.float32)):
        x = (torch.rand(shape, generator=g, dtype=torch.float64) * 4 - 2).to(dtype)
        noise = torch.rand(shape, generator=g, dtype=torch.float64).to(dtype)
        out = torch.ops.aten.rrelu_with_noise_functional(x, noise, lower, upper, False)
        yield Case(op, tag, [("x", x), ("noise", noise)], {"lower": lower, "upper": upper, "training": False},
                   list(out), note, rtol=1e-6 if dtype == torch.float32 else 1e-12,
                   atol=1e-7 if dtype == torch.float32 else 1e-14)


# --------------------------------------------------------------------------- quantization ops
#
# quantized_decomposed.* (torch/ao/quantization/fx/_decomposed.py) and torchao.* (torchao 0.18,
# torchao/quantization/quant_primitives.py). Expected outputs come from the real ops on CPU; the
# node (attrs, inputs, output dtypes/shapes) is what pytorch-ir 0.2.3 writes for the call:
#   - attrs are the schema's non-tensor arguments after the dispatcher's normalization: keyword-only
#     arguments (out_dtype) come first and only when not their default; trailing positional
#     arguments equal to their defaults are dropped (choose_qparams_affine(x, "ASYMMETRIC", bs, dt)
#     has 3 attrs; quant_min=None before a non-default output_dtype is written as null);
#     dtypes are str(dtype) ("torch.int8"), tuples lists;
#   - a None tensor argument (zero_points=None) is neither an input nor an attr: the node simply has
#     one input fewer;
#   - output dtypes/shapes are the ops' meta kernels' (what export records), which for some ops
#     differ from eager (choose_qparams_per_token: eager float32 scales and zero points, meta
#     float64/int64): the recorded values are eager's, converted to the meta dtype.
# `--check-pyir` exports every case's call through pytorch-ir and compares the node with the case.
# Cases tagged "plain_dtype" spell dtype attrs "int8" (pytorch-ir's plain dtype names), which the
# engine must read as well.

_QUANT_LIBS = []

SCALAR_TYPE_CODES = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
                     torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.bool: 11, torch.bfloat16: 15}


def quant_libs():
    """Registers the quantized_decomposed and torchao ops (torchao warns that its C++ extensions do
    not load: harmless, the ops used here are pure Python)."""
    if not _QUANT_LIBS:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import torch.ao.quantization.fx._decomposed  # noqa: F401
            import torchao  # noqa: F401
        _QUANT_LIBS.append(True)


def op_overload(op):
    ns, name, overload = op.split(".")
    return getattr(getattr(getattr(torch.ops, ns), name), overload)


_NO_VALUE = object()


def _is_default(arg, v):
    if v is _NO_VALUE:
        return True
    if not arg.has_default_value():
        return False
    d = arg.default_value
    if isinstance(v, torch.dtype) and isinstance(d, int):
        return SCALAR_TYPE_CODES.get(v) == d
    if v is None or d is None:
        return v is None and d is None
    return type(v) is type(d) and v == d


def _attr_value(arg, v):
    if v is None:
        return None
    if isinstance(v, torch.dtype):
        return str(v)
    if isinstance(v, tuple):
        return list(v)
    if str(arg.type) in ("float", "Optional[float]"):
        return float(v)
    return v


def ir_attrs(op, args, kwargs):
    """The node attrs pytorch-ir writes for op(*args, **kwargs) (see the section comment)."""
    schema = op._schema.arguments
    attrs = {}
    for a in schema:
        if a.kwarg_only and a.name in kwargs and not _is_default(a, kwargs[a.name]):
            attrs[a.name] = _attr_value(a, kwargs[a.name])
    pos = [a for a in schema if not a.kwarg_only]
    vals = [args[i] if i < len(args) else kwargs.get(a.name, _NO_VALUE) for i, a in enumerate(pos)]
    n = len(vals)
    while n > 0 and _is_default(pos[n - 1], vals[n - 1]):
        n -= 1
    for a, v in zip(pos[:n], vals[:n]):
        if "Tensor" not in str(a.type):
            attrs[a.name] = _attr_value(a, v)
    return attrs


def plain_dtype_attrs(attrs):
    return {k: v[len("torch."):] if isinstance(v, str) and v.startswith("torch.") else v for k, v in attrs.items()}


def qcase(op, tag, args, names, note, kwargs=None, plain=False):
    """A case for op(*args, **kwargs): tensor arguments become inputs named `names` (in order; None
    tensors are skipped), outputs are exact (rtol = atol = 0)."""
    kwargs = kwargs or {}
    fn = op_overload(op)
    res = fn(*args, **kwargs)
    res = list(res) if isinstance(res, (tuple, list)) else [res]
    with torch.device("meta"):
        mres = fn(*[a.to("meta") if isinstance(a, torch.Tensor) else a for a in args], **kwargs)
    mres = list(mres) if isinstance(mres, (tuple, list)) else [mres]
    metas = [(tuple(m.shape), m.dtype) for m in mres]
    for r, (shape, dtype) in zip(res, metas):
        if tuple(r.shape) != shape:
            raise AssertionError("%s/%s: eager shape %s, meta %s" % (op, tag, tuple(r.shape), shape))
    if any(r.dtype != d for r, (_, d) in zip(res, metas)):
        note += "; eager returns %s, the IR (meta kernel) says %s: eager's values converted" % (
            "/".join(DTYPE_NAMES[r.dtype] for r in res), "/".join(DTYPE_NAMES[d] for _, d in metas))
    outs = [r.to(d) for r, (_, d) in zip(res, metas)]
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    if len(names) != len(tensors):
        raise AssertionError("%s/%s: %d names for %d tensors" % (op, tag, len(names), len(tensors)))
    attrs = ir_attrs(fn, args, kwargs)
    c = Case(op, tag, list(zip(names, tensors)), plain_dtype_attrs(attrs) if plain else attrs, outs, note,
             rtol=0.0, atol=0.0, metas=metas)
    c.call, c.pyir_attrs = (fn, args, kwargs), attrs
    return c


def f32(values, dtype=torch.float32):
    return torch.tensor(values, dtype=dtype)


def ties(step, n, dtype=torch.float32):
    """k * step / 2 for k in [-n, n]: x / step lands on every half integer (exact in float32)."""
    return (torch.arange(-n, n + 1, dtype=torch.float64) * (step / 2)).to(dtype)


def qint(lo, hi, shape, g, dtype):
    return torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64).to(dtype)


def zero_row(x, i):
    """x with x[:, i] (every batch's row i of a 3-d tensor) set to 0."""
    x[:, i] = 0
    return x


def nonzero_rand(shape, g, lo=0.1, hi=2.0):
    """Values in ±[lo, hi]: never 0 (x * inf for a zero scale would give NaN)."""
    mag = torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo
    sign = torch.randint(0, 2, shape, generator=g) * 2 - 1
    return (mag * sign).float()


def quant_per_tensor_cases(g):
    quant_libs()
    I8, U8, I16, I32 = torch.int8, torch.uint8, torch.int16, torch.int32
    Q = "quantized_decomposed.quantize_per_tensor."
    DQ = "quantized_decomposed.dequantize_per_tensor."
    nq = ("quantized_decomposed.quantize_per_tensor on CPU: clamp(round(x * inv) + zero_point, quant_min, "
          "quant_max).to(dtype) in float32, inv = float32(1.0 / scale) computed in double; round half to "
          "even BEFORE adding zero_point; float16/bfloat16 inputs are converted to float32 first")
    for tag, x, scale, zp, qmin, qmax, dtype, plain in (
            ("int8_random", rand(3, 7, gen=g), 0.0224, 12, -128, 127, I8, False),
            ("ties_scale_half", ties(0.5, 12), 0.5, 0, -128, 127, I8, False),
            ("ties_odd_zero_point", ties(0.25, 12), 0.25, 3, -128, 127, I8, False),
            ("clamp_far_plain_dtype", f32([-1e30, -1000.0, -12.85, -3.0, 0.0, 2.9, 12.75, 1000.0, 1e30]), 0.1, 5,
             -128, 127, I8, True),
            ("uint8_zp_at_max", rand(13, gen=g), 0.01, 255, 0, 255, U8, False),
            ("uint4_in_uint8", rand(2, 7, gen=g), 0.2, 8, 0, 15, U8, False),
            ("int16", rand(3, 5, gen=g) * 40, 1e-3, -7, -32768, 32767, I16, False),
            # float32 arithmetic: 1e9 + 1 is 1e9 in float32 (the zero point is lost), 123456789 -> 123456792
            ("int32_float32_precision", f32([1e9, -1e9, 123456789.0, 2e9, 16777217.0, -16777219.0, 0.5, 1.5]),
             1.0, 1, -2147483648, 2147483647, I32, False),
            ("bfloat16_input", rand(3, 4, dtype=torch.bfloat16, gen=g), 0.03, 2, -128, 127, I8, False),
            ("empty_rows", torch.zeros(0, 4), 0.1, 0, -128, 127, I8, False),
            ("scalar_0d", f32(1.26), 0.1, 3, -128, 127, I8, False),
            # hostile but defined: a negative scale flips the signs (scale 0 raises ZeroDivisionError)
            ("negative_scale", rand(2, 5, gen=g), -0.05, 4, -128, 127, I8, False)):
        yield qcase(Q + "default", tag, [x, scale, zp, qmin, qmax, dtype], ["input"], nq, plain=plain)

    for tag, x, s, zp, dtype, qmin, qmax in (
            ("scalar_params_0d", rand(2, 6, gen=g), f32(0.04), torch.tensor(7), I8, -128, 127),
            ("float64_scale_int32_zp", rand(4, 3, gen=g), f32([0.1], torch.float64), torch.tensor([2], dtype=I32),
             I8, -128, 127),
            ("ties_uint8", ties(0.5, 10), f32([0.5]), torch.tensor([129]), U8, 0, 255)):
        yield qcase(Q + "tensor", tag, [x, s, zp, qmin, qmax, dtype], ["input", "scale", "zero_point"],
                    nq + "; scale/zero_point read with .item()")
    for tag, x, s, zp, qmin, qmax, dtype in (
            ("int8_random", rand(3, 5, gen=g), f32([0.021]), torch.tensor([3]), torch.tensor(-128),
             torch.tensor(127), I8),
            ("int4_range_1elem_bounds", rand(2, 7, gen=g), f32([0.25]), torch.tensor([-1]),
             torch.tensor([-8], dtype=I32), torch.tensor([7], dtype=I32), I8)):
        yield qcase(Q + "tensor2", tag, [x, s, zp, qmin, qmax, dtype],
                    ["input", "scale", "zero_point", "quant_min", "quant_max"],
                    nq + "; scale/zero_point/quant_min/quant_max read with .item()")

    ndq = ("quantized_decomposed.dequantize_per_tensor on CPU: (q.to(out_dtype) - zero_point) * scale "
           "computed in out_dtype (default float32; the scale is rounded to it); quant_min/quant_max "
           "are not used")
    for tag, q, scale, zp, qmin, qmax, dtype, kw, plain in (
            ("int8_random", qint(-128, 127, (3, 7), g, I8), 0.0224, 12, -128, 127, I8, {}, False),
            ("uint8_plain_dtype", qint(0, 255, (2, 6), g, U8), 0.013, 128, 0, 255, U8, {}, True),
            ("int16", qint(-32768, 32767, (3, 4), g, I16), 3e-4, -100, -32768, 32767, I16, {}, False),
            ("int32_large", torch.tensor([2147483647, -2147483648, 16777217, 123456789, -5], dtype=I32), 1.0, 0,
             -2147483648, 2147483647, I32, {}, False),
            ("out_bfloat16", qint(-128, 127, (2, 5), g, I8), 0.037, -3, -128, 127, I8,
             {"out_dtype": torch.bfloat16}, False),
            ("out_float64", qint(-128, 127, (2, 5), g, I8), 0.1, 0, -128, 127, I8, {"out_dtype": torch.float64},
             False),
            ("empty_rows", torch.zeros(0, 3, dtype=I8), 0.5, 0, -128, 127, I8, {}, False)):
        yield qcase(DQ + "default", tag, [q, scale, zp, qmin, qmax, dtype], ["input"], ndq, kwargs=kw, plain=plain)
    for tag, q, s, zp, kw in (
            ("scalar_params_0d", qint(-128, 127, (3, 5), g, I8), f32(0.0173), torch.tensor(-9), {}),
            ("float64_scale_out_float16", qint(-128, 127, (2, 4), g, I8), f32([0.1], torch.float64),
             torch.tensor(5, dtype=I32), {"out_dtype": torch.float16})):
        yield qcase(DQ + "tensor", tag, [q, s, zp, -128, 127, I8], ["input", "scale", "zero_point"],
                    ndq + "; scale/zero_point read with .item()", kwargs=kw)
    yield qcase(DQ + "tensor2", "uint8", [qint(0, 255, (3, 4), g, U8), f32([0.05]), torch.tensor([100]),
                                          torch.tensor(0), torch.tensor(255), U8],
                ["input", "scale", "zero_point", "quant_min", "quant_max"],
                ndq + "; scale/zero_point read with .item()")


def choose_qparams_cases(g):
    quant_libs()
    I8, U8, I16 = torch.int8, torch.uint8, torch.int16
    n = ("quantized_decomposed.%s on CPU (torch.ao.quantization.utils.determine_qparams on aminmax(input); "
         "eps is rounded to float32; scale float64 [1], zero_point int64 [1])")
    for op, sym in (("choose_qparams.tensor", False), ("choose_qparams_symmetric.tensor", True)):
        name = "quantized_decomposed." + op
        rows = [("int8_random", rand(3, 7, gen=g), -128, 127, 1e-5, I8),
                ("all_zero", torch.zeros(2, 3), -128, 127, 1.1920928955078125e-07, I8)]
        if sym:
            # uint8 gives zero_point 128 even for a restricted range (has_customized_qrange=False)
            rows += [("uint8_range_0_15", rand(2, 5, gen=g), 0, 15, 1e-5, U8)]
        else:
            rows += [("uint8_all_positive", torch.rand(3, 4, generator=g) + 0.25, 0, 255, 1e-5, U8),
                     ("int16_all_negative", -torch.rand(13, generator=g) - 0.1, -32768, 32767, 1e-5, I16),
                     ("constant", torch.full((2, 3), 3.0), -128, 127, 1e-5, I8),
                     ("eps_wins", rand(2, 4, gen=g) * 1e-3, -128, 127, 0.01, I8),
                     ("scalar_0d", f32(0.7), -8, 7, 1e-5, I8),
                     ("bfloat16_input", rand(3, 5, dtype=torch.bfloat16, gen=g), -128, 127, 1e-5, I8)]
        for tag, x, qmin, qmax, eps, dtype in rows:
            yield qcase(name, tag, [x, qmin, qmax, eps, dtype], ["input"], n % op)

    nt = ("quantized_decomposed.choose_qparams_per_token on CPU: scale = abs(x).amax(-1, keepdim).clamp(min=1e-5)"
          " / 127 in the input dtype (float16 -> float32), zero_point 0; int8 only")
    for tag, x in (("zero_rows_3d", zero_row(rand(2, 3, 5, gen=g), 1)),
                   ("bfloat16_input", rand(2, 7, dtype=torch.bfloat16, gen=g)),
                   ("float16_input", rand(2, 7, dtype=torch.float16, gen=g)),
                   ("empty_rows", torch.zeros(0, 4))):
        yield qcase("quantized_decomposed.choose_qparams_per_token.default", tag, [x, I8], ["input"], nt)
    na = ("quantized_decomposed.choose_qparams_per_token_asymmetric on CPU (XNNPACK rule, qmin/qmax -128/127 "
          "whatever the dtype): computed in the input dtype, scale clamped to float32 eps, zero point from the "
          "smaller of the two errors, clamped then rounded")
    for tag, x, dtype in (("zero_rows_3d", zero_row(rand(2, 3, 5, gen=g), 2), I8),
                          ("positive_and_negative_rows", torch.cat([torch.rand(2, 5, generator=g) + 0.1,
                                                                    -torch.rand(2, 5, generator=g) - 0.1]), I8),
                          ("uint8_dtype_ignored", rand(2, 6, gen=g), U8),
                          ("bfloat16_input", rand(2, 7, dtype=torch.bfloat16, gen=g), I8),
                          ("empty_rows", torch.zeros(0, 3), I8)):
        yield qcase("quantized_decomposed.choose_qparams_per_token_asymmetric.default", tag, [x, dtype], ["input"], na)


def quant_per_channel_cases(g):
    quant_libs()
    I8, U8, I32 = torch.int8, torch.uint8, torch.int32
    nq = ("quantized_decomposed.quantize_per_channel on CPU: clamp(round(x * (1.0 / scales)) + zero_points, "
          "quant_min, quant_max).to(dtype), scales/zero_points broadcast along `axis`; type promotion: float64 "
          "scales make the whole computation float64; round half to even before adding the zero point")

    def chan(shape, axis, lo=0.005, hi=0.05, dtype=torch.float32):
        C = shape[axis]
        return (torch.rand(C, generator=g, dtype=torch.float64) * (hi - lo) + lo).to(dtype)

    rows = []
    for tag, shape, axis, zdt in (("2d_axis0", (3, 7), 0, torch.int64), ("2d_axis1_last", (3, 7), 1, torch.int64),
                                  ("3d_axis1", (2, 3, 5), 1, I32), ("3d_axis_neg1_last", (2, 3, 4), -1, torch.int64),
                                  ("4d_axis1", (2, 3, 2, 2), 1, I32),
                                  ("4d_axis3_last", (2, 2, 2, 3), 3, torch.int64)):
        x = rand(*shape, gen=g)
        s = chan(shape, axis)
        zp = torch.randint(-5, 6, (shape[axis],), generator=g).to(zdt)
        rows.append((tag, x, s, zp, axis, -128, 127, I8))
    s = torch.tensor([0.5, 0.25, 0.5], dtype=torch.float32)
    x = torch.stack([ties(0.5, 5), ties(0.25, 5), ties(0.5, 5)])
    rows.append(("ties_odd_zero_points", x, s, torch.tensor([3, -1, 0]), 0, -128, 127, I8))
    # x = (k + 0.5) * s rounded to float32 with float64 scales: the float64 product is a hair off the tie
    sd = torch.tensor([0.1, 0.03, 0.7], dtype=torch.float64)
    k = torch.arange(-6, 6, dtype=torch.float64)
    rows.append(("float64_scales_near_ties", ((k[None, :] + 0.5) * sd[:, None]).float(), sd,
                 torch.tensor([1, 0, -2]), 0, -128, 127, I8))
    rows.append(("uint8_zp_at_ends", rand(3, 6, gen=g) * 2, chan((3, 6), 0), torch.tensor([0, 255, 128]), 0, 0,
                 255, U8))
    rows.append(("restricted_127_clamp", rand(2, 9, gen=g) * 100, f32([0.05, 0.2]), torch.tensor([0, 0]), 0, -127,
                 127, I8))
    rows.append(("dim_of_1", rand(1, 5, gen=g), chan((1, 5), 0), torch.tensor([4]), 0, -128, 127, I8))
    rows.append(("empty_rows_axis1", torch.zeros(0, 3), chan((0, 3), 1), torch.tensor([0, 1, 2]), 1, -128, 127, I8))
    # hostile but defined: a zero scale gives x * inf = +-inf (no zero x here), clamped to the range ends
    rows.append(("zero_scale_channel_saturates", nonzero_rand((2, 5), g), f32([0.0, 0.1]), torch.tensor([0, 0]), 0,
                 -128, 127, I8))
    for tag, x, s, zp, axis, qmin, qmax, dtype in rows:
        yield qcase("quantized_decomposed.quantize_per_channel.default", tag, [x, s, zp, axis, qmin, qmax, dtype],
                    ["input", "scales", "zero_points"], nq)

    ndq = ("quantized_decomposed.dequantize_per_channel on CPU: ((q - zero_points) * scales).to(out_dtype) with "
           "torch type promotion: q - zero_points in the promoted integer type, times scales in the scales' "
           "dtype (float64 scales: float64, then rounded to out_dtype); zero_points None: q * scales")
    rows = []
    for tag, shape, axis in (("2d_axis0", (3, 7), 0), ("3d_axis1", (2, 3, 5), 1), ("3d_axis_neg1", (2, 3, 4), -1),
                             ("4d_axis3_last", (2, 2, 2, 3), 3)):
        rows.append((tag, qint(-127, 127, shape, g, I8), chan(shape, axis),
                     torch.randint(-5, 6, (shape[axis],), generator=g), axis, -127, 127, I8, {}, False))
    rows += [
        ("zero_points_none_axis1_out_bfloat16", qint(-127, 127, (3, 4), g, I8), chan((3, 4), 1), None, 1, -127, 127,
         I8, {"out_dtype": torch.bfloat16}, False),
        ("float64_scales", qint(-128, 127, (3, 5), g, I8), chan((3, 5), 0, dtype=torch.float64),
         torch.tensor([1, -3, 0]), 0, -128, 127, I8, {}, False),
        ("uint8_plain_dtype", qint(0, 255, (2, 6), g, U8), chan((2, 6), 0), torch.tensor([0, 255]), 0, 0, 255, U8, {},
         True),
        # torch computes q - zero_points in int8 here: 127 - (-128) wraps to -1, -128 - 127 to 1
        ("int8_zero_points_wrap", torch.tensor([[127, 0], [-128, 5]], dtype=I8), f32([1.0, 0.5]),
         torch.tensor([-128, 127], dtype=I8), 0, -128, 127, I8, {}, False),
        ("empty_rows_axis1", torch.zeros(0, 3, dtype=I8), chan((0, 3), 1), torch.tensor([0, 1, 2]), 1, -128, 127, I8,
         {}, False)]
    for tag, q, s, zp, axis, qmin, qmax, dtype, kw, plain in rows:
        args = [q, s, zp, axis, qmin, qmax, dtype]
        names = ["input", "scales"] + ([] if zp is None else ["zero_points"])
        yield qcase("quantized_decomposed.dequantize_per_channel.default", tag, args, names, ndq, kwargs=kw,
                    plain=plain)


def quant_per_token_cases(g):
    quant_libs()
    I8, U8 = torch.int8, torch.uint8
    nq = ("quantized_decomposed.quantize_per_token on CPU: x.mul(1.0 / scales).add(zero_points).round()"
          ".clamp(quant_min, quant_max).to(dtype): the zero point is added BEFORE rounding (ties differ from "
          "quantize_per_tensor for odd zero points); float64 scales make it float64")

    def scales(shape, lo=0.005, hi=0.05, dtype=torch.float64):
        return (torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo).to(dtype)

    k = torch.arange(-6, 6, dtype=torch.float64)
    sd = torch.tensor([[0.1], [0.03], [0.7]], dtype=torch.float64)
    rows = [
        ("2d_float64_scales", rand(3, 8, gen=g), scales((3, 1)), torch.randint(-4, 5, (3, 1), generator=g), -128, 127,
         I8),
        ("3d_float64_scales", rand(2, 3, 5, gen=g), scales((2, 3, 1)), torch.randint(-4, 5, (2, 3, 1), generator=g),
         -128, 127, I8),
        ("ties_odd_zero_points", torch.stack([ties(0.5, 5), ties(0.25, 5)]), f32([[0.5], [0.25]], torch.float64),
         torch.tensor([[3], [0]]), -128, 127, I8),
        ("float64_scales_near_ties", ((k[None, :] + 0.5) * sd).float(), sd, torch.tensor([[1], [0], [-2]]), -128, 127,
         I8),
        ("clamp_int4_range", rand(2, 7, gen=g) * 10, scales((2, 1), 0.1, 0.3), torch.tensor([[0], [-1]]), -8, 7, I8),
        ("uint8_zp_128", rand(2, 5, gen=g), scales((2, 1)), torch.tensor([[128], [255]]), 0, 255, U8),
        ("empty_rows", torch.zeros(0, 4), scales((0, 1)), torch.zeros(0, 1, dtype=torch.int64), -128, 127, I8)]
    for tag, x, s, zp, qmin, qmax, dtype in rows:
        yield qcase("quantized_decomposed.quantize_per_token.default", tag, [x, s, zp, qmin, qmax, dtype],
                    ["input", "scales", "zero_points"], nq)

    ndq = ("quantized_decomposed.dequantize_per_token on CPU: ((q - zero_points) * scales).to(output_dtype) with "
           "torch type promotion (float64 scales: computed in float64); quant_min/quant_max/dtype are not checked")
    rows = [
        ("3d_float32", qint(-128, 127, (2, 3, 4), g, I8), scales((2, 3, 1)),
         torch.randint(-4, 5, (2, 3, 1), generator=g), -128, 127, I8, torch.float32, False),
        ("out_bfloat16", qint(-128, 127, (2, 5), g, I8), scales((2, 1)), torch.tensor([[3], [-2]]), -128, 127, I8,
         torch.bfloat16, False),
        ("out_float16_float32_scales", qint(-8, 7, (2, 5), g, I8), scales((2, 1), 0.1, 0.3, torch.float32),
         torch.tensor([[0], [1]]), -8, 7, I8, torch.float16, False),
        ("uint8_plain_dtype", qint(0, 255, (2, 6), g, U8), scales((2, 1)), torch.tensor([[128], [0]]), 0, 255, U8,
         torch.float32, True),
        ("empty_rows", torch.zeros(0, 4, dtype=I8), scales((0, 1)), torch.zeros(0, 1, dtype=torch.int64), -128, 127,
         I8, torch.float32, False)]
    for tag, q, s, zp, qmin, qmax, dtype, odt, plain in rows:
        yield qcase("quantized_decomposed.dequantize_per_token.default", tag, [q, s, zp, qmin, qmax, dtype, odt],
                    ["input", "scales", "zero_points"], ndq, plain=plain)


def quant_per_channel_group_cases(g):
    quant_libs()
    I8, U8, I32 = torch.int8, torch.uint8, torch.int32
    nq = ("quantized_decomposed.quantize_per_channel_group on CPU: 2-d input viewed as (-1, group_size) rows, "
          "scales/zero_points reshaped to (-1, 1); x.mul(1.0 / scales).add(zero_points).round().clamp(quant_min, "
          "quant_max).to(dtype) (zero point added BEFORE rounding; 1.0 / scales in the scales' dtype); "
          "group_size > row length with scales.shape[-1] == 1 means one group per row (GPTQ)")

    def gscales(shape, lo=0.05, hi=0.3, dtype=torch.float32):
        return (torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo).to(dtype)

    rows = [
        ("group2", rand(3, 8, gen=g), gscales((3, 4)), torch.randint(-3, 4, (3, 4), generator=g).to(I32), -8, 7, I8,
         2),
        ("group4", rand(2, 12, gen=g), gscales((2, 3)), torch.randint(-3, 4, (2, 3), generator=g).to(I32), -8, 7, I8,
         4),
        ("group32", rand(2, 64, gen=g), gscales((2, 2), 0.005, 0.02), torch.randint(-3, 4, (2, 2), generator=g).to(I32),
         -128, 127, I8, 32),
        ("gptq_group_larger_than_row", rand(3, 8, gen=g), gscales((3, 1)), torch.randint(-3, 4, (3, 1), generator=g),
         -8, 7, I8, 128),
        ("uint8_range_0_15", rand(2, 8, gen=g), gscales((2, 2)), torch.full((2, 2), 8, dtype=I32), 0, 15, U8, 4),
        ("ties_odd_zero_points", torch.stack([ties(0.5, 3)[:6], ties(0.25, 3)[:6]]), f32([[0.5, 0.5], [0.25, 0.25]]),
         torch.tensor([[3, 0], [-1, 2]], dtype=I32), -128, 127, I8, 3),
        ("odd_rows_13", rand(13, 4, gen=g), gscales((13, 2)), torch.randint(-3, 4, (13, 2), generator=g), -8, 7, I8, 2),
        ("empty_rows", torch.zeros(0, 8), gscales((0, 2)), torch.zeros(0, 2, dtype=I32), -8, 7, I8, 4)]
    for tag, x, s, zp, qmin, qmax, dtype, gs in rows:
        yield qcase("quantized_decomposed.quantize_per_channel_group.default", tag,
                    [x, s, zp, qmin, qmax, dtype, gs], ["input", "scales", "zero_points"], nq)

    ndq = ("quantized_decomposed.dequantize_per_channel_group on CPU: q.reshape(-1, group_size).sub(zero_points)"
           ".mul(scales).reshape_as(q).to(output_dtype) with torch type promotion (float16 scales: the product is "
           "float16); zero_points None: no subtraction; the GPTQ group_size rule as in quantize")
    rows = [
        ("group32", qint(-128, 127, (2, 64), g, I8), gscales((2, 2), 0.005, 0.02),
         torch.randint(-3, 4, (2, 2), generator=g).to(I32), -128, 127, I8, 32, torch.float32, False),
        ("zero_points_none_group4", qint(-8, 7, (2, 8), g, I8), gscales((2, 2)), None, -8, 7, I8, 4, torch.float32,
         False),
        ("gptq_zero_points_none", qint(-8, 7, (3, 6), g, I8), gscales((3, 1)), None, -8, 7, I8, 64, torch.float32,
         False),
        ("uint8_plain_dtype_out_bfloat16", qint(0, 15, (2, 8), g, U8), gscales((2, 2)), torch.full((2, 2), 8,
                                                                                                   dtype=I32),
         0, 15, U8, 4, torch.bfloat16, True),
        ("float16_scales", qint(-8, 7, (2, 8), g, I8), gscales((2, 2), dtype=torch.float16),
         torch.randint(-3, 4, (2, 2), generator=g).to(I32), -8, 7, I8, 4, torch.float32, False),
        ("empty_rows", torch.zeros(0, 8, dtype=I8), gscales((0, 2)), None, -8, 7, I8, 4, torch.float32, False)]
    for tag, q, s, zp, qmin, qmax, dtype, gs, odt, plain in rows:
        names = ["input", "scales"] + ([] if zp is None else ["zero_points"])
        yield qcase("quantized_decomposed.dequantize_per_channel_group.default", tag,
                    [q, s, zp, qmin, qmax, dtype, gs, odt], names, ndq, plain=plain)


def torchao_affine_cases(g):
    quant_libs()
    I8, U8, I16, I32 = torch.int8, torch.uint8, torch.int16, torch.int32
    BF16 = torch.bfloat16
    nc = ("torchao.choose_qparams_affine on CPU (torchao 0.18 _choose_qparams_affine): min/max over each block "
          "(including 0), in the input dtype; ASYMMETRIC: scale = (max - min) / (qmax - qmin) clamped to eps, "
          "zero_point = clamp(qmin - round(min / scale)); SYMMETRIC: scale = max(|min|, max) / ((qmax - qmin) / 2); "
          "SYMMETRIC_NO_CLIPPING_ERR: max(min / qmin, max / qmax); symmetric zero_point = int((qmax + qmin + 1) / 2) "
          "in the scale's dtype unless zero_point_dtype is given; eps None = finfo(input dtype).smallest_normal; "
          "scale_dtype None = input dtype; reduced block dims are dropped unless keepdim")
    C = "torchao.choose_qparams_affine.default"
    for tag, x, mapping, block, dtype, rest in (
            ("asym_per_row_int8_zp", rand(4, 8, gen=g), "ASYMMETRIC", [1, 8], I8, [-128, 127, None, None, I8]),
            ("asym_minimal_args", rand(3, 8, gen=g), "ASYMMETRIC", [1, 8], I8, []),
            ("asym_per_tensor_7x13", rand(7, 13, gen=g), "ASYMMETRIC", [7, 13], I8, [-128, 127, None, None, I32]),
            ("asym_per_axis1", rand(4, 3, gen=g), "ASYMMETRIC", [4, 1], U8, [0, 255, 1e-6, torch.float32, I32]),
            ("asym_group4_int4", rand(3, 8, gen=g), "ASYMMETRIC", [1, 4], I8, [-8, 7, None, None, I8]),
            ("asym_3d_middle_block", rand(2, 6, 4, gen=g), "ASYMMETRIC", [1, 3, 1], I8, [-128, 127, None, None, I32]),
            ("asym_uint8_0_15_zero_rows", torch.cat([torch.zeros(2, 8), rand(1, 8, gen=g)]), "ASYMMETRIC", [1, 8], U8,
             [0, 15, None, None, I32]),
            ("asym_bfloat16_input", rand(2, 8, dtype=BF16, gen=g), "ASYMMETRIC", [1, 8], I8,
             [-128, 127, None, None, I32]),
            ("asym_int16_keepdim", rand(2, 6, gen=g), "ASYMMETRIC", [1, 3], I16,
             [None, None, None, None, I32, True]),
            ("sym_per_row_plain_dtype", rand(3, 8, gen=g), "SYMMETRIC", [1, 8], I8,
             [-128, 127, None, torch.float32, I32]),
            ("sym_zero_point_dtype_none", rand(2, 8, gen=g), "SYMMETRIC", [1, 8], I8, [-128, 127, None, None, None]),
            ("sym_uint8_zp128", rand(2, 8, gen=g), "SYMMETRIC", [1, 4], U8, [0, 255, None, None, I32]),
            ("sym_int4_explicit_eps_zero_rows", torch.cat([torch.zeros(1, 8), rand(2, 8, gen=g)]), "SYMMETRIC",
             [1, 8], I8, [-8, 7, 1e-4, torch.float32, I8]),
            ("sym_no_clip_one_sided_rows", torch.cat([torch.rand(1, 8, generator=g) + 0.1,
                                                      -torch.rand(1, 8, generator=g) - 0.1]),
             "SYMMETRIC_NO_CLIPPING_ERR", [1, 4], I8, [-8, 7, 1e-6, torch.float32, I32]),
            ("empty_rows", torch.zeros(0, 8), "ASYMMETRIC", [1, 8], I8, [-128, 127, None, None, I32])):
        plain = "plain_dtype" in tag
        yield qcase(C, tag, [x, mapping, block, dtype] + rest, ["input"], nc, plain=plain)

    nq = ("torchao.quantize_affine on CPU: per block, clamp(round(x * (1.0 / scale)) + zero_point, quant_min, "
          "quant_max).to(output_dtype) with torch type promotion (float32 scale: float32; round half to even "
          "BEFORE adding the zero point); quant_min/quant_max None = the dtype's range; zero_point must not be None "
          "or empty (torch raises)")
    Q = "torchao.quantize_affine.default"

    def sc(shape, lo=0.01, hi=0.05, dtype=torch.float32):
        return (torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo).to(dtype)

    for tag, x, block, s, zp, dtype, rest in (
            ("per_axis0", rand(4, 8, gen=g), [1, 8], sc((4, 1)), torch.randint(-5, 6, (4, 1), generator=g).to(I8), I8,
             [-128, 127]),
            ("per_axis1_uint8_7x13", rand(7, 13, gen=g), [7, 1], sc((1, 13)),
             torch.randint(0, 256, (1, 13), generator=g).to(I32), U8, [0, 255]),
            ("group4_int4", rand(3, 8, gen=g), [1, 4], sc((3, 2), 0.1, 0.3), torch.randint(-2, 3, (3, 2), generator=g),
             I8, [-8, 7]),
            ("3d_middle_block", rand(2, 6, 4, gen=g), [1, 3, 1], sc((2, 2, 4)),
             torch.randint(-5, 6, (2, 2, 4), generator=g).to(I32), I8, [-128, 127]),
            ("ties_odd_zero_point", torch.stack([ties(0.5, 5), ties(0.25, 5)]), [1, 11], f32([[0.5], [0.25]]),
             torch.tensor([[3], [-1]], dtype=I8), I8, [-128, 127]),
            ("clamp_far_default_range", rand(2, 4, gen=g) * 100, [1, 4], sc((2, 1)), torch.zeros(2, 1, dtype=I8), I8,
             []),
            ("bfloat16_input", rand(2, 8, dtype=BF16, gen=g), [1, 4], sc((2, 2)), torch.zeros(2, 2, dtype=I8), I8,
             [-128, 127]),
            ("float64_scale_plain_dtype", rand(2, 5, gen=g), [1, 5], sc((2, 1), dtype=torch.float64),
             torch.tensor([[1], [-2]], dtype=I8), I8, [-128, 127]),
            ("empty_rows_per_tensor", torch.zeros(0, 8), [0, 8], sc((1,)), torch.zeros(1, dtype=I8), I8,
             [-128, 127])):
        yield qcase(Q, tag, [x, block, s, zp, dtype] + rest, ["input", "scale", "zero_point"], nq,
                    plain="plain_dtype" in tag)

    ndq = ("torchao.dequantize_affine on CPU: per block, (q.to(output_dtype) - zero_point.to(output_dtype)) * scale"
           " then .to(output_dtype), with torch type promotion (bfloat16 output, float32 scale: the product is "
           "float32, then rounded); zero_point None: no subtraction; quant_min/quant_max only checked against "
           "input_dtype")
    D = "torchao.dequantize_affine.default"
    for tag, q, block, s, zp, dtype, rest, plain in (
            ("per_axis1_uint8", qint(0, 255, (4, 3), g, U8), [4, 1], sc((1, 3)),
             torch.randint(0, 256, (1, 3), generator=g).to(I32), U8, [0, 255], False),
            ("group32_int4", qint(-8, 7, (2, 64), g, I8), [1, 32], sc((2, 2), 0.1, 0.3),
             torch.randint(-2, 3, (2, 2), generator=g).to(I8), I8, [-8, 7], False),
            ("3d_middle_block", qint(-128, 127, (2, 6, 4), g, I8), [1, 3, 1], sc((2, 2, 4)),
             torch.randint(-5, 6, (2, 2, 4), generator=g).to(I32), I8, [-128, 127], False),
            ("zero_point_none", qint(-8, 7, (2, 8), g, I8), [1, 4], sc((2, 2)), None, I8, [-8, 7], False),
            ("out_bfloat16", qint(-128, 127, (2, 8), g, I8), [1, 8], sc((2, 1)), torch.tensor([[2], [-3]], dtype=I8),
             I8, [-128, 127, BF16], False),
            # what the Python wrapper dequantize_affine(..., output_dtype=torch.float16) records: null quant range
            ("out_float16_null_range", qint(-128, 127, (2, 4), g, I8), [1, 2], sc((2, 2)),
             torch.zeros(2, 2, dtype=I8), I8, [None, None, torch.float16], False),
            ("int16_minimal_args_plain_dtype", qint(-32768, 32767, (2, 3), g, I16), [1, 3], sc((2, 1), 1e-4, 1e-3),
             torch.tensor([[10], [-10]], dtype=I32), I16, [], True),
            ("empty_rows", torch.zeros(0, 8, dtype=I8), [1, 8], sc((0, 1)), torch.zeros(0, 1, dtype=I8), I8,
             [-128, 127], False)):
        names = ["input", "scale"] + ([] if zp is None else ["zero_point"])
        yield qcase(D, tag, [q, block, s, zp, dtype] + rest, names, ndq, plain=plain)


QUANT_GENERATORS = [quant_per_tensor_cases, choose_qparams_cases, quant_per_channel_cases, quant_per_token_cases,
                    quant_per_channel_group_cases, torchao_affine_cases]


def check_pyir(cases):
    """Exports each case's call through pytorch-ir (tools/pyir_export.py) and compares the node it
    writes (op type, attrs in order, input and output dtypes/shapes) with the case's. Returns the
    number of differences."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import pyir_export

    class Call(torch.nn.Module):
        def __init__(self, fn, args, kwargs):
            super().__init__()
            self.fn, self.args, self.kwargs = fn, args, kwargs

        def forward(self, *tensors):
            it = iter(tensors)
            return self.fn(*[next(it) if isinstance(a, torch.Tensor) else a for a in self.args], **self.kwargs)

    bad = 0
    for c in cases:
        fn, args, kwargs = c.call
        ins = {n: t for n, t in c.inputs}
        try:
            ir = pyir_export.export_ir(Call(fn, args, kwargs), ins)
        except Exception as e:  # noqa: BLE001
            print("check-pyir %s/%s: export failed: %s" % (c.op, c.name, str(e).splitlines()[0]))
            bad += 1
            continue
        nodes = [nd for nd in ir["nodes"] if nd["op_type"] == c.op]
        want = {"attrs": json.dumps(c.pyir_attrs),
                "inputs": [(DTYPE_NAMES[t.dtype], list(t.shape)) for _, t in c.inputs],
                "outputs": [(DTYPE_NAMES[d], list(s)) for s, d in c.metas]}
        got = None if len(nodes) != 1 else {
            "attrs": json.dumps(nodes[0]["attrs"]),
            "inputs": [(i["dtype"], i["shape"]) for i in nodes[0]["inputs"]],
            "outputs": [(o["dtype"], o["shape"]) for o in nodes[0]["outputs"]]}
        if got != want:
            bad += 1
            print("check-pyir %s/%s: case %s, pytorch-ir %s" % (c.op, c.name, want, got))
    print("check-pyir: %d case(s), %d differ" % (len(cases), bad))
    return bad


GENERATORS = [batch_norm_cases, sdpa_cases, empty_permuted_cases, rrelu_with_noise_functional_cases] + \
    QUANT_GENERATORS


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="only ops whose IR name contains this")
    ap.add_argument("--out", default=OUT_DIR)
    ap.add_argument("--check-pyir", action="store_true",
                    help="also export each quantization case's call through pytorch-ir and compare the node")
    args = ap.parse_args()
    n = 0
    checked = []
    for gen_fn in GENERATORS:
        g = torch.Generator().manual_seed(1234)
        for c in gen_fn(g):
            if args.only not in c.op:
                continue
            d = os.path.join(args.out, c.op)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, c.name + ".json"), "w") as f:
                json.dump(case_json(c), f, separators=(",", ":"))
                f.write("\n")
            n += 1
            if hasattr(c, "call"):
                checked.append(c)
    print("wrote %d cases under %s (torch %s)" % (n, os.path.relpath(args.out, ROOT), torch.__version__))
    if args.check_pyir and check_pyir(checked):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
