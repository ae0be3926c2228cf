// Loading the package and its WASM builds in Node leaves the global object as
// it was: Emscripten's Node shell assigns `global.Worker`, and the loader used
// to replace globalThis.Worker with an accessor that ignored assignments.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadIR } from '../index.js';
import { join } from 'node:path';
import { NPM_DIR, TOL, assertClose, assertDist, fixture, ioInputs, readIo } from './helpers.mjs';

before(assertDist);

const fx = fixture('small_cnn');

async function runWith(threads, wasmPaths) {
  const io = readIo(fx.io);
  const m = await loadIR(fx.model, { weights: fx.weights, threads, wasmPaths });
  try {
    const [y] = await m.execute(ioInputs(m, io));
    assertClose(y.data, io.outputs[0].data, TOL, `small_cnn with threads ${threads}`);
    return m.backend;
  } finally {
    m.dispose();
  }
}

test('loading the threaded and single builds leaves globalThis.Worker untouched', async () => {
  const names = Object.getOwnPropertyNames(globalThis).sort();
  const before = Object.getOwnPropertyDescriptor(globalThis, 'Worker');
  const backend = await runWith(2);
  assert.equal(backend.variant, 'simd-threaded');
  assert.equal(backend.threads, 2);
  assert.deepEqual(Object.getOwnPropertyDescriptor(globalThis, 'Worker'), before);
  await runWith(1);
  assert.deepEqual(Object.getOwnPropertyDescriptor(globalThis, 'Worker'), before);
  assert.deepEqual(Object.getOwnPropertyNames(globalThis).sort(), names, 'no global added or removed');
});

test("an application's own globalThis.Worker stays assignable and is kept across a load", async () => {
  class AppWorker {}
  globalThis.Worker = AppWorker;
  try {
    // Another wasmPaths value: a second module instance, so the factory runs again.
    assert.equal((await runWith(2, join(NPM_DIR, 'dist') + '/')).variant, 'simd-threaded');
    assert.equal(globalThis.Worker, AppWorker);
    class Other {}
    globalThis.Worker = Other;
    assert.equal(globalThis.Worker, Other, 'assignment to globalThis.Worker takes effect');
  } finally {
    delete globalThis.Worker;
  }
});
