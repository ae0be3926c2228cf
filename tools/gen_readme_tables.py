#!/usr/bin/env python3
"""Regenerate the docs' generated tables (docs/ops.md, docs/models.md) so they cannot drift from the code.

  gen_readme_tables.py [--torchir PATH] [--check] [--models]

Ops table in docs/ops.md (between <!-- ops-table:begin --> and <!-- ops-table:end -->): every op
type the registry holds (`torchir ops`), grouped by op name, with its tier in the ATen op spec
(tests/fixtures/spec/aten_schemas.tsv). --check exits 1 when docs/ops.md differs (ctest
readme_ops_table runs it).

--models also rewrites the verified-models table in docs/models.md (<!-- models-table:begin/end -->)
by running `torchir verify` on every fixture under tests/fixtures/models (weights/io beside the IR
or in build/fixtures). Not part of --check: the max diffs depend on the reference outputs, which the
host's torch regenerates for the large models.
"""
import argparse
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS_DOC = os.path.join(REPO, "docs", "ops.md")
MODELS_DOC = os.path.join(REPO, "docs", "models.md")
SPEC = os.path.join(REPO, "tests", "fixtures", "spec", "aten_schemas.tsv")
LEFT_OUT = os.path.join(REPO, "tests", "fixtures", "spec", "tier3_left_out.tsv")
MODELS = os.path.join(REPO, "tests", "fixtures", "models")
GENERATED = os.path.join(REPO, "build", "fixtures")


def registered_ops(torchir):
    out = subprocess.run([torchir, "ops"], check=True, capture_output=True, text=True).stdout
    return [line.strip() for line in out.splitlines() if line.strip()]


def spec_tiers():
    tiers = {}
    with open(SPEC, encoding="utf-8") as f:
        next(f)
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 5:
                tiers[cols[0]] = int(cols[4])
    return tiers


def left_out_ops():
    """tier3_left_out.tsv: op_type -> why (tier-3 ops deliberately not registered)."""
    rows = {}
    with open(LEFT_OUT, encoding="utf-8") as f:
        next(f)
        for line in f:
            op, _, why = line.rstrip("\n").partition("\t")
            if op:
                rows[op] = why
    return rows


def op_name(op_type):
    """'aten.add_.Tensor' -> 'add' (in-place twins share a row); the overloads of the
    quantization namespaces share one too ('quantized_decomposed.quantize_per_tensor');
    other non-ATen names stay whole."""
    if op_type.startswith(("quantized_decomposed.", "torchao.")):
        return op_type.rsplit(".", 1)[0]
    if not op_type.startswith("aten."):
        return op_type
    op_type = op_type[5:]
    base = op_type.split(".")[0]
    return base[:-1] if base.endswith("_") and not base.endswith("__") else base


def ops_table(torchir):
    ops = registered_ops(torchir)
    tiers = spec_tiers()
    rows = {}
    for op in ops:
        rows.setdefault(op_name(op), []).append(op)
    wanted = sorted(k for k, t in tiers.items() if t <= 2)
    missing = [k for k in wanted if k not in set(ops)]
    tier3 = sorted(k for k, t in tiers.items() if t == 3)
    left_out = left_out_ops()
    tier3_missing = [k for k in tier3 if k not in set(ops) and k not in left_out]
    lines = [
        f"{len(ops)} op types registered, grouped below by op name "
        f"({len(wanted) - len(missing)} of the {len(wanted)} tier-1/2 op types of the ATen spec"
        + (f"; missing: {', '.join(missing)}" if missing else "")
        + f"; {sum(1 for k in tier3 if k in set(ops))} of its {len(tier3)} tier-3 op types, "
        f"{sum(1 for k in tier3 if k in left_out and k not in set(ops))} left out as the table after this one says"
        + (f"; missing without a reason: {', '.join(tier3_missing)}" if tier3_missing else "") + ").",
        "Tier: the lowest spec tier among the row's op types (1 = most common; - = not in the spec).",
        "",
        "| Op | Op types | Tier |",
        "| --- | --- | --- |",
    ]
    for name in sorted(rows, key=lambda s: s.lstrip("_<").lower()):
        types = rows[name]
        known = [tiers[t] for t in types if t in tiers]
        tier = str(min(known)) if known else "-"
        cell = ", ".join(f"`{t}`" for t in sorted(types))
        lines.append(f"| {name.replace('<', '&lt;').replace('>', '&gt;')} | {cell} | {tier} |")
    lines += ["", "Tier-3 op types left out, and why (tests/fixtures/spec/tier3_left_out.tsv):", "",
              "| Op type | Why |", "| --- | --- |"]
    lines += [f"| `{op}` | {why} |" for op, why in sorted(left_out.items()) if op not in set(ops)]
    return "\n".join(lines)


def fixture_dirs():
    for model in sorted(os.listdir(MODELS)):
        mdir = os.path.join(MODELS, model)
        if not os.path.isdir(mdir):
            continue
        for flavor in sorted(os.listdir(mdir)):
            ir = os.path.join(mdir, flavor, "model.json")
            if os.path.isfile(ir):
                yield model, flavor, ir


def locate(model, flavor, name):
    for base in (os.path.join(MODELS, model, flavor), os.path.join(GENERATED, model, flavor)):
        p = os.path.join(base, name)
        if os.path.isfile(p):
            return p
    return None


def models_table(torchir):
    lines = ["| Model | IR flavor | Nodes | Result (rtol=atol=1e-5) | Max diff |",
             "| --- | --- | --- | --- | --- |"]
    for model, flavor, ir in fixture_dirs():
        w, io = locate(model, flavor, "weights.safetensors"), locate(model, flavor, "io.safetensors")
        if not w or not io:
            lines.append(f"| {model} | {flavor} | | weights/io not generated | |")
            continue
        res = subprocess.run([torchir, "verify", ir, "--weights", w, "--io", io],
                             capture_output=True, text=True)
        text = res.stdout + res.stderr
        diff = re.search(r"^\s*max_diff: (\S+)", text, re.M)
        info = subprocess.run([torchir, "info", ir], capture_output=True, text=True).stdout
        nodes = re.search(r"Nodes?:\s*(\d+)", info)
        verdict = "PASSED" if "Verification PASSED" in text else "FAILED: " + text.strip().splitlines()[-1][:80]
        truth = os.path.join(GENERATED, model, flavor, "truth64.safetensors")
        if verdict != "PASSED" and os.path.isfile(truth):  # issue 11: tell reassociation apart
            t = subprocess.run([torchir, "verify", ir, "--weights", w, "--io", io, "--reference64", truth],
                               capture_output=True, text=True)
            if "only reassociation" in t.stdout + t.stderr:
                verdict = "misses 1e-5 by reassociation only (float64 truth: within 2x PyTorch's error)"
        lines.append(f"| {model} | {flavor} | {nodes.group(1) if nodes else ''} | {verdict} | "
                     f"{diff.group(1) if diff else ''} |")
    return "\n".join(lines)


def replace_block(text, tag, body, path):
    begin, end = f"<!-- {tag}:begin -->", f"<!-- {tag}:end -->"
    pat = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pat.search(text):
        sys.exit(f"gen_readme_tables: {os.path.relpath(path, REPO)} lacks the {begin} ... {end} markers")
    return pat.sub(lambda _: f"{begin}\n{body}\n{end}", text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--torchir", default=os.path.join(REPO, "build", "native", "torchir"))
    ap.add_argument("--check", action="store_true", help="fail if the ops table is out of date")
    ap.add_argument("--models", action="store_true", help="also regenerate the models table")
    args = ap.parse_args()
    with open(OPS_DOC, encoding="utf-8") as f:
        old = f.read()
    new = replace_block(old, "ops-table", ops_table(args.torchir), OPS_DOC)
    if args.check:
        if new != old:
            sys.exit("docs/ops.md's ops table is out of date: run python3 tools/gen_readme_tables.py")
        return
    if new != old:
        with open(OPS_DOC, "w", encoding="utf-8") as f:
            f.write(new)
    if args.models:
        with open(MODELS_DOC, encoding="utf-8") as f:
            old = f.read()
        new = replace_block(old, "models-table", models_table(args.torchir), MODELS_DOC)
        if new != old:
            with open(MODELS_DOC, "w", encoding="utf-8") as f:
                f.write(new)


if __name__ == "__main__":
    main()
