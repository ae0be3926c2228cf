// loadLM with env.proxy: the language model lives in the proxy worker (proxy-worker.ts serves
// 'loadLM', 'lmRun', 'lmCancel' and 'lmCall'), so no token's compute blocks this thread (a
// page stays responsive, a server's event loop free). A generation is one call; its tokens,
// and with a tokenizer their text pieces, come back as that call's progress messages. Breaking
// out of stream(), an AbortSignal or onToken returning false send 'lmCancel'.
import { EngineTrapError, ExecutionError, TorchIrError } from './errors.js';
import { abortable, absolute, absolutePaths, call, cloneableFetchOptions, prepareTransport, workerGeneration } from './proxy.js';
import { loadTokenizer } from './text.js';
import type { TextTokenizer } from './text.js';
import type { Env } from './backend.js';
import type { GenerateOptions, GenerationStats, LoadLMOptions } from './lm_types.js';
import type { Placement } from './model_types.js';

interface LoadedLMInfo {
  handle: number;
  info: ProxyLanguageModel['info'];
  backend: { variant: 'simd-threaded' | 'simd'; threads: number };
  executionProviders: ('webgpu' | 'wasm')[];
}

/** A token from the worker: its id, and with a tokenizer the text piece it completes. */
interface TokenMessage {
  token: number;
  piece?: string;
}

/**
 * A language model loaded while env.proxy is true: it generates in a worker (a Web Worker in
 * pages, a worker thread in Node). LanguageModel's members, every method async; no
 * logitsProcessor (a function cannot be sent to the worker).
 */
export class ProxyLanguageModel {
  readonly info: { readonly prefillLen: number; readonly maxCacheLen: number; readonly vocabSize: number; readonly numLayers: number };
  readonly backend: { readonly variant: 'simd-threaded' | 'simd'; readonly threads: number; readonly proxy: true };
  readonly executionProviders: readonly ('webgpu' | 'wasm')[];
  /** loadLM's tokenizer, loaded on this thread too (encode / decode here; generation's in the worker), or null. */
  readonly tokenizer: TextTokenizer | null;
  /** @internal */ _handle: number | null;
  /** @internal */ _generation: number;
  /** @internal */ _stats: GenerationStats | null = null;
  /** @internal */ _busy = false;

  /** @internal loadLM with env.proxy makes these */
  constructor(loaded: LoadedLMInfo, gen: number, tokenizer: TextTokenizer | null) {
    this._handle = loaded.handle;
    this._generation = gen;
    this.info = Object.freeze({ ...loaded.info });
    this.backend = { ...loaded.backend, proxy: true };
    this.executionProviders = Object.freeze([...loaded.executionProviders]);
    this.tokenizer = tokenizer;
  }

  get disposed(): boolean {
    return this._handle === null;
  }

  /** Timing of the last generation (as LanguageModel.stats), or null. */
  get stats(): GenerationStats | null {
    return this._stats;
  }

  /** As LanguageModel.generate, in the worker: text gives text, token ids give the new ids. */
  generate(prompt: string, options?: GenerateOptions): Promise<string>;
  generate(promptIds: ArrayLike<number>, options?: GenerateOptions): Promise<number[]>;
  async generate(prompt: string | ArrayLike<number>, options: GenerateOptions = {}): Promise<string | number[]> {
    const text = typeof prompt === 'string';
    const ids: number[] = [];
    const pieces: string[] = [];
    const result = await this._run(prompt, options, text, (m) => {
      ids.push(m.token);
      if (m.piece !== undefined) pieces.push(m.piece);
    });
    if (result.cut !== null) return text ? pieces.slice(0, result.cut).join('') : ids.slice(0, result.cut);
    return text ? pieces.join('') : (result.value as number[]);
  }

  /** As LanguageModel.stream (needs loadLM's tokenizer): text pieces, one per token, as the worker makes them. */
  async *stream(prompt: string | ArrayLike<number>, options: GenerateOptions = {}): AsyncGenerator<string, void, undefined> {
    const queue: string[] = [];
    let wake: (() => void) | null = null;
    let done = false;
    let failure: unknown = null;
    const run = this._run(prompt, options, true, (m) => {
      queue.push(m.piece ?? '');
      wake?.();
    });
    run.then(() => { done = true; wake?.(); }, (e) => { failure = e; done = true; wake?.(); });
    try {
      for (;;) {
        if (queue.length) {
          yield queue.shift()!;
          continue;
        }
        if (done) break;
        await new Promise<void>((resolve) => { wake = resolve; });
        wake = null;
      }
      if (failure) throw failure;
    } finally {
      if (!done) {
        this._cancel();
        await run.catch(() => {});
      }
    }
  }

  /** As LanguageModel.placement (null on WASM). */
  placement(): Promise<{ prefill: Placement; decode: Placement; weights: { wasm: number; webgpu: number } } | null> {
    return this._call({ op: 'lmCall', method: 'placement', args: [] });
  }

  /** Frees the worker-side model. */
  async dispose(): Promise<void> {
    if (this._handle === null) return;
    const h = this._handle;
    this._handle = null;
    if (this._generation !== workerGeneration().generation) return; // its worker, and memory, are gone
    await call({ op: 'lmCall', handle: h, method: 'dispose', args: [] });
  }

  // One generation in the worker. onToken(id, index) returning false, or the signal, cancel it;
  // `cut` is then how many tokens count (those the worker made after are dropped).
  private async _run(prompt: string | ArrayLike<number>, options: GenerateOptions, text: boolean,
    onMessage: (m: TokenMessage) => void): Promise<{ value: unknown; cut: number | null }> {
    const { onToken, signal, logitsProcessor, stop, stopStrings, ...rest } = options;
    if (logitsProcessor !== undefined) {
      throw new ExecutionError('generate: logitsProcessor runs where the model runs: with env.proxy the model is in a worker and a function cannot be sent there');
    }
    if (this._busy) throw new ExecutionError('generate: this model is already generating (await the previous call)');
    if (text && !this.tokenizer) throw new ExecutionError('generate: text needs a tokenizer (loadLM({ ..., tokenizer: \'tokenizer.json\' })); without one, give token ids');
    signal?.throwIfAborted?.();
    const sent: Record<string, unknown> = { ...rest };
    if (stop !== undefined) sent.stop = Array.from(stop);
    if (stopStrings !== undefined) sent.stopStrings = Array.from(stopStrings);
    this._busy = true;
    let count = 0;
    let cut: number | null = null;
    const onAbort = () => this._cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const value = await this._call({ op: 'lmRun', method: 'run', args: [typeof prompt === 'string' ? prompt : Array.from(prompt), sent, text] }, (m: TokenMessage) => {
        if (cut !== null) return;
        const index = count++;
        onMessage(m);
        if (!onToken) return;
        Promise.resolve(onToken(m.token, index)).then((more) => {
          if (more === false && cut === null) {
            cut = index + 1;
            this._cancel();
          }
        });
      }).catch((e) => {
        if (cut !== null) return null; // onToken stopped it: the worker's cancellation
        signal?.throwIfAborted?.();
        throw e;
      });
      signal?.throwIfAborted?.();
      if (value) this._stats = value.stats;
      return { value: value?.result, cut };
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this._busy = false;
    }
  }

  private _cancel(): void {
    if (this._handle !== null && this._generation === workerGeneration().generation) {
      call({ op: 'lmCancel', handle: this._handle, args: [] }).catch(() => {});
    }
  }

  private _call(message: { op: string; method: string; args: unknown[] }, onProgress?: (p: any) => void): Promise<any> {
    if (this._handle === null) return Promise.reject(new TorchIrError('language model is disposed'));
    const { generation, lastDeath } = workerGeneration();
    if (this._generation !== generation) {
      return Promise.reject(new EngineTrapError(`${message.method}(): the proxy worker this model was loaded in died (${lastDeath}); load the model again`));
    }
    return call({ ...message, handle: this._handle }, onProgress);
  }
}
if (typeof Symbol.asyncDispose === 'symbol') {
  (ProxyLanguageModel.prototype as unknown as Record<symbol, unknown>)[Symbol.asyncDispose] = ProxyLanguageModel.prototype.dispose;
}

/** loadLM in the proxy worker: the sources made absolute, functions and signals kept here. */
export async function loadLMProxy(options: LoadLMOptions, env: Env): Promise<ProxyLanguageModel> {
  const { onProgress, signal, fetchOptions, wasmPaths, prefill, decode, kvMapping, weights, constants, tokenizer, ...rest } = options;
  if (tokenizer !== undefined && tokenizer !== null && typeof tokenizer === 'object' && 'encode' in tokenizer) {
    throw new ExecutionError('loadLM: with env.proxy, give the tokenizer as its tokenizer.json (a TextTokenizer cannot be sent to the worker)');
  }
  const init = cloneableFetchOptions(fetchOptions);
  const loading = prepareTransport();
  if (loading) await loading;
  // This thread's copy of the tokenizer (for encode / decode here), read beside the worker's load.
  const tok = tokenizer === undefined || tokenizer === null ? Promise.resolve(null)
    : loadTokenizer(tokenizer as never, { ...(signal ? { signal } : {}), ...(fetchOptions ? { fetchOptions } : {}) });
  tok.catch(() => {}); // reported through the load below
  const load = call({
    op: 'loadLM',
    args: [{
      ...rest,
      prefill: absolute(prefill, true), decode: absolute(decode, true), kvMapping: absolute(kvMapping, true),
      weights: absolute(weights), constants: absolute(constants), tokenizer: absolute(tokenizer, true),
      ...(init ? { fetchOptions: init } : {}),
      wasmPaths: absolutePaths(wasmPaths ?? env.wasmPaths),
      numThreads: env.numThreads,
      progress: Boolean(onProgress),
    }],
  }, onProgress);
  const gen = workerGeneration().generation;
  const both = load.then(async (info: LoadedLMInfo) => {
    const lm = new ProxyLanguageModel(info, gen, null);
    try {
      return new ProxyLanguageModel(info, gen, await tok);
    } catch (e) {
      await lm.dispose().catch(() => {});
      throw e;
    }
  });
  return abortable(both, signal);
}
