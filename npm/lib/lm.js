// Text generation from pytorch-ir's LLM export: a prefill IR, a decode IR and
// the KV mapping between them (engine side: runtime/language_model.h). The
// engine owns the loop's state (caches, masks, positions, sampler); JS calls
// one step per token so it can stream tokens and yield to the event loop.
import { getBackend } from './backend.js';
import { ExecutionError, IRFormatError, TorchIrError, check } from './errors.js';
import { parseJsonLoose } from './json.js';
import { addTensors, collectTensors, irMetaFrom, irOrigin, readIrText } from './model.js';
import { declineWebGpu, executionProviders } from './webgpu/provider.js';
import { checkTensorKeys } from './weight_keys.js';
import { applyLimits, validateLimits } from './limits.js';

// Lets timers, rendering and I/O run between tokens (a macrotask, without
// setTimeout's clamping).
function yieldToEventLoop() {
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

function idList(v, what) {
  const list = v === undefined || v === null ? [] : Array.from(v, Number);
  for (const id of list) {
    if (!Number.isSafeInteger(id) || id < 0) throw new ExecutionError(`${what}: ${id} is not a token id (a non-negative integer)`);
  }
  return list;
}

/** A loaded prefill/decode pair. Create with loadLM(). */
export class LanguageModel {
  /** @internal use loadLM */
  constructor(backend, handle) {
    this._backend = backend;
    this._handle = handle;
    this._busy = false;
    const info = parseJsonLoose(String(handle.info()));
    /** {prefillLen, maxCacheLen, vocabSize, numLayers} */
    this.info = Object.freeze(info);
    this._stats = null;
  }

  get _h() {
    if (!this._handle) throw new TorchIrError('language model is disposed');
    if (this._backend.dead) this._backend.call('LanguageModel', () => {}); // throws the discarded-instance error
    return this._handle;
  }

  /**
   * Generates up to maxNewTokens token ids after promptIds (greedy unless
   * temperature > 0). Returns the new ids; a stop token ends generation and is
   * included. onToken(id, index) is called per token; returning false stops.
   */
  async generate(promptIds, options = {}) {
    const {
      maxNewTokens = 32, temperature = 0, topK = 0, topP = 1, seed = 0, stop, onToken, signal,
    } = options;
    const h = this._h;
    if (this._busy) throw new ExecutionError('generate: this model is already generating (await the previous call)');
    const prompt = idList(promptIds, 'prompt');
    const stops = new Set(idList(stop, 'stop'));
    if (!Number.isSafeInteger(maxNewTokens) || maxNewTokens < 1) throw new ExecutionError('generate: maxNewTokens must be an integer >= 1');
    if (!Number.isSafeInteger(seed) || seed < 0) throw new ExecutionError('generate: seed must be a non-negative integer');
    this._busy = true;
    const out = [];
    try {
      signal?.throwIfAborted?.();
      check(h.start(prompt, maxNewTokens, Number(temperature), Number(topK), Number(topP), seed), 'ExecutionError');
      for (;;) {
        const id = Number(h.lastToken());
        out.push(id);
        const more = onToken ? (await onToken(id, out.length - 1)) !== false : true;
        if (!more || stops.has(id) || out.length >= maxNewTokens) break;
        await yieldToEventLoop();
        signal?.throwIfAborted?.();
        check(this._h.step(), 'ExecutionError');
      }
    } finally {
      this._busy = false;
      // Not after a trap: that would replace the caller's error with another.
      if (this._handle && !this._backend.dead) this._stats = parseJsonLoose(String(this._handle.stats()));
    }
    return out;
  }

  /**
   * Timing of the last generate(): {promptTokens, prefillMs, decodeSteps,
   * decodeMs, prefillTokensPerSecond, decodeTokensPerSecond, cacheBytes,
   * cacheBytesCopiedPerStep}. Prefill tokens/s counts the padded prompt
   * (info.prefillLen tokens run).
   */
  get stats() {
    const s = this._stats;
    if (!s) return null;
    return {
      ...s,
      prefillTokensPerSecond: s.prefillMs > 0 ? (1000 * this.info.prefillLen) / s.prefillMs : 0,
      decodeTokensPerSecond: s.decodeMs > 0 ? (1000 * s.decodeSteps) / s.decodeMs : 0,
    };
  }

  /** Which build runs it: {variant, threads}. */
  get backend() {
    const b = this._backend;
    return { variant: b.variant, threads: b.threaded && !b.dead ? b.numThreads : 1 };
  }

  /** Frees the model's WASM memory. */
  dispose() {
    if (!this._handle) return;
    this._handle.delete();
    this._handle = null;
  }

  get disposed() {
    return !this._handle;
  }
}

if (typeof Symbol.dispose === 'symbol') LanguageModel.prototype[Symbol.dispose] = LanguageModel.prototype.dispose;

async function readMapping(src, onProgress) {
  if (src === undefined || src === null) throw new IRFormatError('loadLM: kvMapping is required');
  // readIrText accepts the same forms (JSON text, object, bytes, path/URL, Blob).
  try {
    return await readIrText(src, onProgress);
  } catch (e) {
    throw new IRFormatError(`kvMapping: ${e.message.replace(/IR file/, 'KV mapping file')}`, { cause: e });
  }
}

/**
 * Loads an LLM exported as pytorch-ir's prefill/decode pair.
 * options: {prefill, decode, kvMapping, weights, constants, threads,
 * wasmPaths, donate (default true: caches updated in place), weightDtype
 * ('float32' | 'float16' | 'bfloat16': how the matmul weights are stored), onProgress,
 * limits ({maxTensorBytes, maxArenaBytes, maxRunWork}: see loadIR), strictWeights (see loadIR)}.
 * prefill/decode/kvMapping take what loadIR's ir takes; both IRs bind from
 * the one `weights`.
 */
const LOAD_LM_OPTIONS = new Set(['prefill', 'decode', 'kvMapping', 'weights', 'constants', 'threads', 'wasmPaths',
  'onProgress', 'donate', 'weightDtype', 'limits', 'strictWeights', 'executionProviders']);

// The glue names its three texts 'prefill IR', 'decode IR' and 'kvMapping' in
// its messages; where they came from a file or URL, name that instead.
function withOrigins(e, { prefill, decode, kvMapping }) {
  const labels = [['prefill IR: ', prefill], ['decode IR: ', decode], ['kvMapping: ', kvMapping]];
  for (const [label, src] of labels) {
    const origin = irOrigin(src);
    if (e.message.startsWith(label) && origin !== '<string>') {
      return new e.constructor(`${origin}: ${e.message.slice(label.length)}`, { cause: e });
    }
  }
  return e;
}

export async function loadLM(options = {}) {
  for (const k of Object.keys(options)) {
    if (!LOAD_LM_OPTIONS.has(k)) throw new ExecutionError(`loadLM: unknown option '${k}' (options: ${[...LOAD_LM_OPTIONS].join(', ')})`);
  }
  const limits = validateLimits(options.limits, 'loadLM');
  // The generation loop (prefill, decode steps, sampling) runs inside the engine, so it has no
  // WebGPU executor to hand its sessions to yet: a 'webgpu' request runs on WASM, said once.
  const providers = executionProviders(options.executionProviders);
  if (providers.includes('webgpu')) declineWebGpu('loadLM: generation does not run on WebGPU yet');
  const { prefill, decode, kvMapping, weights, constants, onProgress, donate = true, weightDtype = 'float32' } = options;
  if (prefill === undefined || decode === undefined) throw new IRFormatError('loadLM: prefill and decode IRs are required');
  const prefillText = await readIrText(prefill, onProgress);
  const decodeText = await readIrText(decode, onProgress);
  const mappingText = await readMapping(kvMapping, onProgress);
  const meta = irMetaFrom(prefillText);
  const weightOps = await collectTensors(weights, 'weights', meta, onProgress);
  const constantOps = await collectTensors(constants, 'constants', meta, onProgress);
  const backend = await getBackend(options);
  const handle = backend.create('WasmLM');
  try {
    applyLimits(handle, limits, 'loadLM');
    try {
      check(handle.load(prefillText, decodeText, mappingText), 'IRFormatError');
    } catch (e) {
      throw withOrigins(e, options);
    }
    addTensors(handle, weightOps, constantOps);
    // Both graphs bind from the one weights source: a key either uses is known.
    checkTensorKeys({ weights: weightOps, constants: constantOps }, [meta().ir(), irMetaFrom(decodeText)().ir()],
      options.strictWeights);
    check(handle.compile(Boolean(donate), String(weightDtype)), 'ExecutionError');
    return new LanguageModel(backend, handle);
  } catch (e) {
    handle.delete();
    throw e;
  }
}
