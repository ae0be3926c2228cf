// The kernels' SIMD-vs-reference sweeps (src/kernels/selfcheck.cpp: gemm around
// every MR/NR/KC edge with transposed, padded and prepacked operands and every
// epilogue; conv 1-D/2-D/3-D, strided, padded, dilated, grouped, depthwise,
// pointwise, Winograd 3x3) run inside both WASM builds, whose SIMD target
// (WASM128) is not the one the native tests exercise. The sweeps are test code:
// only the test-only modules (build/wasm-test) have them, never npm/dist.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

// Node 20's V8 has relaxed SIMD behind a flag (Chromium and Node 22 have it on): with it, the
// blocked f32 GEMM runs on the relaxed module (kernels/wasm_relaxed/gemm_f32_relaxed.c) and the
// same sweeps check it against float64, in both builds.
for (const threads of [1, 2]) {
  test(`kernel selfcheck with relaxed SIMD (node --experimental-wasm-relaxed-simd, ${threads} thread(s))`, () => {
    const index = pathToFileURL(fileURLToPath(new URL('../index.js', import.meta.url))).href;
    const helpers = pathToFileURL(fileURLToPath(new URL('./helpers.mjs', import.meta.url))).href;
    const script = `import { getBackend } from ${JSON.stringify(index)};
import { TEST_WASM_PATHS } from ${JSON.stringify(helpers)};
const b = await getBackend({ threads: ${threads}, wasmPaths: TEST_WASM_PATHS });
process.stdout.write(String(b.module.kernelSelfcheck()));
process.exit(0);`;
    // a file, not -e: the pthread Workers inherit execArgv, and --input-type=module would make
    // their CommonJS script an ES module
    const dir = mkdtempSync(join(tmpdir(), 'tir-relaxed-'));
    let out;
    try {
      writeFileSync(join(dir, 'selfcheck.mjs'), script);
      out = execFileSync(process.execPath, ['--experimental-wasm-relaxed-simd', join(dir, 'selfcheck.mjs')],
                         { encoding: 'utf8', maxBuffer: 1 << 26 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const r = JSON.parse(out);
    assert.equal(r.relaxed_f32, true, 'the f32 GEMM did not take the relaxed module');
    assert.ok(r.gemm.cases > 250, `gemm cases: ${r.gemm.cases}`);
    for (const k of ['gemm', 'conv', 'pool', 'transcendental', 'quantized']) assert.equal(r[k].failures, 0, `${k}: ${r[k].report}`);
    console.log(`# relaxed_madd ${r.relaxed_f32_fused ? 'fused' : 'not fused'}; int8 GEMM on ${r.relaxed_s8 ? 'relaxed SIMD' : 'SIMD128'}`);
  });
}
