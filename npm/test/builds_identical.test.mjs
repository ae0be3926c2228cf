// Both builds, 1 and 2 threads, give bit-identical results on every model fixture.
// Its own file (own process): the large fixtures (gpt2_wide: ~700 MiB) grow the WASM
// heap, which runtime.test.mjs's heap-growth checks must not inherit.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadIR } from '../index.js';
import { assertDist, fixtureDirs, ioInputs, readIo } from './helpers.mjs';

before(assertDist);

async function outputsWith(fx, threads) {
  const m = await loadIR(fx.model, { weights: fx.weights, threads });
  try {
    return { variant: m.backend.variant, threads: m.backend.threads, outputs: await m.execute(ioInputs(m, readIo(fx.io))) };
  } finally {
    m.dispose();
  }
}

test('threads 1 (simd build) and 2 (threaded build) give identical results on every fixture', async () => {
  for (const fx of fixtureDirs()) {
    const one = await outputsWith(fx, 1);
    const two = await outputsWith(fx, 2);
    assert.equal(one.variant, 'simd');
    assert.equal(one.threads, 1);
    assert.equal(two.variant, 'simd-threaded');
    assert.equal(two.threads, 2);
    assert.equal(one.outputs.length, two.outputs.length);
    one.outputs.forEach((o, i) => {
      assert.deepEqual(o.shape, two.outputs[i].shape);
      assert.deepEqual(o.data, two.outputs[i].data, `${fx.name} output ${i}: threads 1 vs 2 differ`);
    });
  }
});

