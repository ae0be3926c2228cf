// conv2d (grouped, depthwise, strided, dilated, padded, 1x1 as GEMM) and pooling (max with
// dilation/ceil_mode, avg with count_include_pad/divisor, adaptive avg) against our engine's
// CPU kernels (engine.mjs), on odd sizes and strided (transposed H/W) inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest, conv2d, pool2d, batchNorm, download } from './gpu.mjs';
import { rng, hostTensor, toGpu, assertClose } from './ref.mjs';
import { getEngine, engineOp, checkLowered } from './engine.mjs';

const pair = (v) => (Array.isArray(v) ? v : [v, v]);
const outDim = (h, k, s, p, d) => Math.floor((h + 2 * p - d * (k - 1) - 1) / s) + 1;

test('conv2d: groups, depthwise, stride, dilation, padding, 1x1 GEMM', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const cases = [
    // [x shape, cout, k, {stride, padding, dilation, groups}, layout, bias]
    [[1, 3, 9, 7], 5, 3, { padding: 1 }, 'contiguous', true],
    [[2, 4, 8, 8], 6, 3, { stride: 2, padding: 1, groups: 2 }, 'contiguous', true],
    [[1, 6, 7, 9], 6, 3, { padding: [1, 2], groups: 6 }, 'transposed', false],     // depthwise
    [[1, 3, 11, 10], 2, [3, 2], { stride: [2, 3], dilation: [2, 1] }, 'contiguous', true],
    [[2, 5, 6, 7], 4, 1, {}, 'contiguous', true],                                   // 1x1 GEMM
    [[1, 70, 3, 5], 65, 1, {}, 'sliced', false],                                    // 1x1, strided x
    [[1, 2, 1, 1], 3, 1, { padding: 1 }, 'contiguous', true],
    [[0, 3, 5, 5], 2, 3, {}, 'contiguous', true],
    // implicit GEMM past one tile: cout 70 and 65 output pixels (K = 3 * 49 = 147)
    [[2, 3, 19, 17], 70, 7, { stride: 2, padding: 3 }, 'contiguous', true],
    [[1, 33, 9, 8], 17, 3, { padding: 1, dilation: [1, 2] }, 'sliced', false],
  ];
  let seed = 1;
  for (const [xs, cout, k, opts, layout, hasBias] of cases) {
    const rand = rng(seed++);
    const [kh, kw] = pair(k);
    const g = opts.groups ?? 1;
    const x = hostTensor(rand, 'float32', xs, layout);
    const w = hostTensor(rand, 'float32', [cout, xs[1] / g, kh, kw]);
    const b = hostTensor(rand, 'float32', [cout]);
    const [sh, sw] = pair(opts.stride ?? 1); const [ph, pw] = pair(opts.padding ?? 0); const [dh, dw] = pair(opts.dilation ?? 1);
    const shape = [xs[0], cout, outDim(xs[2], kh, sh, ph, dh), outDim(xs[3], kw, sw, pw, dw)];
    const want = await engineOp(eng, 'aten.conv2d.default', hasBias ? [x, w, b] : [x, w], { shape, dtype: 'float32' },
      { stride: [sh, sw], padding: [ph, pw], dilation: [dh, dw], groups: g });
    // Each output tile, then split-K (chunks of 16 and 48 of K = cin * kh * kw, ragged at the end).
    for (const [tile, kChunk] of g === 1 ? [[64, 0], [32, 0], [16, 0], [16, 16], [64, 48]] : [[64, 0]]) {
      const y = await conv2d(gpu, toGpu(gpu, x), toGpu(gpu, w), hasBias ? toGpu(gpu, b) : null, { ...opts, tile, kChunk });
      assert.deepEqual(y.shape, shape);
      const got = await download(gpu, y);
      assertClose(got, want, { rtol: 1e-5, atol: 1e-5, what: `conv2d ${JSON.stringify(xs)} ${JSON.stringify(opts)} ${layout} tile ${tile} kChunk ${kChunk}` });
    }
  }
}));

test('max/avg/adaptive-avg pool2d', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  let seed = 40;
  const maxCases = [[[1, 2, 7, 9], { kernel: 3, stride: 2, padding: 1 }], [[2, 3, 8, 7], { kernel: 2, stride: 2, ceilMode: true }],
    [[1, 1, 9, 9], { kernel: [3, 2], stride: [2, 1], dilation: [2, 2], padding: [1, 1] }], [[1, 2, 1, 1], { kernel: 1 }]];
  for (const [xs, o] of maxCases) {
    const x = hostTensor(rng(seed++), 'float32', xs, 'transposed');
    const y = await pool2d(gpu, 'max', toGpu(gpu, x), o);
    const want = await engineOp(eng, 'aten.max_pool2d.default', [x], { shape: y.shape, dtype: 'float32' },
      { kernel_size: pair(o.kernel), stride: pair(o.stride ?? o.kernel), padding: pair(o.padding ?? 0),
        dilation: pair(o.dilation ?? 1), ceil_mode: !!o.ceilMode });
    assertClose(await download(gpu, y), want, { rtol: 0, atol: 0, what: `max_pool2d ${JSON.stringify(xs)} ${JSON.stringify(o)}` });
  }
  const avgCases = [[[1, 2, 7, 9], { kernel: 3, stride: 2, padding: 1, countIncludePad: true }],
    [[1, 2, 7, 9], { kernel: 3, stride: 2, padding: 1, countIncludePad: false }],
    [[2, 1, 8, 7], { kernel: 2, stride: 2, ceilMode: true }], [[1, 3, 5, 5], { kernel: 2, stride: 1, divisor: 3 }]];
  for (const [xs, o] of avgCases) {
    const x = hostTensor(rng(seed++), 'float32', xs, 'sliced');
    const y = await pool2d(gpu, 'avg', toGpu(gpu, x), o);
    const want = await engineOp(eng, 'aten.avg_pool2d.default', [x], { shape: y.shape, dtype: 'float32' },
      { kernel_size: pair(o.kernel), stride: pair(o.stride ?? o.kernel), padding: pair(o.padding ?? 0),
        ceil_mode: !!o.ceilMode, count_include_pad: o.countIncludePad ?? true, divisor_override: o.divisor ?? null });
    assertClose(await download(gpu, y), want, { rtol: 1e-5, atol: 1e-6, what: `avg_pool2d ${JSON.stringify(xs)} ${JSON.stringify(o)}` });
  }
  for (const [xs, os] of [[[1, 3, 7, 9], [3, 4]], [[2, 2, 5, 5], [1, 1]], [[1, 1, 4, 6], [4, 6]], [[1, 2, 3, 3], [5, 2]]]) {
    const x = hostTensor(rng(seed++), 'float32', xs, 'transposed');
    const y = await pool2d(gpu, 'adaptive_avg', toGpu(gpu, x), { outputSize: os });
    const want = await engineOp(eng, 'aten.adaptive_avg_pool2d.default', [x], { shape: y.shape, dtype: 'float32' }, { output_size: os });
    assertClose(await download(gpu, y), want, { rtol: 1e-5, atol: 1e-6, what: `adaptive_avg_pool2d ${JSON.stringify(xs)} -> ${os}` });
  }
}));

test('batch_norm (inference)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  let seed = 70;
  for (const [xs, eps] of [[[2, 3, 5, 7], 1e-5], [[4, 65], 1e-3], [[1, 1, 1], 1e-5], [[0, 2, 3], 1e-5]]) {
    const rand = rng(seed++);
    const x = hostTensor(rand, 'float32', xs);
    const [w, b, mean] = [0, 1, 2].map(() => hostTensor(rand, 'float32', [xs[1]]));
    const variance = hostTensor(rand, 'float32', [xs[1]], 'contiguous', { lo: 0.1, hi: 2 });
    const y = await batchNorm(gpu, toGpu(gpu, x), toGpu(gpu, mean), toGpu(gpu, variance), { weight: toGpu(gpu, w), bias: toGpu(gpu, b), eps });
    const want = await engineOp(eng, 'aten.batch_norm.default', [x, w, b, mean, variance], { shape: xs, dtype: 'float32' },
      { training: false, momentum: 0.1, eps, cudnn_enabled: false });
    assertClose(await download(gpu, y), want, { rtol: 1e-5, atol: 1e-6, what: `batch_norm ${JSON.stringify(xs)}` });
  }
}));

test('conv1d lowers to conv2d over [N, C, 1, L] views (WebGPU provider vs CPU)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(40);
  for (const [n, cin, l, cout, k, stride, padding, dilation, groups, bias, tr] of [[1, 16, 100, 32, 3, 1, 1, 1, 1, true],
    [1, 32, 100, 32, 3, 2, 1, 1, 1, true], [2, 6, 9, 4, 2, 1, 0, 2, 2, false], [3, 5, 5, 5, 1, 1, 0, 1, 1, true, [0]]]) {
    const x = hostTensor(rand, 'float32', [n, cin, l]);
    const w = hostTensor(rand, 'float32', [cout, cin / groups, k]);
    const inputs = bias ? [x, w, hostTensor(rand, 'float32', [cout])] : [x, w];
    const lo = Math.floor((l + 2 * padding - dilation * (k - 1) - 1) / stride) + 1;
    await checkLowered(eng, gpu, 'aten.conv1d.default', inputs, [{ shape: [n, cout, lo], dtype: 'float32' }],
      { stride: [stride], padding: [padding], dilation: [dilation], groups }, { rtol: 1e-5, atol: 1e-5, transposed: tr });
  }
}));

// conv_transpose2d on the direct kernel's transposed mode: stride, padding, output_padding,
// dilation, groups, a strided input, a 1-pixel input; and convolution with transposed set.
test('conv_transpose2d (WebGPU provider vs CPU): stride, padding, output_padding, dilation, groups', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(45);
  const out = (h, k, s, p, op, d) => (h - 1) * s - 2 * p + d * (k - 1) + op + 1;
  // [n, cin, h, w, cout, [kh, kw], [sh, sw], [ph, pw], [oph, opw], [dh, dw], groups, bias, inputs passed as transposed views]
  const cases = [[1, 32, 8, 8, 16, [2, 2], [2, 2], [0, 0], [0, 0], [1, 1], 1, true],   // the U-Net's
    [2, 4, 5, 7, 6, [3, 3], [2, 1], [1, 0], [1, 0], [1, 1], 1, false],
    [1, 6, 4, 3, 9, [3, 2], [3, 2], [1, 1], [2, 1], [2, 1], 3, true],
    [1, 3, 1, 1, 2, [4, 4], [1, 1], [0, 0], [0, 0], [1, 1], 1, true],
    [1, 5, 6, 7, 5, [3, 3], [1, 1], [1, 1], [0, 0], [1, 1], 5, false, [0]]];  // depthwise, x a transposed view
  for (const [n, cin, h, w, cout, k, s, p, op, d, groups, bias, tr] of cases) {
    const x = hostTensor(rand, 'float32', [n, cin, h, w]);
    const wt = hostTensor(rand, 'float32', [cin, cout / groups, ...k]);
    const inputs = bias ? [x, wt, hostTensor(rand, 'float32', [cout])] : [x, wt];
    const shape = [n, cout, out(h, k[0], s[0], p[0], op[0], d[0]), out(w, k[1], s[1], p[1], op[1], d[1])];
    const attrs = { stride: s, padding: p, output_padding: op, dilation: d, groups };
    await checkLowered(eng, gpu, 'aten.conv_transpose2d.input', inputs, [{ shape, dtype: 'float32' }], attrs,
      { rtol: 1e-5, atol: 1e-5, transposed: tr ?? [] });
  }
  const x = hostTensor(rand, 'float32', [1, 4, 3, 5]);
  const wt = hostTensor(rand, 'float32', [4, 2, 3, 3]);
  await checkLowered(eng, gpu, 'aten.convolution.default', [x, wt, hostTensor(rand, 'float32', [2])], [{ shape: [1, 2, 6, 10], dtype: 'float32' }],
    { stride: [2, 2], padding: [1, 1], dilation: [1, 1], transposed: true, output_padding: [1, 1], groups: 1 }, { rtol: 1e-5, atol: 1e-5 });
}));

test('upsample nearest/bilinear 2d (WebGPU provider vs CPU): sizes, scale factors, align_corners', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(41);
  const TOL = { rtol: 1e-5, atol: 1e-6 };
  for (const [shape, size, sf, tr] of [[[1, 3, 4, 5], [8, 10]], [[2, 2, 5, 3], [7, 11]], [[1, 1, 6, 6], [3, 4]], [[1, 2, 3, 5], null, [3, 2.5]],
    [[2, 3, 4, 4], [8, 8], null, [0]], [[1, 1, 1, 1], [5, 1]], [[1, 1, 7, 9], [7, 9]]]) {
    const x = hostTensor(rand, 'float32', shape);
    const out = [{ shape: [shape[0], shape[1], ...(size ?? sf.map((f, d) => Math.floor(shape[2 + d] * f)))], dtype: 'float32' }];
    const sizeAttrs = size ? { output_size: size } : { scale_factors: sf };
    await checkLowered(eng, gpu, 'aten.upsample_nearest2d.vec', [x], out, sizeAttrs, { transposed: tr });
    for (const align of [false, true]) {
      await checkLowered(eng, gpu, 'aten.upsample_bilinear2d.vec', [x], out, { ...sizeAttrs, align_corners: align }, { ...TOL, transposed: tr });
    }
  }
  const x = hostTensor(rand, 'float32', [1, 2, 5, 6]);
  await checkLowered(eng, gpu, 'aten.upsample_bilinear2d.default', [x], [{ shape: [1, 2, 9, 13], dtype: 'float32' }],
    { output_size: [9, 13], align_corners: false, scales_h: 1.9, scales_w: 2.2 }, TOL);
  await checkLowered(eng, gpu, 'aten.upsample_nearest2d.default', [x], [{ shape: [1, 2, 15, 12], dtype: 'float32' }],
    { output_size: [15, 12] });
}));

test('max_pool2d_with_indices: on the GPU when only its values are read (WebGPU provider vs CPU)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const x = hostTensor(rng(42), 'float32', [2, 3, 9, 8]);
  const outs = [{ shape: [2, 3, 5, 4], dtype: 'float32' }, { shape: [2, 3, 5, 4], dtype: 'int32' }];
  const attrs = { kernel_size: [3, 2], stride: [2, 2], padding: [1, 0] };
  await checkLowered(eng, gpu, 'aten.max_pool2d_with_indices.default', [x], outs, attrs, { read: [0], transposed: [0] });
  // The kernel does not make the indices: a graph that reads them keeps the node on WASM.
  await checkLowered(eng, gpu, 'aten.max_pool2d_with_indices.default', [x], outs, attrs, { onGpu: false });
}));
