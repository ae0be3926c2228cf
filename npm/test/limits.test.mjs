// loadIR / loadLM `limits`: validated in JS, then handed to the engine
// (WasmModel/WasmLM.setLimits) before compile, so an IR whose tensors exceed
// them fails at load with the engine's limit message.
// The engine side (setLimits) comes from the hard-limits branch: until that is
// merged, the two tests that reach the engine fail with "this WASM build has
// no setLimits()".
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadIR, loadLM, ExecutionError } from '../index.js';
import { assertDist, linearIr } from './helpers.mjs';

before(assertDist);

const n = 64;
const weights = { weight: { data: new Float32Array(n * n), shape: [n, n] }, bias: new Float32Array(n) };

test('limits are validated before anything loads', async () => {
  const bad = [
    [[1, 2], /limits must be an object/],
    ['big', /limits must be an object/],
    [{ maxTensorBytes: -1 }, /limits.maxTensorBytes must be a non-negative integer/],
    [{ maxArenaBytes: 1.5 }, /limits.maxArenaBytes must be a non-negative integer/],
    [{ maxRunWork: '10' }, /limits.maxRunWork must be a non-negative integer/],
    [{ maxRunWork: 2 ** 60 }, /limits.maxRunWork must be a non-negative integer/],
    [{ maxTensorByte: 10 }, /unknown limit 'maxTensorByte'/],
  ];
  for (const [limits, re] of bad) {
    await assert.rejects(loadIR(linearIr(n), { weights, limits, threads: 1 }), (e) => e instanceof ExecutionError && re.test(e.message), JSON.stringify(limits));
  }
  await assert.rejects(loadLM({ prefill: '{}', decode: '{}', kvMapping: '{}', limits: { nope: 1 } }), /loadLM: unknown limit 'nope'/);
});

for (const threads of [1, 2]) {
  test(`threads=${threads}: a tensor over limits.maxTensorBytes fails at load with the engine's limit message`, async () => {
    await assert.rejects(
      loadIR(linearIr(n), { weights, threads, limits: { maxTensorBytes: 128 } }),
      (e) => e instanceof ExecutionError && /max_tensor_bytes/.test(e.message) && /over the limit/.test(e.message),
    );
    // Generous (and default: 0) limits load and run.
    for (const limits of [{ maxTensorBytes: 1 << 20, maxArenaBytes: 1 << 20, maxRunWork: 1 << 20 }, { maxTensorBytes: 0 }]) {
      const m = await loadIR(linearIr(n), { weights, threads, limits });
      const [y] = await m.execute([new Float32Array(n)]);
      assert.equal(y.data.length, n);
      m.dispose();
    }
  });
}
