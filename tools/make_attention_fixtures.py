#!/usr/bin/env python3
"""Writes tests/fixtures/attention/sdpa_cases.json: inputs and torch 2.x outputs of
scaled_dot_product_attention and _scaled_dot_product_flash_attention_for_cpu.

The LibTorch the parity tests link (1.13) has neither op, so these expected
values come from a torch 2.x, e.g. the sid chroot:
    tools/torch2-chroot.sh run -- python3 tools/make_attention_fixtures.py
Each case: op, inputs (dtype, shape, row-major values), attrs as the IR writes
them, and outputs (dtype, shape, values). Float masks may hold -Infinity.
"""
import json
import os

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "attention",
                   "sdpa_cases.json")
SDPA = "aten.scaled_dot_product_attention.default"
FLASH = "aten._scaled_dot_product_flash_attention_for_cpu.default"

gen = torch.Generator().manual_seed(1234)


def rand(*shape, dtype=torch.float32):
    return (torch.rand(*shape, generator=gen, dtype=torch.float64) * 4 - 2).to(dtype)


def num(x, dtype):
    if not dtype.is_floating_point:
        return int(x)
    # 9 significant digits round-trip float32 exactly and keep the file small.
    return float(f"{x:.9g}") if dtype == torch.float32 else x


def enc(t):
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
            "values": [num(x, t.dtype) for x in t.flatten().tolist()]}


cases = []


def add(name, op, inputs, attrs, note=""):
    fn = getattr(torch.ops.aten, op.split(".")[1]).default
    kw = dict(attrs)
    args = list(inputs)
    if op == FLASH and len(args) == 4:  # attn_mask is keyword-only there
        kw["attn_mask"] = args.pop()
    res = fn(*args, **kw)
    outs = list(res) if isinstance(res, (tuple, list)) else [res]
    cases.append({"name": name, "note": note, "op": op, "inputs": [enc(t) for t in inputs], "attrs": attrs,
                  "outputs": [enc(o.contiguous()) for o in outs]})
    return outs


# No fully masked rows here: the same shapes also run as LibTorch parity tests elsewhere.
add("basic_L_ne_S", SDPA, [rand(1, 2, 5, 8), rand(1, 2, 7, 8), rand(1, 2, 7, 8)], {})
add("causal_L_gt_S_Ev_ne_E", SDPA, [rand(2, 3, 7, 4), rand(2, 3, 5, 4), rand(2, 3, 5, 6)], {"is_causal": True})
add("causal_L_lt_S", SDPA, [rand(1, 2, 3, 4), rand(1, 2, 6, 4), rand(1, 2, 6, 4)], {"is_causal": True})

# Bool masks with a fully masked row (row 1): torch >= 2.5 gives 0 there.
m = torch.rand(5, 7, generator=gen) > 0.4
m[:, 0] = True
m[1] = False
add("bool_mask_LS_fully_masked_row", SDPA, [rand(1, 2, 5, 8), rand(1, 2, 7, 8), rand(1, 2, 7, 8), m], {},
    "row 1 fully masked -> zeros (torch >= 2.5)")
m4 = (torch.rand(1, 1, 7, 5, generator=gen) > 0.5)
m4[..., 0] = True
m4[0, 0, 6] = False
add("bool_mask_11LS_broadcast", SDPA, [rand(2, 3, 7, 4), rand(2, 3, 5, 4), rand(2, 3, 5, 6), m4], {})

fm = rand(2, 1, 7, 5)
fm[0, 0, 2, 1:] = float("-inf")
fm[1, 0, 4] = float("-inf")  # fully masked row through the float mask
add("float_mask_2_1_LS_with_inf", SDPA, [rand(2, 3, 7, 4), rand(2, 3, 5, 4), rand(2, 3, 5, 6), fm], {})
add("explicit_scale", SDPA, [rand(2, 3, 7, 4), rand(2, 3, 5, 4), rand(2, 3, 5, 6)], {"scale": 0.3})
add("gqa_4q_2kv", SDPA, [rand(1, 4, 3, 4), rand(1, 2, 5, 4), rand(1, 2, 5, 3)], {"enable_gqa": True})
add("batch_broadcast_3d_2d", SDPA, [rand(2, 3, 4), rand(1, 5, 4), rand(5, 3)], {})
add("f64_causal", SDPA, [rand(1, 2, 4, 3, dtype=torch.float64), rand(1, 2, 4, 3, dtype=torch.float64),
                         rand(1, 2, 4, 3, dtype=torch.float64)], {"is_causal": True})

# The CPU flash form (core/decomposed exports): (out, logsumexp); Ev must equal E in torch.
fm2 = rand(5, 7)
fm2[3] = float("-inf")
add("flash_float_mask_scale", FLASH, [rand(1, 2, 5, 8), rand(1, 2, 7, 8), rand(1, 2, 7, 8), fm2], {"scale": 0.25},
    "row 3 fully masked -> out 0, logsumexp 0")
add("flash_causal", FLASH, [rand(2, 3, 7, 4), rand(2, 3, 5, 4), rand(2, 3, 5, 4)], {"is_causal": True})
q, k, v = rand(1, 4, 3, 4), rand(1, 2, 5, 4), rand(1, 2, 5, 4)
o = add("flash_gqa_4q_2kv", FLASH, [q, k, v], {})
ref = torch.nn.functional.scaled_dot_product_attention(q, k.repeat_interleave(2, 1), v.repeat_interleave(2, 1))
assert torch.allclose(o[0], ref, atol=1e-6), "flash_for_cpu does not map kv heads as repeat_interleave"

os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    json.dump({"torch_version": torch.__version__, "cases": cases}, f, separators=(",", ":"))
    f.write("\n")
print("wrote", os.path.normpath(OUT), len(cases), "cases, torch", torch.__version__)
