// Soak (issue 10, item 5): 1,000 load/dispose cycles and 10,000 executions,
// each also with a failure every other time, in both builds. After warm-up
// the WASM heap in use (dlmalloc's mallinfo, via the internal _debugHeapInUse
// hook), the WASM memory size and the JS heap (after gc) must stay flat.
// Needs global.gc: without --expose-gc this file reruns itself in a child
// `node --expose-gc --test`.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { env, loadIR, getBackend, ExecutionError, IRFormatError } from '../index.js';
import { TEST_WASM_PATHS, TOL, assertClose, assertTestBuild, fixture, readIo } from './helpers.mjs';

// Tolerances, as bytes over the whole measured loop (after warm-up):
// - WASM heap in use: every allocation of a load or a run is freed, so it
//   returns to the same byte count; 16 KiB leaves room for one-time growth of
//   allocator-internal or Embind caches, while a leak of 2 bytes per
//   execution (10,000 runs) or 16 bytes per load (1,000 loads) exceeds it.
// - WASM memory size: must not grow at all (it never shrinks).
// - JS heap after gc: V8's heap moves by a few hundred KiB between gc() calls
//   (inline caches, compiled code); 2 MiB is that noise with margin, and less
//   than one retained output per execution (~200 B x 10,000) or one retained
//   Model per load (> 2 KiB x 1,000).
const WASM_SLACK = 16 * 1024;
const JS_SLACK = 2 * 1024 * 1024;

if (typeof globalThis.gc !== 'function') {
  test('soak tests (in a child node --expose-gc)', () => {
    // Without NODE_TEST_CONTEXT (set by a parent `node --test`), the child
    // reports as plain TAP on stdout.
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT;
    const r = spawnSync(process.execPath, ['--expose-gc', '--test', '--test-reporter=tap', fileURLToPath(import.meta.url)], {
      encoding: 'utf8',
      env,
      timeout: 300000,
    });
    if (r.status !== 0) assert.fail(`soak child failed (status ${r.status}, signal ${r.signal}):\n${r.stdout}\n${r.stderr}`);
    const summary = r.stdout.split('\n').filter((l) => /^# (pass|fail|tests)|^not ok|soak:/.test(l)).join('\n');
    assert.match(summary, /# pass 4\n# fail 0/, summary);
    console.log(summary);
  });
} else {
  before(assertTestBuild);
  env.wasmPaths = TEST_WASM_PATHS; // _debugHeapInUse: the test-only modules
  soakTests();
}

function jsHeap() {
  for (let i = 0; i < 3; ++i) globalThis.gc();
  return process.memoryUsage().heapUsed;
}

function snapshot(backend) {
  return { inUse: Number(backend.module._debugHeapInUse()), size: backend.heapBytes(), js: jsHeap() };
}

function assertFlat(what, warm, after) {
  const line = `soak: ${what}: WASM in use ${warm.inUse} -> ${after.inUse} B, WASM size ${warm.size} -> ${after.size} B, ` +
    `JS heap ${warm.js} -> ${after.js} B`;
  console.log(line);
  assert.ok(after.inUse - warm.inUse <= WASM_SLACK, `${line}: WASM heap in use grew`);
  assert.equal(after.size, warm.size, `${line}: WASM memory grew`);
  assert.ok(after.js - warm.js <= JS_SLACK, `${line}: JS heap grew`);
}

function soakTests() {
  const fx = fixture('SimpleMLP');
  const irText = readFileSync(fx.model, 'utf8');
  const weights = readFileSync(fx.weights);
  const io = readIo(fx.io);
  const x = io.inputs.x.data;
  // Wrong shape, consistent in itself: it reaches the engine (setInput + run),
  // which refuses it with an ExecutionError (a C++ exception in WASM).
  const wrongX = { data: new Float32Array(x.length + 1), shape: [1, x.length + 1] };

  for (const threads of [1, 2]) {
    const cycle = async (fail) => {
      if (fail) {
        // An op the engine does not have: loadIR fails after the module read the IR.
        const bad = irText.replace('"aten.linear.default"', '"aten.no_such_op.default"');
        await assert.rejects(loadIR(bad, { weights, threads }), (e) => e instanceof IRFormatError || e instanceof ExecutionError);
        return;
      }
      const m = await loadIR(irText, { weights, threads });
      await m.execute([x]);
      m.dispose();
    };

    test(`threads=${threads}: 1,000 load/dispose cycles, then 1,000 with a failing load every other time: memory flat`, async () => {
      const backend = await getBackend({ threads });
      for (let i = 0; i < 300; ++i) await cycle(i % 2 === 1); // warm-up: JIT, inline caches, allocator
      let warm = snapshot(backend);
      for (let i = 0; i < 1000; ++i) await cycle(false);
      assertFlat(`threads=${threads} 1,000 load/dispose`, warm, snapshot(backend));
      warm = snapshot(backend);
      for (let i = 0; i < 1000; ++i) await cycle(i % 2 === 1);
      assertFlat(`threads=${threads} 1,000 load/dispose, every other load failing`, warm, snapshot(backend));
      assert.equal(backend.dead, null);
    });

    test(`threads=${threads}: 10,000 executions, then 10,000 with a failing one every other time: memory flat`, async () => {
      const m = await loadIR(irText, { weights, threads });
      const backend = await getBackend({ threads });
      const run = async (fail) => {
        if (fail) await assert.rejects(m.execute([wrongX]), ExecutionError);
        else await m.execute([x]);
      };
      for (let i = 0; i < 2000; ++i) await run(i % 2 === 1); // warm-up
      let warm = snapshot(backend);
      for (let i = 0; i < 10000; ++i) await run(false);
      assertFlat(`threads=${threads} 10,000 executions`, warm, snapshot(backend));
      warm = snapshot(backend);
      for (let i = 0; i < 10000; ++i) await run(i % 2 === 1);
      assertFlat(`threads=${threads} 10,000 executions, every other one failing`, warm, snapshot(backend));
      const [y] = await m.execute([x]);
      assertClose(y.data, io.outputs[0].data, TOL, 'still the recorded output');
      m.dispose();
    });
  }
}
