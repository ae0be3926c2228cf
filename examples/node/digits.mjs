#!/usr/bin/env node
// The main example: classifies the 360 held-out handwritten digits of scikit-learn's
// load_digits with a small CNN trained by tools/train_digits.py, on the WASM engine.
// Prints some digits as ASCII art beside the predicted and true labels, the accuracy
// next to PyTorch's on the same digits, whether every prediction agrees with PyTorch's,
// the largest logit difference, and the time per image (one at a time and batched).
//
//   node examples/node/digits.mjs [--threads N] [--runs N] [--show N] [--dir DIR]
//
// --dir: another folder with the files of examples/digits (default: that folder).
// Exits 1 when the accuracy or any prediction differs from PyTorch's.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// In your own project: import { ... } from 'torch-ir-wasm';
import { loadIR, parseSafetensors } from '../../npm/index.js';
import { FILES, PIXELS, argmax, asciiDigit, readTestSet } from '../digits/digits.js';

const DEFAULT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'digits');
const CLASSES = 10;

function parseArgs(argv) {
  const opts = { runs: 5, show: 8, dir: DEFAULT_DIR };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} expects a value`);
      return argv[++i];
    };
    if (a === '--threads') opts.threads = Number(value());
    else if (a === '--runs') opts.runs = Math.max(1, Number(value()));
    else if (a === '--show') opts.show = Math.max(0, Number(value()));
    else if (a === '--dir') opts.dir = resolve(value());
    else if (a === '-h' || a === '--help') {
      console.log('usage: node examples/node/digits.mjs [--threads N] [--runs N] [--show N] [--dir DIR]');
      process.exit(0);
    } else throw new Error(`unknown option ${a}`);
  }
  return opts;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

// Digits side by side, `perRow` at a time: index, 8x8 ASCII art, "predicted (true label)".
function printDigits(set, indices, preds, perRow = 4) {
  const cell = (s) => s.padEnd(20);
  for (let s = 0; s < indices.length; s += perRow) {
    const row = indices.slice(s, s + perRow);
    const arts = row.map((i) => asciiDigit(set.image(i)));
    const caption = (i) => `${preds[i] === set.labels[i] ? ' ' : 'x'} ${preds[i]} (true ${set.labels[i]})`;
    const line = (f) => console.log(row.map((i, k) => cell(f(i, k))).join('').trimEnd());
    line((i) => ` #${i}`);
    for (let y = 0; y < arts[0].length; ++y) line((i, k) => `|${arts[k][y]}|`);
    line(caption);
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const set = readTestSet(parseSafetensors(await readFile(join(opts.dir, FILES.testSet)), FILES.testSet));
  const training = JSON.parse(await readFile(join(opts.dir, FILES.training), 'utf8'));
  const weights = await readFile(join(opts.dir, FILES.weights));
  const t0 = performance.now();
  const single = await loadIR(join(opts.dir, FILES.ir), { weights, threads: opts.threads });
  const batch = await loadIR(join(opts.dir, FILES.irBatch), { weights, threads: opts.threads });
  const loadMs = performance.now() - t0;
  if (batch.inputs[0].shape[0] !== set.n) throw new Error(`${FILES.irBatch} takes ${batch.inputs[0].shape[0]} images, the test set has ${set.n}`);
  console.log(`model: ${relative(process.cwd(), opts.dir) || '.'}: ${training.model}, ${training.parameters} parameters, trained on ${training.train_images} digits (PyTorch ${training.torch}, train accuracy ${(100 * training.train_accuracy).toFixed(2)}%)`);
  console.log(`data:  ${set.n} held-out digits of ${training.dataset}`);
  console.log(`build: ${single.backend.variant}, ${single.backend.threads} thread(s); both models loaded in ${loadMs.toFixed(1)} ms\n`);

  // One image at a time (what an app classifying a drawing does).
  const oneByOne = new Float32Array(set.n * CLASSES);
  const classifyEach = async () => {
    for (let i = 0; i < set.n; ++i) {
      const [out] = await single.execute([set.image(i)]);
      oneByOne.set(out.data, i * CLASSES);
    }
  };
  await classifyEach(); // warm-up
  const singleMs = [];
  for (let r = 0; r < opts.runs; ++r) {
    const s = performance.now();
    await classifyEach();
    singleMs.push((performance.now() - s) / set.n);
  }

  // All at once.
  const input = { data: set.images, shape: [set.n, 1, 8, 8] };
  let [batched] = await batch.execute([input]);
  const batchMs = [];
  for (let r = 0; r < opts.runs * 4; ++r) {
    const s = performance.now();
    [batched] = await batch.execute([input]);
    batchMs.push((performance.now() - s) / set.n);
  }

  const preds = [];
  let correct = 0;
  let agree = 0;
  let maxDiff = 0;
  for (let i = 0; i < set.n; ++i) {
    const p = argmax(batched.data, i * CLASSES, CLASSES);
    preds.push(p);
    if (p === set.labels[i]) ++correct;
    if (p === set.torchPred[i] && argmax(oneByOne, i * CLASSES, CLASSES) === p) ++agree;
  }
  for (let j = 0; j < set.n * CLASSES; ++j) {
    maxDiff = Math.max(maxDiff, Math.abs(batched.data[j] - set.torchLogits[j]), Math.abs(oneByOne[j] - set.torchLogits[j]));
  }
  const torchCorrect = set.torchPred.reduce((c, p, i) => c + (p === set.labels[i]), 0);
  const wrong = preds.map((p, i) => i).filter((i) => preds[i] !== set.labels[i]);

  if (opts.show) {
    console.log(`the first ${opts.show} held-out digits (x = wrong):`);
    printDigits(set, Array.from({ length: Math.min(opts.show, set.n) }, (_, i) => i), preds);
  }
  if (wrong.length) {
    console.log(`${opts.show ? '\n' : ''}the ${wrong.length} misclassified digit(s):`);
    printDigits(set, wrong, preds);
  }
  const pct = (c) => `${((100 * c) / set.n).toFixed(2)}% (${c}/${set.n})`;
  console.log(`\naccuracy (torch-ir-wasm): ${pct(correct)}`);
  console.log(`accuracy (PyTorch ${training.torch}): ${pct(torchCorrect)}`);
  console.log(`predictions agreeing with PyTorch: ${agree}/${set.n}${agree === set.n ? ' (all)' : ''}; max |logit difference|: ${maxDiff.toExponential(2)}`);
  console.log(`time per image: ${(median(singleMs) * 1000).toFixed(1)} us one at a time, ${(median(batchMs) * 1000).toFixed(2)} us in a batch of ${set.n} (median of ${opts.runs} / ${opts.runs * 4} passes)`);
  single.dispose();
  batch.dispose();
  if (correct !== torchCorrect || agree !== set.n) {
    console.log('MISMATCH: the WASM engine does not reproduce PyTorch on these digits');
    return 1;
  }
  return 0;
}

main().then((code) => {
  process.exitCode = code;
}, (e) => {
  console.error(`digits.mjs: ${e.name}: ${e.message}`);
  process.exitCode = 1;
});
