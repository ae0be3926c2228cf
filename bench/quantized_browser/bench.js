// Our int8 (or 8da4w) model against our float32 one in the browser, where the int8 GEMM may run on
// relaxed SIMD (docs/quantization.md#relaxed-simd): bench/quantized.mjs's method in a page. Both
// variants of build/bench/quantized/<model> (bench/export_quantized_bench.py) load in one backend
// and alternate in rounds (f32 then int8, reversed on odd rounds), each round timing about
// round_ms of runs after a few untimed ones; a variant's time is the median of its round medians
// and the ratio the median of the rounds' int8/f32. Checks: f32 against PyTorch's float32 output
// (allclose 1e-4), int8 within a quarter of the quantization error of PyTorch's quantized output.
// Query: model, threads, rounds, round_ms, warmup_ms. Result in window.__bench.
import { getBackend, loadIR, parseSafetensors } from '/npm/index.js';

const q = new URLSearchParams(location.search);
const name = q.get('model');
const threads = Number(q.get('threads') ?? 1);
const rounds = Number(q.get('rounds') ?? 6);
const roundMs = Number(q.get('round_ms') ?? 1500);
const warmupMs = Number(q.get('warmup_ms') ?? 2000);
const log = (s) => { document.getElementById('log').textContent += s + '\n'; };
window.__bench = { state: 'running' };

const median = (v) => { const s = [...v].sort((a, b) => a - b); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const maxAbsDiff = (a, b) => {
  if (!a || a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) { const d = Math.abs(a[i] - b[i]); if (!(d <= m)) m = Number.isNaN(d) ? Infinity : d; }
  return m;
};
const allclose = (a, b, tol) => a && a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= tol + tol * Math.abs(b[i]));

async function variant(k) {
  const dir = new URL(`/build/bench/quantized/${name}/${k}/`, location.href);
  const io = parseSafetensors(new Uint8Array(await (await fetch(new URL('io.safetensors', dir))).arrayBuffer()));
  const model = await loadIR(new URL('model.json', dir), { weights: new URL('weights.safetensors', dir), threads });
  const feeds = {};
  for (const m of model.inputs) feeds[m.name] = io.get(`input.${m.name}`).data;
  return { model, io, step: async () => (await model.execute(feeds))[0].data, rounds: [], runs: 0, first: null, last: null };
}

async function turn(e) {
  for (let i = 0; i < 2; i++) e.last = await e.step();
  const times = [];
  const t0 = performance.now();
  do {
    const s = performance.now();
    e.last = await e.step();
    times.push(performance.now() - s);
  } while (times.length < 3 || performance.now() - t0 < roundMs);
  e.runs += times.length;
  return median(times);
}

try {
  const backend = await getBackend({ threads });
  const v = { f32: await variant('f32'), int8: await variant('int8') };
  const w0 = performance.now();
  do for (const k of ['f32', 'int8']) v[k].first ??= await v[k].step();
  while (performance.now() - w0 < warmupMs);
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? ['int8', 'f32'] : ['f32', 'int8'];
    for (const k of order) v[k].rounds.push(await turn(v[k]));
    ratios.push(v.int8.rounds[r] / v.f32.rounds[r]);
    log(`round ${r}: f32 ${v.f32.rounds[r].toFixed(2)} ms, int8 ${v.int8.rounds[r].toFixed(2)} ms`);
  }
  const ref = v.int8.io.get("output.0").data, fref = v.int8.io.get("float_output.0").data;
  const quantError = maxAbsDiff(ref, fref);
  const qDiff = Math.max(maxAbsDiff(v.int8.first, ref), maxAbsDiff(v.int8.last, ref));
  const fout = v.f32.io.get("output.0").data;
  window.__bench = {
    state: 'done', model: name, threads, variant: backend.variant, rounds,
    f32_ms: median(v.f32.rounds), int8_ms: median(v.int8.rounds), ratio: median(ratios), round_ratios: ratios,
    f32_check: { pass: allclose(v.f32.first, fout, 1e-4) && allclose(v.f32.last, fout, 1e-4) },
    int8_check: { max_abs_diff: qDiff, tol: quantError / 4, pass: qDiff <= quantError / 4 },
    userAgent: navigator.userAgent,
  };
  for (const k of ['f32', 'int8']) v[k].model.dispose();
} catch (e) {
  window.__bench = { state: 'error', error: String(e && e.stack ? e.stack : e) };
}
log(JSON.stringify(window.__bench));
