// Elementwise kernels (every op of src/kernels/wgsl/elementwise_ops.json but the nullary/copy
// ones, which data.test.mjs covers) against our engine's CPU kernels (engine.mjs: the WASM build
// running the matching aten op): odd, 1, empty and 0-d shapes, broadcasts, transposed and
// strided inputs, and torch's type promotion among float32, int32 (engine: int64) and bool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest, elementwise, download, broadcastShapes } from './gpu.mjs';
import { ELEMENTWISE_OPS, elementwiseTypes } from '../../npm/lib/webgpu/kernels.js';
import { rng, hostTensor, toGpu, assertClose } from './ref.mjs';
import { getEngine, engineOp, checkLowered, runBoth } from './engine.mjs';

// op -> [aten op, attrs from (p0, p1), input ranges]; p0/p1 are the kernel's scalars.
const POS = { lo: 0.1, hi: 3 };
const NONZERO = { lo: 0.5, hi: 2 };
const ATEN = {
  neg: ['aten.neg.default'], abs: ['aten.abs.default'], sign: ['aten.sign.default'],
  square: ['aten.square.default'], relu: ['aten.relu.default'],
  clamp: ['aten.clamp.default', (p0, p1) => ({ min: p0, max: p1 })],
  relu6: ['aten.hardtanh.default', () => ({ min_val: 0, max_val: 6 }), { lo: -3, hi: 9 }],
  leaky_relu: ['aten.leaky_relu.default', (p0) => ({ negative_slope: p0 })],
  elu: ['aten.elu.default', (p0) => ({ alpha: p0 })],
  gelu: ['aten.gelu.default', () => ({ approximate: 'none' }), { lo: -5, hi: 5 }],
  gelu_tanh: ['aten.gelu.default', () => ({ approximate: 'tanh' }), { lo: -5, hi: 5 }],
  silu: ['aten.silu.default', null, { lo: -10, hi: 10 }], sigmoid: ['aten.sigmoid.default', null, { lo: -10, hi: 10 }],
  tanh: ['aten.tanh.default', null, { lo: -10, hi: 10 }], hardswish: ['aten.hardswish.default', null, { lo: -5, hi: 5 }],
  hardsigmoid: ['aten.hardsigmoid.default', null, { lo: -5, hi: 5 }],
  softplus: ['aten.softplus.default', null, { lo: -25, hi: 25 }], mish: ['aten.mish.default', null, { lo: -5, hi: 5 }],
  erf: ['aten.erf.default', null, { lo: -5, hi: 5 }], erfc: ['aten.erfc.default', null, { lo: -3, hi: 3 }], exp: ['aten.exp.default', null, { lo: -5, hi: 5 }],
  log: ['aten.log.default', null, POS], sqrt: ['aten.sqrt.default', null, POS], rsqrt: ['aten.rsqrt.default', null, POS],
  reciprocal: ['aten.reciprocal.default', null, NONZERO], sin: ['aten.sin.default', null, { lo: -4, hi: 4 }],
  cos: ['aten.cos.default', null, { lo: -4, hi: 4 }],
  floor: ['aten.floor.default', null, { lo: -5, hi: 5 }], ceil: ['aten.ceil.default', null, { lo: -5, hi: 5 }],
  round: ['aten.round.default', null, { lo: -5, hi: 5 }], trunc: ['aten.trunc.default', null, { lo: -5, hi: 5 }],
  tan: ['aten.tan.default', null, { lo: -1.2, hi: 1.2 }], asin: ['aten.asin.default', null, { lo: -0.95, hi: 0.95 }],
  acos: ['aten.acos.default', null, { lo: -0.95, hi: 0.95 }], atan: ['aten.atan.default', null, { lo: -5, hi: 5 }],
  sinh: ['aten.sinh.default', null, { lo: -3, hi: 3 }], cosh: ['aten.cosh.default', null, { lo: -3, hi: 3 }],
  asinh: ['aten.asinh.default', null, { lo: -5, hi: 5 }], acosh: ['aten.acosh.default', null, { lo: 1.05, hi: 5 }],
  atanh: ['aten.atanh.default', null, { lo: -0.9, hi: 0.9 }], exp2: ['aten.exp2.default', null, { lo: -5, hi: 5 }],
  log10: ['aten.log10.default', null, POS], frac: ['aten.frac.default', null, { lo: -5, hi: 5 }],
  hardshrink: ['aten.hardshrink.default', (p0) => ({ lambd: p0 })],
  softshrink: ['aten.softshrink.default', (p0) => ({ lambd: p0 })],
  threshold: ['aten.threshold.default', (p0, p1) => ({ threshold: p0, value: p1 })],
  logical_not: ['aten.logical_not.default'],
  add: ['aten.add.Tensor', (p0) => ({ alpha: p0 })], sub: ['aten.sub.Tensor', (p0) => ({ alpha: p0 })],
  mul: ['aten.mul.Tensor'], div: ['aten.div.Tensor', null, NONZERO],
  pow: ['aten.pow.Tensor_Tensor', null, POS], maximum: ['aten.maximum.default'], minimum: ['aten.minimum.default'],
  remainder: ['aten.remainder.Tensor', null, NONZERO], atan2: ['aten.atan2.default'],
  hypot: ['aten.hypot.default'], copysign: ['aten.copysign.Tensor'],
  lerp_scalar: ['aten.lerp.Scalar', (p0) => ({ weight: p0 })],
  eq: ['aten.eq.Tensor'], ne: ['aten.ne.Tensor'], lt: ['aten.lt.Tensor'], le: ['aten.le.Tensor'],
  gt: ['aten.gt.Tensor'], ge: ['aten.ge.Tensor'],
  logical_and: ['aten.logical_and.default'], logical_or: ['aten.logical_or.default'],
  masked_fill: ['aten.masked_fill.Scalar', (p0) => ({ value: p0 })],
  where: ['aten.where.self'], addcmul: ['aten.addcmul.default', (p0) => ({ value: p0 })],
  addcdiv: ['aten.addcdiv.default', (p0) => ({ value: p0 }), NONZERO],
  lerp: ['aten.lerp.Tensor', null, { lo: 0, hi: 1 }],
  // The Scalar forms (the operand a p0 parameter): what the WebGPU lowerings of add.Scalar,
  // mul.Scalar, rsub.Scalar, pow.Tensor_Scalar, lt.Scalar, ... emit.
  add_scalar: ['aten.add.Scalar', (p0) => ({ other: p0 })], mul_scalar: ['aten.mul.Scalar', (p0) => ({ other: p0 })],
  div_scalar: ['aten.div.Scalar', (p0) => ({ other: p0 })], rsub_scalar: ['aten.rsub.Scalar', (p0) => ({ other: p0 })],
  pow_scalar: ['aten.pow.Tensor_Scalar', (p0) => ({ exponent: p0 }), POS],
  eq_scalar: ['aten.eq.Scalar', (p0) => ({ other: p0 })], ne_scalar: ['aten.ne.Scalar', (p0) => ({ other: p0 })],
  lt_scalar: ['aten.lt.Scalar', (p0) => ({ other: p0 })], le_scalar: ['aten.le.Scalar', (p0) => ({ other: p0 })],
  gt_scalar: ['aten.gt.Scalar', (p0) => ({ other: p0 })], ge_scalar: ['aten.ge.Scalar', (p0) => ({ other: p0 })],
};
// data.test.mjs (copy, full, arange; round_f16, round_bf16: the casts to float16/bfloat16, exact);
// and tril, triu (2-d and up only) through the provider
const SKIP = new Set(['copy', 'full', 'arange', 'tril', 'triu', 'round_f16', 'round_bf16']);
const SCALARS = { clamp: [-0.5, 1.25], leaky_relu: [0.1, 0], elu: [0.7, 0], add: [1.5, 0], sub: [-2, 0],
  masked_fill: [3.5, 0], addcmul: [0.5, 0], add_scalar: [1.5, 0], mul_scalar: [-2.5, 0], div_scalar: [3, 0],
  rsub_scalar: [0.75, 0], pow_scalar: [1.5, 0], hardshrink: [0.5, 0], softshrink: [0.5, 0], threshold: [0.25, -1.5],
  lerp_scalar: [0.3, 0], addcdiv: [-0.75, 0], eq_scalar: [0, 0], ne_scalar: [0, 0], lt_scalar: [0.25, 0],
  le_scalar: [0.25, 0], gt_scalar: [-0.25, 0], ge_scalar: [-0.25, 0] };

// Shape cases per arity: [shapes, layouts].
const CASES = {
  1: [[[[]]], [[[0]]], [[[1]]], [[[7]]], [[[3, 65]]], [[[3, 65]], ['transposed']], [[[5, 9]], ['sliced']]],
  2: [[[[7], [7]]], [[[3, 1, 5], [4, 1]]], [[[], [2, 3]]], [[[0, 3], [3]]], [[[6, 5], [6, 5]], ['transposed', 'sliced']],
    [[[2, 1], [1, 70]]]],
  3: [[[[7], [7], [7]]], [[[3, 1], [1, 4], [3, 4]]], [[[4, 6], [6], [4, 1]], ['transposed', 'sliced']], [[[0], [1], [1]]]],
};

const tol = (op) => (['cmp'].includes(ELEMENTWISE_OPS[op].kind) ? { rtol: 0, atol: 0 } : { rtol: 2e-6, atol: 2e-6 });

async function runCase(gpu, eng, op, shapes, layouts, dtypes, seed) {
  const [aten, attrsOf, range] = ATEN[op];
  const e = ELEMENTWISE_OPS[op];
  const bools = new Set(e.bools ?? []);
  const rand = rng(seed);
  const inputs = shapes.map((s, i) => hostTensor(rand, bools.has(i) ? 'bool' : dtypes[i], s, layouts?.[i] ?? 'contiguous',
    range && !bools.has(i) ? range : undefined));
  let [p0, p1] = SCALARS[op] ?? [0, 0];
  // torch refuses float scalars (alpha) for integral tensors: integral cases take integral ones
  if (elementwiseTypes(op, inputs.map((h) => h.dtype)).compute === 'int32') [p0, p1] = [Math.trunc(p0) || 2, Math.trunc(p1)];
  const outShape = broadcastShapes(...shapes);
  const { out } = elementwiseTypes(op, inputs.map((h) => h.dtype));
  const y = await elementwise(gpu, op, inputs.map((h) => toGpu(gpu, h)), { p0, p1 });
  assert.deepEqual(y.shape, outShape);
  const got = await download(gpu, y);
  const attrs = attrsOf ? attrsOf(p0, p1) : {};
  const want = await engineOp(eng, aten, inputs, { shape: outShape, dtype: out === 'int32' ? 'int32' : out }, attrs);
  assertClose(got, want, { ...tol(op), what: `${op} ${JSON.stringify(shapes)} ${layouts ?? ''} ${dtypes}` });
}

test('every elementwise op on float32: shapes, broadcasts, strided inputs', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const ops = Object.keys(ELEMENTWISE_OPS).filter((op) => !SKIP.has(op));
  assert.deepEqual(ops.filter((op) => !ATEN[op]), [], 'every table op has its engine counterpart here');
  let seed = 100;
  for (const op of ops) {
    for (const [shapes, layouts] of CASES[ELEMENTWISE_OPS[op].arity]) {
      await runCase(gpu, eng, op, shapes, layouts, shapes.map(() => 'float32'), seed++);
    }
  }
}));

test('type promotion: int32 with float32, int32 with int32, bool operands', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  let seed = 900;
  for (const op of ['add', 'sub', 'mul', 'maximum', 'minimum', 'lt', 'eq', 'div', 'where', 'masked_fill']) {
    const arity = ELEMENTWISE_OPS[op].arity;
    const combos = arity === 3 ? [['bool', 'int32', 'int32'], ['bool', 'int32', 'float32']]
      : arity === 2 ? [['int32', 'int32'], ['int32', 'float32'], ['float32', 'int32']] : [['int32']];
    for (const dtypes of combos) {
      for (const [shapes, layouts] of CASES[arity].slice(0, 4)) await runCase(gpu, eng, op, shapes, layouts, dtypes, seed++);
    }
  }
  for (const op of ['neg', 'abs', 'relu', 'exp', 'sigmoid', 'floor']) {
    for (const [shapes, layouts] of CASES[1].slice(2, 7)) await runCase(gpu, eng, op, shapes, layouts, ['int32'], seed++);
  }
  // int32 + int32 stays int32 and exact.
  const y = await elementwise(gpu, 'add', [toGpu(gpu, hostTensor(rng(1), 'int32', [3], 'contiguous', { lo: 1e6, hi: 2e6 })),
    toGpu(gpu, hostTensor(rng(2), 'int32', [3]))], { p0: 1 });
  assert.equal(y.dtype, 'int32');
}));

// The lowerings that map aten ops and their attributes (defaults included) onto table ops.
test('lowerings: attributes and defaults of the table ops (WebGPU provider vs CPU)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(950);
  const f = (shape, range) => hostTensor(rand, 'float32', shape, 'contiguous', range);
  const TOL = { rtol: 2e-6, atol: 2e-6 };
  const x = f([3, 65]);
  const out = [{ shape: [3, 65], dtype: 'float32' }];
  for (const [op, attrs] of [['aten.hardshrink.default', {}], ['aten.softshrink.default', { lambd: 1 }], ['aten.sgn.default', {}],
    ['aten.threshold.default', { threshold: 0.5, value: -2 }], ['aten.rrelu.default', {}], ['aten.frac.default', {}]]) {
    await checkLowered(eng, gpu, op, [x], out, attrs, TOL);
  }
  const y = f([3, 65]);
  await checkLowered(eng, gpu, 'aten.lerp.Scalar', [x, y], out, { weight: 0.75 }, { ...TOL, transposed: [1] });
  await checkLowered(eng, gpu, 'aten.addcdiv.default', [x, f([1, 65]), f([3, 1], { lo: 0.5, hi: 2 })], out, {}, TOL);
  await checkLowered(eng, gpu, 'aten.atan2.default', [x, f([65])], out, {}, TOL);
  await checkLowered(eng, gpu, 'aten.true_divide.Tensor', [x, f([65], { lo: 0.5, hi: 2 })], out, {}, TOL);
  // True division of integers (int64 in the IR) gives float32, computed in f32 as the CPU does.
  const n = hostTensor(rand, 'int32', [3, 65], 'contiguous', { lo: -100000, hi: 100000 });
  await checkLowered(eng, gpu, 'aten.true_divide.Tensor', [n], out, { other: 7 }, TOL);
  await checkLowered(eng, gpu, 'aten.div.Tensor', [n, hostTensor(rand, 'int32', [65], 'contiguous', { lo: 1, hi: 9 })], out, {}, TOL);
}));

// sin/cos/tan take any argument a model gives them: rotary embeddings reach position x 1.0, far
// outside [-pi, pi] where WGSL's builtins are specified (2^-11). common.wgsl's sincos_f reduces
// exactly; within 1.5e-7 of float64 up to 2^24 (torch's own float32 is within ~6e-8).
test('sin, cos and tan of large arguments against float64', gpuTest(async (t, gpu) => {
  const rand = rng(960);
  const xs = new Float32Array(4096);
  for (let i = 0; i < xs.length; i++) {
    const mag = 10 ** (rand() * 7.2);  // 1 .. ~1.6e7
    xs[i] = (rand() < 0.5 ? -1 : 1) * mag;
  }
  xs.set([0, -0, 1e-30, Math.fround(Math.PI / 4), Math.fround(Math.PI / 2), 8388608, 16777215, 131071]);
  const x = { storage: xs, dtype: 'float32', shape: [xs.length], strides: [1], offset: 0 };
  for (const [op, ref, tol] of [['sin', Math.sin, { rtol: 0, atol: 1.5e-7 }], ['cos', Math.cos, { rtol: 0, atol: 1.5e-7 }],
    ['tan', Math.tan, { rtol: 1e-6, atol: 1.5e-7 }]]) {
    const y = await download(gpu, await elementwise(gpu, op, [toGpu(gpu, x)]));
    assertClose(y, Array.from(xs, ref), { ...tol, what: op });
  }
}));

// The HF rotary embedding that ops/higher_order.cpp recognizes (wrap_with_set_grad_enabled with
// inv_freq and position ids -> cos, sin [B, S, 2H]) on the GPU (rope.wgsl): against float64 of
// the same f32 products, positions up to 2^17, inv_freq shared or expanded per batch.
test('rotary embedding (wrap_with_set_grad_enabled) on the GPU against float64', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(961);
  for (const [B, S, H, perBatch] of [[1, 5, 4, false], [2, 33, 16, false], [2, 3, 8, true]]) {
    const inv = Float32Array.from({ length: H }, (_, j) => Math.fround(1 / 10000 ** (2 * j / (2 * H))));
    const pos = Int32Array.from({ length: B * S }, () => Math.floor(rand() * 131072));
    const invShape = perBatch ? [B, H, 1] : [H];
    const invData = perBatch ? Float32Array.from({ length: B * H }, (_, i) => inv[i % H]) : inv;
    const meta = (name, shape, dtype, producer) => ({ name, shape, dtype, ...(producer ? { producer_node: producer, producer_output_idx: 0 } : {}) });
    const outs = [meta('cos', [B, S, 2 * H], 'float32'), meta('sin', [B, S, 2 * H], 'float32')];
    const ir = {
      model_name: 'Rope', graph_inputs: [meta('inv_freq', invShape, 'float32'), meta('position_ids', [B, S], 'int64')],
      graph_outputs: [meta('cos', [B, S, 2 * H], 'float32', 'rope'), meta('sin', [B, S, 2 * H], 'float32', 'rope')],
      weights: [], weight_name_mapping: {},
      nodes: [{ name: 'rope', op_type: 'wrap_with_set_grad_enabled', attrs: {}, outputs: outs,
        inputs: [meta('inv_freq', invShape, 'float32', 'inv_freq'), meta('position_ids', [B, S], 'int64', 'position_ids')] }],
    };
    const host = (storage, dtype, shape) => ({ storage, dtype, shape, strides: shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1)), offset: 0 });
    const r = await runBoth(eng, gpu.device, ir, [host(invData, 'float32', invShape), host(pos, 'int32', [B, S])]);
    assert.deepEqual(r.placement.nodes, { webgpu: 1, wasm: 0 });
    const want = [[], []];
    for (let b = 0; b < B; b++) {
      for (let s2 = 0; s2 < S; s2++) {
        for (let half = 0; half < 2; half++) {
          for (let j = 0; j < H; j++) {
            const a = Math.fround(pos[b * S + s2] * inv[j]);
            want[0].push(Math.cos(a));
            want[1].push(Math.sin(a));
          }
        }
      }
    }
    for (const k of [0, 1]) {
      assertClose(r.gpu[k], want[k], { rtol: 0, atol: 1.5e-7, what: `rope ${[B, S, H]} gpu output ${k}` });
      assertClose(r.cpu[k], want[k], { rtol: 0, atol: 1.5e-7, what: `rope ${[B, S, H]} cpu output ${k}` });
    }
  }
}));
