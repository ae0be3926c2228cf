// Memory does not leak across executions or load/dispose cycles, and in-place
// buffers (KV cache) persist across execute() calls until resetBuffers(). (The
// builds-give-identical-results sweep is builds_identical.test.mjs: its large
// fixtures grow the heap, which the dispose checks here must start without.)
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadIR, getBackend } from '../index.js';
import { TOL, assertClose, assertDist, fixture, ioInputs, linearIr, readIo } from './helpers.mjs';

before(assertDist);

test('the threads option sets the pool; counts beyond the pool loaded first are clamped', async () => {
  const b = await getBackend({ threads: 2 });
  assert.equal(b.variant, 'simd-threaded');
  assert.ok(b.threaded);
  assert.ok(b.maxThreads >= 2);
  assert.equal(b.numThreads, 2);
  const all = await getBackend({ threads: b.maxThreads + 5 });
  assert.equal(all, b, 'one module per variant');
  assert.equal(all.numThreads, b.maxThreads);
  const one = await getBackend({ threads: 2 });
  assert.equal(one.numThreads, 2);
  const s = await getBackend({ threads: 1 });
  assert.equal(s.variant, 'simd');
  assert.equal(s.threaded, false);
  assert.equal(s.numThreads, 1);
});

for (const threads of [1, 2]) {
  test(`threads=${threads}: 1,000 executions do not grow WASM memory after warm-up`, async () => {
    const fx = fixture('small_cnn');
    const io = readIo(fx.io);
    const m = await loadIR(fx.model, { weights: fx.weights, threads });
    const backend = await getBackend({ threads });
    const inputs = ioInputs(m, io);
    for (let i = 0; i < 20; ++i) await m.execute(inputs);
    const warm = backend.heapBytes();
    let last;
    for (let i = 0; i < 1000; ++i) [last] = await m.execute(inputs);
    assert.equal(backend.heapBytes(), warm, 'heap grew during 1,000 executions');
    assertClose(last.data, io.outputs[0].data, TOL, 'last output');
    m.dispose();
  });

  test(`threads=${threads}: dispose frees the model (heap stable over 50 load/dispose cycles)`, async () => {
    // 4 MiB of weights per model: 50 leaked models would need 200 MiB more heap.
    const n = 1024;
    const ir = linearIr(n);
    const weight = new Float32Array(n * n).map((_, i) => ((i * 7919) % 1000) / 1000 - 0.5);
    const weights = { weight: { data: weight, shape: [n, n] }, bias: new Float32Array(n) };
    const x = new Float32Array(n).fill(1);
    const backend = await getBackend({ threads });
    const cycle = async () => {
      const m = await loadIR(ir, { weights, threads });
      const [y] = await m.execute([x]);
      m.dispose();
      return y;
    };
    const first = await cycle();
    for (let i = 0; i < 4; ++i) await cycle();
    const warm = backend.heapBytes();
    for (let i = 0; i < 50; ++i) assert.deepEqual((await cycle()).data, first.data);
    assert.equal(backend.heapBytes(), warm, 'heap grew over 50 load/dispose cycles');
    // The check can fail: models held at once do grow the heap.
    const held = [];
    for (let i = 0; i < 50 && backend.heapBytes() === warm; ++i) held.push(await loadIR(ir, { weights, threads }));
    assert.ok(backend.heapBytes() > warm, 'holding 50 models should grow the heap');
    for (const m of held) m.dispose();
    await assert.rejects(held[0].execute([x]), /model is disposed/);
  });
}


test('KV cache: the buffer persists across execute() calls; resetBuffers() restores it', async () => {
  const fx = fixture('kv_cache');
  const step1 = readIo(fx.io);
  const step2 = readIo(fx.io.replace('io.safetensors', 'io_step2.safetensors'));
  const m = await loadIR(fx.model, { weights: fx.weights });
  assert.deepEqual(m.mutatedBuffers(), ['k_cache'], 'buffers the graph writes in place');
  const cache0 = m.bufferValue('k_cache');
  assert.deepEqual(cache0.shape, [1, 2, 8, 4]);
  assert.ok(cache0.data.every((v) => v === 0));

  assert.ok((await m.verify(ioInputs(m, step1), step1.outputs, TOL)).isValid, 'step 1');
  const cache1 = m.bufferValue('k_cache');
  assert.ok(cache1.data.some((v) => v !== 0), 'step 1 wrote the cache');
  assert.ok((await m.verify(ioInputs(m, step2), step2.outputs, TOL)).isValid, 'step 2 sees step 1');

  m.resetBuffers();
  assert.ok(m.bufferValue('k_cache').data.every((v) => v === 0), 'reset to the loaded zeros');
  const fresh2 = await m.verify(ioInputs(m, step2), step2.outputs, TOL);
  assert.equal(fresh2.isValid, false, 'step 2 on an empty cache must differ from the recorded step 2');
  m.resetBuffers();
  assert.ok((await m.verify(ioInputs(m, step1), step1.outputs, TOL)).isValid, 'step 1 again after reset');
  assert.ok((await m.verify(ioInputs(m, step2), step2.outputs, TOL)).isValid, 'step 2 again');
  m.dispose();
});

test('KV cache: models are independent (two sessions, separate caches)', async () => {
  const fx = fixture('kv_cache');
  const step1 = readIo(fx.io);
  const step2 = readIo(fx.io.replace('io.safetensors', 'io_step2.safetensors'));
  const a = await loadIR(fx.model, { weights: fx.weights });
  const b = await loadIR(fx.model, { weights: fx.weights });
  await a.execute(ioInputs(a, step1));
  assert.equal((await b.verify(ioInputs(b, step2), step2.outputs, TOL)).isValid, false);
  assert.ok((await a.verify(ioInputs(a, step2), step2.outputs, TOL)).isValid);
  a.dispose();
  b.dispose();
});
