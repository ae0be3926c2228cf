// loadIR's keepIntermediates and model.intermediate(name): every node's output of the last run
// by its IR name (fusion off), the WASM half of compareProviders (tests/webgpu/compare.test.mjs
// runs the GPU half); and the float64 run compareProviders judges by, against a bert encoder's
// float64 truth.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadIR, parseSafetensors } from '../index.js';
import { GENERATED, MODELS, assertDist } from './helpers.mjs';

before(assertDist);

const t = (name, shape, producer) => ({ name, shape, dtype: 'float32', ...(producer ? { producer_node: producer } : {}) });
// x [2, 3] -> y = x * 2 -> r = relu(y) -> z = r + 1 (relu fused into nothing: fusion is off)
const IR = {
  model_name: 'Chain',
  graph_inputs: [t('x', [2, 3])],
  graph_outputs: [t('z', [2, 3])],
  weights: [],
  weight_name_mapping: {},
  nodes: [
    { name: 'y', op_type: 'aten.mul.Tensor', inputs: [t('x', [2, 3], 'x')], outputs: [t('y', [2, 3])], attrs: { other: 2.0 } },
    { name: 'r', op_type: 'aten.relu.default', inputs: [t('y', [2, 3], 'y')], outputs: [t('r', [2, 3])], attrs: {} },
    { name: 'z', op_type: 'aten.add.Tensor', inputs: [t('r', [2, 3], 'r')], outputs: [t('z', [2, 3])], attrs: { other: 1.0 } },
  ],
};
const X = Float32Array.from([-1, 0.5, 2, -3, 4, 0]);

test('intermediate(name) gives each node output of the last run', async () => {
  const m = await loadIR(IR, { threads: 1, keepIntermediates: true });
  try {
    assert.throws(() => m.intermediate('y'), /no run yet/);
    await m.execute([X]);
    const y = m.intermediate('y');
    assert.deepEqual(y.shape, [2, 3]);
    assert.equal(y.dtype, 'float32');
    assert.deepEqual(Array.from(y.data), Array.from(X, (v) => 2 * v));
    assert.deepEqual(Array.from(m.intermediate('r').data), Array.from(X, (v) => Math.max(0, 2 * v)));
    assert.equal(m.intermediate('nope'), null);
    await m.execute([X.map((v) => -v)]);
    assert.deepEqual(Array.from(m.intermediate('y').data), Array.from(X, (v) => -2 * v), 'the last run\'s');
  } finally {
    m.dispose();
  }
  const plain = await loadIR(IR, { threads: 1 });
  try {
    await plain.execute([X]);
    assert.throws(() => plain.intermediate('y'), /load the model with keepIntermediates: true/);
  } finally {
    plain.dispose();
  }
});

const BERT = join(MODELS, 'bert_encoder', 'torch2.14-training');
const TRUTH = join(GENERATED, 'bert_encoder', 'torch2.14-training', 'truth64.safetensors');

test('the float64 run (compareProviders\' reference) lands on PyTorch\'s float64 truth', { skip: !existsSync(TRUTH) && 'no generated truth64 (tools/make_fixtures.sh)' }, async () => {
  const io = parseSafetensors(readFileSync(join(BERT, 'io.safetensors')));
  const truth = parseSafetensors(readFileSync(TRUTH));
  const inputs = Object.fromEntries([...io].filter(([k]) => k.startsWith('input.')).map(([k, v]) => [k.slice(6), v]));
  const m = await loadIR(join(BERT, 'model.json'), { weights: join(BERT, 'weights.safetensors'), threads: 1, float64: true, keepIntermediates: true });
  try {
    const outs = await m.execute(inputs);
    outs.forEach((o, i) => {
      const want = truth.get(`output.${i}`);
      if (want.dtype !== 'float64') return;
      assert.equal(o.dtype, 'float64');
      let err = 0;
      let scale = 0;
      for (let j = 0; j < o.data.length; j++) {
        err = Math.max(err, Math.abs(o.data[j] - want.data[j]));
        scale = Math.max(scale, Math.abs(want.data[j]));
      }
      assert.ok(err <= 1e-12 * scale, `output ${i}: ${err} (scale ${scale})`);
    });
  } finally {
    m.dispose();
  }
});
