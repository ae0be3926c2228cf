// matmul family (mm, bmm, addmm, linear, broadcasting matmul, 1-d operands) on the tiled kernel
// and the M = 1 GEMV path, against a float64 reference over the same f32 inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest, matmul, download, broadcastShapes, numel } from './gpu.mjs';
import { rng, hostTensor, toGpu, at, indices, assertClose } from './ref.mjs';
import { getEngine, checkLowered, runBoth } from './engine.mjs';

// float64 torch.matmul (+ alpha/beta/c epilogue) on host tensors.
function refMatmul(a, b, { c = null, alpha = 1, beta = 1 } = {}) {
  const a2 = a.shape.length === 1 ? { ...a, shape: [1, a.shape[0]], strides: [0, a.strides[0]] } : a;
  const b2 = b.shape.length === 1 ? { ...b, shape: [b.shape[0], 1], strides: [b.strides[0], 0] } : b;
  const [M, K] = a2.shape.slice(-2);
  const N = b2.shape.at(-1);
  const batch = broadcastShapes(a2.shape.slice(0, -2), b2.shape.slice(0, -2));
  const full = [...batch, M, N];
  const out = new Float64Array(numel(full));
  let i = 0;
  for (const idx of indices(full)) {
    const pre = idx.slice(0, -2);
    let s = 0;
    for (let k = 0; k < K; k++) s += at(a2, [...pre, idx.at(-2), k]) * at(b2, [...pre, k, idx.at(-1)]);
    let r = alpha * s;
    if (c && beta !== 0) r += beta * at(c, idx);
    out[i++] = r;
  }
  return out;
}

async function check(gpu, t, seed, aShape, bShape, opts = {}) {
  const rand = rng(seed);
  const a = hostTensor(rand, 'float32', aShape, opts.aLayout);
  const b = hostTensor(rand, 'float32', bShape, opts.bLayout);
  const c = opts.cShape ? hostTensor(rand, 'float32', opts.cShape, opts.cLayout) : null;
  const want = refMatmul(a, b, { c, alpha: opts.alpha, beta: opts.beta });
  // The GEMV path, then the tiled kernel at each output tile the lowering can pick, with the B
  // tile loaded n fastest and k fastest (either order is right for any strides), and split-K
  // into chunks of 16 and 32 of K (the last one ragged where K is not a multiple).
  for (const [gemv, tile, bKfast, kChunk] of [[true, 64, null, 0], [false, 64, false, 0], [false, 64, true, 0],
    [false, 32, false, 0], [false, 32, true, 0], [false, 16, false, 0], [false, 16, true, 0], [false, 16, null, 16],
    [false, 64, null, 32]]) {
    const y = await matmul(gpu, toGpu(gpu, a), toGpu(gpu, b),
      { c: c && toGpu(gpu, c), alpha: opts.alpha, beta: opts.beta, gemv, tile, bKfast, kChunk });
    const got = await download(gpu, y);
    const K = aShape.at(-1);
    assertClose(got, want, { rtol: 1e-5, atol: 1e-6 * Math.max(1, K),
      what: `${JSON.stringify(aShape)}@${JSON.stringify(bShape)} gemv=${gemv} tile=${tile} bKfast=${bKfast} kChunk=${kChunk}` });
    if (opts.outShape) assert.deepEqual(y.shape, opts.outShape);
  }
}

test('mm: tile edges, odd, 1 and empty sizes', gpuTest(async (t, gpu) => {
  const cases = [[1, 1, 1], [7, 13, 5], [64, 64, 64], [65, 17, 129], [63, 31, 65], [1, 300, 65],
    [3, 0, 4], [0, 5, 3], [4, 5, 0], [2, 129, 3], [33, 16, 31], [17, 15, 16]];
  let seed = 1;
  for (const [m, k, n] of cases) await check(gpu, t, seed++, [m, k], [k, n], { outShape: [m, n] });
}));

test('mm on non-contiguous operands (transposed and strided slices)', gpuTest(async (t, gpu) => {
  for (const [aL, bL] of [['transposed', 'contiguous'], ['contiguous', 'transposed'], ['sliced', 'transposed'], ['transposed', 'sliced']]) {
    await check(gpu, t, 11, [33, 70], [70, 19], { aLayout: aL, bLayout: bL });
    await check(gpu, t, 12, [1, 70], [70, 19], { aLayout: aL, bLayout: bL });
  }
}));

test('addmm and linear: bias broadcast, alpha/beta, beta = 0', gpuTest(async (t, gpu) => {
  // addmm(c, a, b, beta, alpha) with c [m, n], [n] and [m, 1]
  await check(gpu, t, 21, [17, 9], [9, 66], { cShape: [17, 66], alpha: 0.5, beta: 2 });
  await check(gpu, t, 22, [17, 9], [9, 66], { cShape: [66] });
  await check(gpu, t, 23, [17, 9], [9, 66], { cShape: [17, 1], alpha: -1, beta: 0.25 });
  await check(gpu, t, 24, [5, 0], [0, 7], { cShape: [7], beta: 3 });   // K = 0: beta * c
  // linear(x [2, 3, K], W [N, K], b [N]) = x @ W^T + b: W^T is a transposed view of W
  await check(gpu, t, 25, [2, 3, 40], [40, 70], { bLayout: 'transposed', cShape: [70], outShape: [2, 3, 70] });
  await check(gpu, t, 26, [1, 1, 257], [257, 65], { bLayout: 'transposed', cShape: [65] });  // decode GEMV
}));

test('bmm and broadcasting matmul, 1-d operands', gpuTest(async (t, gpu) => {
  await check(gpu, t, 31, [3, 5, 7], [3, 7, 4], { outShape: [3, 5, 4] });
  await check(gpu, t, 32, [2, 1, 5, 6], [3, 6, 4], { outShape: [2, 3, 5, 4] });
  await check(gpu, t, 33, [4, 1, 70], [4, 70, 9], { outShape: [4, 1, 9] });
  await check(gpu, t, 34, [2, 3, 1, 8], [1, 8, 5], { bLayout: 'transposed', outShape: [2, 3, 1, 5] });
  await check(gpu, t, 35, [6], [6, 4], { outShape: [4] });
  await check(gpu, t, 36, [3, 6], [6], { outShape: [3] });
  await check(gpu, t, 37, [6], [6], { outShape: [] });
  await check(gpu, t, 38, [2, 4, 6], [6], { outShape: [2, 4] });
  await check(gpu, t, 39, [0, 3, 4], [4, 2], { outShape: [0, 3, 2] });
}));

test('baddbmm lowers to the batched GEMM with a broadcast self (WebGPU provider vs CPU)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(60);
  const f = (shape) => hostTensor(rand, 'float32', shape);
  const TOL = { rtol: 1e-5, atol: 1e-5 };
  for (const [self, b, m, k, n, attrs, tr] of [[[3, 65, 17], 3, 65, 9, 17, { beta: 0.5, alpha: 2 }], [[17], 2, 1, 70, 17, {}],
    [[4, 1, 1], 4, 5, 6, 7, { beta: 0, alpha: -1 }], [[2, 3, 4], 2, 3, 0, 4, { alpha: 1.5 }], [[2, 8, 8], 2, 8, 8, 8, {}, [1, 2]]]) {
    await checkLowered(eng, gpu, 'aten.baddbmm.default', [f(self), f([b, m, k]), f([b, k, n])], [{ shape: [b, m, n], dtype: 'float32' }],
      attrs, { ...TOL, transposed: tr });
  }
}));

// A linear whose weight is shared by every batch folds its batch into the GEMM's rows when the
// rows are evenly spaced: nn.MultiheadAttention's in_proj reads x.transpose(0, 1), [S, 1, D],
// which must run as one [S, D] GEMM, not S one-row GEMVs (the lowering, through the engine);
// rows that are not evenly spaced (a permuted input) keep the batched kernel. Both against WASM.
test('linear over a transposed [S, 1, D] input and matmul with a shared weight (batch folded into rows)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(70);
  const T = (name, shape, extra = {}) => ({ name, shape, dtype: 'float32', ...extra });
  const ref = (name, shape) => T(name, shape, { producer_node: name, producer_output_idx: 0 });
  for (const [S, B, D, N, perm] of [[67, 1, 33, 70, [1, 0, 2]], [1, 1, 5, 3, [1, 0, 2]], [16, 3, 64, 65, [1, 0, 2]], [9, 2, 17, 8, [1, 2, 0]]]) {
    // x [B, S, D] -> view [S, B, D] (perm [1, 0, 2]) or [S, D, B] -> linear over the last dim.
    const xShape = [B, S, D];
    const vShape = perm.map((p) => xShape[p]);
    const K = vShape[2];
    const yShape = [vShape[0], vShape[1], N];
    const ir = { model_name: 'FoldedLinear', weights: [], weight_name_mapping: {},
      graph_inputs: [T('x', xShape), T('w', [N, K]), T('b', [N])], graph_outputs: [T('y', yShape)],
      nodes: [
        { name: 'v', op_type: 'aten.permute.default', attrs: { dims: perm }, inputs: [ref('x', xShape)], outputs: [T('v', vShape)] },
        { name: 'y', op_type: 'aten.linear.default', attrs: {}, inputs: [ref('v', vShape), ref('w', [N, K]), ref('b', [N])], outputs: [T('y', yShape)] },
      ] };
    const r = await runBoth(eng, gpu.device, ir, [hostTensor(rand, 'float32', xShape), hostTensor(rand, 'float32', [N, K]), hostTensor(rand, 'float32', [N])]);
    assert.equal(r.placement.nodes.wasm, 0, JSON.stringify(r.placement));
    assertClose(r.gpu[0], r.cpu[0], { rtol: 1e-5, atol: 1e-5 * K, what: `linear ${JSON.stringify(vShape)} x [${N}, ${K}]` });
  }
}));

// A long K over few output tiles splits K (the lowering's gemm_k_split): the tiled kernel's
// partial sums over K chunks, then split_k_sum adds them with the bias or addmm's beta * self:
// two dispatches per node, against a float64 reference (and placed wholly on the GPU). The
// chunks here are ragged (K not a multiple).
test('a long K over few output tiles splits K (linear, addmm, bmm): two dispatches, against float64', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(90);
  const T = (name, shape, extra = {}) => ({ name, shape, dtype: 'float32', ...extra });
  const ref = (name, shape) => T(name, shape, { producer_node: name, producer_output_idx: 0 });
  const wT = (w) => ({ ...w, shape: [w.shape[1], w.shape[0]], strides: [w.strides[1], w.strides[0]] });
  const cases = [
    ['aten.linear.default', [[5, 1100], [40, 1100], [40]], [5, 40], {}, ([x, w, b]) => refMatmul(x, wT(w), { c: b })],
    ['aten.addmm.default', [[7, 9], [7, 700], [700, 9]], [7, 9], { beta: 0.5, alpha: 2 },
      ([c, a, b]) => refMatmul(a, b, { c, alpha: 2, beta: 0.5 })],
    ['aten.bmm.default', [[3, 7, 700], [3, 700, 9]], [3, 7, 9], {}, ([a, b]) => refMatmul(a, b)],
  ];
  for (const [op, shapes, yShape, attrs, reference] of cases) {
    const names = shapes.map((_, i) => `in${i}`);
    const ir = { model_name: 'SplitK', weights: [], weight_name_mapping: {},
      graph_inputs: shapes.map((s, i) => T(names[i], s)), graph_outputs: [T('y', yShape)],
      nodes: [{ name: 'y', op_type: op, attrs, inputs: shapes.map((s, i) => ref(names[i], s)), outputs: [T('y', yShape)] }] };
    const inputs = shapes.map((s) => hostTensor(rand, 'float32', s));
    const r = await runBoth(eng, gpu.device, ir, inputs);
    assert.equal(r.placement.nodes.wasm, 0, JSON.stringify(r.placement));
    assert.equal(r.dispatches, 2, `${op}: the partial sums and their sum`);
    const K = op === 'aten.linear.default' ? shapes[0][1] : shapes.at(-1)[shapes.at(-1).length - 2];
    assertClose(r.gpu[0], reference(inputs), { rtol: 1e-5, atol: 1e-6 * K, what: `${op} ${JSON.stringify(shapes)}` });
  }
}));

// A weight larger than the device's largest storage binding runs as one GEMM per part of its rows,
// each writing a column window of the output (y_off, y_rs): the GEMV and the tiled kernel at each
// tile, windows at tile edges and odd offsets, against float64; the columns outside stay zero.
test('matmul and gemv into a column window of a wider output (a split weight\'s parts)', gpuTest(async (t, gpu) => {
  const rand = rng(120);
  for (const [M, K, N, first, width] of [[1, 33, 17, 5, 40], [1, 300, 64, 64, 129], [7, 13, 65, 0, 66],
    [65, 17, 63, 1, 64], [3, 5, 1, 2, 3], [33, 31, 129, 7, 140]]) {
    const a = hostTensor(rand, 'float32', [M, K]);
    const b = hostTensor(rand, 'float32', [K, N], 'transposed');  // W^T of a [N, K] part
    const part = refMatmul(a, b);
    for (const [gemv, tile] of [[true, 64], [false, 64], [false, 16]]) {
      const y = await matmul(gpu, toGpu(gpu, a), toGpu(gpu, b), { gemv, tile, yCols: { first, width } });
      assert.deepEqual(y.shape, [M, width]);
      const got = await download(gpu, y);
      const want = new Float64Array(M * width);
      for (let m = 0; m < M; m++) for (let n = 0; n < N; n++) want[m * width + first + n] = part[m * N + n];
      assertClose(got, want, { rtol: 1e-5, atol: 1e-6 * K, what: `[${M}, ${K}] x [${K}, ${N}] at column ${first} of ${width}, gemv=${gemv} tile=${tile}` });
    }
  }
}));
