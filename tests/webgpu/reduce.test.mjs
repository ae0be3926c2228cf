// Reductions over a dim, softmax/log_softmax, layer_norm and group_norm against our engine's CPU
// kernels (engine.mjs): R beyond one workgroup, 1 and empty sizes, transposed and strided inputs,
// ties for argmax/argmin (torch: first index), large logits for the softmax's stability.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest, reduce, softmax, logSoftmax, layerNorm, groupNorm, download } from './gpu.mjs';
import { rng, hostTensor, toGpu, assertClose } from './ref.mjs';
import { getEngine, engineOp, checkLowered, lowered } from './engine.mjs';

const CASES = [[[7], 0], [[3, 65], 1], [[130, 3], 0, 'transposed'], [[2, 3, 5], 1, 'sliced'], [[1], 0],
  [[0, 4], 1], [[5, 1], 1], [[2, 200], -1], [[4, 3, 2], -2, 'transposed']];

const ATEN = {
  sum: ['aten.sum.dim_IntList', (d) => ({ dim: [d], keepdim: false })],
  mean: ['aten.mean.dim', (d) => ({ dim: [d], keepdim: false })],
  amax: ['aten.amax.default', (d) => ({ dim: [d], keepdim: false })],
  amin: ['aten.amin.default', (d) => ({ dim: [d], keepdim: false })],
  var: ['aten.var.correction', (d) => ({ dim: [d], correction: 1, keepdim: false })],
  std: ['aten.std.correction', (d) => ({ dim: [d], correction: 1, keepdim: false })],
  argmax: ['aten.argmax.default', (d) => ({ dim: d, keepdim: false })],
  argmin: ['aten.argmin.default', (d) => ({ dim: d, keepdim: false })],
};

async function withEngine(t) {
  const eng = await getEngine();
  if (!eng) t.skip('npm/dist not built');
  return eng;
}

test('sum, mean, amax, amin, var, std, argmax, argmin over a dim', gpuTest(async (t, gpu) => {
  const eng = await withEngine(t);
  if (!eng) return;
  let seed = 1;
  for (const mode of Object.keys(ATEN)) {
    for (const [shape, dim, layout] of CASES) {
      const d = dim < 0 ? dim + shape.length : dim;
      if (shape[d] === 0 && mode !== 'sum') continue;
      if (shape[d] === 1 && (mode === 'var' || mode === 'std')) continue;  // 0/0: NaN on both
      const rand = rng(seed++);
      const h = hostTensor(rand, 'float32', shape, layout, { lo: -3, hi: 3 });
      if (mode.startsWith('arg')) h.storage.forEach((v, i) => { h.storage[i] = Math.round(v); });  // ties
      const outShape = shape.filter((_, i) => i !== d);
      const r = await reduce(gpu, mode, toGpu(gpu, h), dim);
      const y = mode.startsWith('arg') ? r.indices : r;
      assert.deepEqual(y.shape, outShape);
      const got = await download(gpu, y);
      const want = await engineOp(eng, ATEN[mode][0], [h], { shape: outShape, dtype: mode.startsWith('arg') ? 'int32' : 'float32' }, ATEN[mode][1](dim));
      assertClose(got, want, { rtol: 1e-5, atol: 1e-5, what: `${mode} ${JSON.stringify(shape)} dim ${dim} ${layout ?? ''}` });
    }
  }
}));

test('softmax and log_softmax: stable on large logits, strided inputs', gpuTest(async (t, gpu) => {
  const eng = await withEngine(t);
  if (!eng) return;
  let seed = 50;
  for (const [name, fn, aten] of [['softmax', softmax, 'aten._softmax.default'], ['log_softmax', logSoftmax, 'aten._log_softmax.default']]) {
    for (const [shape, dim, layout] of [...CASES, [[3, 70], 1, 'big']]) {
      const h = hostTensor(rng(seed++), 'float32', shape, layout === 'big' ? 'contiguous' : layout,
        layout === 'big' ? { lo: 80, hi: 120 } : { lo: -5, hi: 5 });
      const y = await fn(gpu, toGpu(gpu, h), dim);
      const got = await download(gpu, y);
      const want = await engineOp(eng, aten, [h], { shape, dtype: 'float32' }, { dim, half_to_float: false });
      assertClose(got, want, { rtol: 1e-5, atol: 1e-6, what: `${name} ${JSON.stringify(shape)} dim ${dim} ${layout ?? ''}` });
    }
  }
}));

test('layer_norm and group_norm, with and without affine', gpuTest(async (t, gpu) => {
  const eng = await withEngine(t);
  if (!eng) return;
  let seed = 80;
  for (const [shape, normalized, layout, affine] of [[[4, 7], [7], 'contiguous', true], [[2, 3, 70], [70], 'sliced', true],
    [[3, 2, 5], [2, 5], 'contiguous', false], [[6, 5], [5], 'transposed', true], [[1, 1], [1], 'contiguous', true], [[0, 3], [3], 'contiguous', true]]) {
    const rand = rng(seed++);
    const h = hostTensor(rand, 'float32', shape, layout, { lo: -3, hi: 5 });
    const w = affine ? hostTensor(rand, 'float32', normalized) : null;
    const b = affine ? hostTensor(rand, 'float32', normalized) : null;
    const y = await layerNorm(gpu, toGpu(gpu, h), normalized, { weight: w && toGpu(gpu, w), bias: b && toGpu(gpu, b), eps: 1e-5 });
    const got = await download(gpu, y);
    const want = await engineOp(eng, 'aten.layer_norm.default', affine ? [h, w, b] : [h], { shape, dtype: 'float32' },
      { normalized_shape: normalized, eps: 1e-5, cudnn_enable: false });
    assertClose(got, want, { rtol: 1e-5, atol: 2e-5, what: `layer_norm ${JSON.stringify(shape)} ${layout}` });
  }
  for (const [shape, groups, affine] of [[[2, 6, 5, 3], 3, true], [[1, 4, 9], 2, false], [[3, 8, 1, 1], 8, true], [[2, 5, 70], 1, true]]) {
    const rand = rng(seed++);
    const h = hostTensor(rand, 'float32', shape, 'contiguous', { lo: -3, hi: 5 });
    const w = affine ? hostTensor(rand, 'float32', [shape[1]]) : null;
    const b = affine ? hostTensor(rand, 'float32', [shape[1]]) : null;
    const y = await groupNorm(gpu, toGpu(gpu, h), groups, { weight: w && toGpu(gpu, w), bias: b && toGpu(gpu, b), eps: 1e-5 });
    const got = await download(gpu, y);
    const want = await engineOp(eng, 'aten.group_norm.default', affine ? [h, w, b] : [h], { shape, dtype: 'float32' },
      { num_groups: groups, eps: 1e-5, cudnn_enabled: false });
    assertClose(got, want, { rtol: 1e-5, atol: 2e-5, what: `group_norm ${JSON.stringify(shape)} G=${groups}` });
  }
}));

// The reductions' lowerings (dims as the op files read them: lists, None, keepdim; several dims
// merged into one stride) through the WebGPU provider against the CPU.
test('lowerings: amax/amin/max, var/std, argmax/argmin, max.dim, vector norm, sum over all', gpuTest(async (t, gpu) => {
  const eng = await withEngine(t);
  if (!eng) return;
  const rand = rng(90);
  const f = (shape, layout) => hostTensor(rand, 'float32', shape, layout, { lo: -3, hi: 3 });
  const ties = (shape, layout) => { const h = f(shape, layout); h.storage.forEach((v, i) => { h.storage[i] = Math.round(v); }); return h; };
  const TOL = { rtol: 1e-5, atol: 1e-5 };
  const x = f([2, 3, 70]);
  const xt = f([4, 65, 3]);
  await checkLowered(eng, gpu, 'aten.amax.default', [x], [{ shape: [2, 1, 1], dtype: 'float32' }], { dim: [1, 2], keepdim: true });
  await checkLowered(eng, gpu, 'aten.amin.default', [xt], [{ shape: [4, 3], dtype: 'float32' }], { dim: [1] }, { transposed: [0] });
  await checkLowered(eng, gpu, 'aten.max.default', [x], [{ shape: [], dtype: 'float32' }], {});
  await checkLowered(eng, gpu, 'aten.min.default', [f([1])], [{ shape: [], dtype: 'float32' }], {});
  await checkLowered(eng, gpu, 'aten.var.correction', [x], [{ shape: [2, 70], dtype: 'float32' }], { dim: [1], correction: 0 }, TOL);
  await checkLowered(eng, gpu, 'aten.std.correction', [xt], [{ shape: [4, 1, 3], dtype: 'float32' }], { dim: [1], keepdim: true }, { ...TOL, transposed: [0] });
  await checkLowered(eng, gpu, 'aten.var.dim', [x], [{ shape: [3], dtype: 'float32' }], { dim: [0, 2], unbiased: false }, { ...TOL, onGpu: false });
  await checkLowered(eng, gpu, 'aten.argmax.default', [ties([2, 4, 36])], [{ shape: [2, 4, 1], dtype: 'int32' }], { dim: -1, keepdim: true });
  await checkLowered(eng, gpu, 'aten.argmin.default', [ties([5, 7])], [{ shape: [], dtype: 'int32' }], {});
  await checkLowered(eng, gpu, 'aten.argmax.default', [ties([130, 3])], [{ shape: [3], dtype: 'int32' }], { dim: 0 }, { transposed: [0] });
  await checkLowered(eng, gpu, 'aten.max.dim', [ties([6, 5])], [{ shape: [6], dtype: 'float32' }, { shape: [6], dtype: 'int32' }], { dim: 1 });
  await checkLowered(eng, gpu, 'aten.min.dim', [ties([3, 1, 4])], [{ shape: [1, 1, 4], dtype: 'float32' }, { shape: [1, 1, 4], dtype: 'int32' }],
    { dim: 0, keepdim: true });
  // Integers (int64 in the IR, int32 on the GPU) compare exactly, past f32's 2^24.
  const ints = (shape) => hostTensor(rand, 'int32', shape, 'contiguous', { lo: 16777216, hi: 16777219 });
  await checkLowered(eng, gpu, 'aten.argmax.default', [ints([2, 8])], [{ shape: [2], dtype: 'int32' }], { dim: -1 });
  await checkLowered(eng, gpu, 'aten.argmin.default', [ints([70, 3])], [{ shape: [1, 3], dtype: 'int32' }], { dim: 0, keepdim: true });
  await checkLowered(eng, gpu, 'aten.max.dim', [ints([4, 65])], [{ shape: [4], dtype: 'int32' }, { shape: [4], dtype: 'int32' }], { dim: 1 });
  await checkLowered(eng, gpu, 'aten.amax.default', [ints([4, 5])], [{ shape: [4], dtype: 'int32' }], { dim: [1] }, { onGpu: false });
  await checkLowered(eng, gpu, 'aten.linalg_vector_norm.default', [f([2, 16])], [{ shape: [2, 1], dtype: 'float32' }], { ord: 2, dim: [-1], keepdim: true }, TOL);
  await checkLowered(eng, gpu, 'aten.linalg_vector_norm.default', [f([3, 70])], [{ shape: [], dtype: 'float32' }], {}, TOL);
  await checkLowered(eng, gpu, 'aten.linalg_vector_norm.default', [f([3, 5])], [{ shape: [3], dtype: 'float32' }], { ord: 1, dim: [1] }, { ...TOL, onGpu: false });
  await checkLowered(eng, gpu, 'aten.sum.dim_IntList', [f([3, 5, 7])], [{ shape: [], dtype: 'float32' }], { dim: [] }, TOL);
  await checkLowered(eng, gpu, 'aten.mean.dim', [f([4, 0, 3])], [{ shape: [4, 3], dtype: 'float32' }], { dim: [1] }, { ...TOL, onGpu: false });
}));

test('native_group_norm: on the GPU when its mean/rstd are not read (WebGPU provider vs CPU)', gpuTest(async (t, gpu) => {
  const eng = await withEngine(t);
  if (!eng) return;
  const rand = rng(91);
  const x = hostTensor(rand, 'float32', [2, 6, 5, 3], 'contiguous', { lo: -3, hi: 5 });
  const w = hostTensor(rand, 'float32', [6]);
  const b = hostTensor(rand, 'float32', [6]);
  const outs = [{ shape: [2, 6, 5, 3], dtype: 'float32' }, { shape: [2, 3], dtype: 'float32' }, { shape: [2, 3], dtype: 'float32' }];
  const attrs = { N: 2, C: 6, HxW: 15, group: 3, eps: 1e-5 };
  await checkLowered(eng, gpu, 'aten.native_group_norm.default', [x, w, b], outs, attrs, { read: [0], rtol: 1e-5, atol: 2e-5 });
  await checkLowered(eng, gpu, 'aten.native_group_norm.default', [x, w, b], outs, attrs, { onGpu: false, rtol: 1e-5, atol: 2e-5 });
}));

test('topk through the provider: values and indices equal the CPU\'s (ties by index, NaN first)', gpuTest(async (t, gpu) => {
  const eng = await withEngine(t);
  if (!eng) return;
  const rand = rng(93);
  const f = (shape, layout) => hostTensor(rand, 'float32', shape, layout, { lo: -4, hi: 4 });
  const ties = (shape, layout) => { const h = f(shape, layout); h.storage.forEach((v, i) => { h.storage[i] = Math.round(v); }); return h; };
  const outs = (shape) => [{ shape, dtype: 'float32' }, { shape, dtype: 'int32' }];
  // MoE routing ([tokens, experts], k 2), rows past one workgroup, a strided dim 0, smallest
  // first, k = n, size 1, and k = 0.
  await checkLowered(eng, gpu, 'aten.topk.default', [f([6, 4])], outs([6, 2]), { k: 2 });
  await checkLowered(eng, gpu, 'aten.topk.default', [ties([3, 130])], outs([3, 9]), { k: 9, dim: 1 });
  await checkLowered(eng, gpu, 'aten.topk.default', [ties([130, 3])], outs([7, 3]), { k: 7, dim: 0 }, { transposed: [0] });
  await checkLowered(eng, gpu, 'aten.topk.default', [ties([2, 3, 5], 'sliced')], outs([2, 3, 5]), { k: 5, dim: -1, largest: false });
  await checkLowered(eng, gpu, 'aten.topk.default', [ties([2, 6, 3])], outs([2, 4, 3]), { k: 4, dim: 1, largest: false });
  await checkLowered(eng, gpu, 'aten.topk.default', [f([1])], outs([1]), { k: 1 });
  await checkLowered(eng, gpu, 'aten.topk.default', [f([4, 3])], outs([4, 0]), { k: 0 });
  // NaN counts as the largest value: first when largest, last when smallest.
  const n = f([2, 70]);
  for (const i of [3, 64, 69, 70 + 5]) n.storage[i] = NaN;
  await checkLowered(eng, gpu, 'aten.topk.default', [n], outs([2, 4]), { k: 4 });
  await checkLowered(eng, gpu, 'aten.topk.default', [n], outs([2, 69]), { k: 69, largest: false });
}));

// NaN propagates as in torch: through the max/min family (relu, clamp, hardtanh, relu6,
// hardsigmoid, threshold, maximum/minimum, amax/amin, max/min, max_pool2d) and argmax/argmin
// (the first NaN's index). WGSL's max/min may return either operand for a NaN and compilers may
// fold v != v (lavapipe's does), so the kernels test the bits: each GPU result is NaN exactly
// where torch's is, and otherwise equals the CPU's.
test('NaN propagates as torch: relu, clamp, maximum, threshold, amax/amin, max/min, argmax/argmin, max_pool2d', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(140);
  const withNaN = (shape, at) => {
    const h = hostTensor(rand, 'float32', shape);
    for (const i of at) h.storage[i] = NaN;
    return h;
  };
  const x = withNaN([3, 70], [5, 80, 81, 139]);  // rows 0 and 1 hold NaNs (row 1 two), row 2 none
  const same = [{ shape: [3, 70], dtype: 'float32' }];
  const unary = [['aten.relu.default', {}], ['aten.clamp.default', { min: -0.5, max: 0.5 }], ['aten.hardtanh.default', { min_val: -1, max_val: 1 }],
    ['aten.relu6.default', {}], ['aten.hardsigmoid.default', {}], ['aten.threshold.default', { threshold: 0.1, value: 7 }]];
  for (const [op, attrs] of unary) {
    const r = await lowered(eng, gpu.device, op, [x], same, attrs);
    assert.equal(r.placement.nodes.wasm, 0, op);
    for (const i of [5, 80, 81, 139]) assert.ok(Number.isNaN(r.gpu[0][i]), `${op}: element ${i} is ${r.gpu[0][i]}, not NaN`);
    assertClose(r.gpu[0], r.cpu[0], { rtol: 0, atol: 0, what: op });
  }
  const y = withNaN([3, 70], [6, 80]);
  for (const op of ['aten.maximum.default', 'aten.minimum.default']) {
    const r = await lowered(eng, gpu.device, op, [x, y], same, {});
    for (const i of [5, 6, 80, 81, 139]) assert.ok(Number.isNaN(r.gpu[0][i]), `${op}: element ${i}`);
    assertClose(r.gpu[0], r.cpu[0], { rtol: 0, atol: 0, what: op });
  }
  const rows = [{ shape: [3], dtype: 'float32' }];
  for (const op of ['aten.amax.default', 'aten.amin.default']) {
    const r = await lowered(eng, gpu.device, op, [x], rows, { dim: [1] });
    assert.ok(Number.isNaN(r.gpu[0][0]) && Number.isNaN(r.gpu[0][1]) && !Number.isNaN(r.gpu[0][2]), `${op}: ${r.gpu[0]}`);
    assertClose(r.gpu[0], r.cpu[0], { rtol: 0, atol: 0, what: op });
  }
  for (const op of ['aten.max.default', 'aten.min.default']) {
    const r = await lowered(eng, gpu.device, op, [x], [{ shape: [], dtype: 'float32' }], {});
    assert.ok(Number.isNaN(r.gpu[0][0]), `${op}: ${r.gpu[0]}`);
  }
  for (const op of ['aten.argmax.default', 'aten.argmin.default']) {
    const r = await lowered(eng, gpu.device, op, [x], [{ shape: [3], dtype: 'int32' }], { dim: 1 });
    assert.deepEqual(r.gpu[0].slice(0, 2), [5, 10], `${op}: the first NaN's index`);
    assert.deepEqual(r.gpu[0], r.cpu[0], op);
  }
  const r = await lowered(eng, gpu.device, 'aten.max.dim', [x], [{ shape: [3], dtype: 'float32' }, { shape: [3], dtype: 'int32' }], { dim: 1 });
  assert.deepEqual(r.gpu[1].slice(0, 2), [5, 10], 'max.dim indices');
  assert.ok(Number.isNaN(r.gpu[0][0]) && Number.isNaN(r.gpu[0][1]), 'max.dim values');
  const img = withNaN([1, 2, 6, 6], [7, 40]);
  const p = await lowered(eng, gpu.device, 'aten.max_pool2d.default', [img], [{ shape: [1, 2, 3, 3], dtype: 'float32' }], { kernel_size: [2, 2], stride: [2, 2] });
  assert.equal(p.placement.nodes.wasm, 0, 'max_pool2d');
  assert.ok(Number.isNaN(p.gpu[0][0]) && Number.isNaN(p.gpu[0][11]), `max_pool2d: ${p.gpu[0]}`);
  assertClose(p.gpu[0], p.cpu[0], { rtol: 0, atol: 0, what: 'max_pool2d' });
}));
