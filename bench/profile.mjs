#!/usr/bin/env node
// Where our WASM engine spends its time on one bench model: per-op-type and
// top-node tables from the engine's own profile (median over runs), fused
// nodes listed with the node that covers them.
//   node bench/profile.mjs --model resnet18 [--threads 1] [--runs 20] [--warmup-ms 3000] [--dir build/bench]
// Warm-up first (V8 runs WASM on its baseline tier until hot functions are
// recompiled, per thread), as bench/runner.mjs does: cold profiles mislead.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, loadBenchModel, parseArgs } from './lib/common.mjs';

const args = { model: 'resnet18', threads: '1', runs: '20', warmup_ms: '3000', dir: path.join(REPO, 'build/bench'), top: '12', ...parseArgs(process.argv.slice(2)) };
const threads = Number(args.threads);
const { meta, input } = loadBenchModel(args.dir, args.model);
const fdir = path.join(args.dir, 'models', args.model, 'torch2.14-training');
const tir = await import(pathToFileURL(path.join(REPO, 'npm', 'index.js')).href);
const model = await tir.loadIR(path.join(fdir, 'model.json'), { weights: path.join(fdir, 'weights.safetensors'), threads, profile: true });
const feeds = { [meta.input]: input.data };
const warmStart = performance.now();
for (let i = 0; i < 3 || performance.now() - warmStart < Number(args.warmup_ms); ++i) await model.execute(feeds);
const perNode = new Map();
const totals = [];
for (let r = 0; r < Number(args.runs); ++r) {
  const t0 = performance.now();
  await model.execute(feeds);
  totals.push(performance.now() - t0);
  for (const p of model.profile()) {
    const e = perNode.get(p.node) || { op: p.opType, covers: p.covers, ms: [] };
    e.ms.push(p.ms);
    perNode.set(p.node, e);
  }
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const byOp = new Map();
let sum = 0;
for (const [, e] of perNode) {
  const m = med(e.ms);
  sum += m;
  const key = e.op + (e.covers.length ? ' (+fused)' : '');
  byOp.set(key, (byOp.get(key) || 0) + m);
}
console.log(`${args.model}, ${threads} thread(s), ${model.backend.variant}: median run ${med(totals).toFixed(2)} ms, sum of node medians ${sum.toFixed(2)} ms`);
console.log('| op type | ms | share |\n|---|---:|---:|');
for (const [op, ms] of [...byOp].sort((a, b) => b[1] - a[1])) console.log(`| ${op} | ${ms.toFixed(3)} | ${((100 * ms) / sum).toFixed(1)}% |`);
console.log(`\n| top nodes | op | ms | covers |\n|---|---|---:|---|`);
for (const [name, e] of [...perNode].sort((a, b) => med(b[1].ms) - med(a[1].ms)).slice(0, Number(args.top)))
  console.log(`| ${name} | ${e.op} | ${med(e.ms).toFixed(3)} | ${e.covers.join(', ')} |`);
model.dispose();
