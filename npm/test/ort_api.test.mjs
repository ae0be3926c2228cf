// The onnxruntime-web style layer (Tensor, InferenceSession, env.wasm) and the
// load options around it: progress events per file, AbortSignal, fetchOptions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import {
  Tensor, InferenceSession, loadIR, env, getBackend, ExecutionError, IRFormatError, WeightLoadError,
} from '../index.js';
import { TOL, assertClose, assertDist, fixture, readIo } from './helpers.mjs';

before(assertDist);

const cnn = fixture('small_cnn');
const cnnIo = readIo(cnn.io);
const bert = fixture('bert_encoder');
const bertIo = readIo(bert.io);

test('Tensor(type, data, dims): ORT type names, plain arrays converted, dims default to [length]', () => {
  const t = new Tensor('float32', [1, 2, 3, 4, 5, 6], [2, 3]);
  assert.equal(t.type, 'float32');
  assert.deepEqual(t.dims, [2, 3]);
  assert.ok(t.data instanceof Float32Array);
  assert.deepEqual([...t.data], [1, 2, 3, 4, 5, 6]);
  assert.equal(t.size, 6);
  assert.equal(t.location, 'cpu');
  assert.deepEqual(new Tensor('int64', [1, 2n]).data, new BigInt64Array([1n, 2n]));
  assert.deepEqual(new Tensor('int64', [3, 4, 5]).dims, [3]);
  assert.deepEqual(new Tensor('bool', [true, false, true]).data, new Uint8Array([1, 0, 1]));
  const half = new Uint16Array([0x3c00]);
  assert.equal(new Tensor('float16', half, [1]).data, half, 'a typed array of the right class is kept, not copied');
  assert.deepEqual(new Tensor('int32', [], [0, 4]).dims, [0, 4]);
  const r = t.reshape([3, 2]);
  assert.deepEqual(r.dims, [3, 2]);
  assert.equal(r.data, t.data);
});

test('Tensor(data, dims): the type follows the typed array (or the plain array\'s values)', async () => {
  const cases = [
    [new Float32Array(2), 'float32'], [new Float64Array(2), 'float64'], [new BigInt64Array(2), 'int64'],
    [new Int32Array(2), 'int32'], [new Int16Array(2), 'int16'], [new Int8Array(2), 'int8'],
    [new Uint8Array(2), 'uint8'], [new Uint8ClampedArray(2), 'uint8'], [new Uint16Array(2), 'float16'],
    [[1.5, 2], 'float32'], [[true, false], 'bool'], [[1n, 2n], 'int64'],
  ];
  for (const [data, type] of cases) {
    const t = new Tensor(data, [2]);
    assert.equal(t.type, type, data.constructor.name);
    assert.equal(await t.getData(), t.data);
  }
  assert.deepEqual(new Tensor([[1, 2, 3], [4, 5, 6]]).dims, [2, 3], 'nested arrays keep their shape');
});

test('Tensor: a wrong type name, data class or element count is a clear TypeError / RangeError', () => {
  assert.throws(() => new Tensor('flaot32', [1]), { name: 'TypeError', message: /type 'flaot32' is not a tensor type \(types: float32, / });
  assert.throws(() => new Tensor('uint32', [1]), { name: 'TypeError', message: /type 'uint32' is not supported by torch-ir-wasm/ });
  assert.throws(() => new Tensor('int64', new Float32Array(2)), {
    name: 'TypeError', message: 'Tensor: int64 data must be a BigInt64Array (or a plain array), got Float32Array',
  });
  assert.throws(() => new Tensor('int8', new Uint8ClampedArray(2)), { name: 'TypeError', message: /int8 data must be a Int8Array/ });
  assert.throws(() => new Tensor('float16', [1, 2]), { name: 'TypeError', message: /float16 data must be a Uint16Array/ });
  assert.throws(() => new Tensor('float32', [1, 2, 3], [2, 2]), {
    name: 'RangeError', message: 'Tensor: data has 3 element(s) but shape [2, 2] needs 4',
  });
  assert.throws(() => new Tensor('float32', [1], [-1]), { name: 'RangeError', message: 'Tensor: invalid shape [-1]' });
  assert.throws(() => new Tensor('float32', 'abc'), { name: 'TypeError', message: /data must be a typed array or an array/ });
  assert.throws(() => new Tensor({ data: [1] }), { name: 'TypeError', message: /cannot infer a type/ });
  assert.throws(() => new Tensor('int64', [1.5]), { name: 'TypeError', message: /int64 data must be integers/ });
});

test('env.wasm.numThreads / wasmPaths / proxy are env.numThreads / wasmPaths / proxy', () => {
  const saved = { numThreads: env.numThreads, wasmPaths: env.wasmPaths, proxy: env.proxy };
  try {
    env.wasm.numThreads = 3;
    assert.equal(env.numThreads, 3);
    env.wasmPaths = '/somewhere/';
    assert.equal(env.wasm.wasmPaths, '/somewhere/');
    env.wasm.proxy = true;
    assert.equal(env.proxy, true);
    assert.deepEqual(Object.keys(env.wasm).sort(), ['numThreads', 'proxy', 'wasmPaths']);
    assert.ok(!Object.keys(env).includes('wasm'), 'env.wasm is a view, not a setting of its own');
  } finally {
    Object.assign(env, saved);
  }
});

test('InferenceSession.run gives what execute gives, by output name, as Tensors', async () => {
  const session = await InferenceSession.create(bert.model, { weights: bert.weights, executionProviders: ['wasm'] });
  assert.deepEqual(session.inputNames, ['input_ids', 'attention_mask']);
  assert.deepEqual(session.outputNames, session.model.outputs.map((o) => o.name));
  const feeds = {
    input_ids: new Tensor('int64', bertIo.inputs.input_ids.data, bertIo.inputs.input_ids.shape),
    attention_mask: new Tensor('int64', bertIo.inputs.attention_mask.data, bertIo.inputs.attention_mask.shape),
  };
  const byExecute = await session.model.execute(bertIo.inputs);
  const out = await session.run(feeds);
  assert.deepEqual(Object.keys(out), session.outputNames);
  session.outputNames.forEach((name, i) => {
    assert.ok(out[name] instanceof Tensor);
    assert.equal(out[name].type, 'float32');
    assert.deepEqual(out[name].dims, byExecute[i].shape);
    assert.deepEqual(out[name].data, byExecute[i].data);
    assertClose(out[name].data, bertIo.outputs[i].data, TOL, name);
  });
  // a Map of feeds, and plain values that execute() takes
  const fromMap = await session.run(new Map(Object.entries(feeds)));
  assert.deepEqual(fromMap[session.outputNames[1]].data, out[session.outputNames[1]].data);
  const plain = await session.run({ input_ids: bertIo.inputs.input_ids.data, attention_mask: bertIo.inputs.attention_mask });
  assert.deepEqual(plain[session.outputNames[0]].data, out[session.outputNames[0]].data);
  await session.release();
  assert.equal(session.model.disposed, true);
});

test('InferenceSession.run fetches: an array or an object of output names; run(feeds, options) too', async () => {
  const session = await InferenceSession.create(bert.model, { weights: bert.weights });
  const feeds = new Map(Object.entries(bertIo.inputs).map(([k, v]) => [k, new Tensor('int64', v.data, v.shape)]));
  const [first, second] = session.outputNames;
  assert.deepEqual(Object.keys(await session.run(feeds, [second])), [second]);
  assert.deepEqual(Object.keys(await session.run(feeds, { [first]: null })), [first]);
  assert.deepEqual(Object.keys(await session.run(feeds, { logSeverityLevel: 0 })), [first, second], 'run options, not fetches');
  assert.deepEqual(Object.keys(await session.run(feeds, [first], { tag: 'x' })), [first]);
  await assert.rejects(session.run(feeds, ['nope']), { name: 'ExecutionError', message: /unknown output 'nope' \(graph outputs: / });
  await assert.rejects(session.run(feeds, { nope: null }, {}), { name: 'TypeError', message: /fetches names no output/ });
  await assert.rejects(session.run(feeds, 'x'), { name: 'TypeError', message: /fetches must be an array/ });
  await session.release();
});

test('InferenceSession: bad feeds and providers fail clearly; Model\'s own checks apply', async () => {
  // 'webgpu' with no usable GPU (a GPU object without adapters): the model runs on WASM, with a
  // warning; env.webgpu.strict makes it an error.
  env.webgpu.gpu = { requestAdapter: async () => null };
  try {
    const onWasm = await InferenceSession.create(cnn.model, { weights: cnn.weights, executionProviders: ['webgpu', 'wasm'] });
    assert.deepEqual(onWasm.model.executionProviders, ['wasm']);
    assert.equal(onWasm.model.placement().nodes.webgpu, 0);
    await onWasm.release();
    env.webgpu.strict = true;
    await assert.rejects(InferenceSession.create(cnn.model, { weights: cnn.weights, executionProviders: 'webgpu' }),
      { name: 'ExecutionError', message: /WebGPU: the WebGPU implementation has no adapter \(env.webgpu.strict is set\)/ });
  } finally {
    env.webgpu.gpu = undefined;
    env.webgpu.strict = false;
  }
  await assert.rejects(InferenceSession.create(cnn.model, { executionProviders: [{ name: 'webnn' }] }),
    { name: 'TypeError', message: /unknown provider "webnn"/ });
  const session = await InferenceSession.create(cnn.model, { weights: cnn.weights, executionProviders: [{ name: 'wasm' }] });
  const x = new Tensor('float32', cnnIo.inputs.x.data, cnnIo.inputs.x.shape);
  await assert.rejects(session.run([x]), { name: 'TypeError', message: /feeds must be an object \(or Map\) keyed by input name/ });
  await assert.rejects(session.run(x), TypeError);
  await assert.rejects(session.run({ y: x }), (e) => e instanceof ExecutionError && /unknown input 'y' \(graph inputs: x\)/.test(e.message));
  await assert.rejects(session.run({}), { name: 'ExecutionError', message: "input 0 ('x') is missing" });
  await assert.rejects(session.run({ x: new Tensor('int32', new Int32Array(x.size), x.dims) }), {
    name: 'ExecutionError', message: /input 0 \('x'\): expected \[1, 3, 32, 32\] \(float32\), got \[1, 3, 32, 32\] \(int32\)/,
  });
  // a Tensor is a {data, shape, dtype} value: execute() takes it with its own dims
  const [direct] = await session.model.execute([x]);
  assertClose(direct.data, cnnIo.outputs[0].data, TOL, 'Tensor into execute');
  await assert.rejects(session.model.execute([x.reshape([3, 32, 32, 1])]), {
    name: 'ExecutionError', message: "input 0 ('x'): expected [1, 3, 32, 32] (float32), got [3, 32, 32, 1] (float32)",
  });
  const out = await session.run({ x });
  assertClose(out[session.outputNames[0]].data, cnnIo.outputs[0].data, TOL, 'cnn');
  await session[Symbol.asyncDispose]();
  await assert.rejects(session.run({ x }), { message: 'model is disposed' });
  // what `using` calls (Node 20 has Symbol.dispose but not the syntax)
  const s2 = await InferenceSession.create(cnn.model, { weights: cnn.weights });
  s2[Symbol.dispose]();
  assert.equal(s2.model.disposed, true, 'Symbol.dispose frees the model');
});

// Events for one file, in order: initiate, progress..., done.
function checkFileEvents(events, file, size) {
  const mine = events.filter((e) => e.file === file);
  assert.ok(mine.length >= 3, `${file}: ${mine.length} event(s)`);
  assert.deepEqual(mine[0], { status: 'initiate', file, loaded: 0, total: 0, progress: 0, source: file });
  assert.equal(mine.at(-1).status, 'done');
  assert.deepEqual(mine.at(-1), { status: 'done', file, loaded: size, total: size, progress: 100, source: file });
  const middle = mine.slice(1, -1);
  assert.ok(middle.length >= 1 && middle.every((e) => e.status === 'progress'), 'progress events between');
  for (let i = 1; i < middle.length; ++i) assert.ok(middle[i].loaded >= middle[i - 1].loaded);
  for (const e of middle) assert.ok(e.progress >= 0 && e.progress <= 100 && e.source === file && e.loaded <= size);
  return mine;
}

test('onProgress: initiate / progress / done per file, in load order (paths)', async () => {
  const events = [];
  const m = await loadIR(cnn.model, { weights: cnn.weights, onProgress: (e) => events.push(e) });
  m.dispose();
  const ir = checkFileEvents(events, cnn.model, statSync(cnn.model).size);
  const w = checkFileEvents(events, cnn.weights, statSync(cnn.weights).size);
  assert.ok(events.indexOf(ir.at(-1)) < events.indexOf(w[0]), 'the IR is done before the weights start');
  assert.equal(events.length, ir.length + w.length);
});

test('onProgress with a data: URL; inline bytes report nothing', async () => {
  const dataUrl = `data:application/json;base64,${readFileSync(cnn.model).toString('base64')}`;
  const events = [];
  const m = await loadIR(dataUrl, { weights: readFileSync(cnn.weights), onProgress: (e) => events.push(e) });
  m.dispose();
  checkFileEvents(events, dataUrl, statSync(cnn.model).size);
  assert.ok(events.every((e) => e.file === dataUrl), 'no events for the inline weights');
});

// Serves the cnn files; /stall sends half its body and waits. Records request headers.
async function startServer() {
  const files = { '/model.json': readFileSync(cnn.model), '/weights.safetensors': readFileSync(cnn.weights) };
  const seen = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url, headers: req.headers });
    if (req.url.startsWith('/private') && req.headers.authorization !== 'Bearer t0k') {
      res.writeHead(401).end();
      return;
    }
    const name = req.url.replace(/^\/(private|stall)/, '');
    const body = files[name];
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' });
    if (req.url.startsWith('/stall')) {
      res.write(body.subarray(0, body.length >> 1)); // and never the rest
      return;
    }
    // several chunks, so that progress has something to say
    const step = Math.ceil(body.length / 4);
    for (let i = 0; i < body.length; i += step) res.write(body.subarray(i, i + step));
    res.end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, seen, base: `http://127.0.0.1:${server.address().port}` };
}

let http;
before(async () => { http = await startServer(); });
after(() => { http.server.closeAllConnections(); http.server.close(); });

test('onProgress over http: per-file events with the content-length as total; fetchOptions reach fetch', async () => {
  const events = [];
  const ir = `${http.base}/private/model.json`;
  const weights = `${http.base}/private/weights.safetensors`;
  const session = await InferenceSession.create(ir, {
    weights, onProgress: (e) => events.push(e), fetchOptions: { headers: { authorization: 'Bearer t0k' } },
  });
  const out = await session.run({ x: new Tensor('float32', cnnIo.inputs.x.data, cnnIo.inputs.x.shape) });
  assertClose(out[session.outputNames[0]].data, cnnIo.outputs[0].data, TOL, 'over http');
  await session.release();
  checkFileEvents(events, ir, statSync(cnn.model).size);
  const w = checkFileEvents(events, weights, statSync(cnn.weights).size);
  assert.ok(w.some((e) => e.status === 'progress' && e.total === statSync(cnn.weights).size && e.progress > 0 && e.progress <= 100));
  // without the header: the server's 401, as the IR error it always was
  await assert.rejects(loadIR(ir), (e) => e instanceof IRFormatError && e.message === `${ir}: cannot open IR file: HTTP 401 Unauthorized`);
  await assert.rejects(loadIR(cnn.model, { weights, fetchOptions: { headers: { authorization: 'no' } } }), WeightLoadError);
  await assert.rejects(loadIR(ir, { fetchOptions: 'x' }), { name: 'TypeError', message: /fetchOptions must be an object/ });
});

// Counts the models created on the default backend while fn runs.
async function modelsCreatedDuring(fn) {
  const backend = await getBackend();
  const create = backend.create;
  let count = 0;
  backend.create = function counted(...args) {
    count++;
    return create.apply(this, args);
  };
  try {
    await fn();
  } finally {
    backend.create = create;
  }
  return count;
}

test('signal: already aborted -> rejects with its reason, reads nothing, loads nothing', async () => {
  const reason = new Error('user went away');
  const events = [];
  const n = await modelsCreatedDuring(async () => {
    await assert.rejects(loadIR(cnn.model, { weights: cnn.weights, signal: AbortSignal.abort(reason), onProgress: (e) => events.push(e) }),
      (e) => e === reason);
    await assert.rejects(InferenceSession.create(cnn.model, { signal: AbortSignal.abort() }), { name: 'AbortError' });
  });
  assert.equal(n, 0);
  assert.deepEqual(events, []);
  await assert.rejects(loadIR(cnn.model, { signal: {} }), { name: 'TypeError', message: 'loadIR: signal must be an AbortSignal' });
});

test('signal: abort while reading a file, or after the last file -> rejects with the reason, no model', async () => {
  for (const when of ['initiate', 'progress', 'done']) {
    const ac = new AbortController();
    const reason = new Error(`stop at ${when}`);
    const onProgress = (e) => { if (e.file === cnn.weights && e.status === when) ac.abort(reason); };
    const n = await modelsCreatedDuring(async () => {
      await assert.rejects(loadIR(cnn.model, { weights: cnn.weights, signal: ac.signal, onProgress }), (e) => e === reason, when);
    });
    assert.equal(n, 0, `abort at the weights' ${when}: no model created`);
  }
});

test('signal: abort during an http body that never ends -> rejects with the reason', { timeout: 20000 }, async () => {
  const ac = new AbortController();
  const reason = new Error('too slow');
  const url = `${http.base}/stall/weights.safetensors`;
  const onProgress = (e) => { if (e.file === url && e.status === 'progress') ac.abort(reason); };
  await assert.rejects(loadIR(cnn.model, { weights: url, signal: ac.signal, onProgress }), (e) => e === reason);
  // and abort from a timer, with no progress callback at all
  const session = InferenceSession.create(cnn.model, { weights: url, signal: AbortSignal.timeout(200) });
  await assert.rejects(session, { name: 'TimeoutError' });
  assert.ok(http.seen.filter((r) => r.url.startsWith('/stall')).length >= 2);
});
