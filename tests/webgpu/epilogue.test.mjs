// The fused epilogue of the producer kernels (epilogue.wgsl: batch norm as scale/shift, residual,
// relu/clamp), applied at the store of conv2d (implicit GEMM, direct, 1x1 as GEMM), matmul and
// gemv, against the same kernel's output without it, finished in JS: the store's index and
// channel arithmetic across tile edges, a residual at an offset, NaN through relu and clamp.
// End to end, the plan fuses conv + batch norm + add + relu into one dispatch
// (models.test.mjs verifies every fixture with fusion on), and so does a linear or conv2d with a
// smooth activation (its expression from elementwise_ops.json in the store).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest, conv2d, matmul, download, upload } from './gpu.mjs';
import { rng, hostTensor, toGpu, assertClose } from './ref.mjs';
import { getEngine, runBoth } from './engine.mjs';

const f32 = Math.fround;

// What the epilogue makes of y0 (the producer's output, flat), in f32 steps as the kernel does
// (the kernel may fuse y * scale + shift into one fma: a last-bit difference at most).
function finish(y0, { channels, inner, scale, shift, residual, resOff = 0, act, lo = -Infinity, hi = Infinity }) {
  return Float32Array.from(y0, (v, i) => {
    let y = v;
    if (scale) {
      const c = Math.floor(i / inner) % channels;
      y = f32(f32(y * scale[c]) + shift[c]);
    }
    if (residual) y = f32(y + residual[resOff + i]);
    if (act === 'relu') y = y < 0 ? 0 : y;
    if (act === 'clamp') y = y < lo ? lo : y > hi ? hi : y;
    return y;
  });
}

function assertNear(got, want, what) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    if (Number.isNaN(want[i])) { assert.ok(Number.isNaN(got[i]), `${what}: element ${i}: got ${got[i]}, want NaN`); continue; }
    const tol = 1e-6 + 1e-6 * Math.abs(want[i]);
    if (!(Math.abs(got[i] - want[i]) <= tol)) assert.fail(`${what}: element ${i}: got ${got[i]}, want ${want[i]}`);
  }
}

// A residual of `n` values stored after `off` others, a NaN among them; an affine of `c` channels.
function parts(rand, n, off, c) {
  const res = hostTensor(rand, 'float32', [off + n]).storage;
  if (n > 3) res[off + 3] = NaN;
  const scale = hostTensor(rand, 'float32', [c], 'contiguous', { lo: -1.5, hi: 1.5 }).storage;
  const shift = hostTensor(rand, 'float32', [c]).storage;
  return { res, scale, shift };
}

const EPILOGUES = [
  { label: 'bn + residual + relu', bn: true, residual: true, act: 'relu' },
  { label: 'bn + clamp', bn: true, act: 'clamp', lo: -0.5, hi: 0.75 },
  { label: 'residual', residual: true },
  { label: 'relu', act: 'relu' },
];

async function checkProducer(gpu, what, shape, channels, inner, run, seed) {
  const n = shape.reduce((a, b) => a * b, 1);
  const y0 = await download(gpu, await run(null));
  let k = seed;
  for (const e of EPILOGUES) {
    const { res, scale, shift } = parts(rng(k++), n, 5, channels);
    const affine = Float32Array.from([...scale, ...shift]);
    const spec = { channels, inner, act: e.act, lo: e.lo, hi: e.hi,
      residual: e.residual ? upload(gpu, res, 'float32', [n], [1], 5) : null,
      affine: e.bn ? upload(gpu, affine, 'float32', [2 * channels]) : null };
    const got = await download(gpu, await run(spec));
    const want = finish(y0, { channels, inner, act: e.act, lo: e.lo, hi: e.hi, resOff: 5,
      residual: e.residual ? res : null, scale: e.bn ? scale : null, shift });
    assertNear(got, want, `${what}: ${e.label}`);
  }
}

test('fused epilogue at the store of conv2d (implicit GEMM, direct, 1x1 GEMM)', gpuTest(async (t, gpu) => {
  const cases = [
    // [x shape, cout, k, options]: output tiles with edges (cout 70, 65 pixels), grouped, 1x1
    [[2, 3, 19, 17], 70, 7, { stride: 2, padding: 3 }],
    [[1, 6, 7, 9], 6, 3, { padding: 1, groups: 3 }],
    [[2, 5, 6, 7], 9, 1, {}],
  ];
  let seed = 300;
  for (const [xs, cout, k, opts] of cases) {
    const rand = rng(seed++);
    const x = toGpu(gpu, hostTensor(rand, 'float32', xs));
    const w = toGpu(gpu, hostTensor(rand, 'float32', [cout, xs[1] / (opts.groups ?? 1), k, k]));
    const b = toGpu(gpu, hostTensor(rand, 'float32', [cout]));
    // kChunk: split-K, whose epilogue runs in split_k_sum's store.
    for (const [tile, kChunk] of opts.groups ? [[64, 0]] : [[64, 0], [16, 0], [16, 32]]) {
      const probe = await conv2d(gpu, x, w, b, { ...opts, tile, kChunk });
      const [, , oh, ow] = probe.shape;
      await checkProducer(gpu, `conv2d ${JSON.stringify(xs)} k${k} tile ${tile} kChunk ${kChunk}`, probe.shape, cout, oh * ow,
        (epilogue) => conv2d(gpu, x, w, b, { ...opts, tile, epilogue, kChunk }), seed * 10);
    }
  }
}));

test('fused epilogue at the store of matmul (tiles) and gemv', gpuTest(async (t, gpu) => {
  // [a shape, b shape]: M, N past a 64 tile with edges; a batch; M = 1 (gemv)
  const cases = [[[67, 40], [40, 71]], [[3, 5, 9], [3, 9, 17]], [[1, 130], [130, 33]]];
  let seed = 400;
  for (const [as, bs] of cases) {
    const rand = rng(seed++);
    const a = toGpu(gpu, hostTensor(rand, 'float32', as));
    const b = toGpu(gpu, hostTensor(rand, 'float32', bs, 'transposed'));  // a linear's W^T
    const c = toGpu(gpu, hostTensor(rand, 'float32', [bs.at(-1)]));
    for (const [tile, kChunk] of as.at(-2) === 1 ? [[64, 0]] : [[64, 0], [16, 0], [16, 16]]) {
      const probe = await matmul(gpu, a, b, { c, tile, kChunk });
      const N = probe.shape.at(-1);
      // Channels over dim 1 of the output, as a batch norm after a conv sees them.
      const channels = probe.shape.length === 3 ? probe.shape[1] : N;
      const inner = probe.shape.length === 3 ? N : 1;
      await checkProducer(gpu, `matmul ${JSON.stringify(as)} x ${JSON.stringify(bs)} tile ${tile} kChunk ${kChunk}`, probe.shape,
        channels, inner, (epilogue) => matmul(gpu, a, b, { c, tile, epilogue, kChunk }), seed * 10);
    }
  }
}));

// The smooth activations (gelu in both forms, silu, sigmoid, tanh, hardswish, hardsigmoid) that the
// plan fuses into a linear's or a convolution's store: through the engine (its fusion pass and
// lowering, the executor's {{EPI_ACT}}), against the same two-node graph on WASM.
test('fused smooth activations after linear and conv2d (engine, WebGPU vs WASM)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const T = (name, shape, extra = {}) => ({ name, shape, dtype: 'float32', ...extra });
  const ref = (name, shape) => T(name, shape, { producer_node: name, producer_output_idx: 0 });
  const acts = [['aten.gelu.default', {}], ['aten.gelu.default', { approximate: 'tanh' }], ['aten.silu.default', {}],
    ['aten.sigmoid.default', {}], ['aten.tanh.default', {}], ['aten.hardswish.default', {}], ['aten.hardsigmoid.default', {}]];
  const rand = rng(500);
  const producers = [
    { op: 'aten.linear.default', ins: [[5, 67], [70, 67], [70]], out: [5, 70], attrs: {} },
    { op: 'aten.conv2d.default', ins: [[1, 3, 9, 11], [6, 3, 3, 3], [6]], out: [1, 6, 9, 11], attrs: { padding: [1, 1] } },
  ];
  for (const p of producers) {
    const feeds = p.ins.map((s) => hostTensor(rand, 'float32', s, 'contiguous', { lo: -3, hi: 3 }));
    for (const [op, attrs] of acts) {
      const names = ['x', 'w', 'b'];
      const ir = { model_name: 'FusedAct', weights: [], weight_name_mapping: {},
        graph_inputs: p.ins.map((s, i) => T(names[i], s)), graph_outputs: [T('a', p.out)],
        nodes: [
          { name: 'y', op_type: p.op, attrs: p.attrs, inputs: p.ins.map((s, i) => ref(names[i], s)), outputs: [T('y', p.out)] },
          { name: 'a', op_type: op, attrs, inputs: [ref('y', p.out)], outputs: [T('a', p.out)] },
        ] };
      const r = await runBoth(eng, gpu.device, ir, feeds);
      assert.deepEqual(r.placement.nodes, { webgpu: 2, wasm: 0 }, `${p.op} + ${op}`);
      assert.equal(r.dispatches, 1, `${p.op} + ${op}: the activation runs in the producer's dispatch`);
      assertClose(r.gpu[0], r.cpu[0], { rtol: 2e-5, atol: 2e-5, what: `${p.op} + ${op} ${JSON.stringify(attrs)}` });
    }
  }
}));
