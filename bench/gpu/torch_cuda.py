#!/usr/bin/env python3
"""PyTorch's own time for the GPU comparison's models (bench/gpu/README.md), float32, batch 1.

    torch_cuda.py --json FILE [--device cuda|cpu] [--models resnet50,bert_base]
                  [--llm-model bench/models/llm_gpt2_small --llm-weights W] [--runs N]

The CNN and the encoder are bench/export_bench.py's modules with its seeded weights; the
decoder is tools/export_llm.py's decode wrapper (caches in and out, out-of-place index_copy: the
graph the other engines run) with the given weights, timed per decode step at cache slots
P..P+steps-1. Eager mode, TF32 off for matmul and cuDNN (the WebGPU kernels compute in float32),
cudnn.benchmark on (PyTorch's fastest), each run synchronized: a step's logits are needed before
the next token. Reports the median and min in ms.
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools"))
sys.path.insert(0, os.path.join(REPO, "bench"))

import torch  # noqa: E402


def timed(fn, sync, warmup, runs):
    for _ in range(warmup):
        fn()
    sync()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t) * 1e3)
    return {"median_ms": statistics.median(times), "min_ms": min(times), "runs": runs}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", required=True)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--models", default="resnet50,bert_base")
    ap.add_argument("--llm-model", default=os.path.join(REPO, "bench", "models", "llm_gpt2_small"))
    ap.add_argument("--llm-weights")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--steps", type=int, default=64)
    args = ap.parse_args()
    dev = torch.device(args.device)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    sync = (lambda: torch.cuda.synchronize()) if dev.type == "cuda" else (lambda: None)
    out = {"torch": torch.__version__, "device": args.device,
           "gpu": torch.cuda.get_device_name(0) if dev.type == "cuda" else None,
           "settings": "eager, float32, TF32 off, cudnn.benchmark on", "models": {}}
    import export_bench as eb

    for name in [n for n in args.models.split(",") if n]:
        model, inputs = eb.build(name)
        model = model.to(dev)
        x = [t.to(dev) for t in inputs.values()]
        with torch.no_grad():
            r = timed(lambda: model(*x), sync, 5, args.runs)
        out["models"][name] = r
        print("torch_cuda: %s %.3f ms (min %.3f)" % (name, r["median_ms"], r["min_ms"]), flush=True)
    if args.llm_weights:
        try:
            llm_decode(args, dev, sync, out)
        except Exception as e:  # keep the other models' times
            out["models"]["llm_decode"] = {"error": "%s: %s" % (type(e).__name__, e)}
            print("torch_cuda: decode failed: %s" % out["models"]["llm_decode"]["error"], flush=True)
    with open(args.json, "w") as f:
        json.dump(out, f, indent=1)
    return 0


def llm_decode(args, dev, sync, out):
    import export_llm as el

    with open(os.path.join(args.llm_model, "kv_mapping.json")) as f:
        m = json.load(f)
    P, C = m["prefill_seq_len"], m["max_cache_len"]
    lm, cfg = el.build_model(os.path.join(args.llm_model, "config.json"), args.llm_weights)
    lm = lm.to(dev)
    decode = el.TinyLlamaDecode(lm, P, C).eval()
    L = cfg["num_hidden_layers"]
    state = {"kv": [torch.zeros(el.kv_shape(cfg, C), device=dev) for _ in range(2 * L)],
             "slot": P - 1, "token": 5}

    def step():
        state["slot"] = P + (state["slot"] - P + 1) % min(args.steps, C - P)
        din = el.decode_inputs(state["token"], state["slot"], C, [])
        feeds = [t.to(dev) for t in din.values()] + state["kv"]
        res = decode(*feeds)
        state["kv"] = list(res[1:])
        state["token"] = int(torch.argmax(res[0][0, -1]))  # the host needs it: a sync per step

    with torch.no_grad():
        r = timed(step, sync, 8, args.steps)
    r["tokens_per_s"] = 1e3 / r["median_ms"]
    out["models"]["llm_decode"] = r
    print("torch_cuda: decode step %.3f ms (%.1f tok/s)" % (r["median_ms"], r["tokens_per_s"]),
          flush=True)


if __name__ == "__main__":
    sys.exit(main())
