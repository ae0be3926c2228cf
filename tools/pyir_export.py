#!/usr/bin/env python3
"""The training-flavor IR through the real pytorch-ir package (torch_ir), as its users export.

    export_ir(model, inputs) -> dict   torch_ir.extract_ir on the real module, then the JSON that
                                       IR.save writes with pytorch-ir's documented workaround for
                                       attrs that are not JSON types (str() of them: dtypes,
                                       devices, layouts, memory formats).
    save(ir, path)                     writes it as IR.save does (json.dump, indent=2).

pytorch-ir is pure Python: tools/pyir_env.sh installs the version pinned in
tools/requirements-export.txt (without dependencies) into build/pyir; put that on PYTHONPATH next
to a torch >= 2.5 (the chroot of tools/torch2-chroot.sh).

CLI:
    pyir_export.py --cross-check [--update] [--only M1,M2] [--fixtures ROOT]
        (torch 2.x) for every ROOT/<model>/torch<M>.<m>-training/ of this torch: export the
        model with pytorch-ir and through tools/ir_writer.py, byte-compare the two, and
        byte-compare the package's output with the committed model.json (--update: rewrite it;
        that is the re-export). Exit 1 on any difference.
    pyir_export.py --check-format --pyir DIR FILE...
        (any torch, the host's 1.13 too) each FILE must be exactly what pytorch-ir's own IR
        classes (DIR/torch_ir/ir.py, loaded by path: the package's __init__ needs torch.export)
        write back after reading it: IR.from_dict(...).to_dict() dumped as IR.save does.
"""

import argparse
import importlib.util
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REQUIREMENTS = os.path.join(HERE, "requirements-export.txt")


class PyirError(Exception):
    pass


def pinned_version(package="pytorch-ir"):
    with open(REQUIREMENTS) as f:
        for line in f:
            m = re.match(r"\s*%s==(\S+)" % re.escape(package), line)
            if m:
                return m.group(1)
    raise PyirError("%s: no pinned %s" % (REQUIREMENTS, package))


def import_torch_ir():
    try:
        import torch_ir
    except ImportError as e:
        raise PyirError("cannot import torch_ir (%s): run tools/pyir_env.sh and put build/pyir on "
                        "PYTHONPATH (see tools/pyir_export.py)" % e)
    want = pinned_version()
    if torch_ir.__version__ != want:
        raise PyirError("torch_ir %s from %s, but tools/requirements-export.txt pins pytorch-ir==%s"
                        % (torch_ir.__version__, os.path.dirname(torch_ir.__file__), want))
    return torch_ir


def dumps(ir_dict):
    """IR.save's bytes: json.dump(ir.to_dict(), f, indent=2), plus str() of non-JSON attrs."""
    return json.dumps(ir_dict, indent=2, default=str)


def save(ir_dict, path):
    with open(path, "w") as f:
        f.write(dumps(ir_dict))


def is_dynamic_shape_refusal(err):
    return type(err).__name__ == "ConversionError" and "Dynamic shape detected" in str(err)


def export_ir(model, inputs):
    """IR dict of `model` on `inputs` (an ordered name -> tensor map) written by pytorch-ir.
    A graph with data-dependent sizes (nonzero, x[mask], ...), which pytorch-ir refuses, is
    written by ir_writer with the example's sizes (the engine re-plans when data gives others)."""
    torch_ir = import_torch_ir()
    try:
        ir = torch_ir.extract_ir(model, tuple(inputs.values()), strict=False)
    except torch_ir.ConversionError as e:
        if not is_dynamic_shape_refusal(e):
            raise
        print("pyir_export: pytorch-ir refuses %s (%s); written by ir_writer"
              % (type(model).__name__, str(e).splitlines()[0]), file=sys.stderr)
        return writer_ir(model, inputs)
    return json.loads(dumps(ir.to_dict()))


def writer_ir(model, inputs):
    import torch
    import ir_writer

    ep = torch.export.export(model, tuple(inputs.values()))
    return json.loads(dumps(ir_writer.training_ir(ep, model, inputs)))


def training_dirs(fixtures_root, only=None):
    """(model, committed model.json) for every <model>/torch<this torch>-training directory."""
    import export_fixture as ef

    flavor_dir = ef.flavor_dir_name("training")
    names = only or sorted(n for n in os.listdir(fixtures_root)
                           if os.path.isdir(os.path.join(fixtures_root, n, flavor_dir)))
    unknown = [n for n in names if n not in ef.MODELS]
    if unknown:
        raise PyirError("not export_fixture.py models: %s" % ", ".join(unknown))
    return [(n, os.path.join(fixtures_root, n, flavor_dir, "model.json")) for n in names]


def cross_check(pairs, update=False):
    """Per model: pytorch-ir's IR vs ir_writer's on the same module, and vs the committed file.
    update: rewrite a committed model.json that differs from the package's (the re-export)."""
    import export_fixture as ef

    torch_ir = import_torch_ir()
    bad, refused, updated = [], [], []
    for name, committed in pairs:
        model, inputs = ef.build_model(name, 0)
        initial = {k: v.clone() for k, v in model.state_dict().items()}
        try:
            pkg = dumps(torch_ir.extract_ir(model, tuple(inputs.values()), strict=False).to_dict())
        except torch_ir.ConversionError as e:
            if not is_dynamic_shape_refusal(e):
                raise
            refused.append(name)
            pkg = None
        model.load_state_dict(initial)
        mine = dumps(writer_ir(model, inputs))
        problems = []
        if pkg is not None and pkg != mine:
            problems.append("ir_writer differs from pytorch-ir (%s)" % _first_diff(pkg, mine))
        want = pkg if pkg is not None else mine
        text = None
        if os.path.exists(committed):
            with open(committed) as f:
                text = f.read()
        if text != want:
            if update:
                with open(committed, "w") as f:
                    f.write(want)
                updated.append(name)
            elif text is None:
                problems.append("no committed %s" % committed)
            else:
                problems.append("%s differs from a fresh export (%s)"
                                % (committed, _first_diff(want, text)))
        status = "ok" if not problems else "MISMATCH: " + "; ".join(problems)
        print("%-22s %s%s" % (name, "ir_writer only (pytorch-ir refuses dynamic shapes), "
                              if pkg is None else "", status), flush=True)
        if problems:
            bad.append(name)
    print("cross-check (torch %s, pytorch-ir %s): %d model(s), %d mismatched, %d rewritten, "
          "%d refused by pytorch-ir (%s)"
          % (ef.TORCH_VERSION, torch_ir.__version__, len(pairs), len(bad), len(updated),
             len(refused), ", ".join(refused) or "-"))
    return 1 if bad else 0


def _first_diff(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return "line %d: %r vs %r" % (i + 1, x.strip()[:80], y.strip()[:80])
    return "%d vs %d lines" % (len(la), len(lb))


def check_format(pyir_dir, files):
    path = os.path.join(pyir_dir, "torch_ir", "ir.py")
    if not os.path.exists(path):
        raise PyirError("%s not found: run tools/pyir_env.sh %s" % (path, pyir_dir))
    spec = importlib.util.spec_from_file_location("torch_ir_ir", path)
    ir_mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ir_mod)
    bad = 0
    for fn in files:
        with open(fn) as f:
            text = f.read()
        again = dumps(ir_mod.IR.from_dict(json.loads(text)).to_dict())
        if again != text:
            bad += 1
            print("%s: not what pytorch-ir's IR writes back (%s)" % (fn, _first_diff(again, text)))
    print("%d passed, %d failed" % (len(files) - bad, bad))
    return 1 if bad else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--cross-check", action="store_true")
    ap.add_argument("--only", help="comma-separated models (default: every training directory)")
    ap.add_argument("--update", action="store_true",
                    help="with --cross-check: rewrite committed model.json files that differ")
    ap.add_argument("--fixtures", default=os.path.join(HERE, "..", "tests", "fixtures", "models"))
    ap.add_argument("--check-format", action="store_true")
    ap.add_argument("--pyir", help="the directory tools/pyir_env.sh installed pytorch-ir into")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args(argv)
    if a.cross_check:
        sys.path.insert(0, HERE)
        pairs = training_dirs(os.path.normpath(a.fixtures), a.only.split(",") if a.only else None)
        return cross_check(pairs, a.update)
    if a.check_format:
        if not a.pyir or not a.files:
            ap.error("--check-format needs --pyir DIR and FILE...")
        return check_format(a.pyir, a.files)
    ap.error("nothing to do: --cross-check or --check-format")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except PyirError as e:
        print("pyir_export: error: %s" % e, file=sys.stderr)
        sys.exit(1)
