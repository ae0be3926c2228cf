// The CPU side of the kernel tests: our engine's own kernels, through the npm package's WASM
// build (npm/dist from scripts/build_wasm.sh) running a one-node IR. Host
// tensors (ref.mjs) are passed as their contiguous values; GPU int32 is the engine's int64.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { numel } from './gpu.mjs';
import { indices, at, assertClose } from './ref.mjs';

// Either build will do (results do not depend on the thread count): the single-threaded one
// when present, else the threaded one on 2 threads.
const BUILDS = [['torch-ir-wasm-simd.js', 1], ['torch-ir-wasm-simd-threaded.js', 2]]
  .map(([f, threads]) => [new URL(`../../npm/dist/${f}`, import.meta.url), threads]);
let api = null;
let threads = 1;

// The npm package, or null (outside CI) when npm/dist is not built; in CI a missing build throws.
export async function getEngine() {
  const build = BUILDS.find(([u]) => existsSync(u));
  if (!build) {
    const msg = 'engine: npm/dist is not built (bash scripts/build_wasm.sh simd)';
    if (process.env.CI === 'true') throw new Error(msg);
    return null;
  }
  threads = build[1];
  api ??= await import('../../npm/index.js');
  return api;
}

const IR_DTYPE = { float32: 'float32', int32: 'int64', bool: 'bool', float16: 'float16', bfloat16: 'bfloat16' };

function engineInput(h) {
  const n = numel(h.shape);
  if (h.dtype === 'int32') {
    const d = new BigInt64Array(n);
    let i = 0;
    for (const idx of indices(h.shape)) d[i++] = BigInt(at(h, idx));
    return { data: d, shape: h.shape, dtype: 'int64' };
  }
  const d = h.dtype === 'bool' ? new Uint8Array(n) : new Float32Array(n);
  let i = 0;
  for (const idx of indices(h.shape)) d[i++] = at(h, idx);
  return { data: d, shape: h.shape, dtype: h.dtype };
}

// Runs aten op `opType` on host tensors; returns the output's data as numbers.
export async function engineOp(eng, opType, inputs, out, attrs = {}) {
  const t = (name, shape, dtype, extra = {}) => ({ name, shape, dtype: IR_DTYPE[dtype], ...extra });
  const names = inputs.map((_, i) => `x${i}`);
  const ir = {
    model_name: 'OneNode',
    graph_inputs: inputs.map((h, i) => t(names[i], h.shape, h.dtype)),
    graph_outputs: [t('y', out.shape, out.dtype)],
    weights: [],
    weight_name_mapping: {},
    nodes: [{
      name: 'y', op_type: opType,
      inputs: inputs.map((h, i) => t(names[i], h.shape, h.dtype, { producer_node: names[i], producer_output_idx: 0 })),
      outputs: [t('y', out.shape, out.dtype)],
      attrs,
    }],
  };
  const model = await eng.loadIR(ir, { threads });
  try {
    const [y] = await model.execute(inputs.map(engineInput));
    return Array.from(y.data, Number);
  } finally {
    model.dispose();
  }
}

// The same one-node IR on WASM and through the WebGPU provider (the engine's C++ lowering and
// plan, replayed by the package's executor): checks the lowerings themselves, where the kernel
// tests above drive the kernels with parameters computed in JS. `outs`: [{shape, dtype}];
// inputs listed in `transposed` reach the node through a transpose view of a contiguous graph
// input (a strided read on the GPU); `read` lists the outputs the graph returns (default: all;
// an output nothing reads need not be made on the GPU). Returns both runs' outputs (those read)
// and the WebGPU placement.
export async function lowered(eng, device, opType, inputs, outs, attrs = {}, { transposed = [], read } = {}) {
  const t = (name, shape, dtype, extra = {}) => ({ name, shape, dtype: IR_DTYPE[dtype], ...extra });
  const swap = (s) => [...s.slice(0, -2), s[s.length - 1], s[s.length - 2]];
  const nodes = [];
  const graphInputs = inputs.map((h, i) => {
    const stored = transposed.includes(i) ? { ...h, shape: swap(h.shape), strides: swap(h.strides) } : h;
    return { stored, ir: t(`x${i}`, stored.shape, h.dtype) };
  });
  const nodeInputs = inputs.map((h, i) => {
    if (!transposed.includes(i)) return t(`x${i}`, h.shape, h.dtype, { producer_node: `x${i}`, producer_output_idx: 0 });
    nodes.push({ name: `v${i}`, op_type: 'aten.transpose.int', attrs: { dim0: -2, dim1: -1 },
      inputs: [t(`x${i}`, swap(h.shape), h.dtype, { producer_node: `x${i}`, producer_output_idx: 0 })],
      outputs: [t(`v${i}`, h.shape, h.dtype)] });
    return t(`v${i}`, h.shape, h.dtype, { producer_node: `v${i}`, producer_output_idx: 0 });
  });
  const outputs = outs.map((o, k) => t(`y${k}`, o.shape, o.dtype));
  nodes.push({ name: 'y', op_type: opType, inputs: nodeInputs, outputs, attrs });
  const graphOutputs = read ? read.map((k) => outputs[k]) : outputs;
  const ir = { model_name: 'OneNode', graph_inputs: graphInputs.map((g) => g.ir), graph_outputs: graphOutputs,
    weights: [], weight_name_mapping: {}, nodes };
  return runBoth(eng, device, ir, graphInputs.map((g) => g.stored));
}

// An IR run on WASM and with ['webgpu'] on `device`, fed host tensors: {cpu, gpu, placement,
// dispatches (of the one WebGPU run)}.
export async function runBoth(eng, device, ir, inputs) {
  const feeds = inputs.map(engineInput);
  const run = async (opts) => {
    const model = await eng.loadIR(ir, { threads, ...opts });
    try {
      const ys = await model.execute(feeds);
      return { data: ys.map((y) => Array.from(y.data, Number)), placement: model.placement(), dispatches: model._gpu?.stats.dispatches };
    } finally {
      model.dispose();
    }
  };
  const cpu = await run({});
  eng.env.webgpu.device = device;
  try {
    const gpu = await run({ threads: 1, executionProviders: ['webgpu'] });
    return { cpu: cpu.data, gpu: gpu.data, placement: gpu.placement, dispatches: gpu.dispatches };
  } finally {
    eng.env.webgpu.device = undefined;
  }
}

// lowered(), then: the node ran on the GPU (onGpu; false: it must stay on WASM) and both runs'
// outputs agree (exactly by default).
export async function checkLowered(eng, gpu, opType, inputs, outs, attrs, { transposed = [], read, rtol = 0, atol = 0, onGpu = true } = {}) {
  const what = `${opType} ${JSON.stringify(inputs.map((h) => h.shape))} ${JSON.stringify(attrs)} ${transposed.length ? 'transposed' : ''}`;
  const r = await lowered(eng, gpu.device, opType, inputs, outs, attrs, { transposed, read });
  assert.equal(r.placement.nodes.wasm, onGpu ? 0 : 1, `${what}: placement ${JSON.stringify(r.placement.nodes)}`);
  r.cpu.forEach((want, k) => assertClose(r.gpu[k], want, { rtol, atol, what: `${what} output ${k}` }));
}
