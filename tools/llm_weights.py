#!/usr/bin/env python3
"""Deterministic weights for the tiny LLaMA fixture (tests/fixtures/llm/tiny_llama), without torch.

Usage:
    llm_weights.py --config tests/fixtures/llm/tiny_llama/config.json --out W.safetensors [--seed N]

Writes a float32 .safetensors file with the Hugging Face LlamaForCausalLM state_dict keys
(model.embed_tokens.weight, model.layers.<i>.self_attn.q_proj.weight, ..., model.norm.weight,
lm_head.weight), sorted, with __metadata__ {"format": "pt"}, so that
LlamaForCausalLM.load_state_dict(safetensors.torch.load_file(...)) takes it as is.

Pure Python (json, struct, array, hashlib, random): the host's python3 and the torch 2.x chroot's
python3 write the same bytes. Each tensor has its own generator, random.Random(seed_of(key)),
whose random() sequence Python guarantees to keep across versions; values are uniform with the
standard deviation given in SCALES (norm weights: 1 + uniform noise), rounded to float32 by
array('f'). About a second for the default config.
"""

import argparse
import array
import hashlib
import json
import math
import os
import random
import struct
import sys

# Standard deviation of the uniform values per kind of tensor (norms: 1 + noise of this std).
SCALES = {
    "embed": 1.0,       # token embeddings
    "qk": 0.08,         # q_proj / k_proj: a bit larger than the rest, for sharper attention
    "linear": 0.05,     # v_proj, o_proj, gate/up/down_proj
    "lm_head": 0.05,
    "norm": 0.1,        # RMSNorm weights: 1 + uniform noise with this std
}


def state_dict_shapes(cfg):
    """[(key, shape, kind)] of LlamaForCausalLM's state_dict (untied lm_head, no biases)."""
    h = cfg["hidden_size"]
    v = cfg["vocab_size"]
    inter = cfg["intermediate_size"]
    nh = cfg["num_attention_heads"]
    nkv = cfg.get("num_key_value_heads") or nh
    hd = cfg.get("head_dim") or h // nh
    if cfg.get("tie_word_embeddings"):
        raise SystemExit("llm_weights: tied embeddings are not supported (no lm_head.weight key)")
    if cfg.get("attention_bias") or cfg.get("mlp_bias"):
        raise SystemExit("llm_weights: attention_bias/mlp_bias are not supported")
    out = [("model.embed_tokens.weight", [v, h], "embed")]
    for i in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % i
        out += [
            (p + "self_attn.q_proj.weight", [nh * hd, h], "qk"),
            (p + "self_attn.k_proj.weight", [nkv * hd, h], "qk"),
            (p + "self_attn.v_proj.weight", [nkv * hd, h], "linear"),
            (p + "self_attn.o_proj.weight", [h, nh * hd], "linear"),
            (p + "mlp.gate_proj.weight", [inter, h], "linear"),
            (p + "mlp.up_proj.weight", [inter, h], "linear"),
            (p + "mlp.down_proj.weight", [h, inter], "linear"),
            (p + "input_layernorm.weight", [h], "norm"),
            (p + "post_attention_layernorm.weight", [h], "norm"),
        ]
    out += [("model.norm.weight", [h], "norm"), ("lm_head.weight", [v, h], "lm_head")]
    return out


def tensor_values(seed, key, n, kind):
    """n float32 values (array('f')) for tensor `key`."""
    digest = hashlib.sha256(("%d:%s" % (seed, key)).encode("utf-8")).digest()
    rnd = random.Random(int.from_bytes(digest[:8], "little")).random
    a = SCALES[kind] * math.sqrt(3.0)  # uniform(-a, a) has std a / sqrt(3)
    if kind == "norm":
        vals = array.array("f", [1.0 + a * (2.0 * rnd() - 1.0) for _ in range(n)])
    else:
        two_a = 2.0 * a
        vals = array.array("f", [two_a * rnd() - a for _ in range(n)])
    if sys.byteorder != "little":
        vals.byteswap()
    return vals


def write_weights(cfg, path, seed=0):
    entries = sorted(state_dict_shapes(cfg))
    header = {"__metadata__": {"format": "pt"}}
    offset = 0
    for key, shape, _ in entries:
        nbytes = 4 * math.prod(shape)
        header[key] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    h += b" " * (-len(h) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for key, shape, kind in entries:
            f.write(tensor_values(seed, key, math.prod(shape), kind).tobytes())
    os.replace(tmp, path)  # never leave a half-written file under the final name
    return offset


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--config", required=True, help="HF config.json of the model")
    ap.add_argument("--out", required=True, help="output .safetensors path")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    with open(args.config) as f:
        cfg = json.load(f)
    d = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(d, exist_ok=True)
    n = write_weights(cfg, args.out, args.seed)
    print("llm_weights: %d tensors, %.1f MB -> %s"
          % (len(state_dict_shapes(cfg)), n / 1e6, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
