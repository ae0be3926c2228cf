// The public types of loadLM and LanguageModel: the load options, generate()'s
// options and the stats of a generation. Types only (this module emits no JavaScript).
import type { Limits } from './limits.js';
import type { ExecutionProvider, IRSource, Progress, TensorSource, WasmPaths, WeightDtype } from './model_types.js';
import type { TextTokenizer } from './text.js';

export interface LoadLMOptions {
  /** pytorch-ir prefill IR: input_ids [1,P], attention_mask [1,1,P,P], position_ids [1,P] -> logits, then each layer's key and value. */
  prefill: IRSource;
  /** Decode IR: input_ids [1,1], attention_mask [1,1,1,C], position_ids [1,1], cache_position [1], past caches -> logits, updated caches. */
  decode: IRSource;
  /** {num_layers, prefill_seq_len, max_cache_len, layers: [{prefill_key_output, ..., decode_value_output}]}. */
  kvMapping: IRSource;
  /** One state_dict for both IRs. */
  weights?: TensorSource;
  constants?: TensorSource;
  threads?: number;
  wasmPaths?: WasmPaths;
  onProgress?: (event: Progress) => void;
  /** Update the decode caches in place (donated input slots; default true). false copies them every step. */
  donate?: boolean;
  /** As LoadOptions.weightDtype. */
  weightDtype?: WeightDtype;
  /** As LoadOptions.weightGroupSize. */
  weightGroupSize?: number;
  /** As LoadOptions.limits, for both IRs. */
  limits?: Limits;
  /**
   * ['webgpu', 'wasm']: prefill and decode run on the GPU (nodes without a GPU kernel on WASM),
   * the KV caches resident in GPU memory; no GPU, or a failed GPU load, warns and runs on WASM
   * (env.webgpu.strict: an error). Default ['wasm'].
   */
  executionProviders?: readonly ExecutionProvider[];
  /** As LoadOptions.signal: cancels the load (file reads and fetches included). */
  signal?: AbortSignal;
  /** As LoadOptions.fetchOptions, for every URL source. */
  fetchOptions?: RequestInit;
  /** As LoadOptions.strictWeights. */
  strictWeights?: boolean;
  /**
   * The model's tokenizer.json (Hugging Face `tokenizers` format, read by @huggingface/tokenizers;
   * any form `prefill` takes), or a TextTokenizer. With it, generate() and stream() take and
   * return text, and generation stops on the tokenizer's end-of-text token by default.
   */
  tokenizer?: IRSource | TextTokenizer;
}

/**
 * A logits processor: gets the next token's logits after the built-in penalties (a copy; edit
 * it in place or return a new array of the same length) and the ids so far (prompt, then the
 * generated ones); runs before temperature, top-k and top-p, as Hugging Face's processors.
 */
export type LogitsProcessor = (logits: Float32Array, ids: readonly number[]) =>
  void | Float32Array | Promise<void | Float32Array>;

export interface GenerateOptions {
  /** Default 32; prompt length + maxNewTokens - 1 must fit max_cache_len. */
  maxNewTokens?: number;
  /** No end token (the stop ids) before this many new tokens. Default 0. */
  minNewTokens?: number;
  /** 0 (default) = greedy; > 0 samples. */
  temperature?: number;
  /** Keep the K most likely tokens when sampling (0 = off). */
  topK?: number;
  /** Nucleus sampling threshold (1 = off). */
  topP?: number;
  /** Seed of the sampler (same seed, same tokens). Default 0. */
  seed?: number;
  /**
   * Hugging Face's repetition penalty over the prompt and the generated ids: a seen token's
   * logit is divided by it (multiplied when negative). 1 (default) = off; > 1 discourages repeats.
   */
  repetitionPenalty?: number;
  /** OpenAI's (and vLLM's) frequency penalty: minus this x the token's count among the generated ids. Default 0. */
  frequencyPenalty?: number;
  /** OpenAI's presence penalty: minus this once a token was generated. Default 0. */
  presencePenalty?: number;
  /**
   * Token ids that end generation (an ids result includes the stop token; text leaves it out).
   * Default: the tokenizer's end-of-text ids, none without a tokenizer.
   */
  stop?: Iterable<number>;
  /** Text prompts: strings that end generation; the text ends before the first one (it is not included). */
  stopStrings?: readonly string[];
  /** See LogitsProcessor. */
  logitsProcessor?: LogitsProcessor;
  /** Called for each new token; return false to stop. */
  onToken?: (id: number, index: number) => void | boolean | Promise<void | boolean>;
  /** Abort between tokens (rejects with the signal's reason). */
  signal?: AbortSignal;
}

export interface GenerationStats {
  promptTokens: number;
  prefillMs: number;
  decodeSteps: number;
  decodeMs: number;
  /** prefill_seq_len / prefill time (the prompt is padded to the prefill length). */
  prefillTokensPerSecond: number;
  decodeTokensPerSecond: number;
  /** All layers' key and value caches. */
  cacheBytes: number;
  /** 0 when the caches are updated in place (donate: true) or live on the GPU. */
  cacheBytesCopiedPerStep: number;
  /** On WebGPU: the transfers of the prefill run and of the last decode step; null on WASM. */
  webgpu: {
    prefill: GpuTransfers;
    step: GpuTransfers | null;
    /** Cache bytes copied GPU-to-GPU per step: 0 with donate (index_copy writes the caches in place). */
    gpuCacheBytesCopiedPerStep: number;
  } | null;
}

export interface GpuTransfers {
  dispatches: number;
  uploads: number;
  downloads: number;
  uploadBytes: number;
  downloadBytes: number;
}
