// One page, one thread count: all-MiniLM-L6-v2 embeddings with torch-ir-wasm (float32, and
// PyTorch's PT2E dynamic int8 of models/all-MiniLM-L6-v2-int8: `ours_int8`) and with
// transformers.js v4 (onnxruntime-web, device 'wasm') at fp32 and q8, on the same sentences, one
// at a time. bench/transformersjs/run.mjs opens it in headless Chromium (COOP/COEP) at 1 and 2
// threads and prints the table. Query parameters: threads=N (default 1), n=N (corpus sentences
// timed, default 200), rounds=N (default 10), warmup=N (default 5).
//
// Fair by construction:
// - the same token counts: transformers.js truncates at its tokenizer's 128 word pieces and we
//   at 256, so only corpus texts of at most 128 pieces (with [CLS] and [SEP]) are timed, and
//   the page reports their lengths (and the exported length ours pads each one to);
// - the engines alternate: the timed texts are cut into `rounds` slices, and in each round every
//   engine embeds that round's slice, in an order that rotates from round to round, so a load
//   change on a shared machine lands on every engine alike. An engine's rate is the median of
//   its per-round rates (texts per second).
// Files: models/ from scripts/prepare_models.sh --bench (the IRs, float32 and int8, the corpus, the
// PyTorch reference, and models/transformersjs/: the same weights as ONNX, laid out as a local model),
// bench/transformersjs/node_modules (npm ci there).
import { loadIR } from '../../npm/index.js';
import { MiniLM, cosine } from '../../examples/minilm/minilm.js';
import { env as tjsEnv, pipeline } from './node_modules/@huggingface/transformers/dist/transformers.js';

const params = new URLSearchParams(location.search);
const THREADS = Number(params.get('threads') ?? 1);
const N = Number(params.get('n') ?? 200);
const ROUNDS = Math.max(1, Number(params.get('rounds') ?? 10));
const WARMUP = Number(params.get('warmup') ?? 5);
const TJS_MAX_TOKENS = 128; // the tokenizer's model_max_length: transformers.js truncates there
const MODELS = new URL('../../models/', import.meta.url);
const ORT = new URL('./node_modules/onnxruntime-web/dist/', import.meta.url);
const log = (s) => { document.getElementById('log').textContent += `\n${s}`; };
const result = (window.__bench = { state: 'running', threads: THREADS });

async function bytes(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} (run bash scripts/prepare_models.sh --bench)`);
  return new Uint8Array(await res.arrayBuffer());
}
const json = async (url) => JSON.parse(new TextDecoder().decode(await bytes(url)));
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const stats = (v) => ({ min: Math.min(...v), median: median(v), max: Math.max(...v), mean: v.reduce((a, b) => a + b, 0) / v.length });

function agreement(a, b) {
  let min = 1, sum = 0;
  a.forEach((v, i) => { const c = cosine(v, b[i]); min = Math.min(min, c); sum += c; });
  return { minCosine: min, meanCosine: sum / a.length };
}

async function main() {
  // PyTorch's embeddings of the held-out sentences; the one past 128 word pieces is left out
  // (transformers.js would truncate it at 128, PyTorch's reference does at 256).
  const held = (await json(new URL('all-MiniLM-L6-v2/reference.json', MODELS))).sentences
    .filter((s) => s.input_ids.length <= TJS_MAX_TOKENS);
  const ours = await MiniLM.load({ loadIR, threads: THREADS, read: (n) => bytes(new URL(`all-MiniLM-L6-v2/${n}`, MODELS)) });
  // The int8 model: the same lengths and tokenizer, its linears on the engine's int8 GEMM.
  const oursInt8 = await MiniLM.load({ loadIR, threads: THREADS, read: (n) => bytes(new URL(`all-MiniLM-L6-v2-int8/${n}`, MODELS)) });
  const corpus = (await json(new URL('corpus/debian-packages.json', MODELS))).entries.map((e) => e.text);
  const texts = [];
  const tokens = [];
  let skipped = 0;
  for (const t of corpus) {
    if (texts.length === N) break;
    const n = ours.tokenize(t).length;
    if (n > TJS_MAX_TOKENS) { skipped++; continue; }
    texts.push(t);
    tokens.push(n);
  }
  if (!texts.length) throw new Error('no corpus text fits in 128 tokens');
  const padded = tokens.map((n) => ours.seqLens.find((s) => s >= n));
  result.texts = { n: texts.length, skippedOver128: skipped, tokens: stats(tokens), oursPaddedTo: stats(padded) };
  log(`${texts.length} texts of ${result.texts.tokens.min}-${result.texts.tokens.max} tokens ` +
    `(median ${result.texts.tokens.median}); ours pads to a mean of ${result.texts.oursPaddedTo.mean.toFixed(1)}`);

  tjsEnv.allowRemoteModels = false;
  tjsEnv.allowLocalModels = true;
  // A path, not a URL: transformers.js checks local files only for paths.
  tjsEnv.localModelPath = new URL('transformersjs/', MODELS).pathname;
  tjsEnv.backends.onnx.wasm.numThreads = THREADS;
  // transformers.js's own default build (asyncify), from the installed onnxruntime-web.
  tjsEnv.backends.onnx.wasm.wasmPaths = {
    mjs: new URL('ort-wasm-simd-threaded.asyncify.mjs', ORT).href,
    wasm: new URL('ort-wasm-simd-threaded.asyncify.wasm', ORT).href,
  };
  const engines = [{ key: 'ours', fn: async (t) => (await ours.embed(t)).embedding },
    { key: 'ours_int8', fn: async (t) => (await oursInt8.embed(t)).embedding }];
  const extractors = [];
  for (const dtype of ['fp32', 'q8']) {
    const extractor = await pipeline('feature-extraction', 'sentence-transformers/all-MiniLM-L6-v2', { device: 'wasm', dtype });
    extractors.push(extractor);
    engines.push({ key: `tjs_${dtype}`, fn: async (t) => (await extractor(t, { pooling: 'mean', normalize: true })).data });
  }
  // Every exported length ours will use is loaded before timing (the first use compiles it).
  for (const s of new Set(padded)) { await ours.model(s); await oursInt8.model(s); }
  for (const e of engines) {
    for (let i = 0; i < WARMUP; ++i) await e.fn(texts[i % texts.length]);
    e.rates = [];
    e.seconds = 0;
    e.vectors = new Array(texts.length);
  }
  const per = Math.ceil(texts.length / ROUNDS);
  for (let r = 0; r < ROUNDS; ++r) {
    const slice = texts.slice(r * per, (r + 1) * per);
    if (!slice.length) break;
    const order = engines.map((_, i) => (i + r) % engines.length);
    if (r % 2) order.reverse();
    for (const i of order) {
      const e = engines[i];
      const t0 = performance.now();
      for (const [j, t] of slice.entries()) e.vectors[r * per + j] = await e.fn(t);
      const s = (performance.now() - t0) / 1000;
      e.seconds += s;
      e.rates.push(slice.length / s);
    }
  }
  const [oursE] = engines;
  for (const e of engines) {
    const heldVecs = [];
    for (const s of held) heldVecs.push(await e.fn(s.text));
    result[e.key] = {
      perSecond: median(e.rates), roundRates: e.rates, seconds: e.seconds,
      vsPyTorch: agreement(heldVecs, held.map((s) => s.embedding)),
      ...(e === oursE ? {} : { vsOurs: agreement(e.vectors, oursE.vectors) }),
    };
    log(`${e.key}: ${result[e.key].perSecond.toFixed(1)} embeddings/s (median of ${e.rates.length} rounds); ` +
      `min cosine vs PyTorch ${result[e.key].vsPyTorch.minCosine.toFixed(6)}`);
  }
  for (const [key, m] of [['ours', ours], ['ours_int8', oursInt8]]) {
    const backend = (await m.models.values().next().value).backend;
    Object.assign(result[key], { variant: backend.variant, threads: backend.threads });
  }
  for (const x of extractors) await x.dispose();
  await ours.dispose();
  await oursInt8.dispose();
  Object.assign(result, { state: 'done', n: texts.length, rounds: ROUNDS, heldOut: held.length,
    crossOriginIsolated: globalThis.crossOriginIsolated === true, userAgent: navigator.userAgent });
}

main().catch((e) => {
  log(`error: ${e.stack ?? e}`);
  Object.assign(result, { state: 'error', error: String(e.stack ?? e) });
});
