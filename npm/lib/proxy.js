// Worker proxy mode (env.proxy = true, pages only), like onnxruntime-web's
// ort.env.wasm.proxy: the WASM module runs in a dedicated module worker
// (proxy-worker.js), so a long execute() does not block the page. The model
// object mirrors Model, but every method returns a Promise.
import {
  IRFormatError, WeightLoadError, ExecutionError, VerificationError, TorchIrError, EngineTrapError,
} from './errors.js';
import { env } from './backend.js';

const CLASSES = { IRFormatError, WeightLoadError, ExecutionError, VerificationError, TorchIrError, EngineTrapError };

let worker = null;
let generation = 0; // bumped when the worker dies: models of older ones are gone
let lastDeath = '';
let nextId = 1;
const pending = new Map(); // id -> {resolve, reject, onProgress}

// The worker died (an uncaught error, or a message it could not read): every
// pending call is rejected now, the worker is ended, and the next call starts
// a new one.
function workerFailed(what) {
  lastDeath = what;
  const err = new EngineTrapError(`proxy worker failed: ${what}; pending calls were rejected and the next load starts a new worker`);
  for (const p of pending.values()) p.reject(err);
  pending.clear();
  try {
    worker?.terminate();
  } catch {
    // already gone
  }
  worker = null;
  generation++;
}

export function canProxy() {
  return typeof window !== 'undefined' && typeof Worker === 'function';
}

// The literal `new Worker(new URL('./proxy-worker.js', import.meta.url), ...)`
// is what vite and webpack 5 recognize and bundle as a worker; others
// (esbuild) bundle lib/proxy-worker.js as an entry point and set env.workerPath.
function getWorker() {
  if (worker) return worker;
  const custom = env.workerPath;
  // (Not a second new URL(..., import.meta.url) for the message: bundlers
  // would emit the file again, unbundled, or warn about an expression.)
  const scriptName = custom ? `env.workerPath ${custom}` : "torch-ir-wasm's lib/proxy-worker.js (as your bundler emitted it)";
  worker = custom
    ? new Worker(custom, { type: 'module', name: 'torch-ir-wasm' })
    : new Worker(new URL('./proxy-worker.js', import.meta.url), { type: 'module', name: 'torch-ir-wasm' });
  worker.onmessage = ({ data }) => {
    const p = pending.get(data.id);
    if (!p) return;
    if (data.progress) {
      p.onProgress?.(data.progress);
      return;
    }
    pending.delete(data.id);
    if (data.ok) p.resolve(data.value);
    else p.reject(new (CLASSES[data.error.name] || Error)(data.error.message));
  };
  worker.onerror = (e) => {
    e?.preventDefault?.();
    // A script that cannot be loaded (404, wrong MIME type, a bundle without
    // it) fires a bare Event with no message.
    workerFailed(e?.message ||
      `the worker script ${scriptName} failed to load (with a bundler that does not emit it, bundle ` +
        "torch-ir-wasm's lib/proxy-worker.js as an entry point and set env.workerPath to its URL)");
  };
  worker.onmessageerror = () => workerFailed('a message from the worker could not be deserialized');
  return worker;
}

function call(message, onProgress) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, onProgress });
    getWorker().postMessage({ id, ...message });
  });
}

// The worker resolves relative URLs against its own location: make them absolute here.
const base = () => (typeof document !== 'undefined' ? document.baseURI : globalThis.location?.href);
function absolute(src, isIr = false) {
  if (src instanceof URL) return src.href;
  if (typeof src === 'string') return isIr && /^\s*[{[]/.test(src) ? src : new URL(src, base()).href;
  if (Array.isArray(src)) return src.map((s) => absolute(s));
  return src;
}
function absolutePaths(p) {
  if (p === undefined || p === null) return undefined;
  if (typeof p === 'string' || p instanceof URL) return absolute(p);
  return Object.fromEntries(Object.entries(p).map(([k, v]) => [k, absolute(v)]));
}

/** @internal test hook: bindings/embind_debug.cpp's _debugFault run in the proxy worker. */
export function debugFaultProxy(kind, options = {}) {
  return call({ op: 'debugFault', args: [kind, options] });
}

/** loadIR in the proxy worker. */
export async function loadIRProxy(ir, options, env) {
  const { onProgress, weights, constants, wasmPaths, ...rest } = options;
  const info = await call({
    op: 'load',
    args: [absolute(ir, true), {
      ...rest,
      weights: absolute(weights),
      constants: absolute(constants),
      wasmPaths: absolutePaths(wasmPaths ?? env.wasmPaths),
      numThreads: env.numThreads,
      progress: Boolean(onProgress),
    }],
  }, onProgress);
  return new ProxyModel(info, generation);
}

const METHODS = ['execute', 'verify', 'info', 'toMermaid', 'opDistributionPie', 'profile', 'setProfiling',
  'mutatedBuffers', 'bufferValue', 'resetBuffers', 'arenaBytes'];

/** Model running in the proxy worker: same members, every method async. */
export class ProxyModel {
  constructor({ handle, inputs, outputs, backend }, gen) {
    this._handle = handle;
    this._generation = gen;
    this.inputs = Object.freeze(inputs.map((m) => Object.freeze({ ...m, shape: Object.freeze(m.shape) })));
    this.outputs = Object.freeze(outputs.map((m) => Object.freeze({ ...m, shape: Object.freeze(m.shape) })));
    this.backend = { ...backend, proxy: true };
  }

  get disposed() {
    return this._handle === null;
  }

  _call(method, args) {
    if (this._handle === null) return Promise.reject(new TorchIrError('model is disposed'));
    if (this._generation !== generation) {
      return Promise.reject(new EngineTrapError(`${method}(): the proxy worker this model was loaded in died (${lastDeath}); load the model again`));
    }
    return call({ op: 'call', handle: this._handle, method, args });
  }

  async dispose() {
    if (this._handle === null) return;
    const h = this._handle;
    this._handle = null;
    if (this._generation !== generation) return; // its worker, and memory, are gone
    await call({ op: 'call', handle: h, method: 'dispose', args: [] });
  }
}
for (const m of METHODS) {
  ProxyModel.prototype[m] = function proxied(...args) {
    return this._call(m, args);
  };
}
