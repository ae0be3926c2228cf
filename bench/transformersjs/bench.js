// One page, one thread count: all-MiniLM-L6-v2 embeddings with torch-ir-wasm and with
// transformers.js v4 (onnxruntime-web, device 'wasm') at fp32 and q8, on the same sentences, one
// at a time. bench/transformersjs/run.mjs opens it in headless Chromium (COOP/COEP) at 1 and 2
// threads and prints the table. Query parameters: threads=N (default 1), n=N (corpus sentences
// timed, default 200), warmup=N (default 5).
// Files: models/ from scripts/prepare_models.sh --bench (the IRs, the corpus, the PyTorch
// reference, and models/transformersjs/: the same weights as ONNX, laid out as a local model),
// bench/transformersjs/node_modules (npm ci there).
import { loadIR } from '../../npm/index.js';
import { MiniLM, cosine } from '../../examples/minilm/minilm.js';
import { env as tjsEnv, pipeline } from './node_modules/@huggingface/transformers/dist/transformers.js';

const params = new URLSearchParams(location.search);
const THREADS = Number(params.get('threads') ?? 1);
const N = Number(params.get('n') ?? 200);
const WARMUP = Number(params.get('warmup') ?? 5);
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

// Embeds every text with fn (one at a time) after `warmup` untimed calls; emb/s and the vectors.
async function timeEngine(fn, texts) {
  for (let i = 0; i < WARMUP; ++i) await fn(texts[i % texts.length]);
  const out = [];
  const t0 = performance.now();
  for (const t of texts) out.push(await fn(t));
  const s = (performance.now() - t0) / 1000;
  return { perSecond: texts.length / s, seconds: s, vectors: out };
}

function agreement(a, b) {
  let min = 1, sum = 0;
  a.forEach((v, i) => { const c = cosine(v, b[i]); min = Math.min(min, c); sum += c; });
  return { minCosine: min, meanCosine: sum / a.length };
}

async function main() {
  const corpus = (await json(new URL('corpus/debian-packages.json', MODELS))).entries.map((e) => e.text);
  const texts = corpus.slice(0, N);
  // PyTorch's embeddings of the held-out sentences; the one past 128 word pieces is left out
  // (transformers.js would truncate it at the tokenizer's own 128, not 256).
  const held = (await json(new URL('all-MiniLM-L6-v2/reference.json', MODELS))).sentences
    .filter((s) => s.input_ids.length <= 128);

  const ours = await MiniLM.load({ loadIR, threads: THREADS, read: (n) => bytes(new URL(`all-MiniLM-L6-v2/${n}`, MODELS)) });
  const oursFn = async (t) => (await ours.embed(t)).embedding;
  result.ours = await timeEngine(oursFn, texts);
  const backend = (await ours.models.values().next().value).backend;
  result.ours.variant = backend.variant;
  result.ours.threads = backend.threads;
  const oursHeld = [];
  for (const s of held) oursHeld.push(await oursFn(s.text));
  result.ours.vsPyTorch = agreement(oursHeld, held.map((s) => s.embedding));
  log(`torch-ir-wasm (${backend.variant}, ${backend.threads} thread(s)): ${result.ours.perSecond.toFixed(1)} embeddings/s`);

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
  for (const dtype of ['fp32', 'q8']) {
    const extractor = await pipeline('feature-extraction', 'sentence-transformers/all-MiniLM-L6-v2',
      { device: 'wasm', dtype });
    const fn = async (t) => (await extractor(t, { pooling: 'mean', normalize: true })).data;
    const r = await timeEngine(fn, texts);
    const heldVecs = [];
    for (const s of held) heldVecs.push(await fn(s.text));
    r.vsPyTorch = agreement(heldVecs, held.map((s) => s.embedding));
    r.vsOurs = agreement(r.vectors, result.ours.vectors);
    delete r.vectors;
    result[`tjs_${dtype}`] = r;
    log(`transformers.js ${dtype}: ${r.perSecond.toFixed(1)} embeddings/s; min cosine vs ours ${r.vsOurs.minCosine.toFixed(6)}`);
    await extractor.dispose();
  }
  delete result.ours.vectors;
  await ours.dispose();
  Object.assign(result, { state: 'done', n: texts.length, heldOut: held.length,
    crossOriginIsolated: globalThis.crossOriginIsolated === true, userAgent: navigator.userAgent });
}

main().catch((e) => {
  log(`error: ${e.stack ?? e}`);
  Object.assign(result, { state: 'error', error: String(e.stack ?? e) });
});
