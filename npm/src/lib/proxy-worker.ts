// The worker side of proxy mode (see proxy.js): runs the real API and answers
// {id, ok, value} / {id, ok: false, error} / {id, progress} messages.
// serveProxy(port) speaks the protocol over any port; this file starts it on a
// page's module Worker (self), lib/node/engine-worker.js on a worker_threads
// parentPort.
import { loadIR, loadLM } from '../index.js';
import { debugFault, env } from './backend.js';
import { TorchIrError } from './errors.js';
import { WORKER_METHODS } from './proxy_methods.js';
import type { Model } from './model.js';
import type { LanguageModel } from './lm.js';

/** One end of the proxy protocol: send a message (moving the ArrayBuffers in `transfer`), and receive every incoming one. */
export interface ProxyPort {
  post(message: unknown, transfer: ArrayBuffer[]): void;
  listen(handler: (data: any) => void): void;
}


/**
 * Serves proxy.js's calls. port: {post(message, transfer), listen(handler)},
 * handler(data) called per incoming message.
 */
export function serveProxy(port: ProxyPort): void {
  const models = new Map<number, Model>();
  // Language models (proxy_lm.ts), with the AbortController of the generation in progress.
  const lms = new Map<number, { lm: LanguageModel; abort: AbortController | null }>();
  let nextHandle = 1;

  async function handleLM(id: number, op: string, h: number, method: string, args: any[]): Promise<unknown> {
    if (op === 'loadLM') {
      const [{ progress, numThreads, ...options }] = args;
      if (numThreads) env.numThreads = numThreads;
      const lm = await loadLM({ ...options, onProgress: progress ? (p: unknown) => port.post({ id, progress: p }, []) : undefined });
      const handleId = nextHandle++;
      lms.set(handleId, { lm, abort: null });
      return { handle: handleId, info: lm.info, backend: lm.backend, executionProviders: lm.executionProviders };
    }
    const entry = lms.get(h);
    if (op === 'lmCancel') {
      entry?.abort?.abort(new DOMException('generation cancelled', 'AbortError'));
      return null;
    }
    if (!entry) throw new TorchIrError('language model is disposed');
    if (op === 'lmRun') {
      // Each token goes out at once as a progress message: {token} or, streaming text, {token, piece}.
      const [prompt, options, text] = args;
      const ac = new AbortController();
      entry.abort = ac;
      try {
        if (text) {
          let token = -1;
          for await (const piece of entry.lm.stream(prompt, { ...options, signal: ac.signal, onToken: (t: number) => { token = t; } })) {
            port.post({ id, progress: { token, piece } }, []);
          }
          return { result: null, stats: entry.lm.stats };
        }
        const result = await entry.lm.generate(prompt as number[], { ...options, signal: ac.signal, onToken: (t: number) => { port.post({ id, progress: { token: t } }, []); } });
        return { result, stats: entry.lm.stats };
      } finally {
        entry.abort = null;
      }
    }
    if (method === 'placement') return entry.lm.placement();
    if (method === 'dispose') {
      entry.lm.dispose();
      lms.delete(h);
      return null;
    }
    throw new TorchIrError(`unknown method '${method}'`);
  }

  async function handle({ id, op, handle: h, method, args }: any): Promise<[unknown, ArrayBuffer[]]> {
    if (op === 'load') {
      const [ir, { progress, numThreads, weightsFromHandle, ...options }] = args;
      if (numThreads) env.numThreads = numThreads;
      if (weightsFromHandle !== undefined) {
        options.weightsFrom = models.get(weightsFromHandle);
        if (!options.weightsFrom) throw new TorchIrError('weightsFrom: that model is disposed');
      }
      const model = await loadIR(ir, {
        ...options,
        onProgress: progress ? (p: unknown) => port.post({ id, progress: p }, []) : undefined,
      }) as Model;
      const handleId = nextHandle++;
      models.set(handleId, model);
      return [{ handle: handleId, inputs: model.inputs, outputs: model.outputs, backend: model.backend }, []];
    }
    if (op === 'debugFault') return [await debugFault(args[0], args[1]), []];
    if (op === 'loadLM' || op === 'lmRun' || op === 'lmCancel' || op === 'lmCall') return [await handleLM(id, op, h, method, args), []];
    const model = models.get(h);
    if (!model || !WORKER_METHODS.has(method)) throw new TorchIrError(model ? `unknown method '${method}'` : 'model is disposed');
    const value = await (model as any)[method](...args);
    if (method === 'dispose') models.delete(h);
    // Output data were copied out of WASM memory: hand the buffers over.
    const tensors = method === 'execute' ? value : method === 'bufferValue' ? [value] : [];
    return [value, tensors.map((t: { data: ArrayBufferView }) => t.data.buffer as ArrayBuffer)];
  }

  port.listen(async (data) => {
    try {
      const [value, transfer] = await handle(data);
      port.post({ id: data.id, ok: true, value }, transfer);
    } catch (e: any) {
      port.post({ id: data.id, ok: false, error: { name: e?.name || 'Error', message: e?.message || String(e) } }, []);
    }
  });
}

// A page's dedicated worker (not a page itself: window.postMessage exists too;
// worker_threads has no global postMessage).
if (typeof window === 'undefined' && typeof self === 'object' && self !== null && typeof self.postMessage === 'function') {
  // A DedicatedWorkerGlobalScope (the DOM lib this compiles with types `self` as a Window).
  const scope = self as unknown as { postMessage(m: unknown, t: ArrayBuffer[]): void; onmessage: ((e: MessageEvent) => void) | null };
  serveProxy({
    post: (message, transfer) => scope.postMessage(message, transfer),
    listen: (handler) => {
      scope.onmessage = ({ data }: MessageEvent) => handler(data);
    },
  });
}
