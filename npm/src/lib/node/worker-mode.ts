// Node's env.proxy: the engine runs in a worker_threads Worker
// (engine-worker.js), so execute() leaves the event loop free. The object
// returned has the Web Worker API that lib/proxy.js drives (the same code and
// protocol as pages), plus ref/unref, which proxy.js uses so the worker keeps
// the process alive only while a call is pending.
import { Worker } from 'node:worker_threads';
import type { WorkerTransport } from '../proxy.js';

const ENTRY = new URL('./engine-worker.js', import.meta.url);

class EngineWorker implements WorkerTransport {
  onmessage: WorkerTransport['onmessage'];
  onerror: WorkerTransport['onerror'];
  onmessageerror: WorkerTransport['onmessageerror'];
  private _ended: boolean;
  private _worker: Worker;

  constructor() {
    this.onmessage = null;
    this.onerror = null;
    this.onmessageerror = null;
    this._ended = false; // terminated by proxy.js, or its death already reported
    // No inherited CLI flags: the worker runs only this package's code, and some
    // flags fail there (`node --input-type=module -e ...` would kill it).
    const w = new Worker(ENTRY, { name: 'torch-ir-wasm', execArgv: [] });
    this._worker = w;
    w.on('message', (data) => this.onmessage?.({ data }));
    w.on('messageerror', () => this.onmessageerror?.());
    // Without an 'error' listener a worker's uncaught exception would be
    // rethrown in the host process; here it fails the pending calls instead.
    w.on('error', (e) => this._died(`uncaught ${e?.name || 'error'} in the worker: ${e?.message ?? e}`));
    // The worker never exits on its own (its port keeps it alive): an exit we
    // did not ask for is a death (process.exit in the worker, an OOM kill).
    w.on('exit', (code) => this._died(`the worker exited (code ${code})`));
  }

  private _died(what: string): void {
    if (this._ended) return;
    this._ended = true;
    this.onerror?.({ message: what });
  }

  postMessage(message: unknown, transfer: ArrayBuffer[]): void {
    this._worker.postMessage(message, transfer);
  }

  terminate(): void {
    this._ended = true;
    this._worker.terminate().catch(() => {});
  }

  ref(): void {
    this._worker.ref();
  }

  unref(): void {
    this._worker.unref();
  }
}

/** @internal proxy.js's transport in Node: a new engine worker thread. */
export function createEngineWorker(): WorkerTransport {
  return new EngineWorker();
}
