// No JS-side path may hang: a pthread worker that dies or never answers while
// the threaded module starts rejects the load within seconds (instead of the
// module waiting for it forever), and the load after that works.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadIR, getBackend, env, TorchIrError } from '../index.js';
import { TOL, assertClose, assertDist, fixture, ioInputs, readIo, NPM_DIR } from './helpers.mjs';

const dirs = [];
before(assertDist);
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

// A copy of the threaded build whose pthread worker script is `workerSource`.
function brokenDist(workerSource) {
  const dir = mkdtempSync(join(tmpdir(), 'tir-hang-'));
  dirs.push(dir);
  for (const f of ['torch-ir-wasm-simd-threaded.js', 'torch-ir-wasm-simd-threaded.wasm', 'package.json']) {
    copyFileSync(join(NPM_DIR, 'dist', f), join(dir, f));
  }
  writeFileSync(join(dir, 'torch-ir-wasm-simd-threaded.worker.js'), workerSource);
  return dir + '/';
}

async function rejectsWithin(promise, ms, re) {
  const t0 = Date.now();
  await assert.rejects(promise, (e) => e instanceof TorchIrError && re.test(e.message));
  const took = Date.now() - t0;
  assert.ok(took < ms, `took ${took} ms`);
}

test('a pthread worker that throws while starting fails the load at once', async () => {
  const wasmPaths = brokenDist('throw new Error("boom while starting");');
  await rejectsWithin(getBackend({ threads: 2, wasmPaths }), 20000, /cannot load the simd-threaded WASM build.*boom while starting/);
});

test('a pthread worker that exits while starting fails the load at once', async () => {
  const wasmPaths = brokenDist('process.exit(3);');
  await rejectsWithin(getBackend({ threads: 2, wasmPaths }), 20000, /cannot load.*pthread worker (exited unexpectedly \(code 3\)|died)/);
});

test('a pthread worker that never answers fails the load after env.workerStartTimeoutMs', async () => {
  const wasmPaths = brokenDist('setInterval(() => {}, 1 << 30);');
  const saved = env.workerStartTimeoutMs;
  env.workerStartTimeoutMs = 1500;
  try {
    await rejectsWithin(getBackend({ threads: 2, wasmPaths }), 20000, /did not start within 1500 ms/);
  } finally {
    env.workerStartTimeoutMs = saved;
  }
});

test('after failed starts, the real build loads and runs', async () => {
  const fx = fixture('SimpleMLP');
  const io = readIo(fx.io);
  const m = await loadIR(fx.model, { weights: fx.weights, threads: 2 });
  const [y] = await m.execute(ioInputs(m, io));
  assertClose(y.data, io.outputs[0].data, TOL, 'SimpleMLP');
  m.dispose();
});
