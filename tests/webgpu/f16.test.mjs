// float16 elementwise kernels where the adapter has shader-f16 (lavapipe 25 has): f16 storage,
// computed in f32 and rounded once on the store (as the CPU engine does), against a float64
// reference of the same f16 inputs rounded to f16. Without shader-f16 the test skips.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest, elementwise, upload, download } from './gpu.mjs';
import { rng, toHalf, fromHalf, erf } from './ref.mjs';

const REF = {
  relu: (a) => Math.max(a, 0), gelu: (a) => 0.5 * a * (1 + erf(a / Math.SQRT2)), sigmoid: (a) => 1 / (1 + Math.exp(-a)),
  silu: (a) => a / (1 + Math.exp(-a)), add: (a, b) => a + b, mul: (a, b) => a * b, div: (a, b) => a / b,
  where: (c, a, b) => (c ? a : b),
};

test('f16 elementwise: unary, broadcast binary, where', gpuTest(async (t, gpu) => {
  if (!gpu.f16) { t.skip('adapter has no shader-f16'); return; }
  const rand = rng(7);
  const halfs = (n, lo = -4, hi = 4) => Uint16Array.from({ length: n }, () => toHalf(lo + rand() * (hi - lo)));
  for (const op of ['relu', 'gelu', 'sigmoid', 'silu']) {
    const a = halfs(67);
    const y = await elementwise(gpu, op, [upload(gpu, a, 'float16', [67])]);
    assert.equal(y.dtype, 'float16');
    const got = await download(gpu, y);
    a.forEach((h, i) => {
      const want = fromHalf(toHalf(REF[op](fromHalf(h))));
      assert.ok(Math.abs(fromHalf(got[i]) - want) <= 2 ** -10 * Math.abs(want) + 1e-4, `${op}(${fromHalf(h)}): ${fromHalf(got[i])} vs ${want}`);
    });
  }
  for (const op of ['add', 'mul', 'div']) {
    const a = halfs(15);
    const b = halfs(5, 0.5, 2);
    const y = await elementwise(gpu, op, [upload(gpu, a, 'float16', [3, 5]), upload(gpu, b, 'float16', [5])], { p0: 1 });
    const got = await download(gpu, y);
    for (let i = 0; i < 15; i++) {
      const want = fromHalf(toHalf(REF[op](fromHalf(a[i]), fromHalf(b[i % 5]))));
      assert.equal(fromHalf(got[i]), want, `${op} element ${i}`);
    }
  }
  const c = Uint32Array.from({ length: 7 }, () => (rand() < 0.5 ? 1 : 0));
  const a = halfs(7);
  const b = halfs(7);
  const y = await elementwise(gpu, 'where', [upload(gpu, c, 'bool', [7]), upload(gpu, a, 'float16', [7]), upload(gpu, b, 'float16', [7])]);
  assert.deepEqual([...await download(gpu, y)], [...c].map((v, i) => (v ? a[i] : b[i])));
}));
