// The GPU comparison (bench/gpu/README.md), in Node over dawn.node: per model, ours on WebGPU,
// onnxruntime-web's WebGPU EP and ours on WASM, interleaved in one process on one GPU (each with
// its own device from the same dawn.node instance), every output checked against PyTorch's; the
// decoder's decode step likewise (ours: loadLM with caches resident on the GPU; onnxruntime-web:
// the same decode graph with its caches kept as GPU buffers between steps).
//   node bench/gpu/peers.mjs --bench DIR [--models resnet50,bert_base] [--llm-model DIR
//        --llm-weights W --llm-onnx F] [--runs N] [--threads N] [--prompt N] [--new-tokens N]
//        [--torch torch.json] [--md FILE] [--json FILE] [--timeout-s S]
// DIR is bench/export_bench.py's output root (DIR/models/<name>/{model.onnx, weights, io, meta}).
// dawn.node: TIR_DAWN_NODE (its index.js; default tests/webgpu's); onnxruntime-web: TIR_ORT_WEBGPU
// (ort.webgpu.min.mjs; default bench/node_modules').
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, compare, list, loadBenchModel, median, parseArgs } from '../lib/common.mjs';

const a = parseArgs(process.argv.slice(2));
const runs = Number(a.runs ?? 20);
const threads = Number(a.threads ?? 4);
const timeoutMs = 1000 * Number(a.timeout_s ?? 300);
const rtol = 1e-4, atol = 1e-4;  // bench/run.mjs's PASS rule against PyTorch

const dawnPath = process.env.TIR_DAWN_NODE ?? join(REPO, 'tests', 'webgpu', 'node_modules', 'webgpu', 'index.js');
const ortPath = process.env.TIR_ORT_WEBGPU ?? join(REPO, 'bench', 'node_modules', 'onnxruntime-web', 'dist', 'ort.webgpu.min.mjs');
const { create, globals } = await import(pathToFileURL(dawnPath).href);
// Kept referenced for the whole run (docs/webgpu.md, dawn.node pitfalls). Dawn rounds timestamp
// queries down to 2^16 ns unless told not to (on an H200 every node's profiled time was a
// multiple of 0.0655 ms): the profiles below want them whole.
const gpu = create(['disable-dawn-features=timestamp_quantization']);
Object.assign(globalThis, globals);
shareableWriteBuffer();
Object.defineProperty(globalThis, 'navigator', { value: { ...(globalThis.navigator ?? {}), gpu }, configurable: true });

const tir = await import(pathToFileURL(join(REPO, 'npm', 'index.js')).href);
tir.env.webgpu.gpu = gpu;
tir.env.webgpu.strict = true;  // a missing GPU fails here instead of timing WASM twice
const ort = await import(pathToFileURL(ortPath).href);
// One WASM thread: its Node build cannot start workers from file: URLs ("fetch failed"), and
// with the WebGPU EP the CPU side only feeds the GPU.
ort.env.wasm.numThreads = 1;
ort.env.wasm.proxy = false;
ort.env.logLevel = 'error';

const adapter = await gpu.requestAdapter();
const ai = adapter?.info ?? {};
const device = [ai.vendor, ai.architecture, ai.device, ai.description].filter(Boolean).join(' ') || 'none';
const emulated = /llvmpipe|lavapipe|swiftshader/i.test(device);
console.log(`adapter: ${device}${emulated ? ' (emulated on the CPU: times mean nothing)' : ''}`);

// dawn.node 0.3.8's writeBuffer crashes on views of a SharedArrayBuffer, which is what
// onnxruntime-web's threaded WASM memory hands it (docs/webgpu.md): copy those first.
function shareableWriteBuffer() {
  const write = GPUQueue.prototype.writeBuffer;
  GPUQueue.prototype.writeBuffer = function (buffer, offset, data, dataOffset = 0, size) {
    if (ArrayBuffer.isView(data) && data.buffer instanceof SharedArrayBuffer) {
      const bpe = data.BYTES_PER_ELEMENT ?? 1;
      const n = (size ?? data.length - dataOffset) * bpe;
      const copy = new Uint8Array(n);
      copy.set(new Uint8Array(data.buffer, data.byteOffset + dataOffset * bpe, n));
      return write.call(this, buffer, offset, copy, 0, n);
    }
    return write.call(this, buffer, offset, data, dataOffset, size);
  };
}

function withTimeout(promise, what) {
  let timer;
  const t = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer in ${timeoutMs / 1000} s`)), timeoutMs); });
  return Promise.race([promise, t]).finally(() => clearTimeout(timer));
}

const errMsg = (e) => String(e?.message ?? e).split('\n')[0].slice(0, 200);

// ---- single-graph models -------------------------------------------------------------------
const ENGINES = {
  async 'ours-webgpu'({ fdir, mdir, meta, input }) {
    const m = await tir.loadIR(join(fdir, 'model.json'), { weights: join(mdir, 'weights.safetensors'), threads, executionProviders: ['webgpu'] });
    const p = m.placement();
    const step = async () => (await m.execute({ [meta.input]: input.data }))[0].data;
    const profile = async () => { m.setProfiling(true); await step(); m.setProfiling(false); return m.profile(); };
    return { step, profile, dispose: () => m.dispose(), info: `${p.nodes.webgpu} / ${p.nodes.wasm} nodes on webgpu / wasm` };
  },
  async 'ort-webgpu'({ mdir, meta, input }) {
    const s = await ort.InferenceSession.create(readFileSync(join(mdir, 'model.onnx')), { executionProviders: ['webgpu'] });
    const x = new ort.Tensor('float32', input.data, input.shape);
    return { step: async () => (await s.run({ [meta.onnx_input]: x }))[s.outputNames[0]].data, dispose: () => s.release(),
      info: `onnxruntime-web ${ort.env.versions?.web ?? '?'}` };
  },
  async 'ours-wasm'({ fdir, mdir, meta, input }) {
    const m = await tir.loadIR(join(fdir, 'model.json'), { weights: join(mdir, 'weights.safetensors'), threads });
    return { step: async () => (await m.execute({ [meta.input]: input.data }))[0].data, dispose: () => m.dispose(),
      info: `${m.backend.variant}, ${m.backend.threads} threads` };
  },
};

const rows = [];
for (const name of list(a.models ?? 'resnet50,bert_base')) {
  const row = { model: name, engines: {} };
  rows.push(row);
  let bm;
  try { bm = loadBenchModel(a.bench, name); } catch (e) { row.error = errMsg(e); console.log(`${name}: ${row.error}`); continue; }
  const fdir = join(bm.mdir, bm.meta.flavors[0]);
  const live = [];
  for (const [engine, setup] of Object.entries(ENGINES)) {
    const r = row.engines[engine] = { times: [] };
    try {
      const t0 = performance.now();
      const e = await withTimeout(setup({ ...bm, fdir }), `${name} ${engine} load`);
      r.load_ms = performance.now() - t0;
      r.info = e.info;
      const out = await withTimeout(e.step(), `${name} ${engine} first run`);
      r.first_run_ms = performance.now() - t0 - r.load_ms;
      Object.assign(r, compare(out, bm.expected, rtol, atol));
      for (let w = 0; w < 2; w++) await e.step();
      live.push([engine, e, r]);
    } catch (err) {
      r.error = errMsg(err);
    }
    console.log(`${name} ${engine}: ${r.error ? 'FAILED: ' + r.error : `loaded in ${r.load_ms.toFixed(0)} ms (${r.info}); max |diff| vs PyTorch ${r.max_abs_diff?.toExponential(2)}`}`);
  }
  // Interleaved passes, every engine once per pass, the order rotating from pass to pass, and
  // each timed run right after an untimed one of the same engine: a GPU engine that always ran
  // after the multi-threaded WASM run (the GPU idle for 100+ ms) would be timed on a GPU
  // clocking up, its neighbour on a warm one (the first H100 runs had this order).
  for (let k = 0; k < runs; k++) {
    for (let q = 0; q < live.length; q++) {
      const [engine, e, r] = live[(k + q) % live.length];
      try {
        await withTimeout(e.step(), `${name} ${engine} run`);
        const t = performance.now();
        await withTimeout(e.step(), `${name} ${engine} run`);
        r.times.push(performance.now() - t);
      } catch (err) { r.error = errMsg(err); }
    }
  }
  // Then each engine alone, 10 runs back to back: a GPU kept busy (its clocks up), where the
  // interleaved runs above each start on a GPU idle since that engine's last run.
  for (const [engine, e, r] of live) {
    const b2b = [];
    try {
      for (let k = 0; k < 10; k++) {
        const t = performance.now();
        await withTimeout(e.step(), `${name} ${engine} run`);
        b2b.push(performance.now() - t);
      }
      r.back_to_back_ms = median(b2b);
    } catch (err) { r.error = errMsg(err); }
  }
  for (const [, e, r] of live) {
    r.median_ms = median(r.times);
    // Where ours spends a run: one profiled run by op type (GPU timestamps where the device has
    // them, else wall times with a sync after every GPU node), right after its back-to-back runs.
    if (e.profile) {
      try {
        const byOp = {};
        const timings = await withTimeout(e.profile(), `${name} profile`);
        r.profile_clock = timings.find((t) => t.device === 'webgpu')?.clock ?? 'wall';
        for (const t of timings) {
          const k = `${t.opType}${t.device === 'wasm' ? ' (wasm)' : ''}`;
          byOp[k] ??= { op: k, nodes: 0, ms: 0 };
          byOp[k].nodes += 1 + (t.covers?.length ?? 0);
          byOp[k].ms += t.ms;
        }
        r.profile = Object.values(byOp).sort((x, y) => y.ms - x.ms);
        r.slowest = [...timings].sort((x, y) => y.ms - x.ms).slice(0, 8).map((t) => ({ node: t.node, op: t.opType, ms: t.ms }));
      } catch (err) { r.profile_error = errMsg(err); }
    }
    try { e.dispose(); } catch { /* ignore */ }
  }
}

// ---- decoder: ours (loadLM) and onnxruntime-web (decode.onnx, caches as GPU buffers) ---------
let lm = null;
if (a.llm_model && a.llm_weights) {
  lm = { model: a.llm_model.split('/').filter(Boolean).at(-1), engines: {} };
  const mapping = JSON.parse(readFileSync(join(a.llm_model, 'kv_mapping.json'), 'utf8'));
  const cfg = JSON.parse(readFileSync(join(a.llm_model, 'config.json'), 'utf8'));
  const C = mapping.max_cache_len, L = mapping.num_layers;
  const promptLen = Math.min(Number(a.prompt ?? 100), mapping.prefill_seq_len);
  const newTokens = Math.min(Number(a.new_tokens ?? 64), C - promptLen);
  const prompt = Array.from({ length: promptLen }, (_, i) => 1 + ((7 * i) % (cfg.vocab_size - 1)));
  const files = { prefill: join(a.llm_model, 'prefill.json'), decode: join(a.llm_model, 'decode.json'),
    kvMapping: join(a.llm_model, 'kv_mapping.json'), weights: a.llm_weights };
  Object.assign(lm, { prompt_tokens: promptLen, new_tokens: newTokens, cache_len: C });
  const ours = async (engine, eps) => {
    const r = lm.engines[engine] = {};
    try {
      const t0 = performance.now();
      const m = await withTimeout(tir.loadLM({ ...files, threads, ...(eps ? { executionProviders: eps } : {}) }), `${engine} loadLM`);
      r.load_ms = performance.now() - t0;
      await withTimeout(m.generate(prompt, { maxNewTokens: 4 }), `${engine} warm-up`);
      r.tokens = await withTimeout(m.generate(prompt, { maxNewTokens: newTokens }), `${engine} generate`);
      const s = m.stats;
      r.step_ms = s.decodeMs / s.decodeSteps;
      r.tokens_per_s = s.decodeTokensPerSecond;
      r.prefill_ms = s.prefillMs;
      if (eps) { const p = m.placement(); r.info = `decode ${p.decode.nodes.webgpu} / ${p.decode.nodes.wasm} nodes on webgpu / wasm`; }
      m.dispose();
    } catch (err) { r.error = errMsg(err); }
    console.log(`${lm.model} ${engine}: ${r.error ? 'FAILED: ' + r.error : `${r.step_ms.toFixed(2)} ms per decode step (${r.info ?? 'wasm'})`}`);
  };
  await ours('ours-webgpu', ['webgpu']);
  await ours('ours-wasm', undefined);
  const r = lm.engines['ort-webgpu'] = {};
  try {
    if (!a.llm_onnx || !existsSync(a.llm_onnx)) throw new Error(`no decode.onnx (${a.llm_onnx ?? 'not given'})`);
    const t0 = performance.now();
    const kvOut = Array.from({ length: 2 * L }, (_, i) => `present_kv_${i}`);
    const s = await withTimeout(ort.InferenceSession.create(readFileSync(a.llm_onnx), {
      executionProviders: ['webgpu'], preferredOutputLocation: Object.fromEntries(kvOut.map((n) => [n, 'gpu-buffer'])) }), 'ort-webgpu decode session');
    r.load_ms = performance.now() - t0;
    const kvShape = [1, cfg.num_key_value_heads ?? cfg.num_attention_heads, C, cfg.head_dim ?? cfg.hidden_size / cfg.num_attention_heads];
    let kv = Array.from({ length: 2 * L }, () => new ort.Tensor('float32', new Float32Array(kvShape.reduce((x, y) => x * y)), kvShape));
    const mask = new Float32Array(C);
    const step = async (token, slot) => {
      mask.fill(-3.4028234663852886e38); mask.fill(0, 0, slot + 1);
      const feeds = { input_ids: new ort.Tensor('int64', BigInt64Array.of(BigInt(token)), [1, 1]),
        attention_mask: new ort.Tensor('float32', mask.slice(), [1, 1, 1, C]),
        position_ids: new ort.Tensor('int64', BigInt64Array.of(BigInt(slot)), [1, 1]),
        cache_position: new ort.Tensor('int64', BigInt64Array.of(BigInt(slot)), [1]) };
      kv.forEach((t, i) => { feeds[`past_kv_${i}`] = t; });
      const out = await s.run(feeds);
      for (const t of kv) if (t.location === 'gpu-buffer') t.dispose();
      kv = kvOut.map((n) => out[n]);
      const logits = out.logits.data;
      let best = 0;
      for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
      return best;
    };
    // The prompt goes through the decode graph one token at a time (no prefill graph here).
    let next = 0;
    for (let i = 0; i < promptLen; i++) next = await withTimeout(step(prompt[i], i), 'ort-webgpu prompt step');
    const tokens = [next], times = [];
    for (let i = 1; i < newTokens; i++) {
      const t = performance.now();
      next = await withTimeout(step(next, promptLen + i - 1), 'ort-webgpu decode step');
      times.push(performance.now() - t);
      tokens.push(next);
    }
    r.step_ms = median(times);
    r.tokens_per_s = 1000 / r.step_ms;
    r.tokens = tokens;
    await s.release();
  } catch (err) { r.error = errMsg(err); }
  console.log(`${lm.model} ort-webgpu: ${r.error ? 'FAILED: ' + r.error : `${r.step_ms.toFixed(2)} ms per decode step`}`);
  // Ours again, after onnxruntime-web: the spread of one engine's step time between two loads
  // in one job (two H200 runs gave 7.7 and 12.0 ms with the same decode kernels).
  await ours('ours-webgpu-again', ['webgpu']);
  const ref = lm.engines['ours-wasm'].tokens;
  for (const e of Object.values(lm.engines)) {
    if (e.tokens && ref) e.tokens_equal_ours_wasm = e.tokens.filter((t, i) => t === ref[i]).length;
  }
}

// ---- report -----------------------------------------------------------------------------
const torch = a.torch && existsSync(a.torch) ? JSON.parse(readFileSync(a.torch, 'utf8')) : null;
const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const cell = (r) => (r?.error ? `failed: ${r.error.replace(/\|/g, '\\|')}` : f(r?.median_ms));
const err = (r) => (r && !r.error && r.max_rel_diff != null ? `${r.max_abs_diff.toExponential(1)}${r.pass ? '' : ' (FAIL)'}` : '-');
const md = [];
md.push(`GPU: ${device}${emulated ? ' (emulated on the CPU: times mean nothing)' : ''}; Node ${process.version}; ` +
  `onnxruntime-web ${ort.env.versions?.web ?? '?'} (1 WASM thread); ours on WASM uses ${threads} threads; ` +
  (torch ? `PyTorch ${torch.torch} on ${torch.gpu ?? torch.device} (${torch.settings})` : 'no PyTorch timings') + '.', '');
md.push(`Medians over ${runs} interleaved passes in rotating order, each timed run right after an untimed one of the same engine (ms per inference, input in and output out); ` +
  `max |diff| vs PyTorch's float32 CPU output (PASS: allclose rtol ${rtol} atol ${atol}).`, '');
md.push('| model | ours WebGPU | ort-web WebGPU | ours / ort-web | back to back: ours / ort-web WebGPU | ours WASM | PyTorch CUDA | ours WebGPU placement | max diff: ours WebGPU / ort-web / ours WASM |');
md.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |');
for (const row of rows) {
  const e = row.engines;
  const ratio = e['ours-webgpu']?.median_ms / e['ort-webgpu']?.median_ms;
  const b2b = e['ours-webgpu']?.back_to_back_ms / e['ort-webgpu']?.back_to_back_ms;
  md.push(`| ${row.model} | ${row.error ? 'failed: ' + row.error : cell(e['ours-webgpu'])} | ${cell(e['ort-webgpu'])} | ${Number.isFinite(ratio) ? ratio.toFixed(2) + 'x' : '-'} | ` +
    `${f(e['ours-webgpu']?.back_to_back_ms)} / ${f(e['ort-webgpu']?.back_to_back_ms)} (${Number.isFinite(b2b) ? b2b.toFixed(2) + 'x' : '-'}) | ` +
    `${cell(e['ours-wasm'])} | ${f(torch?.models?.[row.model]?.median_ms, 3)} | ${e['ours-webgpu']?.info ?? '-'} | ` +
    `${err(e['ours-webgpu'])} / ${err(e['ort-webgpu'])} / ${err(e['ours-wasm'])} |`);
}
md.push('', 'Back to back: the median of 10 runs of one engine in a row (the GPU kept busy), after the interleaved passes.');
for (const row of rows) {
  const p = row.engines['ours-webgpu']?.profile;
  if (!p) continue;
  const total = p.reduce((x, y) => x + y.ms, 0);
  const how = row.engines['ours-webgpu'].profile_clock === 'gpu'
    ? 'GPU ms per node from timestamp queries, each node in a compute pass of its own'
    : 'each GPU node submitted alone and awaited: wall ms per node including ~tens of µs of sync';
  md.push('', `Ours on WebGPU, ${row.model}: one profiled run right after the back-to-back runs, by op type (${how}; total ${total.toFixed(2)} ms):`, '');
  md.push('| op type | nodes | ms | share |', '| --- | ---: | ---: | ---: |');
  for (const o of p.slice(0, 12)) md.push(`| ${o.op} | ${o.nodes} | ${o.ms.toFixed(3)} | ${(100 * o.ms / total).toFixed(1)}% |`);
  md.push('', 'Its slowest nodes:', '', '| node | op type | ms |', '| --- | --- | ---: |');
  for (const o of row.engines['ours-webgpu'].slowest ?? []) md.push(`| ${o.node} | ${o.op} | ${o.ms.toFixed(3)} |`);
}
if (lm) {
  const e = lm.engines;
  const c = (r) => (r?.error ? `failed: ${r.error.replace(/\|/g, '\\|')}` : `${f(r?.step_ms)} (${f(r?.tokens_per_s, 1)} tok/s)`);
  const ratio = e['ours-webgpu']?.step_ms / e['ort-webgpu']?.step_ms;
  const tc = torch?.models?.llm_decode;
  md.push('', `Decode (${lm.model}: prompt ${lm.prompt_tokens} tokens, ${lm.new_tokens} new, cache ${lm.cache_len}), ms per step:`, '');
  md.push('| ours WebGPU | ort-web WebGPU | ours / ort-web | ours WASM | PyTorch CUDA | greedy tokens equal to ours on WASM: ours WebGPU / ort-web |');
  md.push('| ---: | ---: | ---: | ---: | ---: | --- |');
  md.push(`| ${c(e['ours-webgpu'])}${e['ours-webgpu-again'] ? `; again after ort-web: ${c(e['ours-webgpu-again'])}` : ''} | ${c(e['ort-webgpu'])} | ${Number.isFinite(ratio) ? ratio.toFixed(2) + 'x' : '-'} | ${c(e['ours-wasm'])} | ` +
    `${tc ? `${f(tc.median_ms, 3)} (${f(tc.tokens_per_s, 1)} tok/s)` : '-'} | ` +
    `${e['ours-webgpu']?.tokens_equal_ours_wasm ?? '-'} / ${e['ort-webgpu']?.tokens_equal_ours_wasm ?? '-'} of ${lm.new_tokens} |`);
}
const text = md.join('\n') + '\n';
console.log('\n' + text);
if (a.md) writeFileSync(a.md, text);
if (a.json) writeFileSync(a.json, JSON.stringify({ device, emulated, rows, lm, torch }, (k, v) => (k === 'times' || k === 'tokens' ? undefined : v), 1));
process.exit(0);
