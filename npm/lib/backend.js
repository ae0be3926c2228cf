// Loader: picks the WASM variant, finds its files, instantiates one module per
// variant (cached) and sizes its thread pool. `env` is the one place for
// global configuration (like onnxruntime-web's ort.env).
import { isNode } from './source.js';
import { TorchIrError } from './errors.js';
import { classify, deadError, guardHandle } from './trap.js';

export const env = {
  /** Where the dist files live: a URL/path prefix ending in '/', or {filename: url}. */
  wasmPaths: undefined,
  /** Default thread count (0 = navigator.hardwareConcurrency / os.cpus().length). */
  numThreads: 0,
  /** Pages: run models in a dedicated Web Worker (model methods then all return Promises). */
  proxy: false,
  /**
   * Most ms to wait for the threaded build's pthread workers to load when a
   * module is instantiated; a worker that fails to start rejects at once.
   */
  workerStartTimeoutMs: 60000,
};

export const VARIANTS = {
  threaded: 'simd-threaded',
  single: 'simd',
};

export function distFileNames(variant) {
  const base = `torch-ir-wasm-${variant}`;
  const names = [`${base}.js`, `${base}.wasm`];
  if (variant === VARIANTS.threaded) names.push(`${base}.worker.js`);
  return names;
}

// URL (browser) or file path (Node) of a dist file, honoring wasmPaths.
export function resolveFile(name, wasmPaths = env.wasmPaths) {
  if (wasmPaths && typeof wasmPaths === 'object' && !(wasmPaths instanceof URL)) {
    if (wasmPaths[name]) return String(wasmPaths[name]);
  } else if (wasmPaths) {
    let prefix = String(wasmPaths);
    if (!prefix.endsWith('/')) prefix += '/';
    return prefix + name;
  }
  return new URL(`../dist/${name}`, import.meta.url).href;
}

export async function defaultThreads() {
  if (env.numThreads > 0) return env.numThreads;
  if (isNode) return (await import('#node')).cpuCount();
  return (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) || 1;
}

// Threaded build when it can run: always in Node, in pages only when
// cross-origin isolated (SharedArrayBuffer); `threads: 1` forces the other.
export function pickVariant(threads) {
  if (threads === 1) return VARIANTS.single;
  if (isNode) return VARIANTS.threaded;
  const isolated = typeof globalThis.crossOriginIsolated === 'boolean' ? globalThis.crossOriginIsolated : false;
  return isolated && typeof SharedArrayBuffer !== 'undefined' ? VARIANTS.threaded : VARIANTS.single;
}

/** One instantiated WASM module (shared by every model of its variant). */
export class Backend {
  constructor(variant, module, poolSize) {
    this.variant = variant;
    this.module = module;
    /** Most threads this module can use: its pthread worker pool, fixed at load. */
    this.maxThreads = Math.max(1, poolSize);
    /** null, or why this instance was discarded (lib/trap.js). */
    this.dead = null;
    this._onDeath = []; // run once by kill()
    this._hasThreads = Boolean(this.call('hasThreads()', () => module.hasThreads()));
  }
  /**
   * Runs fn, a call into the module. An engine error passes through; any other
   * exception (a trap) discards this instance and becomes an EngineTrapError.
   * A discarded instance refuses every call.
   */
  call(what, fn) {
    if (this.dead) throw deadError(this.variant, what, this.dead);
    try {
      return fn();
    } catch (e) {
      throw classify(this, what, e);
    }
  }
  /** An Embind object of this module whose methods go through call(). */
  guard(handle, owner) {
    return guardHandle(this, handle, owner);
  }
  /** Constructs an Embind class of the module (e.g. 'WasmModel'), guarded. */
  create(className) {
    return this.guard(this.call(`new ${className}()`, () => new this.module[className]()), className);
  }
  /**
   * Discards the instance: later calls fail with `reason`, the loader builds a
   * new one, and its pthread workers are terminated (without calling into its
   * memory, which may be corrupted).
   */
  kill(reason) {
    if (this.dead) return;
    this.dead = String(reason);
    for (const f of this._onDeath.splice(0)) f();
    const P = this.module.PThread;
    if (P) {
      for (const w of [...(P.runningWorkers || []), ...(P.unusedWorkers || [])]) {
        try {
          w.tirTerminating = true;
          w.terminate();
        } catch {
          // already gone
        }
      }
    }
  }
  get threaded() {
    return this._hasThreads;
  }
  get numThreads() {
    return Number(this.call('numThreads()', () => this.module.numThreads()));
  }
  /**
   * Sets the thread count, clamped to maxThreads: a thread without a loaded
   * pool worker only starts once the event loop runs, so joining it from a
   * later synchronous resize would deadlock (Emscripten 3.1.6).
   */
  setNumThreads(n) {
    const t = Math.min(this.maxThreads, Math.max(1, Math.floor(n) || 1));
    if (this.threaded && t !== this.numThreads) this.call('setNumThreads()', () => this.module.setNumThreads(t));
  }
  /**
   * Resolves once every pool thread runs. A new pthread may start only after
   * the main thread yields to the event loop; a caller that then runs models
   * back to back (awaiting only resolved promises) would never yield, and the
   * caller would do all the work alone. Waits at most `ms`.
   */
  async workersStarted(ms = 5000) {
    const until = Date.now() + ms;
    const started = () => Number(this.call('startedThreads()', () => this.module.startedThreads()));
    while (this.threaded && started() < this.numThreads && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
  /** Current size of the module's WASM memory in bytes (it grows, never shrinks). */
  heapBytes() {
    return Number(this.call('heapBytes()', () => this.module.heapBytes()));
  }
}

/**
 * @internal test hook: runs bindings/embind_debug.cpp's _debugFault(kind) on
 * the backend for `options` (a deliberate trap: 'unreachable' | 'oob' |
 * 'stack' | 'abort', or 'worker-' + one of them in a pthread). Returns the
 * hook's message when nothing trapped; a trap throws EngineTrapError.
 */
export async function debugFault(kind, options = {}) {
  const b = await getBackend(options);
  if (typeof b.module._debugFault !== 'function') throw new TorchIrError('this WASM build has no _debugFault test hook: rebuild npm/dist');
  return String(b.call(`_debugFault('${kind}')`, () => b.module._debugFault(String(kind))));
}

const cache = new Map(); // key: variant + file locations -> Promise<Backend>

/**
 * Returns the (cached) backend for the options: {threads, wasmPaths}.
 * threads: 1 = single-threaded build; otherwise the threaded build where
 * possible, with its pool set to `threads` (default: all cores).
 */
export async function getBackend(options = {}) {
  const threads = options.threads ?? (env.numThreads > 0 ? env.numThreads : undefined);
  const variant = pickVariant(threads);
  const wasmPaths = options.wasmPaths ?? env.wasmPaths;
  const key = variant + '|' + JSON.stringify(wasmPaths ?? null);
  let p = cache.get(key);
  if (!p) {
    // The threaded build starts its pthread workers with the module: enough
    // for the requested count and for the default.
    const poolSize = variant === VARIANTS.threaded ? Math.max(threads ?? 1, await defaultThreads()) : 0;
    p = instantiate(variant, wasmPaths, poolSize);
    cache.set(key, p);
    const forget = () => { if (cache.get(key) === p) cache.delete(key); };
    p.then((b) => (b.dead ? forget() : b._onDeath.push(forget)), forget);
  }
  const backend = await p;
  if (variant === VARIANTS.threaded) {
    backend.setNumThreads(threads ?? (await defaultThreads()));
    await backend.workersStarted();
  }
  return backend;
}

async function instantiate(variant, wasmPaths, poolSize) {
  const [jsName, wasmName] = distFileNames(variant);
  const locate = (name) => resolveFile(name, wasmPaths);
  // Traps reported outside a call (an abort or crash in a pthread worker)
  // discard the instance; `exit` must not touch the host process's exit code.
  let backend = null;
  let early = null;
  const died = (reason) => (backend ? backend.kill(reason) : (early = early || reason));
  const config = {
    ...(poolSize > 0 ? { pthreadPoolSize: poolSize } : {}),
    onAbort: (what) => died(`abort(${what ?? ''})`),
    tirOnWorkerError: (msg) => died(msg),
    quit: (status, toThrow) => { throw toThrow; },
  };
  try {
    let module;
    if (isNode) module = await (await import('#node')).instantiateNode(distFileNames(variant), locate, config, withTimeout);
    else if (poolSize > 0) module = await withTimeout(instantiateBrowser(variant, locate, config));
    else module = await instantiateBrowser(variant, locate, config);
    backend = new Backend(variant, module, poolSize);
    if (early) {
      backend.kill(early);
      throw new Error(`it failed while starting: ${early}`);
    }
    return backend;
  } catch (e) {
    throw new TorchIrError(
      `cannot load the ${variant} WASM build (${locate(jsName)}, ${locate(wasmName)}): ${e?.message || e}` +
        ' (build it with scripts/build_wasm.sh, or set env.wasmPaths / the wasmPaths option)',
      { cause: e },
    );
  }
}

// The threaded module resolves once every pool worker has loaded: a worker
// that never answers must not hang the load forever.
function withTimeout(promise, ms = env.workerStartTimeoutMs) {
  if (!(ms > 0) || !Number.isFinite(ms)) return promise;
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`its pthread workers did not start within ${ms} ms (env.workerStartTimeoutMs)`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------- browser

let scriptChain = Promise.resolve(); // both builds define the same global: load one at a time

// The non-ES6 MODULARIZE .js defines a global `createTorchIrWasm`: load it
// with a <script> tag (pages), importScripts (classic workers) or fetch +
// indirect eval (module workers), then take the global.
function loadFactory(jsUrl) {
  const next = scriptChain.then(async () => {
    if (typeof document !== 'undefined') {
      await new Promise((resolve, reject) => {
        const s = document.createElement('script');
        s.src = jsUrl;
        s.async = true;
        s.onload = resolve;
        s.onerror = () => reject(new Error(`failed to load script ${jsUrl}`));
        document.head.appendChild(s);
      });
    } else {
      let loaded = false;
      if (typeof importScripts === 'function') {
        try {
          importScripts(jsUrl); // eslint-disable-line no-undef
          loaded = true;
        } catch (e) {
          if (!(e instanceof TypeError)) throw e; // module workers have no importScripts
        }
      }
      if (!loaded) {
        const res = await fetch(jsUrl);
        if (!res.ok) throw new Error(`HTTP ${res.status} fetching ${jsUrl}`);
        (0, eval)(await res.text() + `\n//# sourceURL=${jsUrl}`);
      }
    }
    const factory = globalThis.createTorchIrWasm;
    if (typeof factory !== 'function') throw new Error(`${jsUrl} did not define createTorchIrWasm`);
    globalThis.createTorchIrWasm = undefined;
    return factory;
  });
  scriptChain = next.catch(() => {});
  return next;
}

async function instantiateBrowser(variant, locate, config) {
  const [jsName] = distFileNames(variant);
  const base = typeof document !== 'undefined' ? document.baseURI : globalThis.location?.href;
  const abs = (u) => new URL(u, base).href;
  const jsUrl = abs(locate(jsName));
  const factory = await loadFactory(jsUrl);
  return factory({
    ...config,
    mainScriptUrlOrBlob: jsUrl, // pthread workers load the main script from here
    locateFile: (name) => abs(locate(name)),
  });
}
