// The public types of loadIR and Model: what a load takes (sources, options),
// what execute/verify take and report, and which model class loadIR resolves
// to (TypeConfig). Types only (this module emits no JavaScript).
import type { Limits } from './limits.js';
import type { Model } from './model.js';
import type { ProxyModel } from './proxy.js';
import type { LanguageModel } from './lm.js';
import type { ProxyLanguageModel } from './proxy_lm.js';
import type { TensorLike, TensorValue, TypedArray } from './tensor_types.js';

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
  /** On 'done': true when the file came from env.cache (no request was made). */
  cached?: boolean;
}

export type WeightDtype = 'float32' | 'float16' | 'bfloat16' | 'int8' | 'int4';

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
  /**
   * How linear/matmul/addmm/mm store their constant weights: 'float32' (default), or 'float16' /
   * 'bfloat16' (half the bytes, float32 accumulation). 'int8' / 'int4': each linear with a
   * float32 weight quantizes it at load (symmetric: int8 per output channel, int4 in groups of
   * `weightGroupSize` along its input features) and runs on the integer kernels, each input row
   * quantized at run time (asymmetric int8), on WASM (docs/quantization.md).
   */
  weightDtype?: WeightDtype;
  /** weightDtype 'int4': input features per group (a positive multiple of 4; default 32). */
  weightGroupSize?: number;
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
  /**
   * Where execute() leaves the outputs, as onnxruntime-web's session option: 'cpu' (default:
   * typed arrays) or 'gpu-buffer' (a GPUBuffer of the model's device, owned by the output: read
   * it with `await out.getData()`, free it with `out.dispose()`), for all outputs or per output
   * name. 'gpu-buffer' needs the model on WebGPU. A float32 / int32 output the GPU made is
   * copied on the GPU; any other is uploaded from the CPU in its CPU layout (docs/webgpu.md).
   */
  preferredOutputLocation?: OutputLocation | Readonly<Record<string, OutputLocation>>;
  /**
   * Keep every node's output of a run for model.intermediate(name): fusion is off and each value
   * has its own memory; on WebGPU each GPU node's outputs are read back after it runs (a sync per
   * node). For debugging (compareProviders), not for speed.
   */
  keepIntermediates?: boolean;
  /** @internal Run the graph in float64 (compareProviders' reference; SessionOptions::float64). */
  float64?: boolean;
}

/** Where an output is left: read back to a typed array, or in a GPU buffer. */
export type OutputLocation = 'cpu' | 'gpu-buffer';

export type ExecutionProvider = 'webgpu' | 'wasm' | { readonly name: 'webgpu' | 'wasm' };

/** Where a model's compute nodes run (views are not counted) and the value moves of one run. */
export interface Placement {
  nodes: { webgpu: number; wasm: number };
  transfers: { uploads: number; downloads: number };
  /**
   * On WebGPU: every compute node that stays on WASM, by its IR name, with why (no WebGPU kernel
   * for the op, its dtypes or shapes, data-dependent shapes, a value over the device's binding
   * limit, ...). A node fused into another's GPU kernel is not listed. Absent on a WASM-only model.
   */
  wasmNodes?: { node: string; opType: string; why: string }[];
  /**
   * Bytes of the bound weights held in WASM memory, and of those streamed to the GPU only (never
   * copied into WASM memory: safetensors weights that only GPU nodes read). Model.placement() only.
   */
  weights?: { wasm: number; webgpu: number };
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
  /**
   * The report as the CLIs print it (`torchir verify`, `torch-ir-wasm verify`), written by the
   * engine (src/verify): the rtol/atol lines, then the float64 lines with reference64.
   */
  text: string;
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
   * On a WebGPU model: where it ran. A 'webgpu' entry is one GPU node; a 'wasm' entry is a
   * segment of WASM nodes (node: the first, covers: the others).
   */
  device?: 'webgpu' | 'wasm';
  /**
   * On a WebGPU model: how `ms` was measured. 'gpu': the node's GPU time from timestamp queries
   * (a device with 'timestamp-query'); 'wall': from submit to done, the run syncing after every
   * GPU node (~tens of µs of latency each), or a WASM segment's run.
   */
  clock?: 'gpu' | 'wall';
}

export type Expected = readonly TensorLike[] | Readonly<Record<string, TensorLike>> | TypedArray;

/**
 * Compile-time settings, filled in by declaration merging. An app that sets
 * `env.proxy = true` declares
 *   declare module 'torch-ir-wasm' { interface TypeConfig { proxy: true } }
 * and loadIR then returns ProxyModel; `proxy: boolean` (set at run time either
 * way) gives Model | ProxyModel. Default: Model.
 */
export interface TypeConfig {}
type ProxySetting = TypeConfig extends { proxy: infer P extends boolean } ? P : false;
/** What loadIR resolves to under TypeConfig: Model, ProxyModel, or either. */
export type LoadedModel = [ProxySetting] extends [true] ? ProxyModel : [ProxySetting] extends [false] ? Model : Model | ProxyModel;
/** What loadLM resolves to under TypeConfig: LanguageModel, ProxyLanguageModel, or either. */
export type LoadedLM = [ProxySetting] extends [true] ? ProxyLanguageModel : [ProxySetting] extends [false] ? LanguageModel : LanguageModel | ProxyLanguageModel;
