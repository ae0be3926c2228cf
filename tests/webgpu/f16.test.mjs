// float16 on the GPU where the adapter has shader-f16 (lavapipe 25 has; without it every test
// skips): the elementwise kernels on f16 tensors (f16 storage, computed in f32 and rounded once on
// the store, against a float64 reference of the same f16 inputs rounded to f16); the kernels that
// take f16 weights (matmul, gemv, conv2d, rowwise, pool2d); and whole half models whose float16
// weights the plan holds as f16 on the GPU.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest, elementwise, upload, download, matmul, layerNorm, groupNorm, conv2d, pool2d, batchNorm, indexSelect,
  broadcastShapes, numel } from './gpu.mjs';
import { rng, toHalf, fromHalf, erf, hostTensor, toGpu, at, indices, assertClose } from './ref.mjs';
import { getEngine } from './engine.mjs';
import { existsSync, readFileSync } from 'node:fs';
import { TOL, fixtureDirs, ioInputs, readIo } from '../../npm/test/helpers.mjs';
import { parseSafetensors } from '../../npm/index.js';

const REF = {
  relu: (a) => Math.max(a, 0), gelu: (a) => 0.5 * a * (1 + erf(a / Math.SQRT2)), sigmoid: (a) => 1 / (1 + Math.exp(-a)),
  silu: (a) => a / (1 + Math.exp(-a)), add: (a, b) => a + b, mul: (a, b) => a * b, div: (a, b) => a / b,
  where: (c, a, b) => (c ? a : b),
};

test('f16 elementwise: unary, broadcast binary, where', gpuTest(async (t, gpu) => {
  if (!gpu.f16) { t.skip('adapter has no shader-f16'); return; }
  const rand = rng(7);
  const halfs = (n, lo = -4, hi = 4) => Uint16Array.from({ length: n }, () => toHalf(lo + rand() * (hi - lo)));
  for (const op of ['relu', 'gelu', 'sigmoid', 'silu']) {
    const a = halfs(67);
    const y = await elementwise(gpu, op, [upload(gpu, a, 'float16', [67])]);
    assert.equal(y.dtype, 'float16');
    const got = await download(gpu, y);
    a.forEach((h, i) => {
      const want = fromHalf(toHalf(REF[op](fromHalf(h))));
      assert.ok(Math.abs(fromHalf(got[i]) - want) <= 2 ** -10 * Math.abs(want) + 1e-4, `${op}(${fromHalf(h)}): ${fromHalf(got[i])} vs ${want}`);
    });
  }
  for (const op of ['add', 'mul', 'div']) {
    const a = halfs(15);
    const b = halfs(5, 0.5, 2);
    const y = await elementwise(gpu, op, [upload(gpu, a, 'float16', [3, 5]), upload(gpu, b, 'float16', [5])], { p0: 1 });
    const got = await download(gpu, y);
    for (let i = 0; i < 15; i++) {
      const want = fromHalf(toHalf(REF[op](fromHalf(a[i]), fromHalf(b[i % 5]))));
      assert.equal(fromHalf(got[i]), want, `${op} element ${i}`);
    }
  }
  const c = Uint32Array.from({ length: 7 }, () => (rand() < 0.5 ? 1 : 0));
  const a = halfs(7);
  const b = halfs(7);
  const y = await elementwise(gpu, 'where', [upload(gpu, c, 'bool', [7]), upload(gpu, a, 'float16', [7]), upload(gpu, b, 'float16', [7])]);
  assert.deepEqual([...await download(gpu, y)], [...c].map((v, i) => (v ? a[i] : b[i])));
}));

// The kernels that load floats through f32(...) (matmul, gemv, conv2d, conv2d_gemm, rowwise,
// pool2d) with float16 bindings, as the engine binds float16 weights held as f16 on the GPU:
// f16 loads widen exactly, so against a float64 reference of the same values they are as close
// as the f32 kernels are (f32 accumulation only).
const halfTensor = (rand, shape, layout = 'contiguous', lo = -2, hi = 2) => {
  const h = hostTensor(rand, 'float32', shape, layout, { lo, hi });
  const bits = Uint16Array.from(h.storage, toHalf);
  return { gpu: { ...h, storage: bits, dtype: 'float16' }, ref: { ...h, storage: Float64Array.from(bits, fromHalf) } };
};
const floatTensor = (rand, shape, layout) => {
  const h = hostTensor(rand, 'float32', shape, layout);
  return { gpu: h, ref: h };
};

// float64 a @ b (+ beta * c) over 2-d or batched host tensors (batch dims broadcast).
function refMatmul(a, b, c, beta = 1) {
  const [M, K] = a.shape.slice(-2);
  const N = b.shape.at(-1);
  const full = [...broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2)), M, N];
  const out = new Float64Array(numel(full));
  let i = 0;
  for (const idx of indices(full)) {
    const pre = idx.slice(0, -2);
    let s = 0;
    for (let k = 0; k < K; k++) s += at(a, [...pre, idx.at(-2), k]) * at(b, [...pre, k, idx.at(-1)]);
    out[i++] = s + (c ? beta * at(c, idx) : 0);
  }
  return out;
}

test('f16 matmul / gemv: float16 operands (odd, 1, empty, tile edges, broadcast, transposed) at every tile', gpuTest(async (t, gpu) => {
  if (!gpu.f16) { t.skip('adapter has no shader-f16'); return; }
  // [a shape, b shape, c shape, a half?, b layout]: b half always (a weight), a half or f32.
  const cases = [
    [[1, 1], [1, 1], null, true], [[7, 13], [13, 5], [5], true], [[65, 17], [17, 129], null, false],
    [[63, 31], [31, 65], [63, 65], true], [[1, 300], [300, 65], [65], false, 'transposed'],
    [[3, 0], [0, 4], [4], false], [[0, 5], [5, 3], null, true], [[4, 5], [5, 0], null, true],
    [[17, 15], [15, 16], [17, 1], false, 'transposed'], [[2, 1, 5, 6], [3, 6, 4], null, true],
    [[2, 3, 40], [40, 70], [70], false, 'transposed'], [[33, 16], [16, 31], null, false, 'sliced'],
  ];
  let seed = 100;
  for (const [aShape, bShape, cShape, aHalf, bLayout] of cases) {
    const rand = rng(seed++);
    const a = aHalf ? halfTensor(rand, aShape) : floatTensor(rand, aShape);
    const b = halfTensor(rand, bShape, bLayout);
    const c = cShape ? halfTensor(rand, cShape) : null;
    const K = aShape.at(-1);
    const want = refMatmul(a.ref, b.ref, c?.ref, 0.5);
    for (const [gemv, tile] of [[true, 64], [false, 64], [false, 32], [false, 16]]) {
      const y = await matmul(gpu, toGpu(gpu, a.gpu), toGpu(gpu, b.gpu), { c: c && toGpu(gpu, c.gpu), beta: 0.5, gemv, tile });
      assertClose(await download(gpu, y), want, { rtol: 1e-5, atol: 1e-6 * Math.max(1, K),
        what: `${JSON.stringify(aShape)}@${JSON.stringify(bShape)} a ${aHalf ? 'f16' : 'f32'} gemv=${gemv} tile=${tile}` });
    }
  }
  // A float16 output: the f32 result rounded once on the store (one f16 ulp of the float64 sum).
  const rand = rng(150);
  const a = halfTensor(rand, [9, 33]);
  const b = halfTensor(rand, [33, 70]);
  const want = refMatmul(a.ref, b.ref, null);
  for (const gemv of [true, false]) {
    const y = await matmul(gpu, toGpu(gpu, a.gpu), toGpu(gpu, b.gpu), { gemv, tile: 16, outDtype: 'float16' });
    const got = Array.from(await download(gpu, y), fromHalf);
    want.forEach((w, i) => assert.ok(Math.abs(got[i] - w) <= 2 ** -11 * Math.abs(w) + 2 ** -24, `f16 out ${i}: ${got[i]} vs ${w}`));
  }
}));

test('f16 layer_norm / group_norm: float16 weight and bias (and input), odd row lengths', gpuTest(async (t, gpu) => {
  if (!gpu.f16) { t.skip('adapter has no shader-f16'); return; }
  let seed = 200;
  for (const [shape, xHalf] of [[[3, 7], false], [[2, 1], true], [[4, 65], true], [[1, 129], false], [[0, 5], false]]) {
    const rand = rng(seed++);
    const R = shape.at(-1);
    const x = xHalf ? halfTensor(rand, shape) : floatTensor(rand, shape);
    const w = halfTensor(rand, [R]);
    const b = halfTensor(rand, [R]);
    const y = await layerNorm(gpu, toGpu(gpu, x.gpu), [R], { weight: toGpu(gpu, w.gpu), bias: toGpu(gpu, b.gpu) });
    const want = new Float64Array(numel(shape));
    for (let r = 0; r < numel(shape) / R; r++) {
      const row = Array.from({ length: R }, (_, k) => x.ref.storage[r * R + k]);
      const mean = row.reduce((s, v) => s + v, 0) / R;
      const rstd = 1 / Math.sqrt(row.reduce((s, v) => s + (v - mean) ** 2, 0) / R + 1e-5);
      row.forEach((v, k) => { want[r * R + k] = (v - mean) * rstd * w.ref.storage[k] + b.ref.storage[k]; });
    }
    assertClose(await download(gpu, y), want, { rtol: 1e-5, atol: 1e-5, what: `layer_norm ${JSON.stringify(shape)}` });
  }
  const rand = rng(250);
  const x = floatTensor(rand, [2, 6, 3, 3]);
  const w = halfTensor(rand, [6]);
  const b = halfTensor(rand, [6]);
  const y = await groupNorm(gpu, toGpu(gpu, x.gpu), 3, { weight: toGpu(gpu, w.gpu), bias: toGpu(gpu, b.gpu) });
  const want = new Float64Array(108);
  for (let r = 0; r < 6; r++) {  // rows (n, g): 2 channels x 9 pixels
    const row = Array.from({ length: 18 }, (_, k) => x.ref.storage[r * 18 + k]);
    const mean = row.reduce((s, v) => s + v, 0) / 18;
    const rstd = 1 / Math.sqrt(row.reduce((s, v) => s + (v - mean) ** 2, 0) / 18 + 1e-5);
    row.forEach((v, k) => { const ch = (r % 3) * 2 + Math.floor(k / 9); want[r * 18 + k] = (v - mean) * rstd * w.ref.storage[ch] + b.ref.storage[ch]; });
  }
  assertClose(await download(gpu, y), want, { rtol: 1e-5, atol: 1e-5, what: 'group_norm' });
}));

// float64 conv2d of host tensors (x strided [N, C, H, W], w [Co, C/g, kh, kw], bias [Co]).
function refConv(x, w, bias, { stride = 1, padding = 0, groups = 1 }) {
  const [n, cin, h, wd] = x.shape;
  const [cout, cpg, kh, kw] = w.shape;
  const oh = Math.floor((h + 2 * padding - kh) / stride) + 1;
  const ow = Math.floor((wd + 2 * padding - kw) / stride) + 1;
  const out = new Float64Array(n * cout * oh * ow);
  let i = 0;
  for (const [b, co, oy, ox] of indices([n, cout, oh, ow])) {
    const g = Math.floor(co / (cout / groups));
    let s = bias ? bias.storage[co] : 0;
    for (let c = 0; c < cpg; c++) {
      for (let ky = 0; ky < kh; ky++) {
        for (let kx = 0; kx < kw; kx++) {
          const yy = oy * stride - padding + ky;
          const xx = ox * stride - padding + kx;
          if (yy < 0 || yy >= h || xx < 0 || xx >= wd) continue;
          s += at(x, [b, g * cpg + c, yy, xx]) * w.storage[((co * cpg + c) * kh + ky) * kw + kx];
        }
      }
    }
    out[i++] = s;
  }
  return out;
}

test('f16 conv2d: float16 weight and bias on the implicit GEMM, the direct kernel and 1x1 as GEMM; f16 pooling input', gpuTest(async (t, gpu) => {
  if (!gpu.f16) { t.skip('adapter has no shader-f16'); return; }
  const cases = [  // [x shape, cout, k, opts, x layout]
    [[1, 3, 9, 7], 5, 3, { padding: 1 }, 'contiguous'], [[2, 4, 8, 8], 6, 3, { stride: 2, padding: 1, groups: 2 }, 'contiguous'],
    [[1, 6, 7, 9], 6, 3, { padding: 1, groups: 6 }, 'transposed'], [[2, 5, 4, 3], 7, 1, {}, 'contiguous'],
    [[1, 17, 5, 5], 65, 2, { stride: 1 }, 'contiguous'], [[1, 1, 1, 1], 1, 1, {}, 'contiguous'],
  ];
  let seed = 300;
  for (const [xShape, cout, k, opts, layout] of cases) {
    const rand = rng(seed++);
    const x = floatTensor(rand, xShape, layout);
    const w = halfTensor(rand, [cout, xShape[1] / (opts.groups ?? 1), k, k]);
    const b = halfTensor(rand, [cout]);
    const want = refConv(x.ref, w.ref, b.ref, opts);
    const K = (xShape[1] / (opts.groups ?? 1)) * k * k;
    for (const tile of [64, 16]) {
      const y = await conv2d(gpu, toGpu(gpu, x.gpu), toGpu(gpu, w.gpu), toGpu(gpu, b.gpu), { ...opts, tile });
      assertClose(await download(gpu, y), want, { rtol: 1e-5, atol: 1e-6 * K, what: `conv ${JSON.stringify(xShape)} k${k} ${JSON.stringify(opts)} tile ${tile}` });
    }
  }
  const rand = rng(350);
  const x = halfTensor(rand, [1, 2, 5, 7]);
  for (const mode of ['max', 'avg']) {
    const y = await pool2d(gpu, mode, toGpu(gpu, x.gpu), { kernel: 3, stride: 2, padding: 1 });
    const got = await download(gpu, y);
    const [oh, ow] = [3, 4];
    const want = [];
    for (const [c, oy, ox] of indices([2, oh, ow])) {
      const vals = [];
      for (let ky = 0; ky < 3; ky++) for (let kx = 0; kx < 3; kx++) {
        const yy = oy * 2 - 1 + ky; const xx = ox * 2 - 1 + kx;
        if (yy >= 0 && yy < 5 && xx >= 0 && xx < 7) vals.push(x.ref.storage[(c * 5 + yy) * 7 + xx]);
      }
      want.push(mode === 'max' ? Math.max(...vals) : vals.reduce((s, v) => s + v, 0) / 9);
    }
    assertClose(got, want, { rtol: 1e-6, atol: 1e-6, what: `${mode} pool of f16` });
  }
}));

test('f16 weights in batch_norm, gathers (embedding, gather) and mixed elementwise ops: float32 results', gpuTest(async (t, gpu) => {
  if (!gpu.f16) { t.skip('adapter has no shader-f16'); return; }
  const rand = rng(400);
  // batch_norm: float16 running stats, weight and bias over a float32 input [2, 3, 5].
  const x = floatTensor(rand, [2, 3, 5]);
  const [mean, w, b] = [halfTensor(rand, [3]), halfTensor(rand, [3]), halfTensor(rand, [3])];
  const variance = halfTensor(rand, [3], 'contiguous', 0.25, 2);
  const y = await batchNorm(gpu, toGpu(gpu, x.gpu), toGpu(gpu, mean.gpu), toGpu(gpu, variance.gpu),
    { weight: toGpu(gpu, w.gpu), bias: toGpu(gpu, b.gpu) });
  const want = Array.from(x.ref.storage, (v, i) => {
    const c = Math.floor(i / 5) % 3;
    return (v - mean.ref.storage[c]) / Math.sqrt(variance.ref.storage[c] + 1e-5) * w.ref.storage[c] + b.ref.storage[c];
  });
  assertClose(await download(gpu, y), want, { rtol: 1e-5, atol: 1e-5, what: 'batch_norm' });
  // A float16 table [7, 5] (odd) gathered into float32: index_select / embedding rows (negative
  // indices wrap, out of range reads 0), then gather along dim 1.
  const table = halfTensor(rand, [7, 5]);
  const idx = upload(gpu, Int32Array.from([6, 0, -1, 3, 7, 2]), 'int32', [6]);
  const rows = await download(gpu, await indexSelect(gpu, toGpu(gpu, table.gpu), 0, idx, { outDtype: 'float32' }));
  const rowWant = [6, 0, 6, 3, -1, 2].flatMap((r) => Array.from({ length: 5 }, (_, k) => (r < 0 ? 0 : table.ref.storage[r * 5 + k])));
  assert.deepEqual([...rows], rowWant);
  const gidx = upload(gpu, Int32Array.from({ length: 14 }, (_, i) => (i * 3) % 5), 'int32', [7, 2]);
  const gathered = await download(gpu, await indexSelect(gpu, toGpu(gpu, table.gpu), 1, gidx, { gather: true, outDtype: 'float32' }));
  assert.deepEqual([...gathered], Array.from({ length: 14 }, (_, i) => table.ref.storage[Math.floor(i / 2) * 5 + (i * 3) % 5]));
  const none = await indexSelect(gpu, toGpu(gpu, table.gpu), 0, upload(gpu, new Int32Array(0), 'int32', [0]), { outDtype: 'float32' });
  assert.equal((await download(gpu, none)).length, 0);
  // Elementwise with a float16 operand and a float32 one: f32 compute and result (a layer scale
  // times activations, broadcast), and a float16 -> float32 copy (exact).
  const act = floatTensor(rand, [3, 5]);
  const scale = halfTensor(rand, [5]);
  const prod = await elementwise(gpu, 'mul', [toGpu(gpu, act.gpu), toGpu(gpu, scale.gpu)]);
  assert.equal(prod.dtype, 'float32');
  const pw = Array.from(act.ref.storage, (v, i) => Math.fround(v * scale.ref.storage[i % 5]));
  assert.deepEqual([...await download(gpu, prod)], pw);
  const copied = await elementwise(gpu, 'copy', [toGpu(gpu, scale.gpu)], { outDtype: 'float32' });
  assert.deepEqual([...await download(gpu, copied)], [...scale.ref.storage]);
}));

// Whole half models (model.half(): float16 weights and input) through the provider. The engine
// computes float16 tensors in float32 on both devices; on a device with shader-f16 the plan holds
// the weights that matmul/conv/norm kernels read as f16 on the GPU (half the bytes). f16 -> f32
// is exact, so the outputs must equal, bit for bit, those of the same model on a device without
// shader-f16 (all weights f32), and agree with the WASM run as the float32 GPU path does.
test('f16 weights: half fixtures on WebGPU equal the f32-weight GPU run and agree with WASM', gpuTest(async (t, gpu) => {
  if (!gpu.f16) { t.skip('adapter has no shader-f16'); return; }
  const tir = await getEngine();
  if (!tir) { t.skip('npm/dist not built'); return; }
  const fixtures = fixtureDirs().filter((f) => /^(convnext|swin)_half\/torch2\.14-training$/.test(f.name));
  assert.equal(fixtures.length, 2, 'convnext_half and swin_half fixtures');
  // A second device without shader-f16 (an adapter gives one device): every weight f32 on the GPU.
  const plain = await (await gpu.instance.requestAdapter()).requestDevice();
  try {
    for (const fx of fixtures) {
      assert.ok(existsSync(fx.truth), `${fx.name}: no float64 truth ${fx.truth} (run tools/make_fixtures.sh build/fixtures)`);
      const io = readIo(fx.io);
      const load = async (device) => {
        tir.env.webgpu.device = device;
        return device ? tir.loadIR(fx.model, { weights: fx.weights, threads: 1, executionProviders: ['webgpu'] })
          : tir.loadIR(fx.model, { weights: fx.weights, threads: 1 });
      };
      const [half, full, wasm] = [await load(gpu.device), await load(plain), await load(undefined)];
      try {
        const values = half._gpu.plan.values;
        const halfWeights = values.filter((v) => v.gpu_dtype === 'float16');
        const gpuWeights = values.filter((v) => v.kind === 'weight' && v.slot >= 0);
        // Every float weight of these models is float16 in the IR, and every GPU reader converts it.
        assert.equal(halfWeights.length, gpuWeights.filter((v) => v.dtype === 'float32').length, `${fx.name}: weights held f32`);
        assert.equal(full._gpu.plan.values.filter((v) => v.gpu_dtype === 'float16').length, 0);
        assert.deepEqual(half.placement().nodes, full.placement().nodes);
        assert.deepEqual(half.placement().transfers, full.placement().transfers);
        const bytes = (p) => p.plan.values.filter((v) => v.kind === 'weight' && v.slot >= 0)
          .reduce((s, v) => s + p.plan.slots[v.slot], 0);
        const [a, b, c] = [await half.execute(ioInputs(half, io)), await full.execute(ioInputs(full, io)),
          await wasm.execute(ioInputs(wasm, io))];
        let maxDiff = 0;
        for (let k = 0; k < a.length; k++) {
          assert.deepEqual(a[k].data, b[k].data, `${fx.name}: output ${k} differs from the f32-weight GPU run`);
          for (let i = 0; i < a[k].data.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[k].data[i] - c[k].data[i]));
        }
        // Weights given as tensor objects are not streamed: their f16 GPU copies are narrowed from the
        // float32 ones in WASM memory (exact), with the same outputs.
        const objects = Object.fromEntries(parseSafetensors(readFileSync(fx.weights)));
        tir.env.webgpu.device = gpu.device;
        const fromMemory = await tir.loadIR(fx.model, { weights: objects, threads: 1, executionProviders: ['webgpu'] });
        try {
          assert.equal(fromMemory.placement().weights.webgpu, 0, 'tensor objects are not streamed');
          assert.equal(fromMemory._gpu.plan.values.filter((v) => v.gpu_dtype === 'float16').length, halfWeights.length);
          const d = await fromMemory.execute(ioInputs(fromMemory, io));
          for (let k = 0; k < a.length; k++) assert.deepEqual(d[k].data, a[k].data, `${fx.name}: output ${k}, weights from memory`);
        } finally {
          fromMemory.dispose();
        }
        const report = await half.verify(ioInputs(half, io), io.outputs, { ...TOL, reference64: readIo(fx.truth).outputs });
        assert.ok(report.isValid || report.reference64.reassociationOnly, `${fx.name}: ${JSON.stringify(report.reference64.outputs)}`);
        assert.ok(maxDiff <= 1e-5, `${fx.name}: max diff vs WASM ${maxDiff}`);
        t.diagnostic(`${fx.name}: nodes ${JSON.stringify(half.placement().nodes)} (wasm-only load: ` +
          `${JSON.stringify(wasm.placement().nodes)}); ${halfWeights.length} of ${gpuWeights.length} GPU weights f16, ` +
          `weight buffers ${bytes(half._gpu)} bytes (all f32: ${bytes(full._gpu)}); max |WebGPU - WASM| ${maxDiff.toExponential(2)}`);
      } finally {
        for (const m of [half, full, wasm]) m.dispose();
      }
    }
  } finally {
    tir.env.webgpu.device = undefined;
    plain.destroy();
  }
}));

// weightDtype 'float16' on a float32 model: the CPU's GEMMs (linear, addmm, mm, matmul) pack
// their constant weights as halves; on a device with shader-f16 the plan holds those same
// weights as f16 on the GPU (rounded once, as the CPU rounds them), streamed or from memory.
// Every other weight stays f32. So the WebGPU run agrees with the WASM run at weightDtype
// 'float16' as the float32 paths agree, and differs from the float32-weight run by the rounding.
test('weightDtype float16: the GEMM weights held as f16 on the GPU, as the CPU packs them', gpuTest(async (t, gpu) => {
  if (!gpu.f16) { t.skip('adapter has no shader-f16'); return; }
  const tir = await getEngine();
  if (!tir) { t.skip('npm/dist not built'); return; }
  const fx = fixtureDirs().find((f) => f.name === 'gpt2_decoder/torch2.14-training');
  assert.ok(fx, 'gpt2_decoder fixture');
  const io = readIo(fx.io);
  const ir = JSON.parse(readFileSync(fx.model, 'utf8'));
  const maxDiff = (a, b) => a.reduce((m, o, k) => o.data.reduce((mm, v, i) => Math.max(mm, Math.abs(v - b[k].data[i])), m), 0);
  tir.env.webgpu.device = gpu.device;
  try {
    const load = (weightDtype, executionProviders, weights = fx.weights) =>
      tir.loadIR(fx.model, { weights, threads: 1, weightDtype, ...(executionProviders ? { executionProviders } : {}) });
    const objects = Object.fromEntries(parseSafetensors(readFileSync(fx.weights)));
    const models = [await load('float16', ['webgpu']), await load('float16', ['webgpu'], objects), await load('float16'),
      await load('float32', ['webgpu']), await load('float32')];
    const [gpuHalf, gpuHalfMem, wasmHalf, gpuFull, wasmFull] = models;
    try {
      // The weights of the GEMMs (addmm's mat2 in this GPT-2) are f16; the embeddings and the
      // layer norms' weights, read by other kernels, are not.
      const GEMMS = new Set(['aten.addmm.default', 'aten.linear.default', 'aten.mm.default', 'aten.matmul.default']);
      const values = gpuHalf._gpu.plan.values;
      const half = values.filter((v) => v.gpu_dtype === 'float16');
      // Expected: the values bound only as a GEMM's B (binding 2). GPT-2's lm_head weight is also
      // the embedding's table: f32 for the embedding, and an f16 twin for the lm_head GEMM.
      const gemmWeights = new Set(), otherUse = new Set();
      for (const item of gpuHalf._gpu.plan.program) {
        if (item.op !== 'gpu') continue;
        for (const d of item.dispatches) {
          d.bind.forEach((id, b) => ((GEMMS.has(item.op_type) && b === 2) ? gemmWeights : otherUse).add(id));
        }
      }
      const expected = [...gemmWeights].filter((id) => values[id].kind === 'weight' && !otherUse.has(id));
      assert.ok(half.length > 0 && expected.length > 0);
      const tied = values.filter((v) => v.kind === 'weight' && v.slot >= 0 &&
        values.some((w) => w !== v && w.label === v.label && w.gpu_dtype !== v.gpu_dtype));
      assert.equal(tied.length, 2, 'the tied weight: f32 and an f16 twin');
      assert.deepEqual(half.map((v) => values.indexOf(v)).sort((x, y) => x - y), expected.sort((x, y) => x - y));
      assert.ok(values.some((v) => v.kind === 'weight' && v.slot >= 0 && v.gpu_dtype === 'float32'), 'other weights stay f32');
      assert.equal(gpuFull._gpu.plan.values.filter((v) => v.gpu_dtype === 'float16').length, 0);
      assert.equal(gpuHalfMem._gpu.plan.values.filter((v) => v.gpu_dtype === 'float16').length, half.length);
      const run = async (m) => m.execute(ioInputs(m, io));
      const [a, am, w, f, wf] = [await run(gpuHalf), await run(gpuHalfMem), await run(wasmHalf), await run(gpuFull), await run(wasmFull)];
      for (let k = 0; k < a.length; k++) assert.deepEqual(am[k].data, a[k].data, `output ${k}: weights from memory vs streamed`);
      const vsWasmHalf = maxDiff(a, w), fullVsWasm = maxDiff(f, wf), halfVsFull = maxDiff(a, f);
      assert.ok(vsWasmHalf <= Math.max(1e-5, 4 * fullVsWasm), `WebGPU vs WASM at float16 weights: ${vsWasmHalf}`);
      assert.ok(halfVsFull > 10 * vsWasmHalf, `the f16 weights round (${halfVsFull} vs ${vsWasmHalf})`);
      t.diagnostic(`${ir.nodes.length} nodes; ${half.length} GPU weights f16; max |WebGPU - WASM| at float16 weights ` +
        `${vsWasmHalf.toExponential(2)} (float32: ${fullVsWasm.toExponential(2)}); float16 vs float32 weights ${halfVsFull.toExponential(2)}`);
    } finally {
      for (const m of models) m.dispose();
    }
  } finally {
    tir.env.webgpu.device = undefined;
  }
}));
