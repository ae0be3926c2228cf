// The CPU side of the kernel tests: our engine's own kernels, through the npm package's WASM
// build (npm/dist from scripts/build_wasm.sh) running a one-node IR. Host
// tensors (ref.mjs) are passed as their contiguous values; GPU int32 is the engine's int64.
import { existsSync } from 'node:fs';
import { numel } from './gpu.mjs';
import { indices, at } from './ref.mjs';

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

const IR_DTYPE = { float32: 'float32', int32: 'int64', bool: 'bool' };

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
