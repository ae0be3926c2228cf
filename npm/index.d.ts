// Type declarations for torch-ir-wasm (hand-written; checked under `strict` by
// test/types: a typed example that must compile and a file of misuses that must not).

// ------------------------------------------------------------------ dtypes

/** IR dtype names (canonical spelling). float16/bfloat16 data is raw bits in a Uint16Array. */
export type DType =
  | 'float32' | 'float64' | 'float16' | 'bfloat16'
  | 'int64' | 'int32' | 'int16' | 'int8' | 'uint8' | 'bool';

/** The typed array class that holds each dtype's data. */
export interface DTypeArrays {
  float32: Float32Array;
  float64: Float64Array;
  /** Raw IEEE half bits. */
  float16: Uint16Array;
  /** Raw bfloat16 bits. */
  bfloat16: Uint16Array;
  int64: BigInt64Array;
  int32: Int32Array;
  int16: Int16Array;
  int8: Int8Array;
  uint8: Uint8Array;
  /** 0 / 1. */
  bool: Uint8Array;
}

/** TypedArrayFor<'float32'> = Float32Array, TypedArrayFor<'int64'> = BigInt64Array, ... */
export type TypedArrayFor<D extends DType> = DTypeArrays[D];

export type TypedArray = DTypeArrays[DType] | Uint8ClampedArray;

/** Other spellings the loader accepts for each dtype (besides UPPER case and a `torch.` prefix). */
export interface DTypeSpellings {
  float32: 'float' | 'f32';
  float64: 'double' | 'f64';
  float16: 'half' | 'f16';
  bfloat16: 'bf16';
  int64: 'long' | 'i64';
  int32: 'int' | 'i32';
  int16: 'short' | 'i16';
  int8: 'i8';
  uint8: 'u8';
  bool: 'boolean';
}
type Spelled<D extends DType> = D | DTypeSpellings[D];
/** A dtype as a tensor value may name it: 'float32', 'F32', 'torch.float32', 'half', ... (a typo does not compile). */
export type DTypeName<D extends DType = DType> = D extends DType
  ? Spelled<D> | Uppercase<Spelled<D>> | `torch.${Spelled<D>}`
  : never;

// ------------------------------------------------------------------ values in

/** An N-d nested array: number[], number[][][], ... of any depth. */
export type NestedArray<T> = readonly (T | NestedArray<T>)[];

export type Scalar = number | bigint | boolean;

/**
 * Tensor data with its shape and dtype; shape/dtype default to the IR's.
 * float16/bfloat16 data must be a Uint16Array of raw bits; other dtypes take any
 * typed array or (nested) array and convert it.
 */
export type TensorValue =
  | { data: Uint16Array; shape?: readonly number[]; dtype: DTypeName<'float16' | 'bfloat16'> }
  | { data: TypedArray | NestedArray<Scalar>; shape?: readonly number[]; dtype?: DTypeName<Exclude<DType, 'float16' | 'bfloat16'>> };

/**
 * An input / expected value: a typed array (shape from the IR), a plain nested
 * array (any depth), a TensorValue, or a Tensor.
 */
export type TensorLike = TypedArray | NestedArray<Scalar> | TensorValue | Tensor;

/** Inputs in graph_inputs order, keyed by input name (object or Map), or one typed array for a one-input graph. */
export type Inputs = readonly TensorLike[] | Readonly<Record<string, TensorLike>> | ReadonlyMap<string, TensorLike> | TypedArray;

// ------------------------------------------------------------------ values out

/**
 * A tensor's data, typed by dtype. With the default D (every dtype) this is a
 * union discriminated by `dtype`: `if (t.dtype === 'float32') t.data.map(...)`.
 */
export type TensorData<D extends DType = DType> = D extends DType
  ? { shape: number[]; dtype: D; data: TypedArrayFor<D> }
  : never;

/** An output of execute(): {name, shape, dtype, data}. float16/bfloat16 outputs come back as float32. */
export type OutputTensor<D extends DType = DType> = TensorData<D> & { name: string };

export interface TensorInfo {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: readonly number[];
}

// ------------------------------------------------------------------ loading

/** A file: a path (Node), a URL (fetched), a Blob/File, or its bytes. */
export type Source = string | URL | Blob | ArrayBuffer | ArrayBufferView;

/** .safetensors / torch.save bytes or location, tensors by original name, or a list of those. */
export type TensorSource =
  | Source
  | Readonly<Record<string, TensorValue | TypedArray>>
  | ReadonlyMap<string, TensorValue | TypedArray>
  | readonly TensorSource[];

/** What loadIR takes as the IR: JSON text, a parsed IR object, bytes, a path or URL, or a Blob. */
export type IRSource = string | URL | Blob | ArrayBuffer | ArrayBufferView | object;

/** A string prefix ending in '/' or a map from dist file name to its URL/path. */
export type WasmPaths = string | URL | Readonly<Record<string, string | URL>>;

/**
 * One progress event of a file read or fetched (the IR, each weights/constants
 * file; inline bytes and objects report nothing), transformers.js style: per
 * file 'initiate', then 'progress' (zero or more), then 'done'.
 */
export interface Progress {
  status: 'initiate' | 'progress' | 'done';
  /** Path or URL being read (a Blob: its name, or 'blob'). */
  file: string;
  /** Bytes read so far. */
  loaded: number;
  /** Total bytes; 0 while unknown (no content-length). */
  total: number;
  /** 0-100 (0 while the total is unknown; 100 at 'done'). */
  progress: number;
  /** Same as file (the field's older name). */
  source: string;
}

export type WeightDtype = 'float32' | 'float16' | 'bfloat16';

export interface LoadOptions {
  /** state_dict keyed by original names: .safetensors / torch.save bytes, a path/URL, or {key: {data, shape, dtype}}. */
  weights?: TensorSource;
  /** Lifted constants / non-persistent buffers by original name; they override the IR's own constants. */
  constants?: TensorSource;
  /** 1 = single-threaded build. Otherwise the threaded build where possible (Node; cross-origin isolated pages), with this many threads. */
  threads?: number;
  /** Where the .wasm/.js files are (overrides env.wasmPaths). */
  wasmPaths?: WasmPaths;
  /** Called for each file read or fetched (see Progress). */
  onProgress?: (event: Progress) => void;
  /**
   * Cancels the load: loadIR rejects with the signal's reason (an AbortError
   * DOMException by default), stops a fetch or file read, and leaves no model
   * loaded. (Proxy mode: rejects at once; the worker's model is freed when it
   * finishes loading.)
   */
  signal?: AbortSignal;
  /** Passed to fetch() for URL sources (headers, credentials, mode, cache, ...). */
  fetchOptions?: RequestInit;
  /** Record per-node timings (model.profile()). */
  profile?: boolean;
  /** Compile (bind weights, plan memory) in loadIR. Default: true when weights or constants are given, else at the first execute. */
  compile?: boolean;
  /** How linear/matmul/addmm/mm store their constant weights: 'float32' (default), or 'float16' / 'bfloat16' (half the bytes, float32 accumulation). */
  weightDtype?: WeightDtype;
  /** Resource caps checked at compile, before any allocation (a hostile IR fails with the node's name). */
  limits?: Limits;
  /** Weight keys that no graph node reads are a WeightLoadError instead of a warning (a typo like `conv1.wieght`). */
  strictWeights?: boolean;
  /**
   * Bind to the weights, constants and packed weight copies of a model already loaded (another IR
   * of the same module, e.g. one export per sequence length): they exist once in memory. The new
   * model runs in that model's engine instance (its threads and wasmPaths); `weights` and
   * `constants` must not be given. With env.proxy, a model of the same worker.
   */
  weightsFrom?: Model | ProxyModel;
  /** ['webgpu', 'wasm'] (or ['webgpu']): nodes with a WebGPU kernel run on the GPU, the others on WASM (docs/webgpu.md). Default ['wasm']. */
  executionProviders?: readonly ExecutionProvider[];
}

export type ExecutionProvider = 'webgpu' | 'wasm' | { readonly name: 'webgpu' | 'wasm' };

/** Where a model's compute nodes run (views are not counted) and the value moves of one run. */
export interface Placement {
  nodes: { webgpu: number; wasm: number };
  transfers: { uploads: number; downloads: number };
  /**
   * Bytes of the bound weights held in WASM memory, and of those streamed to the GPU only (never
   * copied into WASM memory: safetensors weights that only GPU nodes read). Model.placement() only.
   */
  weights?: { wasm: number; webgpu: number };
}

/**
 * Caps the engine checks when it compiles a model. Each is a non-negative
 * integer; 0 or absent = the build's default. Unknown keys are refused (ExecutionError).
 */
export interface Limits {
  /** Bytes of any one tensor (a view counts its logical size). */
  maxTensorBytes?: number;
  /** Bytes of the planned activation arena plus prepared weight copies. */
  maxArenaBytes?: number;
  /** Work of one run: the sum over nodes of their largest tensor's element count. */
  maxRunWork?: number;
}

export interface ExecuteOptions {
  /** {inputName: outputName}: inputs left out take that output of the previous run inside the engine. */
  carry?: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
  /** Names of the outputs to return (default all, in graph_outputs order). */
  outputs?: readonly string[];
}

export interface VerifyOptions {
  /** Default 1e-5. */
  rtol?: number;
  /** Default 1e-5. */
  atol?: number;
  /**
   * Float64 outputs of the same model (same forms as `expected`): the report then has
   * `reference64`, our and `expected`'s errors against them side by side. isValid stays rtol/atol's.
   */
  reference64?: Expected;
}

/** One output against the float64 reference: error = max |x - float64|, scale = max |float64|. */
export interface Reference64Output {
  index: number;
  /** false for non-floating outputs (compared exactly by verify, not here). */
  judged: boolean;
  /** Our max error against float64. */
  ours: number;
  /** `expected`'s (PyTorch float32's) max error against float64. */
  reference: number;
  scale: number;
  /** 2 * reference + 1e-6 * scale. */
  bound: number;
  withinBound: boolean;
}

export interface Reference64Report {
  /** Every output within its bound. */
  withinBound: boolean;
  /** isValid is false (rtol/atol) but every output is within its bound: only reassociation. */
  reassociationOnly: boolean;
  outputs: Reference64Output[];
  /** Count or shape mismatch against the float64 outputs; null otherwise. */
  errorMessage: string | null;
}

export interface OutputDetail {
  index: number;
  shape: number[];
  isClose: boolean;
  maxDiff: number;
  meanDiff: number;
}

/** pytorch-ir's verify_ir report, camelCased. A count or shape mismatch is reported here, not thrown. */
export interface VerifyReport {
  isValid: boolean;
  maxDiff: number;
  meanDiff: number;
  numOutputs: number;
  outputDetails: OutputDetail[];
  /** null when valid. */
  errorMessage: string | null;
  /** Present when verify() was given options.reference64. */
  reference64?: Reference64Report;
}

export interface NodeTiming {
  node: string;
  opType: string;
  ms: number;
  /** IR nodes fused into this one (batch norm, residual add, relu/clamp); their time is included. */
  covers: string[];
  /** A constant computed once at load (all inputs constant): not run, ms is 0. */
  folded: boolean;
  /**
   * On a WebGPU model: where it ran. A 'webgpu' entry is one node's wall time from submit to
   * done (profiling syncs after every GPU node); a 'wasm' entry is a segment of WASM nodes
   * (node: the first, covers: the others).
   */
  device?: 'webgpu' | 'wasm';
}

export type Expected = readonly TensorLike[] | Readonly<Record<string, TensorLike>> | TypedArray;

// ------------------------------------------------------------------ models

/**
 * A loaded model (the default mode). Dispose it, or `using m = await loadIR(...)`.
 *
 * execute() returns OutputTensor (a union over dtypes, discriminated by
 * `dtype`); `execute<'float32'>(...)` states the dtype of every output instead
 * (unchecked, like a cast: use it when the graph's outputs are known).
 */
export declare class Model {
  private constructor();
  /** graph_inputs metadata from the IR. */
  readonly inputs: readonly TensorInfo[];
  /** graph_outputs metadata from the IR. */
  readonly outputs: readonly TensorInfo[];
  /** Which build runs the model. */
  readonly backend: { readonly variant: 'simd-threaded' | 'simd'; readonly threads: number };
  readonly disposed: boolean;
  /** Rejects with ExecutionError for a missing/unknown input or a wrong shape/dtype/size (naming the input). */
  execute<D extends DType = DType>(inputs: Inputs, options?: ExecuteOptions): Promise<OutputTensor<D>[]>;
  /** Bytes the last execute() copied to carry outputs into inputs (0 when they were donated). */
  readonly lastCarryBytes: number;
  /** Rejects with VerificationError only for unusable expected values (e.g. data that does not fit its shape). */
  verify(inputs: Inputs, expected: Expected, options?: VerifyOptions): Promise<VerifyReport>;
  /** pytorch-ir's info text, or its JSON text with {json: true}. */
  info(options?: { json?: boolean }): string;
  /** Mermaid flowchart (ir_to_mermaid). Defaults: maxNodes 30, includeWeights true. */
  toMermaid(options?: { maxNodes?: number; includeWeights?: boolean }): string;
  /** Mermaid pie of op types (generate_op_distribution_pie). Default topN 10. */
  opDistributionPie(options?: { topN?: number }): string;
  /** Per-node timings of the last execute() (loadIR option profile: true, or setProfiling(true)). */
  profile(): NodeTiming[];
  setProfiling(on: boolean): void;
  /** Original names of weights/buffers the graph writes in place (KV caches). */
  mutatedBuffers(): string[];
  /** Current value of a buffer (float16/bfloat16 buffers come back as float32). */
  bufferValue(name: string): OutputTensor;
  /** Restores every in-place-written buffer to its loaded value. */
  resetBuffers(): void;
  /** Bytes of the activation arena. */
  arenaBytes(): number;
  /** Compute nodes per device and transfers per run. */
  placement(): Placement;
  /** ['webgpu', 'wasm'] when the model runs on a GPU, else ['wasm']. */
  readonly executionProviders: readonly ('webgpu' | 'wasm')[];
  /** Frees the model's WASM memory; later calls throw TorchIrError('model is disposed'). */
  dispose(): void;
  [Symbol.dispose](): void;
}

/**
 * A model loaded while env.proxy is true: it runs in a worker (a Web Worker in
 * pages, a worker thread in Node), and every method returns a Promise.
 */
export interface ProxyModel {
  readonly inputs: readonly TensorInfo[];
  readonly outputs: readonly TensorInfo[];
  readonly backend: { readonly variant: 'simd-threaded' | 'simd'; readonly threads: number; readonly proxy: true };
  readonly disposed: boolean;
  /**
   * Inputs are copied to the worker unless `transferInputs: true`: then their
   * ArrayBuffers are moved (detached on this side, no copy). Outputs are moved back.
   */
  execute<D extends DType = DType>(inputs: Inputs, options?: ExecuteOptions & { transferInputs?: boolean }): Promise<OutputTensor<D>[]>;
  verify(inputs: Inputs, expected: Expected, options?: VerifyOptions): Promise<VerifyReport>;
  info(options?: { json?: boolean }): Promise<string>;
  toMermaid(options?: { maxNodes?: number; includeWeights?: boolean }): Promise<string>;
  opDistributionPie(options?: { topN?: number }): Promise<string>;
  profile(): Promise<NodeTiming[]>;
  setProfiling(on: boolean): Promise<void>;
  mutatedBuffers(): Promise<string[]>;
  bufferValue(name: string): Promise<OutputTensor>;
  resetBuffers(): Promise<void>;
  arenaBytes(): Promise<number>;
  placement(): Promise<Placement>;
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Compile-time settings, filled in by declaration merging. An app that sets
 * `env.proxy = true` declares
 *   declare module 'torch-ir-wasm' { interface TypeConfig { proxy: true } }
 * and loadIR then returns ProxyModel; `proxy: boolean` (set at run time either
 * way) gives Model | ProxyModel. Default: Model.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface TypeConfig {}
type ProxySetting = TypeConfig extends { proxy: infer P extends boolean } ? P : false;
/** What loadIR resolves to under TypeConfig: Model, ProxyModel, or either. */
export type LoadedModel = [ProxySetting] extends [true] ? ProxyModel : [ProxySetting] extends [false] ? Model : Model | ProxyModel;

/**
 * Loads an IR with its weights. Rejects with IRFormatError (unreadable IR file
 * or URL, malformed JSON, invalid IR), WeightLoadError (unreadable or malformed
 * weights/constants, a weight the graph needs is missing), ExecutionError
 * (unsupported ops, invalid limits), the signal's reason when aborted, or
 * TorchIrError when the WASM files cannot be loaded.
 */
export declare function loadIR(ir: IRSource, options?: LoadOptions): Promise<LoadedModel>;
export declare function execute<D extends DType = DType>(model: Model | ProxyModel, inputs: Inputs, options?: ExecuteOptions): Promise<OutputTensor<D>[]>;
export declare function verify(model: Model | ProxyModel, inputs: Inputs, expected: Expected, options?: VerifyOptions): Promise<VerifyReport>;

// ------------------------------------------------------------------ onnxruntime-web style API

/**
 * A CPU tensor like onnxruntime-web's. Build one with
 * `new Tensor(type, data, dims?)` (a plain array is converted; a typed array
 * must be the type's class) or `new Tensor(typedArray, dims?)` (the type follows
 * the class; Uint16Array means float16). dims default to [data.length].
 * Throws TypeError for an unknown/unsupported type or a wrong data class,
 * RangeError when data does not fill dims.
 */
export interface TensorBase<T extends DType> {
  readonly type: T;
  readonly dims: readonly number[];
  readonly data: TypedArrayFor<T>;
  /** Number of elements. */
  readonly size: number;
  readonly location: 'cpu';
  /** Aliases of dims / type, so a Tensor is also a TensorValue. */
  readonly shape: readonly number[];
  readonly dtype: T;
  getData(): Promise<TypedArrayFor<T>>;
  reshape(dims: readonly number[]): Tensor<T>;
  /** Nothing to free (CPU data); present for onnxruntime-web code. */
  dispose(): void;
}
/** Tensor<'float32'> has Float32Array data; plain Tensor is a union discriminated by `type`. */
export type Tensor<T extends DType = DType> = T extends DType ? TensorBase<T> : never;

/** Data a Tensor of type T accepts: its typed array, or a plain array of its elements. */
export type TensorDataFor<T extends DType> =
  | TypedArrayFor<T>
  | (T extends 'int64' ? readonly (bigint | number)[]
    : T extends 'bool' ? readonly (boolean | number)[]
    : T extends 'float16' | 'bfloat16' ? never
    : readonly number[]);

export interface TensorConstructor {
  new <T extends DType>(type: T, data: TensorDataFor<T>, dims?: readonly number[]): Tensor<T>;
  new (data: Float32Array, dims?: readonly number[]): Tensor<'float32'>;
  new (data: Float64Array, dims?: readonly number[]): Tensor<'float64'>;
  new (data: BigInt64Array, dims?: readonly number[]): Tensor<'int64'>;
  new (data: Int32Array, dims?: readonly number[]): Tensor<'int32'>;
  new (data: Int16Array, dims?: readonly number[]): Tensor<'int16'>;
  new (data: Int8Array, dims?: readonly number[]): Tensor<'int8'>;
  new (data: Uint8Array | Uint8ClampedArray, dims?: readonly number[]): Tensor<'uint8'>;
  /** Raw float16 bits. */
  new (data: Uint16Array, dims?: readonly number[]): Tensor<'float16'>;
  new (data: readonly boolean[], dims?: readonly number[]): Tensor<'bool'>;
  new (data: readonly bigint[], dims?: readonly number[]): Tensor<'int64'>;
  new (data: readonly number[], dims?: readonly number[]): Tensor<'float32'>;
  readonly prototype: Tensor;
}
export declare const Tensor: TensorConstructor;

export declare namespace InferenceSession {
  /** loadIR's options plus onnxruntime-web's executionProviders: ['webgpu', 'wasm'] or ['wasm'], or one bare provider. */
  interface SessionOptions extends Omit<LoadOptions, 'executionProviders'> {
    executionProviders?: readonly ExecutionProvider[] | ExecutionProvider;
  }
  /** Feeds by input name: Tensors (or any value execute() takes). */
  type FeedsType = Readonly<Record<string, Tensor | TensorLike>> | ReadonlyMap<string, Tensor | TensorLike>;
  /** Output names, or an object keyed by output name (values ignored). */
  type FetchesType = readonly string[] | Readonly<Record<string, Tensor | null>>;
  /** onnxruntime-web's run options are accepted and ignored; carry is execute()'s. */
  interface RunOptions {
    carry?: ExecuteOptions['carry'];
    logSeverityLevel?: 0 | 1 | 2 | 3 | 4;
    logVerbosityLevel?: number;
    tag?: string;
    terminate?: boolean;
  }
  type ReturnType<D extends DType = DType> = Record<string, Tensor<D>>;
}

/**
 * onnxruntime-web's InferenceSession over loadIR / Model.execute (same errors:
 * ExecutionError names a missing/unknown input or output).
 */
export declare class InferenceSession {
  private constructor();
  static create(ir: IRSource, options?: InferenceSession.SessionOptions): Promise<InferenceSession>;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** The loaded model (info(), verify(), toMermaid(), ...). */
  readonly model: LoadedModel;
  /** Outputs by name (all, or those in fetches). run<'float32'>(...) states their dtype (unchecked). */
  run<D extends DType = DType>(feeds: InferenceSession.FeedsType, options?: InferenceSession.RunOptions): Promise<InferenceSession.ReturnType<D>>;
  run<D extends DType = DType>(feeds: InferenceSession.FeedsType, fetches: InferenceSession.FetchesType, options?: InferenceSession.RunOptions): Promise<InferenceSession.ReturnType<D>>;
  /** Frees the model. */
  release(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
  /** Frees the model without waiting (proxy mode: the free is sent to the worker). */
  [Symbol.dispose](): void;
}

// ------------------------------------------------------------------ language models

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
}

export interface GenerateOptions {
  /** Default 32; prompt length + maxNewTokens - 1 must fit max_cache_len. */
  maxNewTokens?: number;
  /** 0 (default) = greedy; > 0 samples. */
  temperature?: number;
  /** Keep the K most likely tokens when sampling (0 = off). */
  topK?: number;
  /** Nucleus sampling threshold (1 = off). */
  topP?: number;
  /** Seed of the sampler (same seed, same tokens). Default 0. */
  seed?: number;
  /** Token ids that end generation (the stop token is included in the result). */
  stop?: Iterable<number>;
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

export declare class LanguageModel {
  private constructor();
  readonly info: { readonly prefillLen: number; readonly maxCacheLen: number; readonly vocabSize: number; readonly numLayers: number };
  readonly backend: { readonly variant: 'simd-threaded' | 'simd'; readonly threads: number };
  /** Of the last generate(); null before. */
  readonly stats: GenerationStats | null;
  readonly disposed: boolean;
  /** ['webgpu', 'wasm'] when generation runs on the GPU, else ['wasm']. */
  readonly executionProviders: readonly ('webgpu' | 'wasm')[];
  /** Per graph, compute nodes per device and transfers per run (as Model.placement()); null on WASM. */
  placement(): { prefill: Placement; decode: Placement } | null;
  /** The new token ids (greedy by default). ExecutionError for bad token ids or options. */
  generate(promptIds: ArrayLike<number>, options?: GenerateOptions): Promise<number[]>;
  dispose(): void;
  [Symbol.dispose](): void;
}

/** Loads an LLM exported as pytorch-ir's prefill/decode IR pair with its KV mapping (errors as loadIR's). */
export declare function loadLM(options: LoadLMOptions): Promise<LanguageModel>;

// ------------------------------------------------------------------ configuration

/** onnxruntime-web's spelling of three env settings: reads and writes env.numThreads / wasmPaths / proxy. */
export interface WasmEnv {
  numThreads: number;
  wasmPaths: WasmPaths | undefined;
  proxy: boolean;
}

/** Global configuration (set before the first load). */
export declare const env: {
  /** Where the dist files live: prefix ending in '/', or {filename: url}. */
  wasmPaths: WasmPaths | undefined;
  /** Default thread count (0 = min(4, cores)); a count above what the pool allows is clamped with a warning. */
  numThreads: number;
  /**
   * Run models in a worker: a Web Worker in pages, a worker thread in Node, so
   * execute() does not block. loadIR then returns ProxyModel (every method
   * async): tell the types with TypeConfig.
   */
  proxy: boolean;
  /** URL of the proxy worker script, for bundlers that do not emit it (default: next to the package's lib/proxy.js). */
  workerPath: string | URL | undefined;
  /** false silences the package's console warnings (unused weight keys, clamped thread counts). Default true. */
  warnings: boolean;
  /** Most ms to wait for the threaded build's pthread workers to start (default 60000); a worker that dies while starting fails the load at once. */
  workerStartTimeoutMs: number;
  /** onnxruntime-web's env.wasm: the same numThreads / wasmPaths / proxy. */
  readonly wasm: WasmEnv;
  /** The GPU of the 'webgpu' provider: device, else adapter, else gpu (navigator.gpu; in Node, dawn.node's create([])); unset: navigator.gpu, else the optional `webgpu` package in Node. strict: no GPU fails the load. */
  webgpu: { device?: unknown; adapter?: unknown; gpu?: unknown; powerPreference?: 'low-power' | 'high-performance'; strict: boolean };
};

/** One instantiated WASM module, shared by the models of its variant. */
export interface Backend {
  readonly variant: 'simd-threaded' | 'simd';
  readonly threaded: boolean;
  readonly numThreads: number;
  /** The worker pool size, fixed when the module loads. */
  readonly maxThreads: number;
  /** Clamped to maxThreads. */
  setNumThreads(n: number): void;
  /** Current WASM memory size in bytes (grows, never shrinks). */
  heapBytes(): number;
  /** null, or why this instance was discarded after a trap (getBackend then returns a new one). */
  readonly dead: string | null;
}
export declare function getBackend(options?: { threads?: number; wasmPaths?: WasmPaths }): Promise<Backend>;

// ------------------------------------------------------------------ errors

/** Base class of the package's errors (also: a disposed model, WASM files that cannot be loaded). */
export declare class TorchIrError extends Error {
  /** The class name: 'IRFormatError', 'WeightLoadError', ... */
  readonly kind: string;
}
/** The IR cannot be read (missing file, HTTP error), is malformed JSON (with line/column), or is not a valid IR. */
export declare class IRFormatError extends TorchIrError {}
/** Weights/constants cannot be read or parsed (truncated, hostile header), a given tensor does not fit, or a weight the graph needs is missing. */
export declare class WeightLoadError extends TorchIrError {}
/** Unsupported ops; bad inputs (missing, unknown, wrong shape/dtype/size); unknown outputs; invalid limits; kernel errors. */
export declare class ExecutionError extends TorchIrError {}
/** Expected values given to verify() that cannot be used (a mismatch is a report, not this error). */
export declare class VerificationError extends TorchIrError {}
/**
 * The WASM engine trapped (out-of-bounds access, unreachable, abort, stack
 * overflow, a crashed pthread worker), or a model was used after such a trap.
 * The instance was discarded: the next load builds a fresh one. (Proxy mode: the worker died.)
 */
export declare class EngineTrapError extends ExecutionError {}

// ------------------------------------------------------------------ files and reports

/** Reads .safetensors bytes (fixture io files) into name -> tensor. WeightLoadError for a malformed file. */
export declare function parseSafetensors(bytes: ArrayBuffer | ArrayBufferView, origin?: string): Map<string, TensorData>;
export declare function writeSafetensors(tensors: readonly OutputTensor[] | ReadonlyMap<string, TensorData>): Uint8Array;
/** Fixture io file -> {inputs: {name: tensor}, outputs: [tensor]} (input.<name>, output.<i>). */
export declare function splitIo(tensors: ReadonlyMap<string, TensorData>): { inputs: Record<string, TensorData>; outputs: TensorData[] };
/** The native CLI's verification report text. */
export declare function formatReport(report: VerifyReport): string;
/** JSON.parse that also accepts the bare Infinity / -Infinity / NaN tokens Python writes into IR files. */
export declare function parseIRJson(text: string): any;

// `using` / `await using` need these symbols; declared here too (as @types/node
// does) so that projects whose `lib` predates them still compile this file.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
    readonly asyncDispose: unique symbol;
  }
}
