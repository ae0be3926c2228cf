// The kernels' SIMD-vs-reference sweeps (src/kernels/selfcheck.cpp: gemm around
// every MR/NR/KC edge with transposed, padded and prepacked operands and every
// epilogue; conv 1-D/2-D/3-D, strided, padded, dilated, grouped, depthwise,
// pointwise, Winograd 3x3) run inside both WASM builds, whose SIMD target
// (WASM128) is not the one the native tests exercise. The sweeps are test code:
// only the test-only modules (build/wasm-test) have them, never npm/dist.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { getBackend } from '../index.js';
import { TEST_WASM_PATHS, assertTestBuild } from './helpers.mjs';

before(assertTestBuild);

const TEST_HOOKS = ['kernelSelfcheck', '_debugFault', '_debugHeapInUse'];

for (const threads of [1, 2]) {
  const name = threads === 1 ? 'simd' : 'simd-threaded';
  test(`the dist ${name} build carries no test hooks; the test-only one has them all`, async () => {
    const dist = await getBackend({ threads });
    const testBuild = await getBackend({ threads, wasmPaths: TEST_WASM_PATHS });
    assert.notEqual(dist, testBuild);
    assert.equal(dist.variant, name);
    assert.equal(testBuild.variant, name);
    for (const hook of TEST_HOOKS) {
      assert.equal(typeof dist.module[hook], 'undefined', `npm/dist's ${name} build exports ${hook}`);
      assert.equal(typeof testBuild.module[hook], 'function', `the test-only ${name} build lacks ${hook}`);
    }
  });

  test(`kernel selfcheck in the ${name} build (${threads} thread(s))`, async () => {
    const b = await getBackend({ threads, wasmPaths: TEST_WASM_PATHS });
    const r = JSON.parse(String(b.module.kernelSelfcheck()));
    assert.equal(r.nr, 8, 'WASM128 micro-kernel is 4 x 8');
    assert.equal(r.mr, 4, 'WASM128 micro-kernel is 4 x 8');
    assert.ok(r.gemm.cases > 250, `gemm cases: ${r.gemm.cases}`);
    assert.ok(r.conv.cases > 40, `conv cases: ${r.conv.cases}`);
    assert.equal(r.gemm.failures, 0, r.gemm.report);
    assert.equal(r.conv.failures, 0, r.conv.report);
    assert.ok(r.pool.cases > 40, `pool cases: ${r.pool.cases}`);
    assert.equal(r.pool.failures, 0, r.pool.report);
    // exp, sigmoid, silu, gelu, gelu-tanh in float32 lanes (WASM has no float64 SIMD math).
    assert.ok(r.transcendental.cases > 20000, `transcendental cases: ${r.transcendental.cases}`);
    assert.equal(r.transcendental.failures, 0, r.transcendental.report);
    // the int8 GEMM, the int8 x int4 GEMM and the dynamic activation rows, bit for bit
    assert.ok(r.quantized.cases > 400, `quantized cases: ${r.quantized.cases}`);
    assert.equal(r.quantized.failures, 0, r.quantized.report);
  });
}
