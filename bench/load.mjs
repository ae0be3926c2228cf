#!/usr/bin/env node
// Load time of a bench model in our WASM engine: loadIR from bytes already in
// memory (IR JSON + safetensors), which parses, compiles, binds the weights and
// runs every op's prepare (weight packing, batch-norm folding). The WASM module
// is instantiated first and not counted (a page does that once).
//   node bench/load.mjs [--model resnet18] [--threads 1] [--reps 7] [--dir build/bench]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, parseArgs } from './lib/common.mjs';

const args = { model: 'resnet18', threads: '1', reps: '7', dir: path.join(REPO, 'build/bench'), ...parseArgs(process.argv.slice(2)) };
const fdir = path.join(args.dir, 'models', args.model, 'torch2.14-training');
const tir = await import(pathToFileURL(path.join(REPO, 'npm', 'index.js')).href);
const ir = fs.readFileSync(path.join(fdir, 'model.json'));
const weights = fs.readFileSync(path.join(fdir, 'weights.safetensors'));
const threads = Number(args.threads);
await tir.getBackend({ threads });
const times = [];
for (let r = 0; r < Number(args.reps); ++r) {
  const t0 = performance.now();
  const m = await tir.loadIR(new Uint8Array(ir), { weights: new Uint8Array(weights), threads });
  times.push(performance.now() - t0);
  m.dispose();
}
times.sort((a, b) => a - b);
console.log(`${args.model}: loadIR from bytes (IR ${(ir.length / 1024).toFixed(0)} KiB, weights ${(weights.length / 1048576).toFixed(1)} MiB), ` +
  `${threads} thread(s): median ${times[times.length >> 1].toFixed(1)} ms, min ${times[0].toFixed(1)} ms over ${times.length}`);
