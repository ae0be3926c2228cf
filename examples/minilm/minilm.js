// Sentence embeddings with all-MiniLM-L6-v2 on torch-ir-wasm, shared by the Node example
// (examples/node/embed.mjs) and any page. The files come from scripts/prepare_models.sh
// (models/all-MiniLM-L6-v2/): IRs exported by pytorch-ir at sequence lengths 8..256, with
// BERT, mean pooling over the attention mask and L2 normalisation inside the graph, the weights,
// and the model's own tokenizer.json.
//
// Tokenization is @huggingface/tokenizers (tokenizers.js) reading that tokenizer.json. The file
// truncates at 128 word pieces; sentence-transformers uses 256 for this model, and tokenizers.js
// does not truncate at all, so `tokenize` cuts to 256 as the Rust tokenizer does for one sequence
// (keep the first 254 pieces between [CLS] and [SEP]). A text runs on the smallest exported
// length that holds it (steps of 4 up to 128, then 32: the padding costs compute): the
// padding is masked out of attention and pooling, so the embedding is the one of the 256 graph
// (tools/minilm_fidelity.py checks both against PyTorch).
import { Tokenizer } from '@huggingface/tokenizers';

export const MAX_SEQ = 256;

export class MiniLM {
  /**
   * @param {object} o
   * @param {(ir: any, options: object) => Promise<any>} o.loadIR  torch-ir-wasm's loadIR
   * @param {(name: string) => Promise<Uint8Array>} o.read  reads a file of the model folder
   * @param {number} [o.threads]  passed to loadIR
   */
  static async load({ loadIR, read, threads }) {
    const text = async (name) => new TextDecoder().decode(await read(name));
    const manifest = JSON.parse(await text('manifest.json'));
    const tokenizer = new Tokenizer(JSON.parse(await text('tokenizer.json')),
      JSON.parse(await text('tokenizer_config.json')));
    const weights = await read('weights.safetensors');
    return new MiniLM(loadIR, read, manifest, tokenizer, weights, threads);
  }

  constructor(loadIR, read, manifest, tokenizer, weights, threads) {
    this.loadIR = loadIR;
    this.read = read;
    this.manifest = manifest;
    this.dim = manifest.dim;
    this.seqLens = [...manifest.seq_lens].sort((a, b) => a - b);
    this.maxSeq = Math.min(MAX_SEQ, this.seqLens[this.seqLens.length - 1]);
    this.tokenizer = tokenizer;
    this.weights = weights;
    this.threads = threads;
    this.models = new Map();   // sequence length -> loaded model (loaded on first use)
  }

  /** Token ids of `text`: [CLS] pieces [SEP], at most 256 (sentence-transformers' limit). */
  tokenize(text) {
    const ids = this.tokenizer.encode(text).ids.map(Number);
    if (ids.length <= this.maxSeq) return ids;
    return [...ids.slice(0, this.maxSeq - 1), ids[ids.length - 1]];
  }

  // The first length loaded binds the weights; every other length shares them and their packed
  // copies (loadIR's weightsFrom), so the many exported lengths cost one copy of the model.
  async model(seq) {
    let m = this.models.get(seq);
    if (!m) {
      const first = this.models.values().next().value;
      m = (async () => {
        const ir = new TextDecoder().decode(await this.read(`model_s${seq}.json`));
        const shared = first && await first.catch(() => null);
        return this.loadIR(ir, shared ? { weightsFrom: shared } : { weights: this.weights, threads: this.threads });
      })();
      this.models.set(seq, m);
      m.catch(() => this.models.delete(seq)); // a failed load is retried on the next use
    }
    return m;
  }

  /** The normalised embedding (Float32Array of 384) of one text. */
  async embed(text) {
    const ids = this.tokenize(text);
    const seq = this.seqLens.find((s) => s >= ids.length);
    const inputIds = new BigInt64Array(seq);
    const mask = new BigInt64Array(seq);
    ids.forEach((id, i) => { inputIds[i] = BigInt(id); mask[i] = 1n; });
    const model = await this.model(seq);
    const [out] = await model.execute({ input_ids: inputIds, attention_mask: mask });
    return { embedding: Float32Array.from(out.data), tokens: ids.length, seq };
  }

  async dispose() {
    for (const m of this.models.values()) (await m.catch(() => null))?.dispose();
    this.models.clear();
  }
}

/** Cosine similarity of two embeddings. */
export function cosine(a, b) {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; ++i) { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; }
  return dot / Math.sqrt(na * nb);
}
