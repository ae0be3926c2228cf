// compareProviders (npm/src/lib/compare.ts) on dawn.node over lavapipe: a model the GPU runs
// right passes every node; with a GPU kernel broken on purpose in this process (the gelu
// expression the WGSL elementwise kernels are generated from, scaled by 1.001), the comparison
// names the gelu node, not the nodes after it that inherit its error, with the values of each run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest } from './gpu.mjs';
import { rng } from './ref.mjs';
import { getEngine } from './engine.mjs';
import { ELEMENTWISE_OPS } from '../../npm/lib/webgpu/kernels.js';

const t = (name, shape, producer) => ({ name, shape, dtype: 'float32', ...(producer ? { producer_node: producer } : {}) });

// x [5, 12] -> fc1 (16) -> gelu -> fc2 (7) -> layer_norm.
function mlp() {
  const rand = rng(3);
  const w = (name, shape) => ({ name, dtype: 'float32', shape, data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rand() - 0.5) });
  const weights = [w('fc1.weight', [16, 12]), w('fc1.bias', [16]), w('fc2.weight', [7, 16]), w('fc2.bias', [7])];
  const ir = {
    model_name: 'Mlp',
    graph_inputs: [t('x', [5, 12])],
    graph_outputs: [t('norm', [5, 7])],
    weights: weights.map((x) => ({ name: x.name, shape: x.shape, dtype: 'float32' })),
    weight_name_mapping: Object.fromEntries(weights.map((x) => [`p_${x.name.replace('.', '_')}`, x.name])),
    nodes: [
      { name: 'fc1', op_type: 'aten.linear.default', inputs: [t('x', [5, 12], 'x'), t('p_fc1_weight', [16, 12]), t('p_fc1_bias', [16])], outputs: [t('fc1', [5, 16])], attrs: {} },
      { name: 'gelu', op_type: 'aten.gelu.default', inputs: [t('fc1', [5, 16], 'fc1')], outputs: [t('gelu', [5, 16])], attrs: {} },
      { name: 'fc2', op_type: 'aten.linear.default', inputs: [t('gelu', [5, 16], 'gelu'), t('p_fc2_weight', [7, 16]), t('p_fc2_bias', [7])], outputs: [t('fc2', [5, 7])], attrs: {} },
      { name: 'norm', op_type: 'aten.layer_norm.default', inputs: [t('fc2', [5, 7], 'fc2')], outputs: [t('norm', [5, 7])], attrs: { normalized_shape: [7], eps: 1e-5 } },
    ],
  };
  const x = Float32Array.from({ length: 60 }, () => 4 * (rand() - 0.5));
  return { ir, weights, x };
}

async function compare(eng, gpu, reference) {
  const { ir, weights, x } = mlp();
  eng.env.webgpu.device = gpu.device;
  try {
    return await eng.compareProviders(ir, { weights: eng.writeSafetensors(weights), inputs: [x], threads: 1, reference });
  } finally {
    eng.env.webgpu.device = undefined;
  }
}

test('compareProviders: a model the GPU runs right passes every node against float64', gpuTest(async (tt, gpu) => {
  const eng = await getEngine();
  if (!eng) { tt.skip('engine not built'); return; }
  const r = await compare(eng, gpu, 'float64');
  assert.equal(r.reference, 'float64', r.text);
  assert.equal(r.firstMismatch, null, r.text);
  const judged = r.nodes.filter((c) => c.judged);
  assert.deepEqual(judged.map((c) => c.node), ['fc1', 'gelu', 'fc2', 'norm'], r.text);
  for (const c of judged) {
    assert.equal(c.device, 'webgpu', c.node);
    assert.ok(c.ok && c.error <= c.bound, `${c.node}: ${c.error} > ${c.bound}`);
  }
  assert.match(r.text, /every judged node output is within its bound/);
}));

test('compareProviders: a GPU kernel broken on purpose is named, with both values', gpuTest(async (tt, gpu) => {
  const eng = await getEngine();
  if (!eng) { tt.skip('engine not built'); return; }
  const gelu = ELEMENTWISE_OPS.gelu.expr;
  ELEMENTWISE_OPS.gelu.expr = `1.001 * (${gelu})`; // a new source: a new pipeline for it
  try {
    for (const reference of ['float64', 'wasm']) {
      const r = await compare(eng, gpu, reference);
      const m = r.firstMismatch;
      assert.ok(m, `${reference}: ${r.text}`);
      assert.equal(m.node, 'gelu', r.text);
      assert.equal(m.opType, 'aten.gelu.default');
      assert.equal(m.device, 'webgpu');
      assert.ok(m.error > m.bound);
      // the element furthest off, as the GPU and the WASM run computed it: 0.1% apart
      assert.ok(Math.abs(m.webgpu / m.wasm - 1.001) < 1e-4, `${m.webgpu} vs ${m.wasm}`);
      if (reference === 'float64') assert.ok(Math.abs(m.wasm - m.float64) < 1e-5 * Math.max(1, Math.abs(m.float64)));
      assert.equal(m.position.length, 2);
      assert.equal(r.nodes.find((c) => c.node === 'fc1').ok, true, 'the nodes before it agree');
      assert.match(r.text, new RegExp(`first mismatch: node 'gelu' \\(aten.gelu.default, on webgpu\\)`));
    }
  } finally {
    ELEMENTWISE_OPS.gelu.expr = gelu;
  }
}));

test('compareProviders: bad options are errors naming them', async () => {
  const eng = await getEngine();
  if (!eng) return;
  const { ir } = mlp();
  await assert.rejects(eng.compareProviders(ir, {}), /options.inputs is required/);
  await assert.rejects(eng.compareProviders(ir, { inputs: [], reference: 'cuda' }), /reference must be 'float64' or 'wasm', got "cuda"/);
});
