// Thread counts: the default is min(4, cores) like onnxruntime-web (it used to
// be every core), and a request above what can run is clamped with a warning
// that names both counts (it used to be clamped silently).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import { syncBuiltinESMExports } from 'node:module';
import { env, getBackend } from '../index.js';
import { defaultThreads, hardwareThreads } from '../lib/backend.js';
import { assertDist } from './helpers.mjs';

const realParallelism = os.availableParallelism;
function fakeCores(n) {
  os.availableParallelism = () => n;
  syncBuiltinESMExports(); // the named import in lib/node/platform.js follows
}

let warnings = [];
const realWarn = console.warn;
before(() => {
  assertDist();
  console.warn = (...args) => warnings.push(args.join(' '));
});
after(() => {
  console.warn = realWarn;
  os.availableParallelism = realParallelism;
  syncBuiltinESMExports();
});

test('default thread count is min(4, cores); env.numThreads overrides it', async () => {
  fakeCores(16);
  assert.equal(await hardwareThreads(), 16);
  assert.equal(await defaultThreads(), 4);
  env.numThreads = 6;
  assert.equal(await defaultThreads(), 6);
  env.numThreads = 0;
  fakeCores(3);
  assert.equal(await defaultThreads(), 3);
});

test('a 16-core machine loads a pool of 4 and runs 4 threads by default', async () => {
  fakeCores(16);
  warnings = [];
  const b = await getBackend();
  assert.equal(b.variant, 'simd-threaded');
  assert.equal(b.maxThreads, 4);
  assert.equal(b.numThreads, 4);
  assert.deepEqual(warnings, []);
});

test('threads above the loaded pool are clamped with a warning naming requested and actual', async () => {
  fakeCores(16);
  warnings = [];
  const b = await getBackend({ threads: 8 });
  assert.equal(b.numThreads, 4);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /^torch-ir-wasm: threads: 8 requested, 4 used: the thread pool was sized to 4/);
});

test('threads above the CPU cores are clamped with a warning; env.warnings = false silences it', async () => {
  fakeCores(2);
  warnings = [];
  const b = await getBackend({ threads: 3 });
  assert.equal(b.numThreads, 2);
  assert.deepEqual(warnings, ['torch-ir-wasm: threads: 3 requested, 2 used (this machine has 2 CPU cores)']);
  warnings = [];
  env.warnings = false;
  try {
    assert.equal((await getBackend({ threads: 5 })).numThreads, 2);
  } finally {
    env.warnings = true;
  }
  assert.deepEqual(warnings, []);
});

test('threads is per model: each run uses its model\'s count, and model.backend reports it', async () => {
  fakeCores(16);
  const { loadIR } = await import('../index.js');
  const { linearIr } = await import('./helpers.mjs');
  const n = 8;
  const weights = { weight: new Float32Array(n * n).fill(0.5), bias: new Float32Array(n) };
  const a = await loadIR(linearIr(n), { weights, threads: 3 });
  const b = await loadIR(linearIr(n), { weights, threads: 2 });
  const shared = await loadIR(linearIr(n), { weightsFrom: a });
  const backend = await getBackend({ threads: 2 });
  assert.equal(a.backend.threads, 3);
  assert.equal(b.backend.threads, 2);
  assert.equal(shared.backend.threads, 3, 'weightsFrom: the source model\'s engine and count');
  const x = new Float32Array(n).fill(1);
  for (const [m, want] of [[a, 3], [b, 2], [shared, 3], [b, 2]]) {
    const [y] = await m.execute([x]);
    assert.equal(y.data[0], 4);
    assert.equal(backend.numThreads, want, 'the count of the model that ran last');
  }
  for (const m of [a, b, shared]) m.dispose();
});
