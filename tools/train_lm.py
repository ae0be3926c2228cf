#!/usr/bin/env python3
"""Train the small language model of the text-generation demo (models/debian-lm): a Llama-
architecture model and its byte-level BPE tokenizer, on the English package descriptions of Debian
12 (bookworm's main/i18n/Translation-en).

Usage (from the repository root; the corpus file comes from scripts/prepare_models.sh --lm):
    tools/torch2-chroot.sh run -- python3 tools/train_lm.py --corpus build/lm/Translation-en.xz \
        --out build/lm/debian-lm [--steps N] [--eval-only]

Writes into OUT:
    tokenizer.json        Hugging Face `tokenizers` byte-level BPE (vocabulary VOCAB, special token
                          <|endoftext|> = id 0, which separates descriptions, ends generation and
                          pads prompts)
    config.json           the LlamaConfig (export_llm.py reads it)
    weights.safetensors   float32 state_dict, Hugging Face LlamaForCausalLM keys
    training.json         corpus hash and sizes, steps, tokens seen, loss curve, held-out
                          perplexity (per token of this tokenizer, and per byte), wall time

Corpus: every package's description ("summary.\\n" then the long description with its "."
paragraph breaks as blank lines), deduplicated by text, in package order. Packages whose name's
CRC32 is 0 mod 50 (about 2%) are held out for the perplexity. Reproducible: fixed seeds, a fixed
step count (not a time budget), two threads; torch's CPU kernels may still round differently on
another CPU, so a retrained model is close to, not bit-identical with, the committed one.
"""

import argparse
import json
import lzma
import math
import os
import random
import sys
import time
import zlib
import hashlib

import torch

VOCAB = 2048
SEQ = 128          # training context (descriptions average ~110 tokens)
BATCH = 32
EOT = "<|endoftext|>"
CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "vocab_size": VOCAB,
    "hidden_size": 192,
    "intermediate_size": 512,
    "num_hidden_layers": 4,
    "num_attention_heads": 6,
    "num_key_value_heads": 2,
    "head_dim": 32,
    "hidden_act": "silu",
    "max_position_embeddings": 512,
    "rms_norm_eps": 1e-05,
    "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0},
    "attention_bias": False,
    "attention_dropout": 0.0,
    "mlp_bias": False,
    "tie_word_embeddings": False,
    "use_cache": True,
    "bos_token_id": 0,
    "eos_token_id": 0,
    "pad_token_id": 0,
    "dtype": "float32",
}


def read_corpus(path):
    """[(package, text)] from a Translation-en(.xz) file, deduplicated by text, sorted by package."""
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        raw = f.read()
    docs, seen = [], set()
    for rec in raw.split("\n\n"):
        pkg, desc = None, []
        for line in rec.split("\n"):
            if line.startswith("Package: "):
                pkg = line[9:].strip()
            elif line.startswith("Description-en: "):
                desc.append(line[16:].strip())
            elif desc and line.startswith(" "):
                body = line[1:]
                desc.append("" if body.strip() == "." else body.rstrip())
        if not pkg or not desc:
            continue
        summary = desc[0].rstrip(".")
        paras, cur = [], []
        for line in desc[1:]:
            if line:
                cur.append(line.strip())
            elif cur:
                paras.append(" ".join(cur))
                cur = []
        if cur:
            paras.append(" ".join(cur))
        text = summary + ".\n" + "\n".join(paras) if paras else summary + "."
        if text in seen:
            continue
        seen.add(text)
        docs.append((pkg, text))
    docs.sort()
    return docs


def held_out(pkg):
    return zlib.crc32(pkg.encode()) % 50 == 0


def train_tokenizer(texts):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB, min_frequency=2, special_tokens=[EOT],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(texts, trainer=trainer)
    if tok.token_to_id(EOT) != 0:
        raise SystemExit("train_lm: %s is not id 0" % EOT)
    return tok


def token_stream(tok, texts):
    """One int64 tensor: each text's ids, each followed by <|endoftext|> (id 0)."""
    ids = []
    for enc in tok.encode_batch(texts):
        ids.extend(enc.ids)
        ids.append(0)
    return torch.tensor(ids, dtype=torch.int64)


def batches(stream, steps, seed):
    g = torch.Generator().manual_seed(seed)
    n = stream.numel() - SEQ - 1
    for _ in range(steps):
        starts = torch.randint(0, n, (BATCH,), generator=g)
        x = torch.stack([stream[s:s + SEQ + 1] for s in starts.tolist()])
        yield x[:, :-1], x[:, 1:]


def evaluate(model, stream, max_windows=200):
    """Mean cross-entropy (nats per token) over consecutive SEQ windows of the held-out stream."""
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for w in range(min(max_windows, (stream.numel() - 1) // SEQ)):
            x = stream[w * SEQ:(w + 1) * SEQ + 1].unsqueeze(0)
            logits = model(input_ids=x[:, :-1]).logits
            loss = torch.nn.functional.cross_entropy(logits[0], x[0, 1:], reduction="sum")
            total += float(loss)
            count += SEQ
    model.train()
    return total / count, count


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True, help="bookworm main/i18n/Translation-en.xz")
    ap.add_argument("--out", required=True)
    ap.add_argument("--steps", type=int, default=1800)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--log-every", type=int, default=50)
    args = ap.parse_args(argv)
    import transformers
    import safetensors.torch

    t_start = time.time()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    random.seed(0)
    os.makedirs(args.out, exist_ok=True)
    with open(args.corpus, "rb") as f:
        corpus_sha = hashlib.sha256(f.read()).hexdigest()
    docs = read_corpus(args.corpus)
    train_texts = [t for p, t in docs if not held_out(p)]
    eval_texts = [t for p, t in docs if held_out(p)]
    print("corpus: %d descriptions (%d held out), sha256 %s" % (len(docs), len(eval_texts), corpus_sha))

    tok = train_tokenizer(train_texts)
    tok.save(os.path.join(args.out, "tokenizer.json"))
    train_ids = token_stream(tok, train_texts)
    eval_ids = token_stream(tok, eval_texts)
    eval_bytes = sum(len(t.encode()) + 1 for t in eval_texts)  # +1: the separator
    print("tokens: train %d, held-out %d (%.2f bytes per token)"
          % (train_ids.numel(), eval_ids.numel(), eval_bytes / eval_ids.numel()))

    config = transformers.LlamaConfig.from_dict(CONFIG)
    config._attn_implementation = "sdpa"
    model = transformers.LlamaForCausalLM(config)
    params = sum(p.numel() for p in model.parameters())
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=args.lr, betas=(0.9, 0.95))
    warmup = max(1, args.steps // 20)

    def lr_at(step):  # linear warmup, cosine decay to a tenth
        if step < warmup:
            return args.lr * (step + 1) / warmup
        t = (step - warmup) / max(1, args.steps - warmup)
        return args.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * t)))

    curve = []
    t0 = time.time()
    model.train()
    running = None
    for step, (x, y) in enumerate(batches(train_ids, args.steps, seed=1)):
        for gr in opt.param_groups:
            gr["lr"] = lr_at(step)
        logits = model(input_ids=x).logits
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        value = float(loss.detach())
        running = value if running is None else 0.95 * running + 0.05 * value
        if (step + 1) % args.log_every == 0 or step + 1 == args.steps:
            el = time.time() - t0
            curve.append([step + 1, round(running, 4)])
            print("step %d/%d  loss %.3f  %.0f tokens/s  %.0f s" % (
                step + 1, args.steps, running, (step + 1) * BATCH * SEQ / el, el), flush=True)
    train_s = time.time() - t0

    nats, counted = evaluate(model, eval_ids)
    ppl = math.exp(nats)
    tokens_per_byte = eval_ids.numel() / eval_bytes
    bits_per_byte = nats * tokens_per_byte / math.log(2)
    print("held-out: perplexity %.2f per token (%.3f bits per byte) over %d tokens"
          % (ppl, bits_per_byte, counted))
    model.eval()
    sd = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
    safetensors.torch.save_file(sd, os.path.join(args.out, "weights.safetensors"), metadata={"format": "pt"})
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(CONFIG, f, indent=2)
        f.write("\n")
    report = {
        "corpus": "Debian 12 (bookworm) main/i18n/Translation-en.xz",
        "corpus_sha256": corpus_sha,
        "descriptions": len(docs),
        "held_out_descriptions": len(eval_texts),
        "train_tokens": int(train_ids.numel()),
        "held_out_tokens": int(eval_ids.numel()),
        "parameters": params,
        "vocab_size": VOCAB,
        "seq_len": SEQ,
        "batch": BATCH,
        "steps": args.steps,
        "tokens_seen": args.steps * BATCH * SEQ,
        "lr": args.lr,
        "loss_curve": curve,
        "held_out_perplexity": round(ppl, 3),
        "held_out_bits_per_byte": round(bits_per_byte, 4),
        "held_out_tokens_scored": counted,
        "train_seconds": round(train_s, 1),
        "total_seconds": round(time.time() - t_start, 1),
        "threads": args.threads,
        "torch_version": torch.__version__,
        "transformers_version": transformers.__version__,
    }
    with open(os.path.join(args.out, "training.json"), "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    print("wrote %s (%d parameters, %.1f min)" % (args.out, params, (time.time() - t_start) / 60))


if __name__ == "__main__":
    sys.exit(main())
