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
import { FORWARDED_METHODS, type ForwardedMethod } from './proxy_methods.js';
import { isGpuTensor } from './webgpu/gpu_io.js';
import type { Model } from './model.js';
import type { DType, Inputs, OutputTensor, TensorInfo } from './tensor_types.js';
import type { ExecuteOptions, IRSource, LoadOptions, WasmPaths } from './model_types.js';
import type { Env } from './backend.js';

/** The transport to the engine worker: a Web Worker, or lib/node/worker-mode.js's wrapper of a worker thread. */
export interface WorkerTransport {
  onmessage: ((event: { data: any }) => void) | null;
  onerror: ((event: any) => void) | null;
  onmessageerror: ((event?: unknown) => void) | null;
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  terminate(): void;
  ref?(): void;
  unref?(): void;
}

/** What the worker answers to a load: the worker-side model's handle and its metadata. */
interface LoadedInfo {
  handle: number;
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  backend: { variant: 'simd-threaded' | 'simd'; threads: number };
}

interface PendingCall {
  resolve: (value: any) => void;
  reject: (reason: unknown) => void;
  onProgress?: ((p: any) => void) | undefined;
}

const CLASSES: Readonly<Record<string, new (message?: string) => Error>> = {
  IRFormatError, WeightLoadError, ExecutionError, VerificationError, TorchIrError, EngineTrapError, TypeError, RangeError,
};

let worker: WorkerTransport | null = null;
let generation = 0; // bumped when the worker dies: models of older ones are gone
let lastDeath = '';

/** The current worker's generation, and what ended the last one (for models of a dead worker). */
export function workerGeneration(): { generation: number; lastDeath: string } {
  return { generation, lastDeath };
}
let nextId = 1;
const pending = new Map<number, PendingCall>(); // id -> {resolve, reject, onProgress}
let createNodeWorker: (() => WorkerTransport) | null = null; // lib/node/worker-mode.js createEngineWorker, once loaded

// Node (not a page, nor a test that fakes one): the worker_threads transport.
function nodeMode(): boolean {
  return typeof window === 'undefined' && typeof process === 'object' && typeof process?.versions?.node === 'string';
}

// Loads the Node transport (an async import; getWorker is synchronous). Only
// the first call waits for it: later ones post at once, so calls reach the
// worker in the order they were made. null when there is nothing to load.
export function prepareTransport(): Promise<void> | null {
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
function workerFailed(what: string): void {
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

export function canProxy(): boolean {
  return (typeof window !== 'undefined' && typeof Worker === 'function') || nodeMode();
}

// The literal `new Worker(new URL('./proxy-worker.js', import.meta.url), ...)`
// is what vite and webpack 5 recognize and bundle as a worker; others
// (esbuild) bundle lib/proxy-worker.js as an entry point and set env.workerPath.
function getWorker(): WorkerTransport {
  if (worker) return worker;
  let scriptName: string;
  let w: WorkerTransport;
  if (createNodeWorker && nodeMode()) {
    w = createNodeWorker();
    scriptName = 'lib/node/engine-worker.js (Node worker thread)';
  } else {
    const custom = env.workerPath;
    // (Not a second new URL(..., import.meta.url) for the message: bundlers
    // would emit the file again, unbundled, or warn about an expression.)
    scriptName = custom ? `env.workerPath ${custom}` : "torch-ir-wasm's lib/proxy-worker.js (as your bundler emitted it)";
    w = (custom
      ? new Worker(custom, { type: 'module', name: 'torch-ir-wasm' })
      : new Worker(new URL('./proxy-worker.js', import.meta.url), { type: 'module', name: 'torch-ir-wasm' })) as unknown as WorkerTransport;
  }
  worker = w;
  w.onmessage = ({ data }) => {
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
  w.onerror = (e) => {
    e?.preventDefault?.();
    // A script that cannot be loaded (404, wrong MIME type, a bundle without
    // it) fires a bare Event with no message.
    workerFailed(e?.message ||
      `the worker script ${scriptName} failed to load (with a bundler that does not emit it, bundle ` +
        "torch-ir-wasm's lib/proxy-worker.js as an entry point and set env.workerPath to its URL)");
  };
  w.onmessageerror = () => workerFailed('a message from the worker could not be deserialized');
  return w;
}

// Arguments are copied (structured clone); `transfer` lists buffers to move instead.
// (Also the transport of proxy_lm.ts: its tokens arrive as the call's progress messages.)
export function call(message: object, onProgress?: (p: any) => void, transfer: ArrayBuffer[] = []): Promise<any> {
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
export function absolute(src: any, isIr = false): any {
  if (src instanceof URL) return src.href;
  if (typeof src === 'string' && nodeMode()) return src;
  if (typeof src === 'string') return isIr && /^\s*[{[]/.test(src) ? src : new URL(src, base()).href;
  if (Array.isArray(src)) return src.map((s) => absolute(s));
  return src;
}
export function absolutePaths(p: WasmPaths | undefined | null): WasmPaths | undefined {
  if (p === undefined || p === null) return undefined;
  if (typeof p === 'string' || p instanceof URL) return absolute(p);
  return Object.fromEntries(Object.entries(p).map(([k, v]) => [k, absolute(v)]));
}

/** fetchOptions as plain data for the worker (structured-cloneable: no signal, headers as an object). */
export function cloneableFetchOptions(fetchOptions: RequestInit | undefined): RequestInit | undefined {
  if (!fetchOptions) return undefined;
  const init: RequestInit = { ...fetchOptions };
  delete init.signal;
  if (init.headers && typeof Headers === 'function') init.headers = Object.fromEntries(new Headers(init.headers));
  return init;
}

/**
 * A worker-side load under this thread's AbortSignal: rejects with its reason when it aborts
 * first; a load that completes after the abort is disposed.
 */
export function abortable<T extends { dispose(): Promise<void> }>(loading: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return loading;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    loading.then((m) => {
      if (signal.aborted) m.dispose().catch(() => {});
      else resolve(m);
    }, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * @internal test hook: bindings/embind_debug.cpp's _debugFault run in the proxy
 * worker, on the module that loadIR there would use (options.wasmPaths, else
 * env.wasmPaths: only the test-only modules have the hook).
 */
export function debugFaultProxy(kind: string, options: { wasmPaths?: WasmPaths } = {}): Promise<string> {
  const wasmPaths = absolutePaths(options.wasmPaths ?? env.wasmPaths);
  const send = () => call({ op: 'debugFault', args: [kind, { ...options, wasmPaths }] });
  const loading = prepareTransport();
  return loading ? loading.then(send) : send();
}

/** loadIR in the proxy worker. */
export async function loadIRProxy(ir: IRSource, options: LoadOptions, env: Env): Promise<ProxyModel> {
  const { onProgress, weights, constants, wasmPaths, weightsFrom, ...rest } = options;
  const loading = prepareTransport();
  if (loading) await loading;
  const info: LoadedInfo = await call({
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
function proxiedHandle(model: unknown): number {
  if (!(model instanceof ProxyModel)) {
    throw new ExecutionError('loadIR: with env.proxy, weightsFrom must be a model loaded while env.proxy was on');
  }
  if (model._handle === null) throw new TorchIrError('model is disposed');
  if (model._generation !== generation) throw new TorchIrError('weightsFrom: that model\'s worker was terminated');
  return model._handle;
}

// A model collected without dispose() frees its worker-side memory too.
const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry(({ handle, gen }: { handle: number; gen: number }) => {
    if (gen === generation) call({ op: 'call', handle, method: 'dispose', args: [] }).catch(() => {});
  })
  : null;

// The ArrayBuffers behind execute()'s inputs (typed arrays or raw buffers), for
// `transferInputs: true`: moved to the worker instead of copied, which detaches
// them here. SharedArrayBuffers cannot be transferred (and need no copy anyway).
function inputBuffers(inputs: Inputs): ArrayBuffer[] {
  let values: unknown[];
  if (ArrayBuffer.isView(inputs) || inputs instanceof ArrayBuffer) values = [inputs];
  else if (inputs instanceof Map) values = [...inputs.values()];
  else if (inputs && typeof inputs === 'object') values = Object.values(inputs);
  else values = [];
  const buffers = new Set<ArrayBuffer>();
  for (const v of values) {
    const b = ArrayBuffer.isView(v) ? v.buffer : v;
    if (b instanceof ArrayBuffer) buffers.add(b);
  }
  return [...buffers];
}

/** Model's method as ProxyModel has it: the same arguments, its result as a Promise. */
type Proxied<F> = F extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;

/** The Model methods a ProxyModel forwards to the worker as they are (FORWARDED_METHODS), each async. */
export type ForwardedMethods = { [M in ForwardedMethod]: Proxied<Model[M]> };

/**
 * A model loaded while env.proxy is true: it runs in a worker (a Web Worker in
 * pages, a worker thread in Node): Model's members, every method async.
 */
export class ProxyModel {
  /** graph_inputs metadata from the IR. */
  readonly inputs: readonly TensorInfo[];
  /** graph_outputs metadata from the IR. */
  readonly outputs: readonly TensorInfo[];
  /** Which build runs the model (in the worker). */
  readonly backend: { readonly variant: 'simd-threaded' | 'simd'; readonly threads: number; readonly proxy: true };
  /** @internal the worker-side model, null once disposed */
  _handle: number | null;
  /** @internal the worker it was loaded in */
  _generation: number;

  /** @internal use loadIR with env.proxy (ProxyModel is exported as a type only) */
  constructor({ handle, inputs, outputs, backend }: LoadedInfo, gen: number) {
    this._handle = handle;
    this._generation = gen;
    this.inputs = Object.freeze(inputs.map((m) => Object.freeze({ ...m, shape: Object.freeze(m.shape) })));
    this.outputs = Object.freeze(outputs.map((m) => Object.freeze({ ...m, shape: Object.freeze(m.shape) })));
    this.backend = { ...backend, proxy: true };
  }

  get disposed(): boolean {
    return this._handle === null;
  }

  /** @internal */
  _call(method: string, args: unknown[], transfer?: ArrayBuffer[]): Promise<any> {
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
  execute<D extends DType = DType>(inputs: Inputs, options: ExecuteOptions & { transferInputs?: boolean } = {}): Promise<OutputTensor<D>[]> {
    const { transferInputs = false, ...rest } = options ?? {};
    const values = inputs instanceof Map ? [...inputs.values()] : inputs && typeof inputs === 'object' && !ArrayBuffer.isView(inputs) ? Object.values(inputs) : [];
    if (values.some(isGpuTensor)) {
      return Promise.reject(new ExecutionError('a GPU tensor cannot go to the proxy worker (env.proxy): read it back (getData()) or load the model without env.proxy'));
    }
    return this._call('execute', [inputs, rest], transferInputs ? inputBuffers(inputs) : []);
  }

  /** Frees the worker-side model. */
  async dispose(): Promise<void> {
    if (this._handle === null) return;
    const h = this._handle;
    this._handle = null;
    finalizer?.unregister(this);
    if (this._generation !== generation) return; // its worker, and memory, are gone
    await call({ op: 'call', handle: h, method: 'dispose', args: [] });
  }
}
// The forwarded methods and `await using` (where the runtime has Symbol.asyncDispose): on the prototype.
export interface ProxyModel extends ForwardedMethods {
  [Symbol.asyncDispose](): Promise<void>;
}
for (const m of FORWARDED_METHODS) {
  (ProxyModel.prototype as unknown as Record<string, unknown>)[m] = function proxied(this: ProxyModel, ...args: unknown[]) {
    return this._call(m, args);
  };
}
if (typeof Symbol.asyncDispose === 'symbol') ProxyModel.prototype[Symbol.asyncDispose] = ProxyModel.prototype.dispose;
