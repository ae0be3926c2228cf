// The worker side of proxy mode (see proxy.js): runs the real API and answers
// {id, ok, value} / {id, ok: false, error} / {id, progress} messages.
import { loadIR } from '../index.js';
import { debugFault, env } from './backend.js';
import { TorchIrError } from './errors.js';

const models = new Map();
let nextHandle = 1;
const METHODS = new Set(['execute', 'verify', 'info', 'toMermaid', 'opDistributionPie', 'profile', 'setProfiling',
  'mutatedBuffers', 'bufferValue', 'resetBuffers', 'arenaBytes', 'dispose']);

async function handle({ id, op, handle: h, method, args }) {
  if (op === 'load') {
    const [ir, { progress, numThreads, ...options }] = args;
    if (numThreads) env.numThreads = numThreads;
    const model = await loadIR(ir, {
      ...options,
      onProgress: progress ? (p) => self.postMessage({ id, progress: p }) : undefined,
    });
    const handleId = nextHandle++;
    models.set(handleId, model);
    return [{ handle: handleId, inputs: model.inputs, outputs: model.outputs, backend: model.backend }, []];
  }
  if (op === 'debugFault') return [await debugFault(...args), []];
  const model = models.get(h);
  if (!model || !METHODS.has(method)) throw new TorchIrError(model ? `unknown method '${method}'` : 'model is disposed');
  const value = await model[method](...args);
  if (method === 'dispose') models.delete(h);
  // Output data were copied out of WASM memory: hand the buffers over.
  const tensors = method === 'execute' ? value : method === 'bufferValue' ? [value] : [];
  return [value, tensors.map((t) => t.data.buffer)];
}

self.onmessage = async ({ data }) => {
  try {
    const [value, transfer] = await handle(data);
    self.postMessage({ id: data.id, ok: true, value }, transfer);
  } catch (e) {
    self.postMessage({ id: data.id, ok: false, error: { name: e?.name || 'Error', message: e?.message || String(e) } });
  }
};
