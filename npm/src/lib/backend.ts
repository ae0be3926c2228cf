// Loader: picks the WASM variant, finds its files, instantiates one module per
// variant (cached) and sizes its thread pool. `env` is the one place for
// global configuration (like onnxruntime-web's ort.env).
import { isNode } from './platform.js';
import { cacheSettings } from './cache.js';
import type { CacheSettings } from './cache.js';
import { TorchIrError } from './errors.js';
import { classify, deadError, guardHandle } from './trap.js';
import { warn } from './warn.js';
import type { WasmPaths } from './model_types.js';

/**
 * An object of the Emscripten module: the module itself, or an Embind class
 * instance (WasmModel, WasmLM). Its methods are the C++ glue's
 * (bindings/API.md), which TypeScript does not see: untyped on purpose.
 */
export type EmbindObject = any;

/** onnxruntime-web's spelling of three env settings: reads and writes env.numThreads / wasmPaths / proxy. */
export interface WasmEnv {
  numThreads: number;
  wasmPaths: WasmPaths | undefined;
  proxy: boolean;
}

/** The GPU settings of the 'webgpu' provider (env.webgpu). */
export interface WebGpuSettings {
  device?: unknown;
  adapter?: unknown;
  gpu?: unknown;
  powerPreference?: 'low-power' | 'high-performance' | undefined;
  strict: boolean;
  /**
   * Plan as if the device's maxStorageBufferBindingSize were at most this many bytes (unset: the
   * device's own limit): a weight past it is held on the GPU as parts of its rows, which the
   * embedding and linear kernels read part by part; other values past it keep their nodes on WASM.
   * For trying a model against a smaller device's limit.
   */
  maxBindingBytes?: number | undefined;
}

/** Global configuration (set before the first load). */
export interface Env {
  /** Where the dist files live: a URL/path prefix ending in '/', or {filename: url}. */
  wasmPaths: WasmPaths | undefined;
  /** Default thread count (0 = min(4, cores), like onnxruntime-web); a count above what the pool allows is clamped with a warning. */
  numThreads: number;
  /**
   * Run models in a worker (a Web Worker in pages, a worker_threads Worker in Node): execute() no
   * longer blocks, and loadIR returns ProxyModel (every method async): tell the types with TypeConfig.
   */
  proxy: boolean;
  /**
   * URL of lib/proxy-worker.js for env.proxy, for bundlers that do not emit
   * `new Worker(new URL('./proxy-worker.js', import.meta.url))` (esbuild:
   * bundle it as a second entry point and point here).
   */
  workerPath: string | URL | undefined;
  /**
   * Most ms the threaded build's pthread workers may take to start once the
   * WASM module is compiled (the download is not timed; default 15000); a worker that fails
   * to start rejects the load at once.
   */
  workerStartTimeoutMs: number;
  /** false silences the package's console warnings (unused weight keys, clamped thread counts). Default true. */
  warnings: boolean;
  /** onnxruntime-web's env.wasm: the same numThreads / wasmPaths / proxy. */
  readonly wasm: WasmEnv;
  /**
   * The GPU for the 'webgpu' execution provider (a plain, writable object):
   * device (a GPUDevice), or adapter, or gpu (a GPU: navigator.gpu, or dawn.node's
   * create([]) in Node); unset: navigator.gpu, else in Node the optional `webgpu`
   * package. powerPreference goes to requestAdapter. strict: a model that asks for
   * 'webgpu' fails to load when there is no GPU, instead of running on WASM with a warning.
   * maxBindingBytes: plan as if the device's largest storage binding were at most this.
   */
  webgpu: WebGpuSettings;
  /**
   * The model-file cache for http(s) URLs: {enabled, dir, name}. On by default in browsers (the
   * Cache API cache `name`); in Node off unless `dir` is set or enabled (default directory
   * ~/.cache/torch-ir-wasm). A cached file loads without a request (progress 'done' events say
   * `cached: true`); an entry whose size or SHA-256 no longer matches is fetched again.
   */
  cache: CacheSettings;
}

/** Global configuration (set before the first load), like onnxruntime-web's ort.env. */
export const env = {
  /** Where the dist files live: a URL/path prefix ending in '/', or {filename: url}. */
  wasmPaths: undefined,
  /** Default thread count (0 = min(4, CPU cores), like onnxruntime-web). */
  numThreads: 0,
  /** Run models in a worker (a Web Worker in pages, a worker_threads Worker in Node): execute() no longer blocks, and model methods all return Promises. */
  proxy: false,
  /**
   * URL of lib/proxy-worker.js for env.proxy, for bundlers that do not emit
   * `new Worker(new URL('./proxy-worker.js', import.meta.url))` (esbuild:
   * bundle it as a second entry point and point here).
   */
  workerPath: undefined,
  /**
   * Most ms the threaded build's pthread workers may take to start once the
   * WASM module is compiled (the download is not timed); a worker that fails
   * to start rejects the load at once.
   */
  workerStartTimeoutMs: 15000,
  /** false silences the package's console warnings (e.g. a clamped thread count). */
  warnings: true,
  /**
   * The GPU for the 'webgpu' execution provider (a plain, writable object):
   * device (a GPUDevice), or adapter, or gpu (a GPU: navigator.gpu, or dawn.node's
   * create([]) in Node); unset: navigator.gpu, else in Node the optional `webgpu`
   * package. powerPreference goes to requestAdapter. strict: a model that asks for
   * 'webgpu' fails to load when there is no GPU, instead of running on WASM with a warning.
   * maxBindingBytes: plan as if the device's largest storage binding were at most this.
   */
  webgpu: { device: undefined, adapter: undefined, gpu: undefined, powerPreference: undefined, strict: false, maxBindingBytes: undefined },
  /** The model-file cache (see Env.cache). */
  cache: cacheSettings,
} as Omit<Env, 'wasm'> as Env; // `wasm` is defined just below

// onnxruntime-web's spelling: env.wasm.numThreads / wasmPaths / proxy read and
// write the same settings as env.numThreads / wasmPaths / proxy.
Object.defineProperty(env, 'wasm', {
  enumerable: false, // not a setting of its own (a spread or JSON of env stays as it was)
  value: Object.defineProperties({}, Object.fromEntries(['numThreads', 'wasmPaths', 'proxy'].map((k) => [k, {
    enumerable: true, get: () => env[k as keyof WasmEnv], set: (v: never) => { env[k as keyof WasmEnv] = v; },
  }]))),
});

export const VARIANTS = {
  threaded: 'simd-threaded',
  single: 'simd',
} as const;

/** A WASM build: 'simd-threaded' or 'simd'. */
export type Variant = typeof VARIANTS[keyof typeof VARIANTS];

export function distFileNames(variant: Variant): string[] {
  const base = `torch-ir-wasm-${variant}`;
  const names = [`${base}.js`, `${base}.wasm`];
  if (variant === VARIANTS.threaded) names.push(`${base}.worker.js`);
  return names;
}

// One literal new-URL expression (dist file name + import.meta.url) per file: the
// pattern vite, webpack 5 and rollup plugins find and emit as assets (a
// template string would not be; vite turns it into a glob).
const DIST_URLS: Readonly<Record<string, () => URL>> = {
  'torch-ir-wasm-simd.js': () => new URL('../dist/torch-ir-wasm-simd.js', import.meta.url),
  'torch-ir-wasm-simd.wasm': () => new URL('../dist/torch-ir-wasm-simd.wasm', import.meta.url),
  'torch-ir-wasm-simd-threaded.js': () => new URL('../dist/torch-ir-wasm-simd-threaded.js', import.meta.url),
  'torch-ir-wasm-simd-threaded.wasm': () => new URL('../dist/torch-ir-wasm-simd-threaded.wasm', import.meta.url),
  'torch-ir-wasm-simd-threaded.worker.js': () => new URL('../dist/torch-ir-wasm-simd-threaded.worker.js', import.meta.url),
};

// URL (browser) or file path (Node) of a dist file, honoring wasmPaths.
export function resolveFile(name: string, wasmPaths: WasmPaths | undefined = env.wasmPaths): string {
  if (wasmPaths && typeof wasmPaths === 'object' && !(wasmPaths instanceof URL)) {
    const given = (wasmPaths as Readonly<Record<string, string | URL>>)[name];
    if (given) return String(given);
  } else if (wasmPaths) {
    let prefix = String(wasmPaths);
    if (!prefix.endsWith('/')) prefix += '/';
    return prefix + name;
  }
  const url = DIST_URLS[name]?.();
  if (!url) throw new TorchIrError(`unknown dist file '${name}'`);
  return url.href;
}

const MAX_DEFAULT_THREADS = 4;

/** CPU cores of this machine (navigator.hardwareConcurrency / os.availableParallelism()). */
export async function hardwareThreads(): Promise<number> {
  if (isNode) return (await import('#node')).cpuCount();
  return (typeof navigator !== 'undefined' && navigator.hardwareConcurrency) || 1;
}

/** Thread count when none is requested: env.numThreads, else min(4, cores). */
export async function defaultThreads(): Promise<number> {
  if (env.numThreads > 0) return env.numThreads;
  return Math.min(MAX_DEFAULT_THREADS, await hardwareThreads());
}

const warned = new Set<string>();
function warnOnce(message: string) {
  if (warned.has(message)) return;
  warned.add(message);
  warn(message);
}

// Threaded build when it can run: always in Node, in pages only when
// cross-origin isolated (SharedArrayBuffer); `threads: 1` forces the other.
export function pickVariant(threads: number | undefined): Variant {
  if (threads === 1) return VARIANTS.single;
  if (isNode) return VARIANTS.threaded;
  const isolated = typeof globalThis.crossOriginIsolated === 'boolean' ? globalThis.crossOriginIsolated : false;
  return isolated && typeof SharedArrayBuffer !== 'undefined' ? VARIANTS.threaded : VARIANTS.single;
}

/** One instantiated WASM module, shared by every model of its variant. */
export class Backend {
  readonly variant: Variant;
  /** @internal the Emscripten module */
  readonly module: EmbindObject;
  /** The worker pool size, fixed when the module loads. */
  readonly maxThreads: number;
  /** null, or why this instance was discarded after a trap (getBackend then returns a new one). */
  readonly dead: string | null;
  /** @internal */
  _onDeath: (() => void)[];
  private _hasThreads: boolean;

  /** @internal use getBackend */
  constructor(variant: Variant, module: EmbindObject, poolSize: number) {
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
   * @internal
   */
  call<T>(what: string, fn: () => T): T {
    if (this.dead) throw deadError(this.variant, what, this.dead);
    try {
      return fn();
    } catch (e) {
      throw classify(this, what, e);
    }
  }
  /** @internal An Embind object of this module whose methods go through call(). */
  guard(handle: EmbindObject, owner: string): EmbindObject {
    return guardHandle(this, handle, owner);
  }
  /** @internal Constructs an Embind class of the module (e.g. 'WasmModel'), guarded. */
  create(className: string): EmbindObject {
    return this.guard(this.call(`new ${className}()`, () => new this.module[className]()), className);
  }
  /**
   * Discards the instance: later calls fail with `reason`, the loader builds a
   * new one, and its pthread workers are terminated (without calling into its
   * memory, which may be corrupted).
   * @internal
   */
  kill(reason: string): void {
    if (this.dead) return;
    (this as { dead: string | null }).dead = String(reason);
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
  get threaded(): boolean {
    return this._hasThreads;
  }
  get numThreads(): number {
    return Number(this.call('numThreads()', () => this.module.numThreads()));
  }
  /**
   * Sets the thread count, clamped to maxThreads: a thread without a loaded
   * pool worker only starts once the event loop runs, so joining it from a
   * later synchronous resize would deadlock (Emscripten 3.1.6).
   */
  setNumThreads(n: number): void {
    const t = Math.min(this.maxThreads, Math.max(1, Math.floor(n) || 1));
    if (this.threaded && t !== this.numThreads) this.call('setNumThreads()', () => this.module.setNumThreads(t));
  }
  /** @internal The count a model loaded now runs with (1 in the single-threaded build or a dead one). */
  get currentThreads(): number {
    return this.threaded && !this.dead ? this.numThreads : 1;
  }
  /** @internal Before a model's run: its own count (the module has one, which another model's load may have changed). */
  useThreads(n: number): void {
    if (this.threaded && !this.dead) this.setNumThreads(n);
  }
  /**
   * Resolves once every pool thread runs. A new pthread may start only after
   * the main thread yields to the event loop; a caller that then runs models
   * back to back (awaiting only resolved promises) would never yield, and the
   * caller would do all the work alone. Waits at most `ms`.
   * @internal
   */
  async workersStarted(ms = 5000): Promise<void> {
    const until = Date.now() + ms;
    const started = () => Number(this.call('startedThreads()', () => this.module.startedThreads()));
    while (this.threaded && started() < this.numThreads && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
  /** Current size of the module's WASM memory in bytes (it grows, never shrinks). */
  heapBytes(): number {
    return Number(this.call('heapBytes()', () => this.module.heapBytes()));
  }
}

/**
 * @internal test hook: runs bindings/embind_debug.cpp's _debugFault(kind) on
 * the backend for `options` (a deliberate trap: 'unreachable' | 'oob' |
 * 'stack' | 'abort', or 'worker-' + one of them in a pthread). Returns the
 * hook's message when nothing trapped; a trap throws EngineTrapError.
 */
export async function debugFault(kind: string, options: BackendOptions = {}): Promise<string> {
  const b = await getBackend(options);
  if (typeof b.module._debugFault !== 'function') {
    throw new TorchIrError('this WASM build has no _debugFault test hook: only the test-only modules have it ' +
      '(scripts/build_wasm.sh --tests -> build/wasm-test/, selected with wasmPaths)');
  }
  return String(b.call(`_debugFault('${kind}')`, () => b.module._debugFault(String(kind))));
}

/** getBackend's options: the thread count and where the dist files are. */
export interface BackendOptions {
  threads?: number | undefined;
  wasmPaths?: WasmPaths | undefined;
}

const cache = new Map<string, Promise<Backend>>(); // key: variant + file locations -> Promise<Backend>

/**
 * Returns the (cached) backend for the options: {threads, wasmPaths}.
 * threads: 1 = single-threaded build; otherwise the threaded build where
 * possible, running `threads` threads (default: env.numThreads, else
 * min(4, cores)). A count above what can run (the CPU cores, the pool the
 * module was loaded with, or 1 in the single-threaded build) is clamped with
 * a warning.
 */
export async function getBackend(options: BackendOptions = {}): Promise<Backend> {
  const threads = options.threads ?? (env.numThreads > 0 ? env.numThreads : undefined);
  const variant = pickVariant(threads);
  const wasmPaths = options.wasmPaths ?? env.wasmPaths;
  const key = variant + '|' + JSON.stringify(wasmPaths ?? null);
  const cores = await hardwareThreads();
  if (threads !== undefined && threads > 1 && variant === VARIANTS.single) {
    warnOnce(`threads: ${threads} requested, 1 used: the page is not cross-origin isolated (COOP/COEP headers), so the single-threaded build runs`);
  } else if (threads !== undefined && threads > cores) {
    warnOnce(`threads: ${threads} requested, ${cores} used (this machine has ${cores} CPU cores)`);
  }
  const wanted = Math.min(threads ?? (await defaultThreads()), cores);
  let p = cache.get(key);
  if (!p) {
    // The threaded build starts its pthread workers with the module: enough
    // for the requested count and for the default.
    const poolSize = variant === VARIANTS.threaded ? Math.max(wanted, Math.min(await defaultThreads(), cores)) : 0;
    p = instantiate(variant, wasmPaths, poolSize);
    cache.set(key, p);
    const forget = () => { if (cache.get(key) === p) cache.delete(key); };
    p.then((b) => (b.dead ? forget() : b._onDeath.push(forget)), forget);
  }
  const backend = await p;
  if (variant === VARIANTS.threaded) {
    if (wanted > backend.maxThreads) {
      warnOnce(
        `threads: ${threads} requested, ${backend.maxThreads} used: the thread pool was sized to ${backend.maxThreads} when ` +
          'the WASM module loaded (ask for more threads, or set env.numThreads, on the first load)',
      );
    }
    backend.setNumThreads(wanted);
    await backend.workersStarted();
  }
  return backend;
}

async function instantiate(variant: Variant, wasmPaths: WasmPaths | undefined, poolSize: number): Promise<Backend> {
  const [jsName, wasmName] = distFileNames(variant) as [string, string];
  const locate = (name: string) => resolveFile(name, wasmPaths);
  // Traps reported outside a call (an abort or crash in a pthread worker)
  // discard the instance; `exit` must not touch the host process's exit code.
  let backend: Backend | null = null;
  let early: string | null = null;
  const died = (reason: string) => (backend ? backend.kill(reason) : (early = early || reason));
  const config = {
    ...(poolSize > 0 ? { pthreadPoolSize: poolSize } : {}),
    onAbort: (what?: string) => died(`abort(${what ?? ''})`),
    tirOnWorkerError: (msg: string) => died(msg),
    quit: (_status: number, toThrow: unknown) => { throw toThrow; },
  };
  try {
    let module: EmbindObject;
    if (isNode) module = await (await import('#node')).instantiateNode(distFileNames(variant), locate, config, withWorkerTimeout);
    else module = await instantiateBrowser(variant, locate, config);
    backend = new Backend(variant, module, poolSize);
    if (early) {
      backend.kill(early);
      throw new Error(`it failed while starting: ${early}`);
    }
    return backend;
  } catch (e: any) {
    const js = safeLocate(locate, jsName);
    // vite before 8 pre-bundles dependencies into node_modules/.vite/deps/
    // without moving the files that `new URL(..., import.meta.url)` names.
    const hint = /\/node_modules\/\.vite\//.test(js)
      ? " (vite's dependency pre-bundling moved torch-ir-wasm away from its dist/ files: add optimizeDeps: { exclude: ['torch-ir-wasm'] } to vite.config, or set env.wasmPaths)"
      : ' (set env.wasmPaths / the wasmPaths option to where the dist files are served; in a checkout, build them with scripts/build_wasm.sh)';
    throw new TorchIrError(
      `cannot load the ${variant} WASM build (${js}, ${safeLocate(locate, wasmName)}): ${e?.message || e}${hint}`,
      { cause: e },
    );
  }
}

function safeLocate(locate: (name: string) => string, name: string): string {
  try {
    return locate(name);
  } catch (e: any) {
    return `<${name}: ${e?.message || e}>`;
  }
}

// The threaded module resolves once every pool worker has loaded: a worker
// that never answers must not hang the load forever. The clock starts when
// the compiled WASM module goes to the first worker (Emscripten's
// PThread.loadWasmModuleToWorker on `module`, the object the factory got), so
// a slow download of the .wasm does not count.
function withWorkerTimeout<T>(ready: Promise<T>, module: EmbindObject, ms: number = env.workerStartTimeoutMs): Promise<T> {
  const P = module?.PThread;
  if (!(ms > 0) || !Number.isFinite(ms) || !P) return ready;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    const load = P.loadWasmModuleToWorker;
    P.loadWasmModuleToWorker = function startClock(this: unknown, ...args: unknown[]) {
      P.loadWasmModuleToWorker = load;
      timer ??= setTimeout(() => reject(new Error(`its pthread workers did not start within ${ms} ms (env.workerStartTimeoutMs)`)), ms);
      return load.apply(this, args);
    };
  });
  return Promise.race([ready, timeout]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------- browser

// Classic workers' global (WebWorker lib; this compiles with the DOM lib).
declare const importScripts: ((...urls: string[]) => void) | undefined;

let scriptChain: Promise<unknown> = Promise.resolve(); // both builds define the same global: load one at a time

// The non-ES6 MODULARIZE .js defines a global `createTorchIrWasm`: load it
// with a <script> tag (pages), importScripts (classic workers) or fetch +
// indirect eval (module workers), then take the global.
function loadFactory(jsUrl: string): Promise<(moduleArg: EmbindObject) => Promise<EmbindObject>> {
  const next = scriptChain.then(async () => {
    if (typeof document !== 'undefined') {
      await new Promise<void>((resolve, reject) => {
        const s = document.createElement('script');
        s.src = jsUrl;
        s.async = true;
        s.onload = () => resolve();
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
    const g = globalThis as { createTorchIrWasm?: unknown };
    const factory = g.createTorchIrWasm;
    if (typeof factory !== 'function') {
      throw new Error(`${jsUrl} did not define createTorchIrWasm (is the file served at that URL? a dev server may answer index.html)`);
    }
    g.createTorchIrWasm = undefined;
    return factory as (moduleArg: EmbindObject) => Promise<EmbindObject>;
  });
  scriptChain = next.catch(() => {});
  return next;
}

// Emscripten starts each pthread with `new Worker(<worker script URL>)`, a
// classic worker that must be same-origin. A bundler may hand us a data: URL
// (vite inlines files under 4 KB; a data: worker is opaque-origin and never
// gets the module under COOP/COEP) or a CDN URL: so the script is fetched
// here and started from a same-origin blob: URL. A missing script fails the
// load now, with its URL, instead of as a worker 'error' Event.
async function sameOriginWorkerUrl(url: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (e: any) {
    throw new Error(`cannot fetch the pthread worker script ${url}: ${e?.message || e}`);
  }
  if (!res.ok) throw new Error(`cannot fetch the pthread worker script ${url}: HTTP ${res.status}`);
  const blob = new Blob([await res.text()], { type: 'text/javascript' });
  return URL.createObjectURL(blob); // kept: the module may start more workers later
}

async function instantiateBrowser(variant: Variant, locate: (name: string) => string, config: object): Promise<EmbindObject> {
  const [jsName, , workerName] = distFileNames(variant);
  const base = typeof document !== 'undefined' ? document.baseURI : globalThis.location?.href;
  const abs = (u: string) => new URL(u, base).href;
  const jsUrl = abs(locate(jsName));
  const workerUrl = workerName ? abs(locate(workerName)) : null;
  const [factory, workerBlobUrl] = await Promise.all([loadFactory(jsUrl), workerUrl && sameOriginWorkerUrl(workerUrl)]);
  const moduleArg: EmbindObject = {
    ...config,
    mainScriptUrlOrBlob: jsUrl, // pthread workers load the main script from here
    locateFile: (name: string) => (name === workerName ? workerBlobUrl : abs(locate(name))),
  };
  try {
    const ready = factory(moduleArg);
    // The pool workers start now, but the module's error hook
    // (bindings/pthread_hooks.js) is installed only once the .wasm is
    // compiled: a worker that fails before then is remembered here, and the
    // hook reports it (as the Node shim does).
    for (const w of moduleArg.PThread?.unusedWorkers ?? []) {
      w.addEventListener?.('error', (e: unknown) => { w.tirError = w.tirError || e; });
    }
    return await (workerName ? withWorkerTimeout(ready, moduleArg) : ready);
  } catch (e: any) {
    // A worker that fails to load reports a bare Event (no message).
    if (workerName && /\[object \w*Event\]/.test(String(e?.message ?? e))) {
      throw new Error(`a pthread worker failed to start (worker script ${workerUrl}, main script ${jsUrl})`, { cause: e });
    }
    throw e;
  }
}
