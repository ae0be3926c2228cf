#!/usr/bin/env node
// The threaded WASM build at one thread against the single-threaded build, on the same model,
// alternating in one process. The two builds compile the same sources; only -pthread (shared
// memory) differs, so their times should match. They did not for a day: V8's stack check on
// every WASM loop header made the int4 GEMV 1.5-2.8x slower in the threaded build only (every
// Node user and every cross-origin-isolated page runs that build), and no bench compared them.
//   node bench/builds.mjs [--models transformer_encoder,resnet18,...] [--quantized encoder:int8,...]
//        [--lm build/bench/quantized_llm/8da4w,...] [--rounds 8] [--dir build/bench]
// --models: bench/export_bench.py's models (build/bench/models); --quantized NAME:VARIANT:
// bench/quantized.sh's (build/bench/quantized/NAME/VARIANT); --lm: an LLM folder of
// bench/quantized_llm.sh (prefill.json, decode.json, kv_mapping.json, weights), timed as 32
// greedy decode steps. Prints threaded/single per model.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, list, loadBenchModel, median, parseArgs, readSafetensors } from './lib/common.mjs';

const a = parseArgs(process.argv.slice(2));
const dir = path.resolve(a.dir ?? path.join(REPO, 'build', 'bench'));
const rounds = Number(a.rounds ?? 8);
const tir = await import(pathToFileURL(path.join(REPO, 'npm', 'index.js')).href);

function benchModel(name) {
  const { mdir, meta, input } = loadBenchModel(dir, name);
  const f = path.join(mdir, 'torch2.14-training');
  return { ir: path.join(f, 'model.json'), weights: path.join(f, 'weights.safetensors'), feeds: { [meta.input]: input.data } };
}
function quantizedModel(spec) {
  const [name, variant] = spec.split(':');
  const d = path.join(dir, 'quantized', name);
  const meta = JSON.parse(fs.readFileSync(path.join(d, 'meta.json'), 'utf8'));
  const io = readSafetensors(path.join(d, variant, 'io.safetensors'));
  return { ir: path.join(d, variant, 'model.json'), weights: path.join(d, variant, 'weights.safetensors'),
    feeds: { [meta.input]: io[`input.${meta.input}`].data } };
}

function lmModel(d) {
  const prompt = JSON.parse(fs.readFileSync(path.join(d, 'expected.json'), 'utf8')).prompts[0].input_ids;
  return { lm: { prefill: path.join(d, 'prefill.json'), decode: path.join(d, 'decode.json'),
    kvMapping: path.join(d, 'kv_mapping.json'), weights: path.join(d, 'weights.safetensors') }, prompt };
}
// One timed unit: three runs of an IR model, or 32 decode steps of an LLM (ms per step).
async function timeOnce(model, m) {
  if (m.lm) {
    await model.generate(m.prompt, { maxNewTokens: 32 });
    return 1000 / model.stats.decodeTokensPerSecond;
  }
  const s = performance.now();
  for (let i = 0; i < 3; ++i) await model.execute(m.feeds);
  return (performance.now() - s) / 3;
}
const load = (m, threads) => (m.lm ? tir.loadLM({ ...m.lm, threads }) : tir.loadIR(m.ir, { weights: m.weights, threads }));

const jobs = [...list(a.models ?? 'transformer_encoder,resnet18,mlp').map((n) => [n, benchModel(n)]),
  ...list(a.quantized ?? '').map((s) => [s, quantizedModel(s)]),
  ...list(a.lm ?? '').map((d) => [path.relative(REPO, path.resolve(d)), lmModel(path.resolve(d))])];
console.log('| model | single-threaded build ms | threaded build, 1 thread ms | threaded / single |\n| --- | ---: | ---: | ---: |');
for (const [name, m] of jobs) {
  const single = await load(m, 1);
  const threaded = await load(m, 2);
  threaded._threads = 1; // the threaded build at one thread (an internal field: no public option asks for it)
  if (single.backend.variant !== 'simd' || threaded.backend.variant !== 'simd-threaded') throw new Error('both builds are needed');
  const warm = performance.now();
  while (performance.now() - warm < 3000) {
    await timeOnce(single, m);
    await timeOnce(threaded, m);
  }
  const t = { single: [], threaded: [] };
  for (let r = 0; r < rounds; ++r)
    for (const k of r % 2 ? ['single', 'threaded'] : ['threaded', 'single']) {
      t[k].push(await timeOnce(k === 'single' ? single : threaded, m));
    }
  const ms = { single: median(t.single), threaded: median(t.threaded) };
  console.log(`| ${name} | ${ms.single.toFixed(2)} | ${ms.threaded.toFixed(2)} | ${(ms.threaded / ms.single).toFixed(3)} |`);
  single.dispose();
  threaded.dispose();
}
