// The text generation demo page: loads a prefill/decode IR pair with its KV
// mapping and weights (loadLM), then streams generate()'s tokens into the page.
// In your own page import from 'torch-ir-wasm' (an import map or a bundler)
// instead of the repository path.
import { env, loadLM, parseIRJson } from '../../npm/index.js';
import { decodeBytes, fmtBytes, parsePrompt, sortLMFiles, statsRows } from '../../web/src/lm-helpers.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

// Default: the language model trained on Debian's package descriptions
// (tools/train_lm.py; torchao 8da4w: int4 weights, int8 per-token activations;
// its tokenizer.json makes prompts and output text). ?model=tiny: the tiny LLaMA
// test fixture (random weights from tools/make_fixtures.sh build/fixtures; the
// page's byte tokenizer), ?model=int4: that fixture quantized by torchao (8da4w).
const MODELS = {
  debian: { dir: '../../tests/fixtures/llm/debian_lm/', tokenizer: true, expected: 'text_expected.json', label: 'Debian package-description LM (trained here, torchao 8da4w)' },
  tiny: { dir: '../../tests/fixtures/llm/tiny_llama/', weights: '../../build/fixtures/llm/tiny_llama/weights.safetensors', expected: 'expected.json', label: 'tiny LLaMA test fixture (random weights)' },
  int4: { dir: '../../tests/fixtures/llm/tiny_llama_8da4w/', expected: 'expected.json', label: 'tiny LLaMA test fixture in int4 (random weights, torchao 8da4w)' },
};
const modelName = MODELS[params.get('model')] ? params.get('model') : 'debian';
const MODEL = MODELS[modelName];
const FIXTURE = MODEL.dir;
const custom = ['prefill', 'decode', 'kv', 'weights', 'tokenizer'].some((k) => params.has(k));
const urlSources = {
  prefill: params.get('prefill') || FIXTURE + 'prefill.json',
  decode: params.get('decode') || FIXTURE + 'decode.json',
  kvMapping: params.get('kv') || FIXTURE + 'kv_mapping.json',
  weights: params.get('weights') || MODEL.weights || FIXTURE + 'weights.safetensors',
};
const tokenizerUrl = params.get('tokenizer') || (custom || !MODEL.tokenizer ? null : FIXTURE + 'tokenizer.json');
if (tokenizerUrl) urlSources.tokenizer = tokenizerUrl;
// ?weightDtype=int8|int4|float16|bfloat16: loadLM's load-time weight conversion
const weightDtype = params.get('weightDtype') || undefined;
const expectedUrl = params.get('expected') || (custom ? null : FIXTURE + MODEL.expected);
const threads = params.has('threads') ? Number(params.get('threads')) : undefined;
const donate = params.get('donate') !== '0';
// ?proxy=1: the model generates in a Web Worker (env.proxy): no token's compute blocks the page
if (params.get('proxy') === '1') env.proxy = true;
// ?ep=webgpu: generate on the GPU (nodes without a GPU kernel on WASM; no GPU: a warning, then WASM)
const executionProviders = params.get('ep') === 'webgpu' ? ['webgpu', 'wasm'] : undefined;
// Where the engine's .wasm/.js files are served from (the package's dist/; by
// default the package finds it next to its lib/, so this only shows the option).
const wasmPaths = new URL('../../npm/dist/', import.meta.url).href;

let lm = null;
let running = null; // the AbortController of the generation in progress
let expected = []; // [{input_ids, generated_ids, top1_top2_margins?, text?}] from an expected.json
const demo = { ready: false, loading: false, runs: 0, last: null, loadError: null };
window.__demo = demo; // test hook

const baseName = (s) => String(s).split(/[/\\]/).pop().split('?')[0];

// ---------------------------------------------------------------- model
async function loadModel(src, label) {
  running?.abort();
  lm?.dispose();
  lm = null;
  Object.assign(demo, { ready: false, loading: true, loadError: null });
  $('generate').disabled = true;
  const status = $('model-status');
  status.className = 'muted';
  status.textContent = `loading ${label}\u2026`;
  const t0 = performance.now();
  try {
    lm = await loadLM({
      ...src, threads, donate, wasmPaths, weightDtype, executionProviders,
      onProgress: ({ loaded, total, source }) => {
        status.textContent = `loading ${label}: ${baseName(source)} ${fmtBytes(loaded)}${total ? ' of ' + fmtBytes(total) : ''}`;
      },
    });
    const { prefillLen, maxCacheLen, vocabSize, numLayers } = lm.info;
    const { variant, threads: n } = lm.backend;
    status.className = '';
    status.textContent = `${label}: ${numLayers} layers, vocabulary ${vocabSize}${lm.tokenizer ? ' (tokenizer.json)' : ''}, prompts up to ${prefillLen} tokens, ` +
      `${maxCacheLen} cache slots \u00b7 ${lm.executionProviders[0] === 'webgpu' ? 'WebGPU + ' : ''}${variant} build, ${n} thread${n === 1 ? '' : 's'}` +
      `${lm.backend.proxy ? ' in a Web Worker' : ''}` +
      `${globalThis.crossOriginIsolated ? '' : ' (page not cross-origin isolated)'} \u00b7 loaded in ${(performance.now() - t0).toFixed(0)} ms`;
    $('max-new').max = String(maxCacheLen);
    $('generate').disabled = false;
    demo.ready = true;
  } catch (e) {
    status.className = 'bad';
    const hint = !custom && MODEL.weights && /weights\.safetensors/.test(e.message) ? ' (the fixture\'s weights come from: bash tools/make_fixtures.sh build/fixtures)' : '';
    status.textContent = `could not load ${label}: ${e.name}: ${e.message}${hint}`;
    demo.loadError = `${e.name}: ${e.message}`;
  } finally {
    demo.loading = false;
    updatePromptInfo();
  }
}

async function loadExpected(url) {
  try {
    const res = await fetch(url);
    // text_expected.json (tools/lm_text_reference.py): text prompts, greedy ids per prompt.
    if (res.ok) expected = ((await res.json()).prompts || []).map((p) => (p.greedy ? { input_ids: p.input_ids, generated_ids: p.greedy.ids, top1_top2_margins: p.greedy.top1_top2_margins, text: p.prompt } : p));
  } catch {
    expected = [];
  }
}

function fillExamples() {
  const sel = $('examples');
  sel.length = 1;
  expected.forEach((p, i) => sel.append(p.text ? new Option(`"${p.text}"`, p.text) : new Option(`fixture prompt ${i + 1} (${p.input_ids.length} token ids)`, p.input_ids.join(', '))));
  if (!expected.some((p) => p.text)) {
    sel.append(new Option('text: "Hello, world!"', 'Hello, world!'));
    sel.append(new Option('text: "Grüße aus dem Browser 👋"', 'Grüße aus dem Browser 👋'));
  }
}

// Other files: sorted by content (a KV mapping by its shape, the decode IR by its cache_position input).
async function pickFiles(list) {
  const files = [...list];
  const jsons = [];
  for (const f of files.filter((x) => /\.json$/i.test(x.name))) {
    const text = await f.text();
    let json = null;
    try {
      json = parseIRJson(text);
    } catch {
      // not JSON: reported as missing below
    }
    jsons.push({ name: f.name, text, json });
  }
  const set = sortLMFiles(jsons);
  const st = files.filter((f) => /\.safetensors$/i.test(f.name));
  const weights = st.find((f) => !/(^|[_.-])io([_.-]|$)/i.test(f.name)) || st[0];
  if (set.problems.length) {
    $('model-status').className = 'bad';
    $('model-status').textContent = `those files are not a generation set: ${set.problems.join('; ')}`;
    return;
  }
  expected = [];
  fillExamples();
  const label = [set.prefill, set.decode, set.kv].map((f) => f.name).join(' + ') + (weights ? ' + ' + weights.name : ' (no weights file)');
  await loadModel({ prefill: set.prefill.text, decode: set.decode.text, kvMapping: set.kv.text, weights }, label);
}

// ---------------------------------------------------------------- prompt
function readPrompt() {
  const encode = lm?.tokenizer ? (text) => lm.tokenizer.encode(text) : null;
  return parsePrompt($('prompt').value, { mode: $('mode').value, vocabSize: lm ? lm.info.vocabSize : Infinity, encode });
}

function updatePromptInfo() {
  const el = $('prompt-info');
  el.className = 'muted';
  try {
    const p = readPrompt();
    const n = `${p.ids.length} token${p.ids.length === 1 ? '' : 's'}`;
    el.textContent = p.kind === 'ids' ? `${p.ids.length} token id${p.ids.length === 1 ? '' : 's'}` : lm?.tokenizer ? `text: ${n}` : `text: ${p.ids.length} UTF-8 byte${p.ids.length === 1 ? '' : 's'} = ${n}`;
    if (lm && p.ids.length > lm.info.prefillLen) {
      el.className = 'bad';
      el.textContent += ` (too long: this model takes at most ${lm.info.prefillLen})`;
    }
  } catch (e) {
    el.textContent = $('prompt').value.trim() ? e.message : '';
  }
}

function numberInput(id, { int = false } = {}) {
  const v = Number($(id).value);
  if ($(id).value.trim() === '' || !Number.isFinite(v) || (int && !Number.isInteger(v))) throw new Error(`${$(id).closest('label').textContent.trim()}: '${$(id).value}' is not ${int ? 'an integer' : 'a number'}`);
  return v;
}

// ---------------------------------------------------------------- generate
// text: the streamed continuation (models with a tokenizer), else the ids through the byte tokenizer.
function render(prompt, ids, text = null) {
  const out = $('output');
  out.textContent = '';
  const p = document.createElement('span');
  p.className = 'prompt';
  p.textContent = lm?.tokenizer ? lm.tokenizer.decode(prompt.ids) : decodeBytes(prompt.ids);
  out.append(p, text ?? decodeBytes(ids));
  $('ids').textContent = ids.join(' ');
  $('ids').dataset.count = String(ids.length);
}

function showStats() {
  const t = $('stats');
  t.textContent = '';
  for (const [k, v, key] of statsRows(lm.stats, lm.backend, lm.info)) {
    const tr = t.insertRow();
    tr.dataset.key = key;
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = v;
  }
}

function checkExpected(prompt, ids, temperature) {
  const ref = expected.find((p) => p.input_ids.length === prompt.ids.length && p.input_ids.every((x, i) => x === prompt.ids[i]));
  if (!ref || temperature !== 0 || !ids.length) return;
  const want = ref.generated_ids.slice(0, ids.length);
  const at = want.findIndex((x, i) => x !== ids[i]);
  const el = $('check');
  // A quantized model's reference (expected.json from export_llm.py --quantize) has PyTorch's
  // top-1 / top-2 margin per step: where it is thin, the rounding of the per-token activation
  // quantization may go the other way in another engine and the generation continue elsewhere.
  const margin = ref.top1_top2_margins?.[at];
  if (at < 0) {
    el.className = 'ok';
    el.textContent = `\u2714 the same ${Math.min(ids.length, ref.generated_ids.length)} tokens as Hugging Face generate() (greedy, from expected.json)`;
  } else if (margin !== undefined && margin < 0.05) {
    el.className = 'ok';
    el.textContent = `\u2714 the same first ${at} tokens as Hugging Face generate() of the quantized model; at token ${at} its top two logits were ${margin} apart (a rounding of the int8 activations can go either way there)`;
  } else {
    el.className = 'bad';
    el.textContent = `\u2718 differs from Hugging Face generate() at new token ${at}: ${ids[at]} instead of ${want[at]}`;
  }
}

function setRunning(on) {
  $('generate').disabled = on || !lm;
  $('stop').disabled = !on;
  $('files').disabled = on;
}

async function generate() {
  if (!lm || running) return;
  $('error').textContent = '';
  $('check').textContent = '';
  $('stats').textContent = '';
  $('run-status').textContent = '';
  let prompt;
  let opts;
  try {
    prompt = readPrompt();
    opts = {
      maxNewTokens: numberInput('max-new', { int: true }), temperature: numberInput('temperature'),
      topK: numberInput('top-k', { int: true }), topP: numberInput('top-p'), seed: numberInput('seed', { int: true }),
      repetitionPenalty: numberInput('repetition'),
    };
  } catch (e) {
    $('error').textContent = e.message;
    demo.last = { error: e.message };
    demo.runs++;
    return;
  }
  const ids = [];
  const ac = new AbortController();
  running = ac;
  setRunning(true);
  render(prompt, ids);
  $('run-status').textContent = 'generating\u2026';
  let error = null;
  const t0 = performance.now();
  let text = lm.tokenizer ? '' : null;
  try {
    const onToken = (id) => {
      ids.push(id);
    };
    if (lm.tokenizer) {
      // Text pieces as they are generated (never half a character), one per token.
      for await (const piece of lm.stream(prompt.ids, { ...opts, signal: ac.signal, onToken })) {
        text += piece;
        render(prompt, ids, text);
      }
    } else {
      await lm.generate(prompt.ids, { ...opts, signal: ac.signal, onToken: (id) => { onToken(id); render(prompt, ids); } });
    }
  } catch (e) {
    if (!ac.signal.aborted) {
      error = `${e.name}: ${e.message}`;
      $('error').textContent = error;
    }
  } finally {
    running = null;
    setRunning(false);
  }
  const ms = performance.now() - t0;
  $('run-status').textContent = error ? '' : `${ids.length} new token${ids.length === 1 ? '' : 's'} in ${ms.toFixed(0)} ms${ac.signal.aborted ? ' (stopped)' : ''}`;
  if (ids.length) {
    showStats();
    checkExpected(prompt, ids, opts.temperature);
  }
  demo.last = { ids, text, prompt: prompt.ids, kind: prompt.kind, stopped: ac.signal.aborted, error, stats: ids.length ? lm.stats : null, backend: lm.backend };
  demo.runs++;
}

// ---------------------------------------------------------------- wiring
$('generate').onclick = generate;
$('stop').onclick = () => running?.abort(new DOMException('stopped', 'AbortError'));
$('prompt').oninput = $('mode').onchange = updatePromptInfo;
$('prompt').onkeydown = (ev) => {
  if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) generate();
};
$('examples').onchange = (ev) => {
  if (!ev.target.value) return;
  $('prompt').value = ev.target.value;
  $('mode').value = 'auto';
  ev.target.value = '';
  updatePromptInfo();
};
$('files').onchange = (ev) => pickFiles(ev.target.files);

if (expectedUrl) await loadExpected(expectedUrl);
fillExamples();
$('prompt').value = expected[0]?.text ?? (expected[1] ? expected[1].input_ids.join(', ') : 'Hello, world!');
await loadModel(urlSources, custom ? baseName(urlSources.prefill) + ' + ' + baseName(urlSources.decode) : MODEL.label);
