// The public API: exports, every accepted form of ir / weights / constants /
// inputs, output dtypes, info / Mermaid / pie byte identity, profiling, progress.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as api from '../index.js';
import { loadIR, execute, verify, formatReport, parseSafetensors, writeSafetensors } from '../index.js';
import { FIXTURES, TOL, assertClose, assertDist, fixture, ioInputs, readIo, truthPath } from './helpers.mjs';

before(assertDist);

const cnn = fixture('small_cnn');
const cnnIo = readIo(cnn.io);
const seedsDir = join(FIXTURES, 'seeds');
const expectedDir = join(seedsDir, 'expected');
const text = (p) => readFileSync(p, 'utf8');

async function cnnOutput(ir, weights, options = {}) {
  const m = await loadIR(ir, { weights, ...options });
  try {
    const [out] = await m.execute(ioInputs(m, cnnIo));
    return out;
  } finally {
    m.dispose();
  }
}

test('exports loadIR, execute, verify, env and the error classes', () => {
  for (const k of ['loadIR', 'execute', 'verify', 'env', 'Model', 'TorchIrError', 'IRFormatError',
    'WeightLoadError', 'ExecutionError', 'VerificationError']) {
    assert.ok(k in api, k);
  }
  assert.ok(new api.IRFormatError('x') instanceof api.TorchIrError);
  assert.ok(new api.ExecutionError('x') instanceof Error);
  assert.equal(new api.WeightLoadError('x').name, 'WeightLoadError');
});

test('ir as path, file URL, URL string, JSON string, parsed object, Uint8Array, ArrayBuffer', async () => {
  const json = text(cnn.model);
  const bytes = new Uint8Array(readFileSync(cnn.model));
  const forms = {
    path: cnn.model,
    url: pathToFileURL(cnn.model),
    urlString: pathToFileURL(cnn.model).href,
    json,
    object: JSON.parse(json),
    bytes,
    arrayBuffer: bytes.slice().buffer,
  };
  const expected = cnnIo.outputs[0];
  let first;
  for (const [form, ir] of Object.entries(forms)) {
    const out = await cnnOutput(ir, cnn.weights);
    assert.deepEqual(out.shape, expected.shape, form);
    assertClose(out.data, expected.data, TOL, `ir as ${form}`);
    if (!first) first = out.data;
    else assert.deepEqual(out.data, first, `ir as ${form}: identical results`);
  }
});

test('ir as a parsed object keeps non-finite constants (masked_fill -inf)', async () => {
  const fx = fixture('masked_ops');
  const text = readFileSync(fx.model, 'utf8');
  assert.match(text, /-Infinity/);
  assert.throws(() => JSON.parse(text));
  const obj = api.parseIRJson(text);
  const io = readIo(fx.io);
  const m = await loadIR(obj, { weights: fx.weights });
  assert.ok((await m.verify(ioInputs(m, io), io.outputs, TOL)).isValid);
  m.dispose();
});

test('weights as .safetensors path, bytes, ArrayBuffer, tensor object, Map, list of sources', async () => {
  const bytes = new Uint8Array(readFileSync(cnn.weights));
  const tensors = parseSafetensors(bytes);
  const obj = Object.fromEntries(tensors);
  const keys = [...tensors.keys()];
  const half = Math.floor(keys.length / 2);
  const forms = {
    path: cnn.weights,
    fileUrl: pathToFileURL(cnn.weights),
    bytes,
    arrayBuffer: bytes.slice().buffer,
    object: obj,
    // a bare typed array takes its shape and dtype from the IR's weights list
    objectTypedArrays: Object.fromEntries([...tensors].map(([k, t]) => [k, t.dtype === 'float32' ? t.data : t])),
    map: tensors,
    list: [writeSafetensors(keys.slice(0, half).map((k) => ({ name: k, ...tensors.get(k) }))),
      Object.fromEntries(keys.slice(half).map((k) => [k, tensors.get(k)]))],
  };
  let first;
  for (const [form, weights] of Object.entries(forms)) {
    const out = await cnnOutput(cnn.model, weights);
    assertClose(out.data, cnnIo.outputs[0].data, TOL, `weights as ${form}`);
    if (!first) first = out.data;
    else assert.deepEqual(out.data, first, `weights as ${form}: identical results`);
  }
});

// nn.Linear(3, 2) state_dict saved by torch.save (tests/fixtures/weights/*.pt);
// its values are in tests/fixtures/weights/expected.json.
const LINEAR_IR = {
  model_name: 'Linear',
  graph_inputs: [{ name: 'x', shape: [1, 3], dtype: 'float32' }],
  graph_outputs: [{ name: 'linear', shape: [1, 2], dtype: 'float32' }],
  weights: [{ name: 'weight', shape: [2, 3], dtype: 'float32' }, { name: 'bias', shape: [2], dtype: 'float32' }],
  weight_name_mapping: { p_weight: 'weight', p_bias: 'bias' },
  nodes: [{
    name: 'linear',
    op_type: 'aten.linear.default',
    inputs: [
      { name: 'x', shape: [1, 3], dtype: 'float32', producer_node: 'x', producer_output_idx: 0 },
      { name: 'p_weight', shape: [2, 3], dtype: 'float32' },
      { name: 'p_bias', shape: [2], dtype: 'float32' },
    ],
    outputs: [{ name: 'linear', shape: [1, 2], dtype: 'float32' }],
    attrs: {},
  }],
};

test('weights as torch.save .pt bytes and path (and .pt variants) give x @ W^T + b', async () => {
  const expected = JSON.parse(text(join(FIXTURES, 'weights', 'expected.json')));
  const x = new Float32Array([0.5, -1.25, 2]);
  for (const file of ['linear.pt', 'checkpoint.pt', 'zip64.pt', 'torch2_layout.pt']) {
    const w = expected[file].weight.values;
    const b = expected[file].bias.values;
    const want = [0, 1].map((o) => b[o] + w[o * 3] * x[0] + w[o * 3 + 1] * x[1] + w[o * 3 + 2] * x[2]);
    const path = join(FIXTURES, 'weights', file);
    for (const weights of [path, new Uint8Array(readFileSync(path))]) {
      const m = await loadIR(LINEAR_IR, { weights });
      const [out] = await m.execute([x]);
      m.dispose();
      assert.deepEqual(out.shape, [1, 2]);
      assertClose(out.data, want, { rtol: 1e-6, atol: 1e-6 }, `${file} (${typeof weights === 'string' ? 'path' : 'bytes'})`);
    }
  }
  // The same values as a tensor object give the same result.
  const lin = expected['linear.pt'];
  const m = await loadIR(LINEAR_IR, {
    weights: {
      weight: { data: new Float32Array(lin.weight.values), shape: [2, 3], dtype: 'float32' },
      bias: { data: lin.bias.values, shape: [2], dtype: 'float32' }, // plain array
    },
  });
  const [a] = await m.execute([x]);
  m.dispose();
  const [b] = await (async () => {
    const m2 = await loadIR(LINEAR_IR, { weights: join(FIXTURES, 'weights', 'linear.pt') });
    try {
      return await m2.execute({ x });
    } finally {
      m2.dispose();
    }
  })();
  assert.deepEqual(a.data, b.data);
});

test('inputs as array, object by name, bare typed array, {data, shape, dtype}, plain arrays', async () => {
  const m = await loadIR(cnn.model, { weights: cnn.weights });
  const x = cnnIo.inputs.x;
  const forms = {
    array: [x.data],
    object: { x: x.data },
    bare: x.data,
    tensor: [{ data: x.data, shape: x.shape, dtype: 'float32' }],
    torchDtype: { x: { data: x.data, shape: x.shape, dtype: 'torch.float32' } },
    plainArray: [Array.from(x.data)],
    float64Converted: [{ data: Float64Array.from(x.data), dtype: 'float32' }],
  };
  let first;
  for (const [form, inputs] of Object.entries(forms)) {
    const [out] = await m.execute(inputs);
    if (!first) first = out.data;
    else assert.deepEqual(out.data, first, `inputs as ${form}`);
  }
  // execute() and verify() as functions
  const [out] = await execute(m, [x.data]);
  assert.deepEqual(out.data, first);
  const r = await verify(m, { x: x.data }, [cnnIo.outputs[0].data]);
  assert.ok(r.isValid);
  m.dispose();
});

test('verify { reference64 }: errors against float64 side by side; isValid stays rtol/atol', async () => {
  const truthFile = truthPath('small_cnn/torch2.14-training');
  assert.ok(existsSync(truthFile), `no float64 truth ${truthFile} (run tools/make_fixtures.sh build/fixtures)`);
  const truth = readIo(truthFile).outputs;
  const m = await loadIR(cnn.model, { weights: cnn.weights });
  try {
    const inputs = ioInputs(m, cnnIo);
    assert.equal((await m.verify(inputs, cnnIo.outputs)).reference64, undefined);
    const name = m.outputs[0].name;
    for (const [form, ref] of Object.entries({
      array: truth, byName: { [name]: truth[0] }, typedArray: truth[0].data, plainArray: [Array.from(truth[0].data)],
      map: new Map([[name, truth[0]]]),
    })) {
      const r = await m.verify(inputs, cnnIo.outputs, { reference64: ref });
      assert.ok(r.isValid, form);
      const t = r.reference64;
      assert.equal(t.withinBound, true, form);
      assert.equal(t.reassociationOnly, false, form);
      assert.equal(t.errorMessage, null, form);
      const [o] = t.outputs;
      assert.equal(o.judged, true);
      // PyTorch float32's error is the recorded outputs' max |x - float64|; scale max |float64|
      let torchErr = 0;
      let scale = 0;
      cnnIo.outputs[0].data.forEach((v, i) => {
        torchErr = Math.max(torchErr, Math.abs(v - truth[0].data[i]));
        scale = Math.max(scale, Math.abs(truth[0].data[i]));
      });
      assert.equal(o.reference, torchErr, form);
      assert.equal(o.scale, scale, form);
      assert.equal(o.bound, 2 * torchErr + 1e-6 * scale);
      assert.ok(o.ours > 0 && o.ours <= o.bound, `${form}: ${o.ours}`);
    }
    // rtol = atol = 0: invalid, but only reassociation
    let r = await m.verify(inputs, cnnIo.outputs, { rtol: 0, atol: 0, reference64: truth });
    assert.equal(r.isValid, false);
    assert.equal(r.reference64.reassociationOnly, true);
    assert.match(formatReport(r), /=> the rtol\/atol failure is only reassociation/);
    // A float64 reference (and float32 expected outputs close to it) far from ours: outside
    // the bound, not reassociation
    const off = Float64Array.from(truth[0].data, (v) => v + 1e-3);
    r = await m.verify(inputs, [Float32Array.from(off)], { reference64: [off] });
    assert.equal(r.isValid, false);
    assert.equal(r.reference64.withinBound, false);
    assert.equal(r.reference64.reassociationOnly, false);
    assert.match(formatReport(r), /OUTSIDE bound[^]*=> not only reassociation/);
    // Count and shape mismatches are reported, not thrown
    r = await m.verify(inputs, cnnIo.outputs, { reference64: [truth[0], truth[0]] });
    assert.match(r.reference64.errorMessage, /output count mismatch: 1 outputs, 1 reference, 2 float64 reference/);
    assert.equal(r.reference64.withinBound, false);
    r = await m.verify(inputs, cnnIo.outputs, { reference64: [{ data: truth[0].data, shape: [10, 1], dtype: 'float64' }] });
    assert.match(r.reference64.errorMessage, /output 0: shape \[1, 10\] \(reference \[1, 10\]\) but the float64 reference is \[10, 1\]/);
    await assert.rejects(m.verify(inputs, cnnIo.outputs, { reference64: 3 }), { name: 'VerificationError', message: /reference64 must be an array/ });
  } finally {
    m.dispose();
  }
});

test('execute copies inputs into the engine and outputs out of it: nothing aliases WASM memory between runs', async () => {
  const m = await loadIR(cnn.model, { weights: cnn.weights });
  const x = Float32Array.from(cnnIo.inputs.x.data);
  const [a] = await m.execute([x]);
  const aCopy = Float32Array.from(a.data);
  x.fill(0.25); // the caller's array is theirs again: changing it changes nothing already computed
  const [b] = await m.execute([x]);
  assert.deepEqual(a.data, aCopy, 'a later run must not overwrite an earlier output');
  assert.notDeepEqual(b.data, aCopy, 'a new input must give a new output');
  assert.notEqual(a.data.buffer, b.data.buffer);
  // A converted input (float64 values declared float32) gives the same bits.
  const [c] = await m.execute([{ data: Float64Array.from(x), dtype: 'float32' }]);
  assert.deepEqual(c.data, b.data);
  assert.deepEqual(c.shape, b.shape);
  await assert.rejects(m.execute([new Float32Array(3)]), /input 0 \('x'\)/);
  const [d] = await m.execute([x]); // still usable after a rejected call
  assert.deepEqual(d.data, b.data);
  m.dispose();
});

test('int64 inputs accept BigInt64Array, plain numbers and {data, dtype: "int64"}', async () => {
  const fx = fixture('kv_cache');
  const io = readIo(fx.io);
  const m = await loadIR(fx.model, { weights: fx.weights });
  assert.deepEqual(m.inputs.map((i) => [i.name, i.dtype]), [['x', 'float32'], ['pos', 'int64']]);
  const pos = io.inputs.pos.data;
  assert.ok(pos instanceof BigInt64Array);
  const forms = [
    [io.inputs.x.data, pos],
    { x: io.inputs.x.data, pos: [Number(pos[0])] },
    { x: io.inputs.x.data, pos: { data: [Number(pos[0])], dtype: 'int64', shape: [1] } },
    { x: io.inputs.x.data, pos: Number(pos[0]) },
  ];
  let first;
  for (const inputs of forms) {
    m.resetBuffers();
    const [out] = await m.execute(inputs);
    assertClose(out.data, io.outputs[0].data, TOL, 'kv_cache step 1');
    if (!first) first = out.data;
    else assert.deepEqual(out.data, first);
  }
  m.dispose();
});

const UNARY = (op, outDtype, attrs) => ({
  model_name: 'Unary',
  graph_inputs: [{ name: 'x', shape: [2, 3], dtype: 'float32' }],
  graph_outputs: [{ name: 'y', shape: attrs.dim !== undefined ? [2] : [2, 3], dtype: outDtype }],
  weights: [],
  weight_name_mapping: {},
  nodes: [{
    name: 'y',
    op_type: op,
    inputs: [{ name: 'x', shape: [2, 3], dtype: 'float32', producer_node: 'x', producer_output_idx: 0 }],
    outputs: [{ name: 'y', shape: attrs.dim !== undefined ? [2] : [2, 3], dtype: outDtype }],
    attrs,
  }],
});

test('outputs: bool as Uint8Array, int64 as BigInt64Array, float32 as Float32Array', async () => {
  const x = new Float32Array([1, -2, 3, 0, 5, -6]);
  const gt = await loadIR(UNARY('aten.gt.Scalar', 'bool', { other: 0 }));
  const [b] = await gt.execute([x]);
  assert.equal(b.dtype, 'bool');
  assert.ok(b.data instanceof Uint8Array);
  assert.deepEqual([...b.data], [1, 0, 1, 0, 1, 0]);
  assert.deepEqual(b.shape, [2, 3]);
  gt.dispose();

  const am = await loadIR(UNARY('aten.argmax.default', 'int64', { dim: 1, keepdim: false }));
  const [i] = await am.execute({ x });
  assert.equal(i.dtype, 'int64');
  assert.ok(i.data instanceof BigInt64Array);
  assert.deepEqual([...i.data], [2n, 1n]);
  am.dispose();

  const neg = await loadIR(UNARY('aten.neg.default', 'float32', {}));
  const [n] = await neg.execute([x]);
  assert.equal(n.name, 'y');
  assert.ok(n.data instanceof Float32Array);
  assert.deepEqual([...n.data], [...x].map((v) => -v));
  // Outputs are copies: a second run does not change the first result.
  await neg.execute([new Float32Array(6)]);
  assert.deepEqual([...n.data], [...x].map((v) => -v));
  neg.dispose();
});

test('constants override the IR constants (object, typed array, safetensors bytes)', async () => {
  const fx = fixture('MaskedLinear');
  const io = readIo(fx.io);
  const x = io.inputs.x.data;
  const ones = await loadIR(fx.model, { weights: fx.weights, constants: { mask: new Float32Array([1, 1, 1, 1]) } });
  const [full] = await ones.execute([x]);
  ones.dispose();
  // The IR's own mask is [1, 0, 1, 0]: the recorded output is full * mask.
  assertClose(io.outputs[0].data, Array.from(full.data, (v, j) => v * [1, 0, 1, 0][j]), TOL, 'IR mask');
  const alt = [0, 1, 0, 1];
  const forms = [
    { mask: new Float32Array(alt) },
    { mask: { data: new Float32Array(alt), shape: [4], dtype: 'float32' } },
    new Map([['mask', { data: alt, shape: [4] }]]),
    writeSafetensors([{ name: 'mask', dtype: 'float32', shape: [4], data: new Float32Array(alt) }]),
  ];
  for (const constants of forms) {
    const m = await loadIR(fx.model, { weights: fx.weights, constants });
    const [out] = await m.execute([x]);
    assert.deepEqual([...out.data], Array.from(full.data, (v, j) => v * alt[j]));
    m.dispose();
  }
});

test('info, toMermaid and opDistributionPie are byte-identical to pytorch-ir', async () => {
  for (const seed of ['SimpleMLP', 'BufferVsConstant', 'GatherWithIndex', 'MaskedLinear']) {
    const m = await loadIR(join(seedsDir, `${seed}.json`));
    assert.equal(m.toMermaid() + '\n', text(join(seedsDir, `${seed}.mmd`)), `${seed}.mmd`);
    assert.equal(m.toMermaid({ includeWeights: false }), text(join(expectedDir, `${seed}.noweights.mmd`)));
    assert.equal(m.opDistributionPie(), text(join(expectedDir, `${seed}.pie`)));
    m.dispose();
  }
  const mlp = await loadIR(join(seedsDir, 'SimpleMLP.json'));
  assert.equal(mlp.info(), text(join(expectedDir, 'SimpleMLP.info.txt')));
  assert.equal(mlp.info({ json: true }), text(join(expectedDir, 'SimpleMLP.info.json')));
  assert.equal(mlp.toMermaid({ maxNodes: 3 }), text(join(expectedDir, 'SimpleMLP.max3.mmd')));
  assert.equal(mlp.toMermaid({ maxNodes: 1, includeWeights: false }), text(join(expectedDir, 'SimpleMLP.max1.noweights.mmd')));
  assert.equal(mlp.opDistributionPie({ topN: 1 }), text(join(expectedDir, 'SimpleMLP.pie.top1')));
  mlp.dispose();
  const tricky = await loadIR(join(expectedDir, 'Tricky.json'));
  assert.equal(tricky.toMermaid({ maxNodes: 4 }), text(join(expectedDir, 'Tricky.max4.mmd')));
  assert.equal(tricky.opDistributionPie({ topN: 3 }), text(join(expectedDir, 'Tricky.pie.top3')));
  assert.equal(tricky.info(), text(join(expectedDir, 'Tricky.info.txt')));
  tricky.dispose();
});

test('model.inputs / model.outputs metadata and backend', async () => {
  const m = await loadIR(cnn.model, { weights: cnn.weights });
  assert.deepEqual(m.inputs, [{ name: 'x', dtype: 'float32', shape: [1, 3, 32, 32] }]);
  assert.equal(m.outputs.length, 1);
  assert.deepEqual(m.outputs[0].shape, [1, 10]);
  assert.equal(m.backend.variant, 'simd-threaded');
  assert.ok(m.backend.threads >= 1);
  assert.ok(m.arenaBytes() > 0);
  m.dispose();
  assert.ok(m.disposed);
  await assert.rejects(m.execute([cnnIo.inputs.x.data]), { name: 'TorchIrError', message: 'model is disposed' });
});

test('profile: true records per-node timings', async () => {
  const m = await loadIR(cnn.model, { weights: cnn.weights, profile: true });
  await m.execute([cnnIo.inputs.x.data]);
  const p = m.profile();
  assert.ok(p.length > 3);
  for (const t of p) {
    assert.equal(typeof t.node, 'string');
    assert.match(t.opType, /^aten\./);
    assert.ok(t.ms >= 0);
  }
  m.dispose();
  const q = await loadIR(cnn.model, { weights: cnn.weights });
  await q.execute([cnnIo.inputs.x.data]);
  assert.deepEqual(q.profile(), []);
  q.dispose();
});

test('onProgress reports reading the IR and the weights', async () => {
  const seen = [];
  const m = await loadIR(cnn.model, { weights: cnn.weights, onProgress: (p) => seen.push(p) });
  m.dispose();
  const last = (src) => seen.filter((p) => p.source === src).at(-1);
  const size = readFileSync(cnn.weights).length;
  const { loaded, total, source } = last(cnn.weights); // the fields from before the status events (test/ort_api.test.mjs)
  assert.deepEqual({ loaded, total, source }, { loaded: size, total: size, source: cnn.weights });
  assert.ok(last(cnn.model));
});

test('a model without weights compiles at the first execute', async () => {
  const m = await loadIR(UNARY('aten.relu.default', 'float32', {}));
  const [y] = await m.execute([new Float32Array([-1, 2, -3, 4, -5, 6])]);
  assert.deepEqual([...y.data], [0, 2, 0, 4, 0, 6]);
  m.dispose();
});

test('parseSafetensors: a hostile header gives WeightLoadError naming the tensor, never a TypeError', () => {
  const file = (header) => {
    const json = new TextEncoder().encode(JSON.stringify(header));
    const out = new Uint8Array(8 + json.length + 16);
    new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
    out.set(json, 8);
    return out;
  };
  const cases = [
    [[1, 2], /the header is not a JSON object/],
    [{ w: null }, /tensor 'w': header entry must be an object/],
    [{ w: { dtype: 'F32', shape: null, data_offsets: [0, 16] } }, /tensor 'w': shape must be a list of non-negative integers/],
    [{ w: { dtype: 'F32', shape: [-4], data_offsets: [0, 16] } }, /tensor 'w': shape must be a list/],
    [{ w: { dtype: 'F32', shape: [4] } }, /tensor 'w': data_offsets must be two non-negative integers/],
    [{ w: { dtype: 'F32', shape: [4], data_offsets: [0, '16'] } }, /tensor 'w': data_offsets must be two/],
  ];
  for (const [header, re] of cases) {
    assert.throws(() => parseSafetensors(file(header), 'h.safetensors'),
      (e) => e.name === 'WeightLoadError' && /^h\.safetensors: /.test(e.message) && re.test(e.message));
  }
  assert.equal(parseSafetensors(file({ w: { dtype: 'F32', shape: [4], data_offsets: [0, 16] } })).get('w').shape[0], 4);
});
