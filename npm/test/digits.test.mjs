// The main example (examples/digits, examples/node/digits.mjs): the CNN trained on
// load_digits classifies the held-out digits through WASM exactly as PyTorch did,
// the example script says so and fails when it is not so, and the canvas
// preprocessing (inkToDigit) turns a drawing of a digit back into that digit.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadIR, parseSafetensors, writeSafetensors } from '../index.js';
import { FILES, PIXELS, SIDE, argmax, inkToDigit, readTestSet, topK } from '../../examples/digits/digits.js';
import { REPO, TOL, assertDist } from './helpers.mjs';

before(assertDist);

const DIR = join(REPO, 'examples', 'digits');
const EXAMPLE = join(REPO, 'examples', 'node', 'digits.mjs');
const set = readTestSet(parseSafetensors(readFileSync(join(DIR, FILES.testSet)), FILES.testSet));
const training = JSON.parse(readFileSync(join(DIR, FILES.training), 'utf8'));
const weights = readFileSync(join(DIR, FILES.weights));
const correctOf = (preds) => preds.reduce((c, p, i) => c + (p === set.labels[i]), 0);

function runExample(args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [EXAMPLE, ...args], { timeout: 60000 }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, stdout, stderr });
    });
  });
}

// The image painted at `scale` pixels per cell at (left, top) of a w x h sheet of paper.
function paint(image, scale, w, h, left, top) {
  const ink = new Float32Array(w * h);
  for (let y = 0; y < SIDE * scale; ++y) {
    for (let x = 0; x < SIDE * scale; ++x) ink[(top + y) * w + left + x] = image[Math.floor(y / scale) * SIDE + Math.floor(x / scale)];
  }
  return ink;
}

test('the recorded PyTorch results are the ones training.json reports', () => {
  assert.equal(set.n, training.test_images);
  assert.equal(correctOf(set.torchPred), training.test_correct);
  for (let i = 0; i < set.n; ++i) assert.equal(argmax(set.torchLogits, i * 10, 10), set.torchPred[i], `digit ${i}`);
});

test('batched through WASM: the same logits, predictions and accuracy as PyTorch', async () => {
  const model = await loadIR(join(DIR, FILES.irBatch), { weights });
  try {
    const input = { data: set.images, shape: [set.n, 1, SIDE, SIDE] };
    const [out] = await model.execute([input]);
    const preds = Array.from({ length: set.n }, (_, i) => argmax(out.data, i * 10, 10));
    assert.deepEqual(preds, set.torchPred);
    assert.equal(correctOf(preds), training.test_correct);
    const report = await model.verify([input], [{ data: set.torchLogits, shape: [set.n, 10], dtype: 'float32' }], TOL);
    assert.equal(report.isValid, true, `max logit difference ${report.maxDiff}`);
  } finally {
    model.dispose();
  }
});

test('one image at a time through WASM: every prediction is PyTorch\'s', async () => {
  const model = await loadIR(join(DIR, FILES.ir), { weights });
  try {
    const preds = [];
    for (let i = 0; i < set.n; ++i) preds.push(argmax((await model.execute([set.image(i)]))[0].data));
    assert.deepEqual(preds, set.torchPred);
  } finally {
    model.dispose();
  }
});

test('examples/node/digits.mjs prints the accuracy next to PyTorch\'s and exits 0', async () => {
  const { code, stdout, stderr } = await runExample(['--runs', '1', '--show', '4']);
  assert.equal(code, 0, stderr + stdout);
  const pct = `${(100 * training.test_accuracy).toFixed(2)}% (${training.test_correct}/${set.n})`;
  assert.match(stdout, new RegExp(`accuracy \\(torch-ir-wasm\\): ${pct.replace(/[()]/g, '\\$&')}`));
  assert.match(stdout, new RegExp(`accuracy \\(PyTorch .*\\): ${pct.replace(/[()]/g, '\\$&')}`));
  assert.match(stdout, /agreeing with PyTorch: 360\/360 \(all\)/);
  assert.match(stdout, /time per image: [\d.]+ us one at a time, [\d.]+ us in a batch of 360/);
  assert.match(stdout, /\|[ .:\-=+*#%@]{16}\|/); // ASCII-art digits
});

test('examples/node/digits.mjs exits 1 when the engine\'s accuracy is not PyTorch\'s', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'digits-'));
  try {
    cpSync(DIR, dir, { recursive: true });
    // Push the class-1 logit up: many digits become "1" while the recorded PyTorch results stay.
    const tensors = parseSafetensors(weights);
    tensors.get('fc.bias').data[1] += 20;
    writeFileSync(join(dir, FILES.weights), writeSafetensors(tensors));
    const { code, stdout } = await runExample(['--runs', '1', '--show', '0', '--dir', dir]);
    assert.equal(code, 1, stdout);
    assert.match(stdout, /MISMATCH/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('inkToDigit: a held-out digit painted large gives the digit back', () => {
  let exact = 0;
  for (let i = 0; i < set.n; ++i) {
    const image = set.image(i);
    const cols = Array.from({ length: SIDE }, (_, x) => image.some((v, j) => j % SIDE === x && v > 0));
    const left = cols.indexOf(true);
    const right = cols.lastIndexOf(true);
    // Every load_digits image spans all 8 rows; one whose ink is centred left-right is
    // reproduced exactly, at any size and position on the paper.
    if (left + right !== SIDE - 1) continue;
    for (const [scale, x, y] of [[10, 7, 13], [3, 0, 0], [29, 40, 1]]) {
      const back = inkToDigit(paint(image, scale, SIDE * scale + 50, SIDE * scale + 20, x, y), SIDE * scale + 50, SIDE * scale + 20);
      for (let j = 0; j < PIXELS; ++j) assert.ok(Math.abs(back[j] - image[j]) < 1e-5, `digit ${i} at scale ${scale}: pixel ${j} ${back[j]} vs ${image[j]}`);
    }
    ++exact;
  }
  assert.ok(exact > set.n / 2, `only ${exact} centred digits`);
  assert.equal(inkToDigit(new Float32Array(100), 10, 10), null);
});

test('inkToDigit: every held-out digit, painted and read back, is still classified like PyTorch does (but a few)', async () => {
  const model = await loadIR(join(DIR, FILES.ir), { weights });
  try {
    let same = 0;
    for (let i = 0; i < set.n; ++i) {
      const back = inkToDigit(paint(set.image(i), 12, 120, 110, 17, 5), 120, 110);
      const [out] = await model.execute([back]);
      if (argmax(out.data) === set.torchPred[i]) ++same;
    }
    // Off-centre digits come back centred (moved by up to a pixel); the model copes with nearly all.
    assert.ok(same >= set.n - 6, `${same}/${set.n}`);
  } finally {
    model.dispose();
  }
});

test('topK gives the most likely digits with probabilities summing to at most 1', () => {
  const logits = Array.from(set.torchLogits.subarray(0, 10));
  const top = topK(logits, 3);
  assert.equal(top.length, 3);
  assert.equal(top[0].digit, set.torchPred[0]);
  assert.ok(top[0].p >= top[1].p && top[1].p >= top[2].p);
  assert.ok(top.reduce((a, t) => a + t.p, 0) <= 1 + 1e-12);
});
