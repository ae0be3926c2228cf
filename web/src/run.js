// Running a model for the viewer's Run button: inputs when no io file is
// open, and a few timed runs whose per-node profile is summarized by medians.
import { numel } from './format.js';

/** Random inputs of the right shape/dtype; int inputs stay below the smallest embedding table they index. */
export function randomInputs(graph) {
  const out = {};
  for (const inp of graph.ir.graph_inputs) {
    const n = numel(inp.shape);
    const dt = String(inp.dtype).replace('torch.', '');
    if (/int/.test(dt)) {
      let hi = 10;
      for (const e of graph.edges) {
        if (e.from !== 'input_' + inp.name) continue;
        const op = graph.byId.get(e.to);
        if (/embedding/.test(op.opType || '') && op.weights[0]) hi = Math.min(hi === 10 ? Infinity : hi, op.weights[0].shape[0]);
      }
      if (!Number.isFinite(hi)) hi = 10;
      const data = dt === 'int64' ? new BigInt64Array(n) : new Int32Array(n);
      for (let i = 0; i < n; ++i) data[i] = dt === 'int64' ? BigInt(Math.floor(Math.random() * hi)) : Math.floor(Math.random() * hi);
      out[inp.name] = { data, shape: inp.shape, dtype: dt };
    } else if (dt === 'bool') {
      out[inp.name] = { data: Uint8Array.from({ length: n }, () => (Math.random() < 0.5 ? 1 : 0)), shape: inp.shape, dtype: 'bool' };
    } else {
      const data = new Float32Array(n);
      for (let i = 0; i < n; ++i) {
        // Box-Muller: roughly N(0, 1)
        data[i] = Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());
      }
      out[inp.name] = { data, shape: inp.shape, dtype: 'float32' };
    }
  }
  return out;
}

/** loadIR's options for the device picked in the toolbar ('wasm' or 'webgpu'). */
export function deviceOptions(device) {
  return device === 'webgpu' ? { executionProviders: ['webgpu', 'wasm'] } : {};
}

/**
 * A warm-up run, then 3-5 timed runs (single-run node times on a busy machine
 * are noisy): the last outputs, the median run time, each node's median and,
 * on WebGPU, each node's device. A profiled WebGPU run syncs after every GPU
 * node, so there the run time comes from a run without profiling.
 */
export async function profiledRuns(model, inputs) {
  await model.execute(inputs); // warm-up: first run allocates the arena
  const gpu = (model.executionProviders ?? []).includes('webgpu'); // a ProxyModel (worker) is WASM
  const runs = [];
  const devices = new Map();
  const fused = new Map(); // producer -> the IR nodes fused into its kernel (profile covers)
  let outputs;
  const t1 = performance.now();
  do {
    if (gpu) model.setProfiling(false);
    const t = performance.now();
    outputs = await model.execute(inputs);
    const ms = performance.now() - t;
    if (gpu) {
      model.setProfiling(true);
      await model.execute(inputs);
    }
    const byNode = new Map();
    for (const p of await model.profile()) {
      byNode.set(p.node, (byNode.get(p.node) || 0) + p.ms);
      if (p.device) devices.set(p.node, p.device);
      if (p.covers?.length) fused.set(p.node, p.covers);
    }
    runs.push({ ms, byNode });
  } while (runs.length < 5 && (runs.length < 3 || performance.now() - t1 < 300));
  const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  const byNode = new Map();
  let total = 0;
  for (const name of runs[0].byNode.keys()) {
    const v = med(runs.map((r) => r.byNode.get(name) || 0));
    byNode.set(name, v);
    total += v;
  }
  return { outputs, totalMs: med(runs.map((r) => r.ms)), byNode, total, runs: runs.length, devices, fused };
}
