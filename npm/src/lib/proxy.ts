// Worker proxy mode (env.proxy = true), like onnxruntime-web's
// ort.env.wasm.proxy: the WASM module runs in a dedicated worker, so a long
// execute() does not block the page (or a Node server's event loop). The model
// object mirrors Model, but every method returns a Promise.
//
// The worker is a transport with the Web Worker API (postMessage, terminate,
// onmessage, onerror, onmessageerror; optionally ref/unref): in pages a module
// Worker running proxy-worker.js, in Node a worker_threads Worker wrapped by
// lib/node/worker-mode.js (reached through `#node`, so the browser entry has no
// Node imports). Both ends speak the same protocol (proxy-worker.js serveProxy).
import {
  IRFormatError, WeightLoadError, ExecutionError, VerificationError, TorchIrError, EngineTrapError,
} from './errors.js';
import { env } from './backend.js';
import { FORWARDED_METHODS } from './proxy_methods.js';

const CLASSES = {
  IRFormatError, WeightLoadError, ExecutionError, VerificationError, TorchIrError, EngineTrapError, TypeError, RangeError,
};

let worker = null;
let generation = 0; // bumped when the worker dies: models of older ones are gone
let lastDeath = '';
let nextId = 1;
const pending = new Map(); // id -> {resolve, reject, onProgress}
let createNodeWorker = null; // lib/node/worker-mode.js createEngineWorker, once loaded

// Node (not a page, nor a test that fakes one): the worker_threads transport.
function nodeMode() {
  return typeof window === 'undefined' && typeof process === 'object' && typeof process?.versions?.node === 'string';
}

// Loads the Node transport (an async import; getWorker is synchronous). Only
// the first call waits for it: later ones post at once, so calls reach the
// worker in the order they were made. null when there is nothing to load.
function prepareTransport() {
  if (!nodeMode() || createNodeWorker) return null;
  return import('#node').then((m) => {
    createNodeWorker = m.createEngineWorker;
  });
}

// A Node worker keeps the process alive only while a call is pending: a script
// that loads a model and never disposes it still exits (like onnxruntime-node).
function holdProcess() {
  if (pending.size) worker?.ref?.();
  else worker?.unref?.();
}

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
  return (typeof window !== 'undefined' && typeof Worker === 'function') || nodeMode();
}

// The literal `new Worker(new URL('./proxy-worker.js', import.meta.url), ...)`
// is what vite and webpack 5 recognize and bundle as a worker; others
// (esbuild) bundle lib/proxy-worker.js as an entry point and set env.workerPath.
function getWorker() {
  if (worker) return worker;
  let scriptName;
  if (createNodeWorker && nodeMode()) {
    worker = createNodeWorker();
    scriptName = 'lib/node/engine-worker.js (Node worker thread)';
  } else {
    const custom = env.workerPath;
    // (Not a second new URL(..., import.meta.url) for the message: bundlers
    // would emit the file again, unbundled, or warn about an expression.)
    scriptName = custom ? `env.workerPath ${custom}` : "torch-ir-wasm's lib/proxy-worker.js (as your bundler emitted it)";
    worker = custom
      ? new Worker(custom, { type: 'module', name: 'torch-ir-wasm' })
      : new Worker(new URL('./proxy-worker.js', import.meta.url), { type: 'module', name: 'torch-ir-wasm' });
  }
  worker.onmessage = ({ data }) => {
    const p = pending.get(data.id);
    if (!p) return;
    if (data.progress) {
      p.onProgress?.(data.progress);
      return;
    }
    pending.delete(data.id);
    holdProcess();
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

// Arguments are copied (structured clone); `transfer` lists buffers to move instead.
function call(message, onProgress, transfer = []) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const w = getWorker();
    pending.set(id, { resolve, reject, onProgress });
    holdProcess();
    try {
      w.postMessage({ id, ...message }, transfer);
    } catch (e) { // e.g. DataCloneError: a function or a detached buffer among the arguments
      pending.delete(id);
      holdProcess();
      reject(e);
    }
  });
}

// The worker resolves relative URLs against its own location: make them
// absolute here. (A Node worker shares the process's cwd: paths stay as given.)
const base = () => (typeof document !== 'undefined' ? document.baseURI : globalThis.location?.href);
function absolute(src, isIr = false) {
  if (src instanceof URL) return src.href;
  if (typeof src === 'string' && nodeMode()) return src;
  if (typeof src === 'string') return isIr && /^\s*[{[]/.test(src) ? src : new URL(src, base()).href;
  if (Array.isArray(src)) return src.map((s) => absolute(s));
  return src;
}
function absolutePaths(p) {
  if (p === undefined || p === null) return undefined;
  if (typeof p === 'string' || p instanceof URL) return absolute(p);
  return Object.fromEntries(Object.entries(p).map(([k, v]) => [k, absolute(v)]));
}

/**
 * @internal test hook: bindings/embind_debug.cpp's _debugFault run in the proxy
 * worker, on the module that loadIR there would use (options.wasmPaths, else
 * env.wasmPaths: only the test-only modules have the hook).
 */
export function debugFaultProxy(kind, options = {}) {
  const wasmPaths = absolutePaths(options.wasmPaths ?? env.wasmPaths);
  const send = () => call({ op: 'debugFault', args: [kind, { ...options, wasmPaths }] });
  const loading = prepareTransport();
  return loading ? loading.then(send) : send();
}

/** loadIR in the proxy worker. */
export async function loadIRProxy(ir, options, env) {
  const { onProgress, weights, constants, wasmPaths, weightsFrom, ...rest } = options;
  const loading = prepareTransport();
  if (loading) await loading;
  const info = await call({
    op: 'load',
    args: [absolute(ir, true), {
      ...rest,
      ...(weightsFrom === undefined || weightsFrom === null ? {} : { weightsFromHandle: proxiedHandle(weightsFrom) }),
      weights: absolute(weights),
      constants: absolute(constants),
      wasmPaths: absolutePaths(wasmPaths ?? env.wasmPaths),
      numThreads: env.numThreads,
      progress: Boolean(onProgress),
    }],
  }, onProgress);
  const model = new ProxyModel(info, generation);
  finalizer?.register(model, { handle: info.handle, gen: generation }, model);
  return model;
}

// weightsFrom in the worker: the worker-side model of a live ProxyModel of this worker.
function proxiedHandle(model) {
  if (!(model instanceof ProxyModel)) {
    throw new ExecutionError('loadIR: with env.proxy, weightsFrom must be a model loaded while env.proxy was on');
  }
  if (model._handle === null) throw new TorchIrError('model is disposed');
  if (model._generation !== generation) throw new TorchIrError('weightsFrom: that model\'s worker was terminated');
  return model._handle;
}

// A model collected without dispose() frees its worker-side memory too.
const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry(({ handle, gen }) => {
    if (gen === generation) call({ op: 'call', handle, method: 'dispose', args: [] }).catch(() => {});
  })
  : null;

// The ArrayBuffers behind execute()'s inputs (typed arrays or raw buffers), for
// `transferInputs: true`: moved to the worker instead of copied, which detaches
// them here. SharedArrayBuffers cannot be transferred (and need no copy anyway).
function inputBuffers(inputs) {
  let values;
  if (ArrayBuffer.isView(inputs) || inputs instanceof ArrayBuffer) values = [inputs];
  else if (inputs instanceof Map) values = [...inputs.values()];
  else if (inputs && typeof inputs === 'object') values = Object.values(inputs);
  else values = [];
  const buffers = new Set();
  for (const v of values) {
    const b = ArrayBuffer.isView(v) ? v.buffer : v;
    if (b instanceof ArrayBuffer) buffers.add(b);
  }
  return [...buffers];
}

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

  _call(method, args, transfer) {
    if (this._handle === null) return Promise.reject(new TorchIrError('model is disposed'));
    if (this._generation !== generation) {
      return Promise.reject(new EngineTrapError(`${method}(): the proxy worker this model was loaded in died (${lastDeath}); load the model again`));
    }
    return call({ op: 'call', handle: this._handle, method, args }, undefined, transfer);
  }

  /**
   * Model.execute in the worker. Inputs are copied to it, unless
   * `transferInputs: true`: then their ArrayBuffers are moved (detached here,
   * no copy). Outputs are always moved back (no copy).
   */
  execute(inputs, options = {}) {
    const { transferInputs = false, ...rest } = options ?? {};
    return this._call('execute', [inputs, rest], transferInputs ? inputBuffers(inputs) : []);
  }

  async dispose() {
    if (this._handle === null) return;
    const h = this._handle;
    this._handle = null;
    finalizer?.unregister(this);
    if (this._generation !== generation) return; // its worker, and memory, are gone
    await call({ op: 'call', handle: h, method: 'dispose', args: [] });
  }
}
for (const m of FORWARDED_METHODS) {
  ProxyModel.prototype[m] = function proxied(...args) {
    return this._call(m, args);
  };
}
if (typeof Symbol.asyncDispose === 'symbol') ProxyModel.prototype[Symbol.asyncDispose] = ProxyModel.prototype.dispose;
