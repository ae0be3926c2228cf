#!/usr/bin/env node
// Where our WASM engine spends its time on one bench model: per-op-type and
// top-node tables from the engine's own profile (median over runs), fused
// nodes listed with the node that covers them.
//   node bench/profile.mjs --model resnet18 [--threads 1] [--runs 20] [--warmup-ms 3000] [--dir build/bench]
//   node bench/profile.mjs --ir IR.json --weights W.safetensors --io IO.safetensors [--threads 1] ...
//   node bench/profile.mjs --minilm SEQ [--tokens N] [--int8] [--threads 1] ...
// --repo DIR profiles the npm package of another checkout (a baseline worktree of
// bench/build_baseline.sh), to see where a change moved the time.
// The third form profiles all-MiniLM-L6-v2's IR of length SEQ (models/ from
// scripts/prepare_models.sh) on N real tokens (default SEQ; the rest is masked padding); --int8
// profiles its PT2E dynamic int8 IR (models/all-MiniLM-L6-v2-int8).
// The second form profiles any IR on the inputs of an io file (input.<graph input name>, as
// `torchir verify` reads; output.0 is checked): e.g. one step of the LLM fixture's decode IR,
// tests/fixtures/llm/tiny_llama/decode_io.safetensors.
// Warm-up first (V8 runs WASM on its baseline tier until hot functions are
// recompiled, per thread), as bench/runner.mjs does: cold profiles mislead.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, compare, loadBenchModel, parseArgs, readSafetensors } from './lib/common.mjs';

const args = { model: 'resnet18', threads: '1', runs: '20', warmup_ms: '3000', dir: path.join(REPO, 'build/bench'), top: '12', ...parseArgs(process.argv.slice(2), ['int8']) };
const threads = Number(args.threads);
const tir = await import(pathToFileURL(path.join(path.resolve(args.repo ?? REPO), 'npm', 'index.js')).href);
let model;
let feeds;
let expected = null;
let title = args.model;
if (args.ir) {
  if (!args.weights || !args.io) throw new Error('--ir needs --weights and --io');
  const io = readSafetensors(args.io);
  feeds = {};
  for (const [k, t] of Object.entries(io)) if (k.startsWith('input.')) feeds[k.slice(6)] = t.data;
  expected = io['output.0'] ?? null;
  model = await tir.loadIR(args.ir, { weights: args.weights, threads, profile: true });
  title = path.relative(REPO, args.ir);
} else if (args.minilm) {
  const seq = Number(args.minilm);
  const tokens = Number(args.tokens ?? seq);
  const dir = path.join(REPO, 'models', args.int8 ? 'all-MiniLM-L6-v2-int8' : 'all-MiniLM-L6-v2');
  model = await tir.loadIR(fs.readFileSync(path.join(dir, `model_s${seq}.json`), 'utf8'),
    { weights: path.join(dir, 'weights.safetensors'), threads, profile: true });
  const ids = new BigInt64Array(seq);
  const mask = new BigInt64Array(seq);
  for (let i = 0; i < tokens; ++i) {
    ids[i] = BigInt(i === 0 ? 101 : i === tokens - 1 ? 102 : 1000 + i); // [CLS] ... [SEP]
    mask[i] = 1n;
  }
  feeds = { input_ids: ids, attention_mask: mask };
  title = `all-MiniLM-L6-v2 s${seq} (${tokens} tokens)`;
} else {
  const { meta, input } = loadBenchModel(args.dir, args.model);
  const fdir = path.join(args.dir, 'models', args.model, 'torch2.14-training');
  model = await tir.loadIR(path.join(fdir, 'model.json'), { weights: path.join(fdir, 'weights.safetensors'), threads, profile: true });
  feeds = { [meta.input]: input.data };
}
if (expected) {
  const c = compare((await model.execute(feeds))[0].data, expected, 1e-4, 1e-4);
  console.log(`output 0 vs the io file: max abs diff ${c.max_abs_diff?.toExponential(2)}, ${c.pass ? 'PASS' : 'FAIL'} (rtol = atol = 1e-4)`);
}
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
  const o = byOp.get(key) || { ms: 0, n: 0 };
  byOp.set(key, { ms: o.ms + m, n: o.n + 1 });
}
console.log(`${title}, ${threads} thread(s), ${model.backend.variant}: median run ${med(totals).toFixed(2)} ms, sum of node medians ${sum.toFixed(2)} ms`);
console.log('| op type | nodes | ms | share |\n|---|---:|---:|---:|');
for (const [op, { ms, n }] of [...byOp].sort((a, b) => b[1].ms - a[1].ms)) console.log(`| ${op} | ${n} | ${ms.toFixed(3)} | ${((100 * ms) / sum).toFixed(1)}% |`);
console.log(`\n| top nodes | op | ms | covers |\n|---|---|---:|---|`);
for (const [name, e] of [...perNode].sort((a, b) => med(b[1].ms) - med(a[1].ms)).slice(0, Number(args.top)))
  console.log(`| ${name} | ${e.op} | ${med(e.ms).toFixed(3)} | ${e.covers.join(', ')} |`);
model.dispose();
