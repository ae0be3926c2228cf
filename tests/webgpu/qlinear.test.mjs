// torchao's 8da4w linear at awkward sizes, built here as IR (the graph torchao's
// Int8DynamicActivationIntxWeightConfig exports: choose_qparams_affine -> quantize_affine ->
// dequantize_affine on the activation, dequantize_affine on an int8 weight holding 4-bit values,
// linear), run on WASM and with ['webgpu']: the per-token scales, zero points and int8 activation
// the GPU chooses and quantizes (choose_qparams_rows.wgsl, quantize_blocks.wgsl) equal the CPU's
// exactly (downloaded from their int8 bytes), and the int4 linear (qlinear.wgsl: exact integer
// sums per word, then float scales) agrees with the CPU's integer kernel to float rounding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest } from './gpu.mjs';
import { rng, assertClose } from './ref.mjs';
import { getEngine } from './engine.mjs';

const t = (name, shape, dtype, producer, idx = 0) => ({ name, shape, dtype, ...(producer ? { producer_node: producer, producer_output_idx: idx } : {}) });

// One 8da4w linear: x [...lead, K] -> y [...lead, N], weight [N, K] in groups of G along k,
// symmetric (zero points 0) or not; zpDtype: the weight zero points' dtype; bias or none.
function linear8da4w({ lead, K, N, G, bias = true, asymmetric = false, zpDtype = 'int8', relu = false, seed = 1 }) {
  const rand = rng(seed);
  const groups = K / G;
  const ps = [...lead.slice(0, -1), lead.at(-1)];  // per-token params: one per row
  const xs = [...lead, K];
  const nodes = [
    { name: 'choose', op_type: 'torchao.choose_qparams_affine.default', inputs: [t('x', xs, 'float32', 'x')],
      outputs: [t('choose_0', ps, 'float32'), t('choose_1', ps, 'int8')],
      attrs: { mapping_type: 'ASYMMETRIC', block_size: [...lead.map(() => 1), K], target_dtype: 'torch.int8',
        quant_min: -128, quant_max: 127, eps: null, scale_dtype: null, zero_point_dtype: 'torch.int8' } },
    { name: 'scale', op_type: '<built-in function getitem>', inputs: [t('choose_0', ps, 'float32', 'choose'), t('choose_1', ps, 'int8', 'choose', 1)],
      outputs: [t('scale', ps, 'float32')], attrs: { index: 0 } },
    { name: 'zp', op_type: '<built-in function getitem>', inputs: [t('choose_0', ps, 'float32', 'choose'), t('choose_1', ps, 'int8', 'choose', 1)],
      outputs: [t('zp', ps, 'int8')], attrs: { index: 1 } },
    { name: 'qa', op_type: 'torchao.quantize_affine.default',
      inputs: [t('x', xs, 'float32', 'x'), t('scale', ps, 'float32', 'scale'), t('zp', ps, 'int8', 'zp')],
      outputs: [t('qa', xs, 'int8')], attrs: { block_size: [...lead.map(() => 1), K], output_dtype: 'torch.int8', quant_min: -128, quant_max: 127 } },
    { name: 'dqa', op_type: 'torchao.dequantize_affine.default',
      inputs: [t('qa', xs, 'int8', 'qa'), t('scale', ps, 'float32', 'scale'), t('zp', ps, 'int8', 'zp')],
      outputs: [t('dqa', xs, 'float32')], attrs: { block_size: [...lead.map(() => 1), K], input_dtype: 'torch.int8', quant_min: -128, quant_max: 127 } },
    { name: 'dqw', op_type: 'torchao.dequantize_affine.default',
      inputs: [t('p_w', [N, K], 'int8'), t('p_ws', [N, groups], 'float32'), t('p_wz', [N, groups], zpDtype)],
      outputs: [t('dqw', [N, K], 'float32')], attrs: { block_size: [1, G], input_dtype: 'torch.int8', quant_min: -8, quant_max: 7 } },
    { name: 'y', op_type: 'aten.linear.default',
      inputs: [t('dqa', xs, 'float32', 'dqa'), t('dqw', [N, K], 'float32', 'dqw'), ...(bias ? [t('p_b', [N], 'float32')] : [])],
      outputs: [t('y', [...lead, N], 'float32')], attrs: {} },
    // fused into the linear's epilogue (a second dispatch on the GPU)
    ...(relu ? [{ name: 'r', op_type: 'aten.relu.default', inputs: [t('y', [...lead, N], 'float32', 'y')],
      outputs: [t('r', [...lead, N], 'float32')], attrs: {} }] : []),
  ];
  const weights = [
    { name: 'w', dtype: 'int8', shape: [N, K], data: Int8Array.from({ length: N * K }, () => Math.floor(rand() * 16) - 8) },
    { name: 'ws', dtype: 'float32', shape: [N, groups], data: Float32Array.from({ length: N * groups }, () => 0.01 + 0.05 * rand()) },
    { name: 'wz', dtype: zpDtype, shape: [N, groups],
      data: (zpDtype === 'int8' ? Int8Array : BigInt64Array).from({ length: N * groups },
        () => (zpDtype === 'int8' ? (asymmetric ? Math.floor(rand() * 5) - 2 : 0) : BigInt(asymmetric ? Math.floor(rand() * 5) - 2 : 0))) },
    ...(bias ? [{ name: 'b', dtype: 'float32', shape: [N], data: Float32Array.from({ length: N }, () => rand() - 0.5) }] : []),
  ];
  const ir = {
    model_name: 'Linear8da4w',
    graph_inputs: [t('x', xs, 'float32')],
    graph_outputs: [t('qa', xs, 'int8'), t('scale', ps, 'float32'), t('zp', ps, 'int8'), t(relu ? 'r' : 'y', [...lead, N], 'float32')],
    weights: weights.map((w) => ({ name: w.name, shape: w.shape, dtype: w.dtype })),
    weight_name_mapping: Object.fromEntries(weights.map((w) => [`p_${w.name}`, w.name])),
    nodes,
  };
  // rows of different ranges, one all-negative, one holding a constant
  const x = Float32Array.from({ length: xs.reduce((a, b) => a * b, 1) }, (_, i) => {
    const row = Math.floor(i / K);
    return row % 3 === 1 ? -1 - rand() : row % 5 === 2 ? 0.25 : (rand() - 0.3) * (1 + row);
  });
  return { ir, weights, x, xs };
}

// The IR with its weights on WASM and with ['webgpu'], fed x: both runs' outputs, the GPU run's
// placement and the dtype its plan holds weight 'w' as on the GPU.
async function onBoth(eng, gpu, { ir, weights, x, xs }) {
  const run = async (opts) => {
    const model = await eng.loadIR(ir, { weights: eng.writeSafetensors(weights), threads: 1, ...opts });
    try {
      const ys = await model.execute([{ data: x, shape: xs, dtype: 'float32' }]);
      const wValue = model._gpu?.plan.values.find((v) => v.label === 'w');
      return { ys: ys.map((y) => Array.from(y.data, Number)), placement: model.placement(), wGpuDtype: wValue?.gpu_dtype };
    } finally {
      model.dispose();
    }
  };
  const cpu = await run({});
  eng.env.webgpu.device = gpu.device;
  try {
    const g = await run({ executionProviders: ['webgpu'] });
    return { cpu: cpu.ys, gpu: g.ys, placement: g.placement, wGpuDtype: g.wGpuDtype };
  } finally {
    eng.env.webgpu.device = undefined;
  }
}

const CASES = [
  { lead: [1], K: 4, N: 1, G: 4 },
  { lead: [3], K: 12, N: 5, G: 4, asymmetric: true, relu: true },
  { lead: [5], K: 68, N: 67, G: 4, bias: false },
  { lead: [1], K: 64, N: 33, G: 32 },
  { lead: [7], K: 96, N: 9, G: 32, asymmetric: true, zpDtype: 'int64' },
  { lead: [2, 3], K: 32, N: 65, G: 16, relu: true, bias: false },
  { lead: [1, 1], K: 256, N: 130, G: 32, asymmetric: true },
];

test('8da4w linear on WebGPU: per-token parameters and int8 activations exact, outputs to float rounding', gpuTest(async (tt, gpu) => {
  const eng = await getEngine();
  if (!eng) { tt.skip('engine not built'); return; }
  for (const [i, c] of CASES.entries()) {
    const what = JSON.stringify(c);
    const r = await onBoth(eng, gpu, linear8da4w({ ...c, seed: i + 1 }));
    assert.equal(r.placement.nodes.wasm, 0, `${what}: placement ${JSON.stringify(r.placement)}`);
    // 4-bit weights whose rows start at whole words (K a multiple of 8) are nibbles on the GPU
    assert.equal(r.wGpuDtype, c.K % 8 === 0 ? 'int4' : 'int8', what);
    assert.deepEqual(r.gpu[0], r.cpu[0], `${what}: quantized activation`);
    assert.deepEqual(r.gpu[1], r.cpu[1], `${what}: scales`);
    assert.deepEqual(r.gpu[2], r.cpu[2], `${what}: zero points`);
    assertClose(r.gpu[3], r.cpu[3], { rtol: 1e-5, atol: 1e-5, what: `${what}: linear` });
  }
}));

test('8da4w on WebGPU: a 4-bit weight holding a value outside [-8, 7] fails its upload, naming it', gpuTest(async (tt, gpu) => {
  const eng = await getEngine();
  if (!eng) { tt.skip('engine not built'); return; }
  const m = linear8da4w({ lead: [2], K: 32, N: 3, G: 16, seed: 7 });
  m.weights[0].data[37] = 9;
  eng.env.webgpu.device = gpu.device;
  eng.env.webgpu.strict = true;
  try {
    await assert.rejects(eng.loadIR(m.ir, { weights: eng.writeSafetensors(m.weights), threads: 1, executionProviders: ['webgpu'] }),
      /weight 'w' holds 9 at element 37, outside the 4-bit range \[-8, 7\]/);
  } finally {
    eng.env.webgpu.device = undefined;
    eng.env.webgpu.strict = false;
  }
}));

// PT2E's int8 linear (XNNPACKQuantizer, per-channel weights): x -> [choose_qparams.tensor ->]
// quantize_per_tensor -> dequantize_per_tensor, dequantize_per_channel(W int8), linear; static
// (Python-float parameters) or dynamic (chosen over the whole input per run).
function linearPt2e({ lead, K, N, dynamic, bias = true, asymmetric = false, relu = false, seed = 1 }) {
  const rand = rng(seed);
  const xs = [...lead, K];
  const q = { quant_min: -128, quant_max: 127, dtype: 'torch.int8' };
  const nodes = dynamic ? [
    { name: 'choose', op_type: 'quantized_decomposed.choose_qparams.tensor', inputs: [t('x', xs, 'float32', 'x')],
      outputs: [t('choose_0', [1], 'float64'), t('choose_1', [1], 'int64')], attrs: { ...q, eps: 0.000244140625 } },
    { name: 'scale', op_type: '<built-in function getitem>', inputs: [t('choose_0', [1], 'float64', 'choose'), t('choose_1', [1], 'int64', 'choose', 1)],
      outputs: [t('scale', [1], 'float64')], attrs: { index: 0 } },
    { name: 'zp', op_type: '<built-in function getitem>', inputs: [t('choose_0', [1], 'float64', 'choose'), t('choose_1', [1], 'int64', 'choose', 1)],
      outputs: [t('zp', [1], 'int64')], attrs: { index: 1 } },
    { name: 'qx', op_type: 'quantized_decomposed.quantize_per_tensor.tensor',
      inputs: [t('x', xs, 'float32', 'x'), t('scale', [1], 'float64', 'scale'), t('zp', [1], 'int64', 'zp')], outputs: [t('qx', xs, 'int8')], attrs: q },
    { name: 'dqx', op_type: 'quantized_decomposed.dequantize_per_tensor.tensor',
      inputs: [t('qx', xs, 'int8', 'qx'), t('scale', [1], 'float64', 'scale'), t('zp', [1], 'int64', 'zp')], outputs: [t('dqx', xs, 'float32')], attrs: q },
  ] : [
    { name: 'qx', op_type: 'quantized_decomposed.quantize_per_tensor.default', inputs: [t('x', xs, 'float32', 'x')],
      outputs: [t('qx', xs, 'int8')], attrs: { ...q, scale: 0.0251946020871, zero_point: -3 } },
    { name: 'dqx', op_type: 'quantized_decomposed.dequantize_per_tensor.default', inputs: [t('qx', xs, 'int8', 'qx')],
      outputs: [t('dqx', xs, 'float32')], attrs: { ...q, scale: 0.0251946020871, zero_point: -3 } },
  ];
  nodes.push(
    { name: 'dqw', op_type: 'quantized_decomposed.dequantize_per_channel.default',
      inputs: [t('p_w', [N, K], 'int8'), t('p_ws', [N], 'float32'), t('p_wz', [N], 'int64')],
      outputs: [t('dqw', [N, K], 'float32')], attrs: { axis: 0, quant_min: -127, quant_max: 127, dtype: 'torch.int8' } },
    { name: 'y', op_type: 'aten.linear.default',
      inputs: [t('dqx', xs, 'float32', 'dqx'), t('dqw', [N, K], 'float32', 'dqw'), ...(bias ? [t('p_b', [N], 'float32')] : [])],
      outputs: [t('y', [...lead, N], 'float32')], attrs: {} },
    ...(relu ? [{ name: 'r', op_type: 'aten.relu.default', inputs: [t('y', [...lead, N], 'float32', 'y')],
      outputs: [t('r', [...lead, N], 'float32')], attrs: {} }] : []));
  const weights = [
    { name: 'w', dtype: 'int8', shape: [N, K], data: Int8Array.from({ length: N * K }, () => Math.floor(rand() * 255) - 127) },
    { name: 'ws', dtype: 'float32', shape: [N], data: Float32Array.from({ length: N }, () => 0.001 + 0.01 * rand()) },
    { name: 'wz', dtype: 'int64', shape: [N], data: BigInt64Array.from({ length: N }, () => BigInt(asymmetric ? Math.floor(rand() * 9) - 4 : 0)) },
    ...(bias ? [{ name: 'b', dtype: 'float32', shape: [N], data: Float32Array.from({ length: N }, () => rand() - 0.5) }] : []),
  ];
  const ir = {
    model_name: 'LinearPt2e', graph_inputs: [t('x', xs, 'float32')], graph_outputs: [t(relu ? 'r' : 'y', [...lead, N], 'float32')],
    weights: weights.map((w) => ({ name: w.name, shape: w.shape, dtype: w.dtype })),
    weight_name_mapping: Object.fromEntries(weights.map((w) => [`p_${w.name}`, w.name])),
    nodes,
  };
  const x = Float32Array.from({ length: xs.reduce((a, b) => a * b, 1) }, () => (rand() - 0.4) * 3);
  return { ir, weights, x, xs };
}

test('PT2E int8 linear on WebGPU (static and dynamic): agrees with the CPU\'s integer kernel', gpuTest(async (tt, gpu) => {
  const eng = await getEngine();
  if (!eng) { tt.skip('engine not built'); return; }
  const cases = [
    { lead: [1], K: 4, N: 1 },
    { lead: [3], K: 12, N: 5, asymmetric: true, relu: true },
    { lead: [5], K: 68, N: 67, bias: false },
    { lead: [7], K: 96, N: 9 },
    { lead: [2, 3], K: 32, N: 65, relu: true, asymmetric: true },
    { lead: [3], K: 6, N: 5, onGpu: false },  // rows of 6 bytes do not start at whole words: WASM
  ];
  for (const dynamic of [false, true]) {
    for (const [i, c] of cases.entries()) {
      const what = `${dynamic ? 'dynamic' : 'static'} ${JSON.stringify(c)}`;
      const r = await onBoth(eng, gpu, linearPt2e({ ...c, dynamic, seed: 100 + i }));
      assert.equal(r.placement.nodes.wasm, c.onGpu === false ? 1 : 0, `${what}: placement ${JSON.stringify(r.placement)}`);
      assertClose(r.gpu[0], r.cpu[0], { rtol: 1e-5, atol: 1e-5, what });
    }
  }
}));
