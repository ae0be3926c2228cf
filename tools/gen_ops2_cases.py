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


GENERATORS = [batch_norm_cases, sdpa_cases, empty_permuted_cases, rrelu_with_noise_functional_cases]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="only ops whose IR name contains this")
    ap.add_argument("--out", default=OUT_DIR)
    args = ap.parse_args()
    n = 0
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
    print("wrote %d cases under %s (torch %s)" % (n, os.path.relpath(args.out, ROOT), torch.__version__))
    return 0


if __name__ == "__main__":
    sys.exit(main())
