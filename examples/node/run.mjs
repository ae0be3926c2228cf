#!/usr/bin/env node
// Runs a pytorch-ir model with torch-ir-wasm in Node: loads the IR, weights and
// a fixture io file (input.<name> / output.<i>), runs it, prints the top
// outputs and the time per run, and verifies against the recorded outputs.
//
//   node examples/node/run.mjs [FIXTURE_DIR] [--ir IR] [--weights W] [--io IO]
//                              [--runs N] [--threads N] [--top K] [--rtol R] [--atol A]
//
// FIXTURE_DIR holds model.json, weights.safetensors and io.safetensors
// (default: tests/fixtures/models/small_cnn/torch2.14-training). Exits 1 when
// verification fails.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// In your own project: import { ... } from 'torch-ir-wasm';
import { loadIR, parseSafetensors, splitIo, formatReport } from '../../npm/index.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function parseArgs(argv) {
  const opts = { dir: join(REPO, 'tests/fixtures/models/small_cnn/torch2.14-training'), runs: 20, top: 5, rtol: 1e-5, atol: 1e-5 };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} expects a value`);
      return argv[++i];
    };
    if (a === '--ir') opts.ir = value();
    else if (a === '--weights') opts.weights = value();
    else if (a === '--io') opts.io = value();
    else if (a === '--runs') opts.runs = Math.max(1, Number(value()));
    else if (a === '--threads') opts.threads = Number(value());
    else if (a === '--top') opts.top = Number(value());
    else if (a === '--rtol') opts.rtol = Number(value());
    else if (a === '--atol') opts.atol = Number(value());
    else if (a === '-h' || a === '--help') {
      console.log('usage: node examples/node/run.mjs [FIXTURE_DIR] [--ir IR] [--weights W] [--io IO] [--runs N] [--threads N] [--top K] [--rtol R] [--atol A]');
      process.exit(0);
    } else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
    else opts.dir = resolve(a);
  }
  opts.ir ??= join(opts.dir, 'model.json');
  opts.weights ??= join(opts.dir, 'weights.safetensors');
  opts.io ??= join(opts.dir, 'io.safetensors');
  return opts;
}

// The k largest values of a tensor as "index: value".
function topK(data, k) {
  const idx = Array.from(data, (_, i) => i);
  idx.sort((a, b) => Number(data[b]) - Number(data[a]));
  return idx.slice(0, k).map((i) => `${i}: ${typeof data[i] === 'bigint' ? data[i] : Number(data[i]).toFixed(6)}`);
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const show = (p) => relative(process.cwd(), p) || p;
  console.log(`model:   ${show(opts.ir)}\nweights: ${show(opts.weights)}\nio:      ${show(opts.io)}`);

  const t0 = performance.now();
  const model = await loadIR(opts.ir, { weights: opts.weights, threads: opts.threads });
  const loadMs = performance.now() - t0;
  console.log(`build:   ${model.backend.variant}, ${model.backend.threads} thread(s); loaded in ${loadMs.toFixed(1)} ms`);

  const io = splitIo(parseSafetensors(await readFile(opts.io), opts.io));
  const inputs = model.inputs.map((m) => {
    const t = io.inputs[m.name];
    if (!t) throw new Error(`${opts.io}: no tensor 'input.${m.name}' for graph input '${m.name}'`);
    return t;
  });
  const expected = model.outputs.map((m, i) => io.outputs[i]);

  let outputs = await model.execute(inputs); // warm-up
  const times = [];
  for (let i = 0; i < opts.runs; ++i) {
    const s = performance.now();
    outputs = await model.execute(inputs);
    times.push(performance.now() - s);
  }
  for (const [i, o] of outputs.entries()) {
    console.log(`output ${i} '${o.name}' [${o.shape.join(', ')}] ${o.dtype}`);
    console.log(`  top-${Math.min(opts.top, o.data.length)}: ${topK(o.data, opts.top).join(', ')}`);
  }
  console.log(`time per run: ${median(times).toFixed(3)} ms (median of ${opts.runs} runs, min ${Math.min(...times).toFixed(3)} ms)`);

  if (expected.some((e) => !e)) {
    console.log('no expected outputs in the io file: skipping verification');
    model.dispose();
    return 0;
  }
  const report = await model.verify(inputs, expected, { rtol: opts.rtol, atol: opts.atol });
  process.stdout.write(`(rtol=${opts.rtol}, atol=${opts.atol}) ` + formatReport(report));
  model.dispose();
  return report.isValid ? 0 : 1;
}

main().then((code) => {
  process.exitCode = code;
}, (e) => {
  console.error(`run.mjs: ${e.name}: ${e.message}`);
  process.exitCode = 1;
});
