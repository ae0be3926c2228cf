#!/usr/bin/env node
// bench/quantized.mjs's int8-vs-float32 comparison in headless Chromium (COOP/COEP, a fresh
// browser per model and thread count), where the int8 GEMM runs on relaxed SIMD if the CPU makes
// it exact (docs/quantization.md#relaxed-simd); Node 20 has no relaxed SIMD without a flag.
//   bash bench/quantized.sh --models encoder,resnet18   # exports build/bench/quantized/ (and runs it in Node)
//   node bench/quantized_browser/run.mjs [--models encoder,resnet18] [--threads 1,2] [--rounds 6] [--round-ms 1500]
// Prints a table (int8 ms, f32 ms, int8/f32, checks) and --json OUT writes the rows.
import { writeFileSync } from 'node:fs';
import { js, skip, startDriver, stopDriver, waitFor, wd, withBrowser } from '../../npm/test/webdriver.mjs';

const opts = { models: ['encoder', 'resnet18'], threads: [1, 2], rounds: 6, round_ms: 1500, json: null };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; ++i) {
  const a = argv[i];
  if (a === '--models') opts.models = argv[++i].split(',');
  else if (a === '--threads') opts.threads = argv[++i].split(',').map(Number);
  else if (a === '--rounds') opts.rounds = Number(argv[++i]);
  else if (a === '--round-ms') opts.round_ms = Number(argv[++i]);
  else if (a === '--json') opts.json = argv[++i];
  else { console.error(`unknown option ${a}`); process.exit(2); }
}
if (skip) { console.error(`quantized_browser: ${skip}`); process.exit(1); }

await startDriver();
const rows = [];
try {
  for (const model of opts.models)
    for (const threads of opts.threads) {
      const r = await withBrowser(true, async (id, url) => {
        await wd('POST', `/session/${id}/url`, { url: `${url}bench/quantized_browser/?model=${model}&threads=${threads}&rounds=${opts.rounds}&round_ms=${opts.round_ms}` });
        await waitFor(id, '["done", "error"].includes(window.__bench?.state)', 'document.getElementById("log").textContent', 1800000);
        return js(id, 'return window.__bench');
      }, ['--js-flags=--no-liftoff,--no-wasm-lazy-compilation']);
      if (r.state !== 'done') throw new Error(`${model}, ${threads} thread(s): ${r.error}`);
      rows.push(r);
      console.error(`${model} ${threads}t: int8 ${r.int8_ms.toFixed(2)} ms, f32 ${r.f32_ms.toFixed(2)} ms, int8/f32 ${r.ratio.toFixed(3)}`);
    }
} finally {
  stopDriver();
}
console.log(`${rows[0]?.userAgent ?? ''}\n`);
console.log('| model | threads | int8 ms | f32 ms | int8/f32 (median of rounds) | f32 vs PyTorch | int8 vs PyTorch int8 |');
console.log('| --- | --- | ---: | ---: | ---: | --- | --- |');
for (const r of rows)
  console.log(`| ${r.model} | ${r.threads} | ${r.int8_ms.toFixed(2)} | ${r.f32_ms.toFixed(2)} | ${r.ratio.toFixed(3)} | ` +
    `${r.f32_check.pass ? 'PASS' : 'FAIL'} | ${r.int8_check.pass ? 'PASS' : 'FAIL'} (${r.int8_check.max_abs_diff.toExponential(1)} <= ${r.int8_check.tol.toExponential(1)}) |`);
if (opts.json) writeFileSync(opts.json, JSON.stringify(rows, null, 1));
