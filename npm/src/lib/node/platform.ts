// Node-only pieces of the loader and of source.js: file reads, CPU count, and
// instantiating the WASM builds (CommonJS scripts run through vm). Reached
// only through `await import('#node')` (package.json "imports"), so browser
// bundles never see a `node:` import.
import { availableParallelism, cpus } from 'node:os';
import { open } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileFunction } from 'node:vm';
import { createRequire } from 'node:module';
import { Worker as ThreadWorker } from 'node:worker_threads';
import type { WorkerOptions } from 'node:worker_threads';
import type { ReadProgress } from '../source.js';

type EmscriptenModule = any;

export { fileURLToPath };

export function cpuCount(): number {
  return (typeof availableParallelism === 'function' ? availableParallelism() : cpus().length) || 1;
}

// signal: checked between chunks (an abort stops the read and closes the file).
export async function readFileNode(path: string, onProgress: ReadProgress | undefined, signal: AbortSignal | undefined): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const out = new Uint8Array(size);
    const chunk = 16 << 20;
    let pos = 0;
    while (pos < size) {
      signal?.throwIfAborted();
      const { bytesRead } = await fh.read(out, pos, Math.min(chunk, size - pos), pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      onProgress?.({ loaded: pos, total: size, source: path });
    }
    if (size === 0) onProgress?.({ loaded: 0, total: 0, source: path });
    return pos === size ? out : out.subarray(0, pos);
  } finally {
    await fh.close();
  }
}

/** An open file read by ranges (lib/weight_file.js): what a streamed weights file needs. */
export async function openFileNode(path: string): Promise<{ size: number; read(offset: number, bytes: number): Promise<Uint8Array>; close(): Promise<void> }> {
  const fh = await open(path, 'r');
  const { size } = await fh.stat();
  return {
    size,
    async read(offset, bytes) {
      const out = new Uint8Array(bytes);
      let pos = 0;
      while (pos < bytes) {
        const { bytesRead } = await fh.read(out, pos, bytes - pos, offset + pos);
        if (bytesRead === 0) throw new Error(`${path}: the file ends at ${offset + pos} bytes, ${offset + bytes} were expected (did it change?)`);
        pos += bytesRead;
      }
      return out;
    },
    close: () => fh.close(),
  };
}

function toNodePath(loc: string): string {
  if (/^file:/i.test(loc)) return fileURLToPath(loc);
  if (/^[a-z]+:\/\//i.test(loc)) throw new Error(`Node can only load the WASM files from local paths, got ${loc}`);
  return loc;
}

/** A pthread worker of the shim, with the fields bindings/pthread_hooks.js and the loader set. */
interface PthreadWorker extends ThreadWorker {
  tirError?: unknown;
  tirTerminating?: boolean;
  tirHooked?: boolean;
  onerror?: (e: unknown) => void;
}
type PthreadWorkerClass = (new (file: string | URL, options?: WorkerOptions) => PthreadWorker) & { markReady: () => void };

let nodeWorkers: Set<PthreadWorker> | null = null; // Set of pthread workers, unref'd once a module is ready
let NodePthreadWorker: PthreadWorkerClass | null = null; // the shim class below, made once

// Emscripten's pthread worker file is a CommonJS script, but this package is
// "type": "module", so Node would load it as ESM and fail. Emscripten creates
// workers with the free variable `Worker`; instantiateNode binds that name to
// this shim, which runs the file's source as a CommonJS eval worker instead,
// and unrefs the workers so they don't keep the process alive.
function nodeWorkerShim(): PthreadWorkerClass {
  if (NodePthreadWorker) return NodePthreadWorker;
  nodeWorkers = new Set();
  const workers = nodeWorkers;
  let ready = false;
  class EmscriptenNodeWorker extends ThreadWorker implements PthreadWorker {
    declare tirError?: unknown;
    declare tirTerminating?: boolean;
    declare tirHooked?: boolean;
    declare onerror?: (e: unknown) => void;
    static markReady: () => void;

    constructor(file: string | URL, options?: WorkerOptions) {
      const p = file instanceof URL || /^file:/.test(String(file)) ? fileURLToPath(file) : String(file);
      const prelude = `globalThis.__filename = ${JSON.stringify(p)}; globalThis.__dirname = ${JSON.stringify(dirname(p))};\n`;
      super(prelude + readFileSync(p, 'utf8'), { ...options, eval: true });
      workers.add(this);
      // Without an 'error' listener a dying worker throws in the host
      // process. The module's own handler (bindings/pthread_hooks.js) reports
      // it; one that dies before that hook is installed is remembered here.
      // A pool worker never exits on its own: one that does is reported the
      // same way (the module would wait for it forever), unless we ended it.
      this.on('error', (e) => { this.tirError = this.tirError || e; });
      this.once('exit', (code) => {
        workers.delete(this);
        if (this.tirTerminating || this.tirError) return;
        this.tirError = new Error(`pthread worker exited unexpectedly (code ${code})`);
        if (this.tirHooked) this.onerror!(this.tirError);
      });
      if (ready) this.unref();
    }
  }
  EmscriptenNodeWorker.markReady = () => {
    ready = true;
    for (const w of workers) w.unref();
  };
  NodePthreadWorker = EmscriptenNodeWorker;
  return NodePthreadWorker;
}

/**
 * Instantiates a WASM build in Node. names: [js, wasm, worker?] file names;
 * locate(name) -> path or file: URL; config: Emscripten module overrides;
 * withWorkerTimeout(ready, moduleArg) bounds the wait for the pthread workers.
 */
export async function instantiateNode(names: string[], locate: (name: string) => string, config: object,
  withWorkerTimeout: <T>(ready: Promise<T>, moduleArg: EmscriptenModule) => Promise<T>): Promise<EmscriptenModule> {
  const [jsName, wasmName, workerName] = names;
  const jsPath = toNodePath(locate(jsName));
  const wasmPath = toNodePath(locate(wasmName));
  const workerPath = workerName ? toNodePath(locate(workerName)) : null;
  const wasmBinary = readFileSync(wasmPath);
  const PthreadWorker = workerPath ? nodeWorkerShim() : undefined;
  // The MODULARIZE build is CommonJS; run it as such whatever the package
  // type. Its pthread code creates workers with the free name `Worker`: a
  // parameter of the compiled function binds that name to the shim, so no
  // global has to change.
  const src = readFileSync(jsPath, 'utf8');
  const fn = compileFunction(
    src + '\n;return typeof module.exports === "function" ? module.exports : createTorchIrWasm;',
    ['require', 'module', 'exports', '__filename', '__dirname', 'Worker'],
    { filename: jsPath },
  );
  const mod: { exports: unknown } = { exports: {} };
  const factory = fn(createRequire(jsPath), mod, mod.exports, jsPath, dirname(jsPath), PthreadWorker);
  // Emscripten's Node shell adds process-wide uncaughtException /
  // unhandledRejection handlers that rethrow: take them out again, so the
  // host application keeps its own error handling.
  // (Typed as one of the two: process.listeners has an overload per event, none for their union.)
  const events = ['uncaughtException', 'unhandledRejection'] as 'uncaughtException'[];
  const before = events.map((ev) => process.listeners(ev));
  const workersBefore = new Set(nodeWorkers || []);
  // Its Node shell also assigns `global.Worker = worker_threads.Worker` (the
  // threaded build) when the factory runs: put the global back as it was.
  const workerGlobal = Object.getOwnPropertyDescriptor(globalThis, 'Worker');
  const moduleArg: EmscriptenModule = {
    ...config,
    wasmBinary,
    mainScriptUrlOrBlob: jsPath,
    locateFile: (name: string) => (name === workerName ? workerPath : name === wasmName ? wasmPath : join(dirname(jsPath), name)),
    print: (s: string) => process.stdout.write(s + '\n'),
    printErr: (s: string) => process.stderr.write(s + '\n'),
  };
  let ready: Promise<EmscriptenModule>;
  try {
    ready = factory(moduleArg);
  } finally {
    if (workerGlobal) Object.defineProperty(globalThis, 'Worker', workerGlobal);
    else delete (globalThis as { Worker?: unknown }).Worker;
  }
  events.forEach((ev, i) => {
    for (const l of process.listeners(ev)) if (!before[i]!.includes(l)) process.removeListener(ev, l);
  });
  // This module's pool workers (created synchronously by the factory): a load
  // that fails must not leave them running.
  const own = [...(nodeWorkers || [])].filter((w) => !workersBefore.has(w));
  let module: EmscriptenModule;
  try {
    module = await (workerPath ? withWorkerTimeout(ready, moduleArg) : ready);
  } catch (e) {
    for (const w of own) {
      w.tirTerminating = true;
      w.terminate();
    }
    throw e;
  }
  PthreadWorker?.markReady();
  return module;
}
