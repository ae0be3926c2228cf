// Type declarations for torch-ir-wasm (hand-written; see README.md).

/** IR dtype names. float16/bfloat16 data is raw bits in a Uint16Array. */
export type DType =
  | 'float32' | 'float64' | 'float16' | 'bfloat16'
  | 'int64' | 'int32' | 'int16' | 'int8' | 'uint8' | 'bool';

export type TypedArray =
  | Float32Array | Float64Array | BigInt64Array | Int32Array | Int16Array | Int8Array
  | Uint8Array | Uint8ClampedArray | Uint16Array;

/** Tensor data with its shape and dtype (shape/dtype default to the IR's metadata). */
export interface TensorValue {
  data: TypedArray | ArrayLike<number | bigint | boolean>;
  shape?: readonly number[];
  /** IR name ('float32'), safetensors name ('F32') or 'torch.float32'. */
  dtype?: DType | string;
}

/** An input / expected value: a typed array (shape from the IR), a plain (nested) array, or a TensorValue. */
export type TensorLike = TypedArray | ArrayLike<number | bigint | boolean> | number[][] | TensorValue;

/** An output tensor. data: Float32Array, Float64Array, BigInt64Array, Int32Array, Uint8Array (bool), ... */
export interface Tensor {
  name: string;
  shape: number[];
  dtype: DType;
  data: TypedArray;
}

export interface TensorInfo {
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
}

/** A file: a path (Node), a URL (fetched), a Blob/File, or its bytes. */
export type Source = string | URL | Blob | ArrayBuffer | ArrayBufferView;

/** .safetensors / torch.save bytes or location, tensors by original name, or a list of those. */
export type TensorSource =
  | Source
  | Record<string, TensorValue | TypedArray>
  | Map<string, TensorValue | TypedArray>
  | TensorSource[];

/** A string prefix ending in '/' or a map from dist file name to its URL/path. */
export type WasmPaths = string | URL | Record<string, string | URL>;

export interface Progress {
  loaded: number;
  /** 0 when the server sends no content-length. */
  total: number;
  /** Path or URL being read. */
  source: string;
}

export type WeightDtype = 'float32' | 'float16' | 'bfloat16';

export interface LoadOptions {
  /** state_dict keyed by original names: .safetensors / torch.save bytes, a path/URL, or {key: {data, shape, dtype}}. */
  weights?: TensorSource;
  /** Lifted constants / non-persistent buffers by original name; they override the IR's own constants. */
  constants?: TensorSource;
  /** 1 = single-threaded build. Otherwise the threaded build where possible (Node; cross-origin isolated pages), with this many threads (default: all cores). */
  threads?: number;
  /** Where the .wasm/.js files are (overrides env.wasmPaths). */
  wasmPaths?: WasmPaths;
  /** Called while reading/fetching the IR, weights and constants. */
  onProgress?: (p: Progress) => void;
  /** Record per-node timings (model.profile()). */
  profile?: boolean;
  /** Compile (bind weights, plan memory) in loadIR. Default: true when weights or constants are given, else at the first execute. */
  compile?: boolean;
  /** How linear/matmul/addmm/mm store their constant weights: 'float32' (default), or 'float16' / 'bfloat16' (half the bytes, widened in the kernel, float32 accumulation). */
  weightDtype?: WeightDtype;
  /** Resource caps checked at compile, before any allocation (a hostile IR fails with the node's name). */
  limits?: Limits;
}

/**
 * Caps the engine checks when it compiles a model. Each is a non-negative
 * integer; 0 or absent = the build's default (src/runtime/limits.cpp; in WASM
 * about what 32-bit memory can address). Unknown keys are refused.
 */
export interface Limits {
  /** Bytes of any one tensor (a view counts its logical size). */
  maxTensorBytes?: number;
  /** Bytes of the planned activation arena plus prepared weight copies. */
  maxArenaBytes?: number;
  /** Work of one run: the sum over nodes of their largest tensor's element count. */
  maxRunWork?: number;
}

/** Inputs in graph_inputs order, or keyed by input name. */
export type Inputs = TensorLike[] | Record<string, TensorLike> | TypedArray;

export interface ExecuteOptions {
  carry?: Record<string, string> | Map<string, string>;
  outputs?: readonly string[];
}

export interface VerifyOptions {
  /** Default 1e-5. */
  rtol?: number;
  /** Default 1e-5. */
  atol?: number;
}

export interface OutputDetail {
  index: number;
  shape: number[];
  isClose: boolean;
  maxDiff: number;
  meanDiff: number;
}

/** pytorch-ir's verify_ir report, camelCased. */
export interface VerifyReport {
  isValid: boolean;
  maxDiff: number;
  meanDiff: number;
  numOutputs: number;
  outputDetails: OutputDetail[];
  /** null when valid. */
  errorMessage: string | null;
}

export interface NodeTiming {
  node: string;
  opType: string;
  ms: number;
  /** IR nodes fused into this one (batch norm, residual add, relu/clamp); their time is included. */
  covers: string[];
}

export declare class Model {
  private constructor();
  /** graph_inputs metadata from the IR. */
  readonly inputs: readonly TensorInfo[];
  /** graph_outputs metadata from the IR. */
  readonly outputs: readonly TensorInfo[];
  /** Which build runs the model (proxy: true when it runs in the env.proxy worker). */
  readonly backend: { variant: 'simd-threaded' | 'simd'; threads: number; proxy?: boolean };
  readonly disposed: boolean;
  /**
   * options.carry {inputName: outputName}: inputs left out of `inputs` take that output of the previous
   * run inside the engine (free when the graph updates the input in place: the input is donated).
   * options.outputs: names of the outputs to return (default all).
   */
  execute(inputs: Inputs | Record<string, TensorLike>, options?: ExecuteOptions): Promise<Tensor[]>;
  /** Bytes the last execute() copied to carry outputs into inputs (0 when they were donated). */
  readonly lastCarryBytes: number;
  verify(inputs: Inputs, expected: TensorLike[] | Record<string, TensorLike>, options?: VerifyOptions): Promise<VerifyReport>;
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
  bufferValue(name: string): Tensor;
  /** Restores every in-place-written buffer to its loaded value. */
  resetBuffers(): void;
  /** Bytes of the activation arena. */
  arenaBytes(): number;
  /** Frees the model's WASM memory; the model is unusable afterwards. */
  dispose(): void;
}

/** Loads an IR (JSON string, parsed object, bytes, path or URL) with its weights. */
export declare function loadIR(ir: string | URL | Blob | ArrayBuffer | ArrayBufferView | object, options?: LoadOptions): Promise<Model>;
export declare function execute(model: Model, inputs: Inputs, options?: ExecuteOptions): Promise<Tensor[]>;
export declare function verify(model: Model, inputs: Inputs, expected: TensorLike[] | Record<string, TensorLike>, options?: VerifyOptions): Promise<VerifyReport>;

/** Where loadLM finds an IR or KV mapping: JSON text, a parsed object, bytes, a path or URL, or a Blob. */
export type JsonSource = string | URL | Blob | ArrayBuffer | ArrayBufferView | object;

export interface LoadLMOptions {
  /** pytorch-ir prefill IR: input_ids [1,P], attention_mask [1,1,P,P], position_ids [1,P] -> logits, then each layer's key and value. */
  prefill: JsonSource;
  /** Decode IR: input_ids [1,1], attention_mask [1,1,1,C], position_ids [1,1], cache_position [1], past caches -> logits, updated caches. */
  decode: JsonSource;
  /** {num_layers, prefill_seq_len, max_cache_len, layers: [{prefill_key_output, ..., decode_value_output}]}. */
  kvMapping: JsonSource;
  /** One state_dict for both IRs. */
  weights?: TensorSource;
  constants?: TensorSource;
  threads?: number;
  wasmPaths?: WasmPaths;
  onProgress?: (p: Progress) => void;
  /** Update the decode caches in place (donated input slots; default true). false copies them every step: same tokens, O(max_cache_len) per step. */
  donate?: boolean;
  /** As LoadOptions.weightDtype: 'float16' / 'bfloat16' halve the weight bytes each decode step reads. */
  weightDtype?: WeightDtype;
  /** As LoadOptions.limits, for both IRs. */
  limits?: Limits;
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
  /** 0 when the caches are updated in place (donate: true). */
  cacheBytesCopiedPerStep: number;
}

export declare class LanguageModel {
  private constructor();
  readonly info: { readonly prefillLen: number; readonly maxCacheLen: number; readonly vocabSize: number; readonly numLayers: number };
  readonly backend: { variant: 'simd-threaded' | 'simd'; threads: number };
  /** Of the last generate(); null before. */
  readonly stats: GenerationStats | null;
  readonly disposed: boolean;
  /** The new token ids (greedy by default). */
  generate(promptIds: ArrayLike<number>, options?: GenerateOptions): Promise<number[]>;
  dispose(): void;
  [Symbol.dispose](): void;
}

/** Loads an LLM exported as pytorch-ir's prefill/decode IR pair with its KV mapping. */
export declare function loadLM(options: LoadLMOptions): Promise<LanguageModel>;

/** Global configuration. */
export declare const env: {
  /** Default location of the dist files: prefix ending in '/', or {filename: url}. */
  wasmPaths: WasmPaths | undefined;
  /** Default thread count (0 = all cores). */
  numThreads: number;
  /**
   * Pages only: run models in a dedicated Web Worker so execute() does not block the page.
   * Model methods then all return Promises (info(), toMermaid(), ... included): `await` them.
   */
  proxy: boolean;
  /** Most ms to wait for the threaded build's pthread workers to start when a module loads (default 60000); a worker that dies while starting fails the load at once. */
  workerStartTimeoutMs: number;
};

/** One instantiated WASM module, shared by the models of its variant. */
export interface Backend {
  readonly variant: 'simd-threaded' | 'simd';
  readonly threaded: boolean;
  readonly numThreads: number;
  /** The worker pool size, fixed when the module loads (max of the first requested threads and the core count). */
  readonly maxThreads: number;
  /** Clamped to maxThreads. */
  setNumThreads(n: number): void;
  /** Current WASM memory size in bytes (grows, never shrinks). */
  heapBytes(): number;
  /** null, or why this instance was discarded after a trap (getBackend then returns a new one). */
  readonly dead: string | null;
}
export declare function getBackend(options?: { threads?: number; wasmPaths?: WasmPaths }): Promise<Backend>;

export declare class TorchIrError extends Error {
  readonly kind: string;
}
/** Malformed JSON (with line/column) or an invalid IR. */
export declare class IRFormatError extends TorchIrError {}
/** Unreadable/truncated weights or constants. */
export declare class WeightLoadError extends TorchIrError {}
/** Unsupported ops, missing weights/constants, bad inputs, kernel errors. */
export declare class ExecutionError extends TorchIrError {}
/** Bad expected values given to verify(). */
export declare class VerificationError extends TorchIrError {}
/**
 * The WASM engine trapped (out-of-bounds access, unreachable, abort, stack
 * overflow, a crashed pthread worker), or a model was used after such a trap.
 * The instance was discarded: models loaded on it throw this on every call,
 * and the next load builds a fresh instance. (Proxy mode: the worker died.)
 */
export declare class EngineTrapError extends ExecutionError {}

/** Reads .safetensors bytes (fixture io files) into name -> tensor. */
export declare function parseSafetensors(bytes: ArrayBuffer | ArrayBufferView, origin?: string): Map<string, Omit<Tensor, 'name'>>;
export declare function writeSafetensors(tensors: Tensor[] | Map<string, Omit<Tensor, 'name'>>): Uint8Array;
/** Fixture io file -> {inputs: {name: tensor}, outputs: [tensor]} (input.<name>, output.<i>). */
export declare function splitIo(tensors: Map<string, Omit<Tensor, 'name'>>): { inputs: Record<string, Omit<Tensor, 'name'>>; outputs: Omit<Tensor, 'name'>[] };
/** The native CLI's verification report text. */
export declare function formatReport(report: VerifyReport): string;
/** JSON.parse that also accepts the bare Infinity / -Infinity / NaN tokens Python writes into IR files. */
export declare function parseIRJson(text: string): any;
