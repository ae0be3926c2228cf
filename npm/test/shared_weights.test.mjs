// loadIR's weightsFrom: several IRs of one module (e.g. one export per sequence length) bound to
// one copy of the weights and of their packed layouts.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadIR, ExecutionError, TorchIrError } from '../index.js';
import { assertClose, assertDist, fixture, ioInputs, readIo, TOL } from './helpers.mjs';

before(assertDist);

const N = 7;
const W = Float32Array.from({ length: N * N }, (_, i) => Math.sin(i) * 0.5);
const B = Float32Array.from({ length: N }, (_, i) => i / 10);
const weights = { weight: { data: W, shape: [N, N], dtype: 'float32' }, bias: { data: B, shape: [N], dtype: 'float32' } };

// y = x W^T + b for x [rows, N]: the IR exported at another row count is another graph.
function linearRowsIr(rows) {
  const t = (name, shape, extra = {}) => ({ name, shape, dtype: 'float32', ...extra });
  return {
    model_name: `Linear${rows}`,
    graph_inputs: [t('x', [rows, N])],
    graph_outputs: [t('linear', [rows, N])],
    weights: [t('weight', [N, N]), t('bias', [N])],
    weight_name_mapping: { p_weight: 'weight', p_bias: 'bias' },
    nodes: [{
      name: 'linear',
      op_type: 'aten.linear.default',
      inputs: [t('x', [rows, N], { producer_node: 'x', producer_output_idx: 0 }), t('p_weight', [N, N]), t('p_bias', [N])],
      outputs: [t('linear', [rows, N])],
      attrs: {},
    }],
  };
}

function expected(x, rows) {
  const y = new Float32Array(rows * N);
  for (let r = 0; r < rows; ++r) {
    for (let j = 0; j < N; ++j) {
      let s = B[j];
      for (let k = 0; k < N; ++k) s += x[r * N + k] * W[j * N + k];
      y[r * N + j] = s;
    }
  }
  return y;
}

const input = (rows) => Float32Array.from({ length: rows * N }, (_, i) => Math.cos(i) * 2);

test('weightsFrom: an IR at another shape runs on the first model\'s weights, also after that model is disposed', async () => {
  const first = await loadIR(linearRowsIr(1), { weights });
  const second = await loadIR(linearRowsIr(5), { weightsFrom: first });
  const third = await loadIR(linearRowsIr(3), { weightsFrom: second }); // a chain shares the same copy
  for (const [m, rows] of [[first, 1], [second, 5], [third, 3]]) {
    const [y] = await m.execute([input(rows)]);
    assert.deepEqual(y.shape, [rows, N]);
    assertClose(y.data, expected(input(rows), rows), TOL, `rows ${rows}`);
  }
  first.dispose();
  const [y] = await second.execute([input(5)]);
  assertClose(y.data, expected(input(5), 5), TOL, 'after the first model is disposed');
  second.dispose();
  third.dispose();
});

test('weightsFrom: a whole fixture model bound twice gives the same outputs; weightDtype follows the source', async () => {
  const fx = fixture('small_cnn');
  const io = readIo(fx.io);
  const a = await loadIR(fx.model, { weights: fx.weights, weightDtype: 'float16' });
  const b = await loadIR(fx.model, { weightsFrom: a });
  const [ya] = await a.execute(ioInputs(a, io));
  const [yb] = await b.execute(ioInputs(b, io));
  assert.deepEqual(Array.from(yb.data), Array.from(ya.data));
  await assert.rejects(loadIR(fx.model, { weightsFrom: a, weightDtype: 'float32' }),
    (e) => e instanceof ExecutionError && /weightDtype 'float32' differs from the 'float16'/.test(e.message));
  a.dispose();
  b.dispose();
});

test('weightsFrom: misuse is a clear error', async () => {
  const first = await loadIR(linearRowsIr(1), { weights });
  await assert.rejects(loadIR(linearRowsIr(2), { weightsFrom: first, weights }),
    (e) => e instanceof ExecutionError && /either weights\/constants or weightsFrom/.test(e.message));
  await assert.rejects(loadIR(linearRowsIr(2), { weightsFrom: { weight: W } }),
    (e) => e instanceof ExecutionError && /weightsFrom must be a Model/.test(e.message));
  // An IR that reads a weight the source does not have names it, as with weights.
  const other = linearRowsIr(2);
  other.weight_name_mapping.p_bias = 'missing_bias';
  await assert.rejects(loadIR(other, { weightsFrom: first }), (e) => e instanceof TorchIrError && /missing_bias/.test(e.message));
  first.dispose();
  await assert.rejects(loadIR(linearRowsIr(2), { weightsFrom: first }),
    (e) => e instanceof TorchIrError && /disposed/.test(e.message));
});
