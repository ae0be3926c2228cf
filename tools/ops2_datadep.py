"""Cases for the data-dependent / assert ops checked against torch 2.x (run in the chroot):

    flock /tmp/tir-chroot.lock bash tools/torch2-chroot.sh run -- \
        python3 /repo/tools/ops2_datadep.py /repo/tests/fixtures/ops2/datadep/cases.json

LibTorch 1.13 (the parity tests' reference) lacks _assert_async.msg, _assert_scalar,
_functional_assert_async.msg and sym_constrain_range_for_size, and its _unique2 gives NaN
elements inverse index 0 (torch 2.x's sorted kernel gives each NaN its own index). Each case
records the op, its attributes, inputs and either torch's outputs or that torch raised;
tests/cpp/unit/ops_datadep_test.cpp replays them through the engine.
"""

import json
import math
import sys

import torch

aten = torch.ops.aten


def enc(t):
    def num(v):
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
        return v
    flat = t.reshape(-1).tolist()
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
            "values": [num(float(v)) if t.is_floating_point() else int(v) for v in flat]}


def case(name, op, fn, inputs, attrs):
    c = {"name": name, "op": op, "attrs": attrs, "inputs": [enc(t) for t in inputs]}
    try:
        out = fn()
    except Exception as e:  # torch raised: the engine must raise too
        c["error"] = str(e).splitlines()[0][:200]
        return c
    if isinstance(out, torch.Tensor):
        out = (out,)
    c["outputs"] = [enc(o) for o in (out or ())]
    return c


def main(path):
    nan, inf = float("nan"), float("inf")
    cases = []
    x = torch.tensor([nan, 1.0, nan, -2.0, 1.0, inf])
    for inv in (False, True):
        for cnt in (False, True):
            a = {"sorted": True, "return_inverse": inv, "return_counts": cnt}
            cases.append(case("unique2_nan_%d%d" % (inv, cnt), "aten._unique2.default",
                              lambda: aten._unique2.default(x, True, inv, cnt), [x], a))
    y = torch.tensor([[nan, 2.0], [nan, 2.0], [1.0, 1.0]])
    for dim in (None, 0):
        a = {"return_inverse": True, "return_counts": True}
        if dim is not None:
            a["dim"] = dim
        cases.append(case("unique_consecutive_nan_%s" % dim, "aten.unique_consecutive.default",
                          lambda: aten.unique_consecutive.default(y, True, True, dim), [y], a))
    for name, cond in [("one", torch.tensor(1)), ("zero", torch.tensor(0)), ("half", torch.tensor(0.5)),
                       ("false", torch.tensor(False)), ("true_1d", torch.tensor([True])),
                       ("nan", torch.tensor(nan))]:
        msg = "check " + name
        cases.append(case("assert_async_" + name, "aten._assert_async.msg",
                          lambda: aten._assert_async.msg(cond, msg), [cond], {"assert_msg": msg}))
        tok = torch.empty(0)
        cases.append(case("functional_assert_async_" + name, "aten._functional_assert_async.msg",
                          lambda: aten._functional_assert_async.msg(cond, msg, tok), [cond, tok],
                          {"assert_msg": msg}))
    cases.append(case("assert_async_two", "aten._assert_async.msg",
                      lambda: aten._assert_async.msg(torch.tensor([1, 1]), "two"),
                      [torch.tensor([1, 1])], {"assert_msg": "two"}))
    for v in (True, False, 1, 0, 2.5):
        cases.append(case("assert_scalar_%r" % (v,), "aten._assert_scalar.default",
                          lambda: aten._assert_scalar.default(v, "u0 <= 5"), [],
                          {"self": v, "assert_msg": "u0 <= 5"}))
    for size, lo, hi in [(3, 0, 5), (7, 0, 5), (0, 2, None), (4, None, None)]:
        a = {"size": size}
        if lo is not None:
            a["min"] = lo
        if hi is not None:
            a["max"] = hi
        cases.append(case("constrain_range_%d_%s_%s" % (size, lo, hi), "aten.sym_constrain_range_for_size.default",
                          lambda: aten.sym_constrain_range_for_size.default(size, min=lo, max=hi), [], a))
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1)
        f.write("\n")
    print("wrote %d cases to %s" % (len(cases), path))


if __name__ == "__main__":
    main(sys.argv[1])
