// Text generation from pytorch-ir's LLM export: a prefill IR, a decode IR and
// the KV mapping between them (engine side: runtime/language_model.h). The
// engine owns the loop's state (caches, masks, positions, sampler); JS calls
// one step per token so it can stream tokens and yield to the event loop.
// With executionProviders ['webgpu', ...], each session's run goes through
// the WebGPU executor (webgpu/lm.js) between the engine's begin/finish halves.
import { env, getBackend } from './backend.js';
import { ExecutionError, IRFormatError, TorchIrError, check } from './errors.js';
import { parseJsonLoose } from './json.js';
import { addTensors, closeTensorFiles, collectTensors, irMetaFrom, irOrigin, loadControls, readIrText } from './load_sources.js';
import type { TensorOp } from './load_sources.js';
import { GpuGeneration } from './webgpu/lm.js';
import { StreamedWeights } from './webgpu/streaming.js';
import { bindingLimit, declineWebGpu, executionProviders, gpuOrFallback } from './webgpu/provider.js';
import { checkTensorKeys } from './weight_keys.js';
import { TextStream, TextTokenizer, loadTokenizer } from './text.js';
import { canProxy } from './proxy.js';
import { loadLMProxy } from './proxy_lm.js';
import { weightDtypeSpec } from './weight_dtype.js';
import { applyLimits, validateLimits } from './limits.js';
import type { Limits } from './limits.js';
import type { Backend, EmbindObject } from './backend.js';
import type { LoadControls } from './source.js';
import type { GpuObject } from './webgpu/kernels.js';
import type { GenerateOptions, GenerationStats, LoadLMOptions, LogitsProcessor } from './lm_types.js';
import type { IRSource, LoadedLM, Placement, Progress } from './model_types.js';

// Lets timers, rendering and I/O run between tokens (a macrotask, without
// setTimeout's clamping).
function yieldToEventLoop(): Promise<void> {
  if (typeof setImmediate === 'function') return new Promise((resolve) => setImmediate(resolve));
  if (typeof MessageChannel === 'function') {
    return new Promise((resolve) => {
      const ch = new MessageChannel();
      ch.port1.onmessage = () => {
        ch.port1.close();
        resolve();
      };
      ch.port2.postMessage(null);
    });
  }
  return new Promise((resolve) => setTimeout(resolve, 0));
}

const GENERATE_OPTIONS = new Set(['maxNewTokens', 'minNewTokens', 'temperature', 'topK', 'topP', 'seed', 'repetitionPenalty',
  'frequencyPenalty', 'presencePenalty', 'stop', 'stopStrings', 'logitsProcessor', 'onToken', 'signal']);

function stopStrings(v: readonly string[] | undefined): string[] {
  const list = v === undefined || v === null ? [] : Array.from(v);
  for (const s of list) {
    if (typeof s !== 'string' || !s) throw new ExecutionError(`generate: stopStrings must be non-empty strings (got ${JSON.stringify(s)})`);
  }
  return list;
}

function idList(v: Iterable<unknown> | ArrayLike<unknown> | undefined | null, what: string): number[] {
  const list = v === undefined || v === null ? [] : Array.from(v, Number);
  for (const id of list) {
    if (!Number.isSafeInteger(id) || id < 0) throw new ExecutionError(`${what}: ${id} is not a token id (a non-negative integer)`);
  }
  return list;
}

/** A loaded prefill/decode pair. Create with loadLM(). */
export class LanguageModel {
  /** {prefillLen, maxCacheLen, vocabSize, numLayers} */
  readonly info: { readonly prefillLen: number; readonly maxCacheLen: number; readonly vocabSize: number; readonly numLayers: number };
  /** @internal */ _backend: Backend;
  /** @internal */ _threads: number;
  /** @internal */ _handle: EmbindObject | null;
  /** @internal */ _busy: boolean;
  /** @internal */ _stats: Omit<GenerationStats, 'prefillTokensPerSecond' | 'decodeTokensPerSecond' | 'webgpu'> | null;
  /** @internal */ _gpu: GpuGeneration | null;
  /** The tokenizer given to loadLM, or null (generation then speaks token ids only). */
  tokenizer: TextTokenizer | null;

  // Private: language models come from loadLM (LanguageModel._create).
  private constructor(backend: Backend, handle: EmbindObject) {
    this._backend = backend;
    this._threads = backend.currentThreads; // this model's own count (see Model)
    this._handle = handle;
    this._busy = false;
    const info = parseJsonLoose(String(handle.info()));
    this.info = Object.freeze(info);
    this._stats = null;
    this._gpu = null; // GpuGeneration (executionProviders with 'webgpu'), or null: WASM only
    this.tokenizer = null;
  }

  /** @internal loadLM's way to the private constructor. */
  static _create(backend: Backend, handle: EmbindObject): LanguageModel {
    return new LanguageModel(backend, handle);
  }

  // start() / step() on WASM, or around the GPU executor's run of the session.
  private async _start(h: EmbindObject, args: unknown[]): Promise<void> {
    this._backend.useThreads(this._threads); // as Model._run: the module's count is shared
    if (!this._gpu) return check(h.start(...args), 'ExecutionError');
    check(h.beginStart(...args), 'ExecutionError');
    await this._gpu.prefill();
    check(this._h.finishStart(), 'ExecutionError');
  }

  private async _step(): Promise<void> {
    this._backend.useThreads(this._threads); // another model may have run between two tokens
    if (!this._gpu) return check(this._h.step(), 'ExecutionError');
    check(this._h.beginStep(), 'ExecutionError');
    await this._gpu.step();
    check(this._h.finishStep(), 'ExecutionError');
  }

  /** @internal */
  get _h(): EmbindObject {
    if (!this._handle) throw new TorchIrError('language model is disposed');
    if (this._backend.dead) this._backend.call('LanguageModel', () => {}); // throws the discarded-instance error
    return this._handle;
  }

  /**
   * Generates a continuation of `prompt`: text (needs loadLM's tokenizer) gives text,
   * token ids give the new ids. Greedy unless temperature > 0. A stop id ends generation
   * (in an ids result it is included; text leaves it out), as does a stop string (the text
   * ends before it). onToken(id, index) is called per token; returning false stops.
   * ExecutionError for bad token ids or options.
   */
  generate(prompt: string, options?: GenerateOptions): Promise<string>;
  generate(promptIds: ArrayLike<number>, options?: GenerateOptions): Promise<number[]>;
  async generate(prompt: string | ArrayLike<number>, options: GenerateOptions = {}): Promise<string | number[]> {
    if (typeof prompt !== 'string' && options.stopStrings?.length) {
      throw new ExecutionError('generate: stopStrings need a text prompt (and loadLM\'s tokenizer)');
    }
    const text = typeof prompt === 'string' ? new TextStream(this._needTokenizer('generate'), stopStrings(options.stopStrings)) : null;
    const out: number[] = [];
    for await (const [id] of this._tokens(prompt, options)) {
      out.push(id);
      if (text) {
        text.push(id);
        if (text.stopped) break;
      }
    }
    if (!text) return out;
    text.flush();
    return text.text;
  }

  /**
   * Streams the continuation of `prompt` (text or token ids; needs loadLM's tokenizer) as
   * text pieces, one per generated token: a piece is empty while a character spans tokens
   * or the text may be the start of a stop string. Joined, the pieces are generate()'s text.
   * Breaking out of the loop stops generation. Options as generate()'s.
   */
  async *stream(prompt: string | ArrayLike<number>, options: GenerateOptions = {}): AsyncGenerator<string, void, undefined> {
    const text = new TextStream(this._needTokenizer('stream'), stopStrings(options.stopStrings));
    for await (const [id, last] of this._tokens(prompt, options)) {
      const piece = text.push(id);
      // The last token's piece also carries what was held back.
      yield last || text.stopped ? piece + text.flush() : piece;
      if (text.stopped) break;
    }
  }

  private _needTokenizer(what: string): TextTokenizer {
    if (!this.tokenizer) throw new ExecutionError(`${what}: text needs a tokenizer (loadLM({ ..., tokenizer: 'tokenizer.json' })); without one, give token ids`);
    return this.tokenizer;
  }

  // The generation loop: yields [id, whether it is the last] per new token. The model is busy
  // until the caller stops iterating.
  private async *_tokens(prompt: string | ArrayLike<number>, options: GenerateOptions): AsyncGenerator<[number, boolean], void, undefined> {
    for (const k of Object.keys(options)) {
      if (!GENERATE_OPTIONS.has(k)) throw new ExecutionError(`generate: unknown option '${k}' (options: ${[...GENERATE_OPTIONS].join(', ')})`);
    }
    const {
      maxNewTokens = 32, minNewTokens = 0, temperature = 0, topK = 0, topP = 1, seed = 0,
      repetitionPenalty = 1, frequencyPenalty = 0, presencePenalty = 0, stop, onToken, signal, logitsProcessor,
    } = options;
    const h = this._h;
    if (this._busy) throw new ExecutionError('generate: this model is already generating (await the previous call)');
    const ids = typeof prompt === 'string' ? this._needTokenizer('generate').encode(prompt) : idList(prompt, 'prompt');
    if (typeof prompt === 'string' && !ids.length) throw new ExecutionError('generate: the prompt is empty');
    const stops = new Set(stop === undefined ? (this.tokenizer?.endIds ?? []) : idList(stop, 'stop'));
    if (!Number.isSafeInteger(maxNewTokens) || maxNewTokens < 1) throw new ExecutionError('generate: maxNewTokens must be an integer >= 1');
    if (!Number.isSafeInteger(minNewTokens) || minNewTokens < 0) throw new ExecutionError('generate: minNewTokens must be an integer >= 0');
    if (!Number.isSafeInteger(seed) || seed < 0) throw new ExecutionError('generate: seed must be a non-negative integer');
    if (logitsProcessor !== undefined && typeof logitsProcessor !== 'function') throw new ExecutionError('generate: logitsProcessor must be a function');
    const sampling = {
      temperature: Number(temperature), topK: Number(topK), topP: Number(topP), seed,
      repetitionPenalty: Number(repetitionPenalty), frequencyPenalty: Number(frequencyPenalty),
      presencePenalty: Number(presencePenalty), minNewTokens, endIds: [...stops],
    };
    this._busy = true;
    const seen = ids.slice();
    try {
      signal?.throwIfAborted?.();
      check(h.setLogitsHook(Boolean(logitsProcessor)), 'ExecutionError');
      await this._start(h, [ids, maxNewTokens, sampling]);
      for (let n = 0; ; ++n) {
        if (logitsProcessor) await this._process(h, logitsProcessor, seen);
        const id = Number(h.lastToken());
        seen.push(id);
        const more = onToken ? (await onToken(id, n)) !== false : true;
        const last = !more || stops.has(id) || n + 1 >= maxNewTokens;
        yield [id, last];
        if (last) break;
        await yieldToEventLoop();
        signal?.throwIfAborted?.();
        await this._step();
      }
    } finally {
      this._busy = false;
      // Not after a trap: that would replace the caller's error with another.
      if (this._handle && !this._backend.dead) this._stats = parseJsonLoose(String(this._handle.stats()));
    }
  }

  // The caller's logits processor on the engine's processed row, then the engine's choice.
  private async _process(h: EmbindObject, processor: LogitsProcessor, ids: readonly number[]): Promise<void> {
    const row = (h.pendingLogits() as Float32Array).slice();
    const got = await processor(row, ids);
    const result = got === undefined ? row : got;
    if (!(result instanceof Float32Array) || result.length !== row.length) {
      throw new ExecutionError(`generate: logitsProcessor must edit the logits in place or return a Float32Array of ${row.length} values`);
    }
    (h.pendingLogits() as Float32Array).set(result); // a fresh view: memory may have grown meanwhile
    check(h.choose(), 'ExecutionError');
  }

  /**
   * Timing of the last generate(): {promptTokens, prefillMs, decodeSteps,
   * decodeMs, prefillTokensPerSecond, decodeTokensPerSecond, cacheBytes,
   * cacheBytesCopiedPerStep, webgpu}. Prefill tokens/s counts the padded prompt
   * (info.prefillLen tokens run). webgpu (null on WASM): the transfers of the
   * prefill and of the last decode step ({dispatches, uploads, downloads,
   * uploadBytes, downloadBytes}), and the cache bytes copied on the GPU per step. null before.
   */
  get stats(): GenerationStats | null {
    const s = this._stats;
    if (!s) return null;
    const g = this._gpu;
    return {
      ...s,
      prefillTokensPerSecond: s.prefillMs > 0 ? (1000 * this.info.prefillLen) / s.prefillMs : 0,
      decodeTokensPerSecond: s.decodeMs > 0 ? (1000 * s.decodeSteps) / s.decodeMs : 0,
      webgpu: g ? { prefill: g.last.prefill!, step: g.last.step, gpuCacheBytesCopiedPerStep: g.copyBytesPerStep } : null,
    };
  }

  /** The execution providers generation runs on: ['webgpu', 'wasm'] or ['wasm']. */
  get executionProviders(): readonly ('webgpu' | 'wasm')[] {
    return this._gpu ? ['webgpu', 'wasm'] : ['wasm'];
  }

  /**
   * Where each graph's compute nodes run and its transfers per run:
   * {prefill, decode}, each {nodes: {webgpu, wasm}, transfers: {uploads, downloads}}, and weights:
   * the bytes of the weights in WASM memory and of those streamed to the GPU only (both graphs
   * read one copy); null on WASM.
   */
  placement(): { prefill: Placement; decode: Placement; weights: { wasm: number; webgpu: number } } | null {
    if (!this._gpu) return null;
    const w = this._h.weightBytes();
    return { ...this._gpu.placement(), weights: { wasm: w.wasm, webgpu: w.streamed } };
  }

  /** Which build runs it: {variant, threads}. */
  get backend(): { readonly variant: 'simd-threaded' | 'simd'; readonly threads: number } {
    const b = this._backend;
    return { variant: b.variant, threads: b.threaded && !b.dead ? this._threads : 1 };
  }

  /** Frees the model's WASM memory. */
  dispose(): void {
    if (!this._handle) return;
    this._gpu?.destroy();
    this._gpu = null;
    this._handle.delete();
    this._handle = null;
  }

  get disposed(): boolean {
    return !this._handle;
  }
}

// `using lm = await loadLM(...)`: where the runtime has Symbol.dispose.
export interface LanguageModel {
  [Symbol.dispose](): void;
}
if (typeof Symbol.dispose === 'symbol') LanguageModel.prototype[Symbol.dispose] = LanguageModel.prototype.dispose;

async function readMapping(src: IRSource | undefined, onProgress: ((event: Progress) => void) | undefined, load: LoadControls): Promise<string> {
  if (src === undefined || src === null) throw new IRFormatError('loadLM: kvMapping is required');
  // readIrText accepts the same forms (JSON text, object, bytes, path/URL, Blob).
  try {
    return await readIrText(src, onProgress, load);
  } catch (e) {
    throw new IRFormatError(`kvMapping: ${(e as Error).message.replace(/IR file/, 'KV mapping file')}`, { cause: e });
  }
}

/**
 * Loads an LLM exported as pytorch-ir's prefill/decode pair.
 * options: {prefill, decode, kvMapping, weights, constants, threads,
 * wasmPaths, donate (default true: caches updated in place), weightDtype
 * ('float32' | 'float16' | 'bfloat16': how the matmul weights are stored), onProgress,
 * limits ({maxTensorBytes, maxArenaBytes, maxRunWork}: see loadIR), strictWeights (see loadIR),
 * executionProviders (['webgpu', 'wasm']: generate on the GPU, caches resident there)}.
 * prefill/decode/kvMapping take what loadIR's ir takes; both IRs bind from
 * the one `weights`.
 */
const LOAD_LM_OPTIONS = new Set(['prefill', 'decode', 'kvMapping', 'weights', 'constants', 'threads', 'wasmPaths',
  'onProgress', 'donate', 'weightDtype', 'weightGroupSize', 'limits', 'strictWeights', 'executionProviders', 'signal', 'fetchOptions',
  'tokenizer']);

// The glue names its three texts 'prefill IR', 'decode IR' and 'kvMapping' in
// its messages; where they came from a file or URL, name that instead.
function withOrigins(e: Error, { prefill, decode, kvMapping }: LoadLMOptions): Error {
  const labels: [string, unknown][] = [['prefill IR: ', prefill], ['decode IR: ', decode], ['kvMapping: ', kvMapping]];
  for (const [label, src] of labels) {
    const origin = irOrigin(src);
    if (e.message.startsWith(label) && origin !== '<string>') {
      return new (e.constructor as ErrorConstructor)(`${origin}: ${e.message.slice(label.length)}`, { cause: e });
    }
  }
  return e;
}

// The GPU side of a model compiled for WebGPU, or null after a warning (a failed GPU load
// falls back to WASM: the same sessions run there, unfused; env.webgpu.strict makes it an error).
async function startGpu(device: GpuObject, backend: Backend, handle: EmbindObject,
  streamed: StreamedWeights | null): Promise<GpuGeneration | null> {
  let gen: GpuGeneration | null = null;
  try {
    gen = await GpuGeneration.create(device, backend, handle, streamed);
    check(handle.useGpuCaches(true), 'ExecutionError');
    return gen;
  } catch (e) {
    gen?.destroy();
    if (backend.dead) throw e;
    declineWebGpu(`loadLM: ${(e as Error).message.replace(/^WebGPU: /, '')}`);
    return null;
  }
}

/** Loads an LLM exported as pytorch-ir's prefill/decode IR pair with its KV mapping (errors as loadIR's). */
export async function loadLM(options: LoadLMOptions = {} as LoadLMOptions): Promise<LoadedLM> {
  for (const k of Object.keys(options)) {
    if (!LOAD_LM_OPTIONS.has(k)) throw new ExecutionError(`loadLM: unknown option '${k}' (options: ${[...LOAD_LM_OPTIONS].join(', ')})`);
  }
  const limits = validateLimits(options.limits, 'loadLM');
  const load = loadControls(options, 'loadLM');
  load.signal?.throwIfAborted();
  // env.proxy: the model generates in the proxy worker (proxy_lm.ts).
  if (env.proxy && canProxy()) return loadLMProxy(options, env) as unknown as Promise<LoadedLM>;
  const providers = executionProviders(options.executionProviders);
  const { prefill, decode, kvMapping, weights, constants, onProgress } = options;
  if (prefill === undefined || decode === undefined) throw new IRFormatError('loadLM: prefill and decode IRs are required');
  const prefillText = await readIrText(prefill, onProgress, load);
  const decodeText = await readIrText(decode, onProgress, load);
  const mappingText = await readMapping(kvMapping, onProgress, load);
  const tokenizer = options.tokenizer === undefined ? null : await loadTokenizer(options.tokenizer, { onProgress, signal: load.signal, fetchOptions: load.fetchOptions });
  const meta = irMetaFrom(prefillText);
  // With WebGPU, the weights files are opened for ranged reads (streamed to the GPU).
  const weightOps = await collectTensors(weights, 'weights', meta, onProgress, load, providers.includes('webgpu'));
  try {
    const constantOps = await collectTensors(constants, 'constants', meta, onProgress, load);
    const lm = await compileLM(options, limits, load, [prefillText, decodeText, mappingText], weightOps, constantOps);
    if (tokenizer && tokenizer.vocabSize > lm.info.vocabSize) {
      lm.dispose();
      throw new IRFormatError(`tokenizer: its vocabulary has ${tokenizer.vocabSize} tokens but the model's logits have ${lm.info.vocabSize}`);
    }
    lm.tokenizer = tokenizer;
    return lm;
  } finally {
    await closeTensorFiles(weightOps);
  }
}

async function compileLM(options: LoadLMOptions, limits: Limits | null, load: LoadControls, texts: string[],
  weightOps: TensorOp[], constantOps: TensorOp[]): Promise<LanguageModel> {
  const { donate = true } = options;
  const weightDtype = weightDtypeSpec(options.weightDtype ?? 'float32', options.weightGroupSize, 'loadLM');
  const backend = await getBackend(options);
  const gpu = executionProviders(options.executionProviders).includes('webgpu') ? await gpuOrFallback() : null;
  load.signal?.throwIfAborted();
  // A compiled WasmLM; with a GPU, its safetensors weights are streamed (`streamed` gets them).
  const compiled = async (forGpu: GpuObject | null, streamed: StreamedWeights | null): Promise<EmbindObject> => {
    const handle = backend.create('WasmLM');
    try {
      applyLimits(handle, limits, 'loadLM');
      try {
        check(handle.load(...texts), 'IRFormatError');
      } catch (e) {
        throw withOrigins(e as Error, options);
      }
      await addTensors(handle, weightOps, constantOps, streamed);
      streamed?.bind(handle);
      // Both graphs bind from the one weights source: a key either uses is known.
      checkTensorKeys(handle, options.strictWeights);
      if (forGpu) {
        handle.setWebGpu(true);
        handle.setMaxBinding(bindingLimit(forGpu));
      }
      check(handle.compile(Boolean(donate), String(weightDtype)), 'ExecutionError');
      // Streamed weights: compile placed the nodes; the CPU's weights are read, then bound.
      if (handle.compilePending()) {
        await streamed!.supply(handle);
        check(handle.finishCompile(), 'ExecutionError');
      }
      return handle;
    } catch (e) {
      handle.delete();
      throw e;
    }
  };
  const streamed = gpu ? new StreamedWeights() : null;
  let lm: LanguageModel | null = null;
  try {
    const handle = await compiled(gpu, streamed);
    lm = LanguageModel._create(backend, handle);
    if (gpu) lm._gpu = await startGpu(gpu, backend, handle, streamed?.count ? streamed : null);
    if (gpu && !lm._gpu && handle.weightBytes().streamed > 0) {
      // The WASM fallback needs the weights the GPU was to hold: compile again, unstreamed.
      lm.dispose();
      lm = null;
      return LanguageModel._create(backend, await compiled(null, null));
    }
    return lm;
  } catch (e) {
    lm?.dispose();
    throw e;
  } finally {
    streamed?.release(); // the GPU holds them now (or the load failed)
  }
}
