// Semantic search over a real local corpus (the descriptions of the Debian packages installed
// where scripts/prepare_models.sh ran: models/corpus/debian-packages.json) with all-MiniLM-L6-v2
// on torch-ir-wasm. The corpus is embedded when the page starts, with a progress bar, and the
// embeddings are cached in IndexedDB under a SHA-256 of the model manifest and the corpus texts,
// so the next visit skips the work. The query box shows the top matches with their cosine scores.
//
// Query parameters: limit=N (the first N corpus entries), threads=N, nocache=1 (neither read
// nor write the cache), q=TEXT (run this query once ready), int8=1 (the PT2E dynamic int8 model,
// models/all-MiniLM-L6-v2-int8: a quarter of the weight bytes in int8, faster on WASM).
// Serve the repository with COOP/COEP (node examples/browser/serve.mjs) and open
// /examples/search/. window.__search reports the state to tests.
// In your own page: import { loadIR } from 'torch-ir-wasm' (import map or bundler).
import { loadIR } from '../../npm/index.js';
import { MiniLM } from '../minilm/minilm.js';

const params = new URLSearchParams(location.search);
const INT8 = params.get('int8') === '1';
const MODEL_URL = new URL(`../../models/all-MiniLM-L6-v2${INT8 ? '-int8' : ''}/`, import.meta.url);
const CORPUS_URL = new URL('../../models/corpus/debian-packages.json', import.meta.url);
const TOP = 10;
const $ = (id) => document.getElementById(id);
const state = (window.__search = { state: 'loading' });

async function fetchBytes(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} (run bash scripts/prepare_models.sh)`);
  return new Uint8Array(await res.arrayBuffer());
}

async function sha256(text) {
  const d = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('');
}

// IndexedDB: one object store, key -> ArrayBuffer of n * dim float32.
function openDb() {
  return new Promise((ok, fail) => {
    const req = indexedDB.open('torch-ir-wasm-search', 1);
    req.onupgradeneeded = () => req.result.createObjectStore('embeddings');
    req.onsuccess = () => ok(req.result);
    req.onerror = () => fail(req.error);
  });
}

function dbOp(db, mode, fn) {
  return new Promise((ok, fail) => {
    const tx = db.transaction('embeddings', mode);
    const req = fn(tx.objectStore('embeddings'));
    tx.oncomplete = () => ok(req.result);
    tx.onerror = () => fail(tx.error);
  });
}

async function embedCorpus(model, texts, key, useCache) {
  const dim = model.dim;
  const db = useCache ? await openDb() : null;
  if (db) {
    const hit = await dbOp(db, 'readonly', (s) => s.get(key));
    if (hit && hit.byteLength === texts.length * dim * 4) {
      $('progress').value = 1;
      return { vectors: new Float32Array(hit), cached: true };
    }
  }
  const vectors = new Float32Array(texts.length * dim);
  for (let i = 0; i < texts.length; ++i) {
    const { embedding } = await model.embed(texts[i]);
    vectors.set(embedding, i * dim);
    if (i % 4 === 3 || i === texts.length - 1) {
      $('progress').value = (i + 1) / texts.length;
      $('status').textContent = `embedding the corpus: ${i + 1} / ${texts.length}`;
      await new Promise((r) => setTimeout(r, 0));   // let the page paint
    }
  }
  if (db) await dbOp(db, 'readwrite', (s) => s.put(vectors.buffer.slice(0), key));
  return { vectors, cached: false };
}

function search(vectors, dim, q) {
  const scores = new Float32Array(vectors.length / dim);
  for (let i = 0; i < scores.length; ++i) {
    let dot = 0;
    for (let k = 0; k < dim; ++k) dot += vectors[i * dim + k] * q[k];
    scores[i] = dot;   // both normalised: the cosine
  }
  return Array.from(scores.keys()).sort((a, b) => scores[b] - scores[a]).slice(0, TOP)
    .map((i) => ({ index: i, score: scores[i] }));
}

function render(entries, hits) {
  const ol = $('results');
  ol.replaceChildren(...hits.map(({ index, score }) => {
    const li = document.createElement('li');
    const s = document.createElement('span');
    s.className = 'score';
    s.textContent = score.toFixed(3);
    const p = document.createElement('span');
    p.className = 'pkg';
    p.textContent = entries[index].package;
    const t = document.createElement('span');
    t.className = 'text';
    t.textContent = ` ${entries[index].text}`;
    li.append(s, p, t);
    return li;
  }));
}

async function main() {
  const threads = params.has('threads') ? Number(params.get('threads')) : undefined;
  const model = await MiniLM.load({ loadIR, threads, read: (name) => fetchBytes(new URL(name, MODEL_URL)) });
  const corpusText = new TextDecoder().decode(await fetchBytes(CORPUS_URL));
  let entries = JSON.parse(corpusText).entries;
  if (params.has('limit')) entries = entries.slice(0, Number(params.get('limit')));
  const texts = entries.map((e) => e.text);
  const manifest = new TextDecoder().decode(await fetchBytes(new URL('manifest.json', MODEL_URL)));
  const key = await sha256(manifest + '\n' + JSON.stringify(texts));
  const t0 = performance.now();
  const { vectors, cached } = await embedCorpus(model, texts, key, params.get('nocache') !== '1');
  const embedMs = performance.now() - t0;
  $('status').textContent = `${texts.length} package descriptions ${cached ? 'from the cache' :
    `embedded in ${(embedMs / 1000).toFixed(1)} s`}. Type a query.`;
  const query = async (q) => {
    const { embedding } = await model.embed(q);
    const { backend } = await model.models.values().next().value;
    Object.assign(state, { variant: backend.variant, threads: backend.threads });
    const hits = search(vectors, model.dim, embedding);
    render(entries, hits);
    return hits.map((h) => ({ ...h, package: entries[h.index].package }));
  };
  let pending = 0;
  $('query').disabled = false;
  $('query').addEventListener('input', async (ev) => {
    const mine = ++pending;
    const q = ev.target.value.trim();
    if (!q) { $('results').replaceChildren(); return; }
    const hits = await query(q);
    if (mine !== pending) return;   // a newer keystroke is on its way
    state.lastHits = hits;
  });
  Object.assign(state, { state: 'ready', n: texts.length, cached, embedMs, query, weights: INT8 ? 'int8' : 'float32',
    crossOriginIsolated: globalThis.crossOriginIsolated === true });
  if (params.has('q')) {
    $('query').value = params.get('q');
    state.lastHits = await query(params.get('q'));
    state.state = 'answered';
  }
}

main().catch((e) => {
  $('status').textContent = `error: ${e.message}`;
  state.state = 'error';
  state.error = e.message;
});
