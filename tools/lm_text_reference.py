#!/usr/bin/env python3
"""Reference text generations of the demo language model (tests/fixtures/llm/debian_lm) with
Hugging Face generate(), for the npm package's text tests (npm/test/lm_text.test.mjs).

Usage (in the torch 2.x chroot, after tools/export_llm.py wrote DIR):
    tools/torch2-chroot.sh run -- python3 tools/lm_text_reference.py --dir DIR \
        --weights FLOAT_WEIGHTS [--quantize 8da4w --group-size G]

Rebuilds the module export_llm.py exported (the float weights, then the same torchao config),
encodes each prompt with DIR/tokenizer.json (`tokenizers`, no special tokens added) and writes
DIR/text_expected.json (with --corpus also the held-out perplexity of the exported module, on
tools/train_lm.py's split): per prompt and option set, the new ids and their text
(skip_special_tokens), with each step's top-1 / top-2 margin of the processed logits (a consumer
compares tokens up to the first step whose margin is thin: 8da4w's per-token activation
quantization is chaotic there).
Option sets: greedy; greedy with repetition_penalty 2 (a power of two: dividing is exact
whether or not the implementation multiplies by the reciprocal); greedy with min_new_tokens
(the end token banned until then).
"""

import argparse
import collections
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from export_llm import build_model, write_json_compact_lists  # noqa: E402
from llm_quantize import QUANT_FLOWS, quantize_lm  # noqa: E402

PROMPTS = [
    "This package provides",
    "A library for",
    "GNU Emacs is",
    "This is a transitional package",
    "Python 3 bindings for",
]
MAX_NEW = 40
EOS = 0
OPTION_SETS = collections.OrderedDict([
    ("greedy", {}),
    ("repetition_penalty_2", {"repetition_penalty": 2.0}),
    ("min_new_tokens_30", {"min_new_tokens": 30}),
])


def generate(lm, ids, opts):
    x = torch.tensor([ids], dtype=torch.int64)
    with torch.no_grad():
        r = lm.generate(x, attention_mask=torch.ones_like(x), max_new_tokens=MAX_NEW, do_sample=False,
                        eos_token_id=EOS, pad_token_id=EOS, return_dict_in_generate=True,
                        output_scores=True, **opts)
    new = r.sequences[0, len(ids):].tolist()
    margins = []
    for s in r.scores:  # the processed logits of each step
        top2 = torch.topk(s[0].float(), 2).values
        margins.append(float(top2[0] - top2[1]))
    return new, margins


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--weights", required=True, help="the float weights export_llm.py started from")
    ap.add_argument("--quantize", choices=QUANT_FLOWS)
    ap.add_argument("--group-size", type=int, default=32)
    ap.add_argument("--corpus", help="Translation-en.xz: also score the held-out descriptions "
                    "(tools/train_lm.py's split) with the exported module")
    args = ap.parse_args(argv)
    from tokenizers import Tokenizer
    import transformers

    torch.set_num_threads(2)
    lm, cfg = build_model(os.path.join(args.dir, "config.json"), args.weights)
    desc = None
    if args.quantize:
        with torch.no_grad():
            desc = quantize_lm(lm, args.quantize, args.group_size)
    tok = Tokenizer.from_file(os.path.join(args.dir, "tokenizer.json"))
    out = collections.OrderedDict([
        ("what", "Hugging Face generate() of the exported module (greedy, eos/pad id %d, at most %d new "
                 "tokens) on text prompts encoded by tokenizer.json without special tokens; "
                 "text = decode(new ids, skip_special_tokens)" % (EOS, MAX_NEW)),
        ("quantization", desc),
        ("torch_version", torch.__version__),
        ("transformers_version", transformers.__version__),
        ("max_new_tokens", MAX_NEW),
        ("eos_token_id", EOS),
        ("prompts", []),
    ])
    for prompt in PROMPTS:
        ids = tok.encode(prompt, add_special_tokens=False).ids
        entry = collections.OrderedDict([("prompt", prompt), ("input_ids", ids)])
        for name, opts in OPTION_SETS.items():
            new, margins = generate(lm, ids, opts)
            entry[name] = collections.OrderedDict([
                ("ids", new),
                ("text", tok.decode(new, skip_special_tokens=True)),
                ("top1_top2_margins", [float("%.4g" % m) for m in margins]),
            ])
        out["prompts"].append(entry)
        print("%r -> %r" % (prompt, entry["greedy"]["text"]))
    if args.corpus:
        import math
        import train_lm

        docs = train_lm.read_corpus(args.corpus)
        held = [t for p, t in docs if train_lm.held_out(p)]
        stream = train_lm.token_stream(tok, held)
        nats, counted = train_lm.evaluate(lm, stream)
        out["held_out_perplexity"] = round(math.exp(nats), 3)
        out["held_out_tokens_scored"] = counted
        print("held-out perplexity of the exported module: %.2f over %d tokens" % (math.exp(nats), counted))
    write_json_compact_lists(os.path.join(args.dir, "text_expected.json"), out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
