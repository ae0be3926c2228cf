#!/usr/bin/env node
// Head-to-head, all-MiniLM-L6-v2: torch-ir-wasm (float32, and int8: PyTorch's PT2E dynamic int8
// model, models/all-MiniLM-L6-v2-int8) against transformers.js v4 (onnxruntime-web,
// device 'wasm', fp32 and its default q8), measured side by side in one run of headless Chromium,
// cross-origin isolated (COOP/COEP), at 1 and 2 threads (a fresh browser per thread count: both
// engines fix their thread pools when they start).
//
//   bash scripts/prepare_models.sh --bench && (cd bench/transformersjs && npm ci)
//   node bench/transformersjs/run.mjs [--n 200] [--rounds 10] [--threads 1,2] [--tiering eager|dynamic] [--json OUT.json]
//
// The page (bench.js) times only texts of at most 128 word pieces (transformers.js truncates
// there), so both engines embed the same tokens, and runs the engines in alternating rounds on
// different texts; each rate is the median of the per-round rates. --json OUT writes one row per
// thread count: { threads, texts, ours, ours_int8, tjs_fp32, tjs_q8 }, each engine with perSecond,
// roundRates and vsPyTorch.minCosine / meanCosine (against PyTorch's float32 embeddings; the
// engines but `ours` also vsOurs: against ours float32 on the timed texts).
//
// --tiering eager (default) starts Chromium with --js-flags=--no-liftoff,--no-wasm-lazy-compilation:
// both engines' WASM runs optimized code from the first call, as in bench/run.sh (V8's dynamic
// tier-up takes seconds on a busy 2-core machine, longer than a short timed run).
//
// Prints embeddings per second for each engine, the speed ratio, and agreement: the cosine of
// each engine's embeddings with PyTorch's (transformers' AutoModel + pooling) on the held-out
// sentences, and transformers.js's with ours on the timed ones. Needs npm/dist/ and
// chromium + chromium-driver.
import { writeFileSync } from 'node:fs';
import { js, skip, startDriver, stopDriver, waitFor, wd, withBrowser } from '../../npm/test/webdriver.mjs';

const opts = { n: 200, rounds: 10, threads: [1, 2], json: null, tiering: 'eager' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; ++i) {
  const a = argv[i];
  if (a === '--n') opts.n = Number(argv[++i]);
  else if (a === '--rounds') opts.rounds = Number(argv[++i]);
  else if (a === '--threads') opts.threads = argv[++i].split(',').map(Number);
  else if (a === '--json') opts.json = argv[++i];
  else if (a === '--tiering' && ['eager', 'dynamic'].includes(argv[i + 1])) opts.tiering = argv[++i];
  else { console.error(`unknown option ${a}`); process.exit(2); }
}
if (skip) { console.error(`run: ${skip}`); process.exit(1); }

await startDriver();
const rows = [];
try {
  for (const threads of opts.threads) {
    const r = await withBrowser(true, async (id, url) => {
      await wd('POST', `/session/${id}/url`, { url: `${url}bench/transformersjs/?threads=${threads}&n=${opts.n}&rounds=${opts.rounds}` });
      await waitFor(id, '["done", "error"].includes(window.__bench?.state)',
        'document.getElementById("log").textContent', 1800000);
      return js(id, 'return window.__bench');
    }, opts.tiering === 'eager' ? ['--js-flags=--no-liftoff,--no-wasm-lazy-compilation'] : []);
    if (r.state !== 'done') throw new Error(`threads=${threads}: ${r.error}`);
    rows.push(r);
  }
} finally {
  stopDriver();
}

const f1 = (x) => x.toFixed(1);
const c = (x) => x.toFixed(6);
const tx = rows[0].texts;
console.log(`all-MiniLM-L6-v2, ${rows[0].n} Debian package descriptions one at a time (${tx.tokens.min}-${tx.tokens.max} tokens, ` +
  `median ${tx.tokens.median}, mean ${tx.tokens.mean.toFixed(1)}; ${tx.skippedOver128} longer than 128 skipped; ours pads to the next exported ` +
  `length, mean ${tx.oursPaddedTo.mean.toFixed(1)}), ${rows[0].rounds} alternating rounds (median of per-round rates), ` +
  `headless Chromium, COOP/COEP, ${opts.tiering} tiering`);
console.log(`${rows[0].userAgent}\n`);
const x2 = (a, b) => `${(a / b).toFixed(2)}x`;
console.log('| threads | torch-ir-wasm emb/s | torch-ir-wasm int8 emb/s | transformers.js fp32 emb/s | q8 emb/s | ours / fp32 | ours / q8 | ours int8 / q8 | ours int8 / ours |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(`| ${r.threads} | ${f1(r.ours.perSecond)} | ${f1(r.ours_int8.perSecond)} | ${f1(r.tjs_fp32.perSecond)} | ${f1(r.tjs_q8.perSecond)} | ` +
    `${x2(r.ours.perSecond, r.tjs_fp32.perSecond)} | ${x2(r.ours.perSecond, r.tjs_q8.perSecond)} | ` +
    `${x2(r.ours_int8.perSecond, r.tjs_q8.perSecond)} | ${x2(r.ours_int8.perSecond, r.ours.perSecond)} |`);
}
console.log(`\nAgreement (min cosine; ${rows[0].heldOut} held-out sentences vs PyTorch, ${rows[0].n} timed ones vs torch-ir-wasm):`);
console.log('| threads | torch-ir-wasm vs PyTorch | int8 vs PyTorch | fp32 vs PyTorch | q8 vs PyTorch | int8 vs ours | fp32 vs ours | q8 vs ours |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) {
  console.log(`| ${r.threads} | ${c(r.ours.vsPyTorch.minCosine)} | ${c(r.ours_int8.vsPyTorch.minCosine)} | ` +
    `${c(r.tjs_fp32.vsPyTorch.minCosine)} | ${c(r.tjs_q8.vsPyTorch.minCosine)} | ${c(r.ours_int8.vsOurs.minCosine)} | ` +
    `${c(r.tjs_fp32.vsOurs.minCosine)} | ${c(r.tjs_q8.vsOurs.minCosine)} |`);
}
const engineRow = (e) => ({ perSecond: e.perSecond, roundRates: e.roundRates, vsPyTorch: e.vsPyTorch, ...(e.vsOurs ? { vsOurs: e.vsOurs } : {}) });
if (opts.json) {
  writeFileSync(opts.json, JSON.stringify(rows.map((r) => ({
    threads: r.threads, texts: r.texts, rounds: r.rounds, userAgent: r.userAgent,
    ours: { ...engineRow(r.ours), variant: r.ours.variant },
    ours_int8: { ...engineRow(r.ours_int8), variant: r.ours_int8.variant }, tjs_fp32: engineRow(r.tjs_fp32), tjs_q8: engineRow(r.tjs_q8),
  })), null, 1) + '\n');
}
