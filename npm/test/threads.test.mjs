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
