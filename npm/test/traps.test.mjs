// Dead-instance recovery (npm/lib/trap.js): a trap inside the engine, on the
// calling thread or in a pthread worker, surfaces as an EngineTrapError, the
// models on that instance fail clearly from then on, the process survives, and
// the next load gets a fresh instance that runs a good model correctly.
// The traps come from the internal test hook _debugFault (bindings/embind_debug.cpp),
// which only the test-only modules have: every load in this file uses them.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { env, loadIR, getBackend, EngineTrapError, ExecutionError, TorchIrError } from '../index.js';
import { debugFault } from '../lib/backend.js';
import { TEST_WASM_PATHS, TOL, assertClose, assertTestBuild, fixture, ioInputs, readIo } from './helpers.mjs';

before(assertTestBuild);
env.wasmPaths = TEST_WASM_PATHS;

const KINDS = ['unreachable', 'oob', 'stack', 'abort'];
const TRAP_TEXT = {
  unreachable: /unreachable/,
  oob: /memory access out of bounds/,
  stack: /Maximum call stack size exceeded/,
  abort: /Aborted/,
};

async function runGood(threads) {
  const fx = fixture('SimpleMLP');
  const io = readIo(fx.io);
  const m = await loadIR(fx.model, { weights: fx.weights, threads });
  const [y] = await m.execute(ioInputs(m, io));
  assertClose(y.data, io.outputs[0].data, TOL, 'SimpleMLP output');
  return m;
}

async function assertTrapAndRecovery(kind, threads, text) {
  const before = await getBackend({ threads });
  const victim = await runGood(threads);
  const t0 = Date.now();
  const err = await debugFault(kind, { threads }).then(
    (msg) => assert.fail(`_debugFault('${kind}') returned instead of trapping: ${msg}`),
    (e) => e,
  );
  assert.ok(Date.now() - t0 < 15000, `${kind}: the trap took ${Date.now() - t0} ms to surface`);
  assert.ok(err instanceof EngineTrapError, `${kind}: got ${err?.name}: ${err?.message}`);
  assert.ok(err instanceof ExecutionError && err instanceof TorchIrError);
  assert.match(err.message, /trapped in _debugFault/);
  assert.match(err.message, /instance was discarded/);
  if (text) assert.match(err.message, text);
  assert.ok(before.dead, 'the trapped instance is marked dead');

  // Every model on the discarded instance refuses, clearly, without touching it.
  const fx = fixture('SimpleMLP');
  await assert.rejects(victim.execute(ioInputs(victim, readIo(fx.io))), (e) => e instanceof EngineTrapError && /discarded after a trap/.test(e.message));
  assert.throws(() => victim.info(), EngineTrapError);
  victim.dispose(); // no call into the dead instance, no throw

  const after = await getBackend({ threads });
  assert.notEqual(after, before, 'a fresh instance');
  assert.equal(after.dead, null);
  (await runGood(threads)).dispose();
}

for (const kind of KINDS) {
  test(`single-threaded build: '${kind}' trap -> EngineTrapError, instance rebuilt, good model runs`, async () => {
    await assertTrapAndRecovery(kind, 1, TRAP_TEXT[kind]);
  });
  test(`threaded build (calling thread): '${kind}' trap -> EngineTrapError, instance rebuilt, good model runs`, async () => {
    await assertTrapAndRecovery(kind, 2, TRAP_TEXT[kind]);
  });
}

// In a pthread: the worker dies ('error' event, which Emscripten's own handler
// would rethrow and so end this process); the caller blocked in parallel_for
// is released with 'unwind' within milliseconds.
for (const kind of KINDS) {
  test(`threaded build, in a pthread worker: '${kind}' -> EngineTrapError, process survives, good model runs`, async () => {
    await assertTrapAndRecovery(`worker-${kind}`, 2);
  });
}

test('a trap in one variant leaves the other variant alone', async () => {
  const single = await runGood(1);
  await assert.rejects(debugFault('oob', { threads: 2 }), EngineTrapError);
  const fx = fixture('SimpleMLP');
  const io = readIo(fx.io);
  const [y] = await single.execute(ioInputs(single, io));
  assertClose(y.data, io.outputs[0].data, TOL, 'single-threaded model after a threaded trap');
  single.dispose();
});

test('an unknown fault kind is a plain message, not a trap', async () => {
  const msg = await debugFault('nope', { threads: 1 });
  assert.match(msg, /unknown kind 'nope'/);
  assert.equal((await getBackend({ threads: 1 })).dead, null);
});

test('the glue\'s thrown engine errors keep their class (not mistaken for traps)', async () => {
  const fx = fixture('SimpleMLP');
  const m = await loadIR(fx.model, { weights: fx.weights, threads: 1 });
  const b = await getBackend({ threads: 1 });
  // bufferBytes() of an unknown buffer: the glue throws Error{name: kind}
  // (or_throw in bindings/glue.h), an engine error, not a trap.
  assert.throws(() => m.bufferValue('nope'), (e) => e instanceof TorchIrError && !(e instanceof EngineTrapError) && /nope/.test(e.message));
  assert.equal(b.dead, null);
  const io = readIo(fx.io);
  const [y] = await m.execute(ioInputs(m, io));
  assertClose(y.data, io.outputs[0].data, TOL, 'same model afterwards');
  m.dispose();
});
