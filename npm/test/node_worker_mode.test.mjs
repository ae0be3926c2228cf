// env.proxy = true in Node (issue 12): the engine runs in a worker_threads
// Worker (lib/node/worker-mode.js), so execute() no longer blocks the event
// loop. Measured: a 5 ms timer fires ~0 times during a stretch of direct
// executes and dozens of times during the same stretch in worker mode. Also:
// same results as direct mode, error classes and messages kept, a dying worker
// rejects every pending call, dispose, thread options forwarded, and a script
// exits on its own (with or without dispose) but waits for a pending call.
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  env, loadIR, EngineTrapError, ExecutionError, IRFormatError, TorchIrError, VerificationError, WeightLoadError,
} from '../index.js';
import { debugFaultProxy } from '../lib/proxy.js';
import { NPM_DIR, TEST_WASM_PATHS, TOL, assertClose, assertTestBuild, fixture, ioInputs, readIo } from './helpers.mjs';

assertTestBuild(); // npm/dist, and build/wasm-test for debugFaultProxy
afterEach(() => {
  env.proxy = false;
  env.numThreads = 0;
});

const SIMPLE = fixture('SimpleMLP');
const CNN = fixture('small_cnn');

async function load(fx, options = {}, proxy = true) {
  env.proxy = proxy;
  try {
    return await loadIR(fx.model, { weights: fx.weights, ...options });
  } finally {
    env.proxy = false;
  }
}

// Times a 5 ms interval fires while `run` runs (started and awaited here).
async function ticksDuring(run) {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const t0 = performance.now();
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  return { ticks, ms: performance.now() - t0 };
}

// Back-to-back executes for `ms` (a server handling requests, or one long run).
const busyFor = (model, inputs, ms) => async () => {
  const until = performance.now() + ms;
  let runs = 0;
  while (performance.now() < until) {
    await model.execute(inputs);
    runs++;
  }
  assert.ok(runs > 0);
};

test('worker mode: a timer keeps firing during executes (direct mode: it does not)', async () => {
  const io = readIo(CNN.io);
  const direct = await load(CNN, { threads: 2 }, false);
  const inWorker = await load(CNN, { threads: 2 });
  assert.equal(direct.backend.proxy, undefined);
  assert.equal(inWorker.backend.proxy, true);
  const before = await ticksDuring(busyFor(direct, ioInputs(direct, io), 400));
  const after = await ticksDuring(busyFor(inWorker, ioInputs(inWorker, io), 400));
  console.log(`# 5 ms timer ticks during ${before.ms.toFixed(0)} ms of small_cnn executes: direct ${before.ticks}, ` +
    `worker mode ${after.ticks} (of ~${(after.ms / 5).toFixed(0)} possible)`);
  // Direct: the work and the awaits of already-resolved promises never yield to timers.
  assert.ok(before.ticks <= 1, `direct mode: ${before.ticks} ticks`);
  assert.ok(after.ticks >= Math.max(10, after.ms / 5 / 4), `worker mode: ${after.ticks} ticks in ${after.ms} ms`);
  direct.dispose();
  await inWorker.dispose();
});

test('worker mode: outputs identical to direct mode (float32, int64, recurrent models)', async () => {
  for (const name of ['SimpleMLP', 'small_cnn', 'GatherWithIndex', 'lstm']) {
    const fx = fixture(name);
    const io = readIo(fx.io);
    const direct = await load(fx, { threads: 2 }, false);
    const inWorker = await load(fx, { threads: 2 });
    assert.equal(inWorker.backend.proxy, true);
    assert.deepEqual(inWorker.inputs, direct.inputs, name);
    assert.deepEqual(inWorker.outputs, direct.outputs, name);
    const want = await direct.execute(ioInputs(direct, io));
    const got = await inWorker.execute(ioInputs(inWorker, io));
    assert.equal(got.length, want.length);
    got.forEach((o, i) => {
      assert.deepEqual(o, want[i], `${name} output ${i}`); // same class, dtype, shape and bits
      assertClose(o.data, io.outputs[i].data, TOL, `${name} vs PyTorch`);
    });
    assert.equal(await inWorker.info(), direct.info(), name);
    direct.dispose();
    await inWorker.dispose();
  }
});

test('worker mode: onProgress is called from the worker; inputs copied unless transferInputs', async () => {
  const seen = [];
  const m = await load(SIMPLE, { threads: 1, onProgress: (p) => seen.push(p) });
  assert.ok(seen.some((p) => p.source === SIMPLE.model && p.loaded === p.total && p.total > 0), JSON.stringify(seen));
  assert.ok(seen.some((p) => p.source === SIMPLE.weights), JSON.stringify(seen));
  const io = readIo(SIMPLE.io);
  const x = Float32Array.from(ioInputs(m, io)[0].data);
  const [copied] = await m.execute([x]);
  assert.equal(x.length, 4, 'copied: still usable here');
  const [moved] = await m.execute([x], { transferInputs: true });
  assert.equal(x.length, 0, 'transferred: detached here');
  assert.deepEqual(moved, copied);
  assert.ok(moved.data instanceof Float32Array);
  await m.dispose();
});

test('worker mode: errors keep their classes and messages', async () => {
  const io = readIo(SIMPLE.io);
  const both = async (what, fn) => {
    const errs = [];
    for (const proxy of [false, true]) {
      env.proxy = proxy;
      try {
        await fn(proxy);
        assert.fail(`${what}: no error (proxy ${proxy})`);
      } catch (e) {
        errs.push(e);
      } finally {
        env.proxy = false;
      }
    }
    const [direct, proxied] = errs;
    assert.equal(proxied.constructor, direct.constructor, `${what}: ${proxied.stack}`);
    assert.equal(proxied.message, direct.message, what);
    return proxied;
  };
  assert.ok(await both('missing IR', () => loadIR('/nonexistent/model.json')) instanceof IRFormatError);
  assert.ok(await both('missing weights', () => loadIR(SIMPLE.model, { weights: '/nonexistent/w.safetensors' })) instanceof WeightLoadError);
  const direct = await load(SIMPLE, { threads: 1 }, false);
  const inWorker = await load(SIMPLE, { threads: 1 });
  const bad = [new Float32Array(3)];
  assert.ok(await both('bad input', (p) => (p ? inWorker : direct).execute(bad)) instanceof ExecutionError);
  const x = ioInputs(direct, io);
  assert.ok(await both('bad expected', (p) => (p ? inWorker : direct).verify(x, [new Float32Array(1)])) instanceof VerificationError);
  // _debugFault: the worker's test-only module (its own instance; inWorker's stays up).
  await assert.rejects(debugFaultProxy('oob', { threads: 1, wasmPaths: TEST_WASM_PATHS }), (e) => e instanceof EngineTrapError && /memory access out of bounds/.test(e.message));
  direct.dispose();
  await inWorker.dispose();
  await assert.rejects(inWorker.execute(x), (e) => e instanceof TorchIrError && /model is disposed/.test(e.message));
});

for (const [kind, why] of [['proxy-exit', /the worker exited \(code 7\)/], ['proxy-throw', /uncaught Error in the worker: debugFault proxy-throw/]]) {
  test(`worker mode: a worker that dies (${kind}) rejects every pending call; a new worker serves the next load`, async () => {
    const io = readIo(SIMPLE.io);
    const m = await load(SIMPLE, { threads: 1 });
    const x = ioInputs(m, io);
    const t0 = Date.now();
    // Queued behind the fault: all pending when the thread dies.
    const calls = [debugFaultProxy(kind), m.execute(x), m.info(), load(SIMPLE, { threads: 1 })];
    const results = await Promise.allSettled(calls);
    for (const r of results) {
      assert.equal(r.status, 'rejected');
      assert.ok(r.reason instanceof EngineTrapError && why.test(r.reason.message), r.reason.stack);
      assert.match(r.reason.message, /pending calls were rejected and the next load starts a new worker/);
    }
    assert.ok(Date.now() - t0 < 10000);
    await assert.rejects(m.execute(x), (e) => e instanceof EngineTrapError && /proxy worker this model was loaded in died/.test(e.message));
    await m.dispose(); // its memory went with the worker: nothing to do, no throw
    const fresh = await load(SIMPLE, { threads: 1 });
    const [y] = await fresh.execute(x);
    assertClose(y.data, io.outputs[0].data, TOL, 'after a new worker');
    await fresh.dispose();
  });
}

test('worker mode: dispose frees the model in the worker', async () => {
  const m = await load(SIMPLE, { threads: 1 });
  const handle = m._handle;
  await m.dispose();
  assert.equal(m.disposed, true);
  await m.dispose(); // twice: no-op
  // The worker no longer knows the handle (a stale handle is refused there too).
  const ghost = Object.assign(Object.create(Object.getPrototypeOf(m)), { _handle: handle, _generation: m._generation });
  await assert.rejects(ghost.info(), (e) => e instanceof TorchIrError && /model is disposed/.test(e.message));
});

test('worker mode: threads / env.numThreads reach the worker', async () => {
  const one = await load(SIMPLE, { threads: 1 });
  assert.deepEqual(one.backend, { variant: 'simd', threads: 1, proxy: true });
  const two = await load(SIMPLE, { threads: 2 });
  assert.deepEqual(two.backend, { variant: 'simd-threaded', threads: 2, proxy: true });
  env.numThreads = 1;
  const viaEnv = await load(SIMPLE);
  assert.deepEqual(viaEnv.backend, { variant: 'simd', threads: 1, proxy: true });
  await Promise.all([one.dispose(), two.dispose(), viaEnv.dispose()]);
});

// A script run as `node script.mjs`: its exit code, output and run time.
function runScript(body) {
  const index = pathToFileURL(join(NPM_DIR, 'index.js')).href;
  const src = `import { env, loadIR } from ${JSON.stringify(index)};
    const workerBefore = typeof globalThis.Worker;
    env.proxy = true;
    const m = await loadIR(${JSON.stringify(SIMPLE.model)}, { weights: ${JSON.stringify(SIMPLE.weights)} });
    const x = new Float32Array(4).fill(0.5);
    ${body}`;
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', src], { encoding: 'utf8', timeout: 60000 });
  return { ...r, ms: Date.now() - t0 };
}

test('worker mode: a script exits without dispose, after dispose, and waits for a pending call', () => {
  const noDispose = runScript(`const [y] = await m.execute([x]);
    console.log('ran', y.shape.join('x'), typeof globalThis.Worker === workerBefore ? 'no-global-Worker-change' : 'Worker-changed');`);
  assert.equal(noDispose.status, 0, noDispose.stderr);
  assert.equal(noDispose.signal, null, 'not killed by the timeout');
  assert.equal(noDispose.stdout.trim(), 'ran 1x2 no-global-Worker-change');
  const disposed = runScript(`await m.execute([x]); await m.dispose(); console.log('disposed', m.disposed);`);
  assert.equal(disposed.status, 0, disposed.stderr);
  assert.equal(disposed.stdout.trim(), 'disposed true');
  // Nothing awaited at the end: the pending call keeps the process alive until answered.
  const pending = runScript(`m.execute([x]).then(([y]) => console.log('answered', y.data.length));`);
  assert.equal(pending.status, 0, pending.stderr);
  assert.equal(pending.stdout.trim(), 'answered 2');
  console.log(`# script run times: no dispose ${noDispose.ms} ms, dispose ${disposed.ms} ms, pending call ${pending.ms} ms`);
});
