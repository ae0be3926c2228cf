// The API onnxruntime-web users know (Tensor, InferenceSession.create,
// session.run), as a thin layer over loadIR / Model.execute: the checks that
// matter stay in Model and the engine; this file only renames things.
import { loadIR } from './load_model.js';
import { DTYPE_ARRAY, dtypeOfArray, isTypedArray, numel, toTensor } from './tensor.js';
import type { DType, OutputTensor, TensorLike, TypedArray, TypedArrayFor } from './tensor_types.js';
import type { ExecuteOptions, ExecutionProvider, IRSource, LoadOptions, LoadedModel } from './model_types.js';

/**
 * A tensor like onnxruntime-web's. Build one with
 * `new Tensor(type, data, dims?)` (a plain array is converted; a typed array
 * must be the type's class) or `new Tensor(typedArray, dims?)` (the type follows
 * the class; Uint16Array means float16). dims default to [data.length].
 * Throws TypeError for an unknown/unsupported type or a wrong data class,
 * RangeError when data does not fill dims. `Tensor.fromGpuBuffer` wraps a GPUBuffer.
 */
export interface TensorBase<T extends DType> {
  readonly type: T;
  readonly dims: readonly number[];
  /** The elements; throws for a tensor on the GPU (getData() reads it back). */
  readonly data: TypedArrayFor<T>;
  /** Number of elements. */
  readonly size: number;
  /** 'cpu', or 'gpu-buffer' for a tensor in a GPUBuffer (fromGpuBuffer, or a session's output left on the GPU). */
  readonly location: 'cpu' | 'gpu-buffer';
  /** The GPUBuffer of a 'gpu-buffer' tensor (throws for a CPU tensor). */
  readonly gpuBuffer: unknown;
  /** Aliases of dims / type, so a Tensor is also a TensorValue. */
  readonly shape: readonly number[];
  readonly dtype: T;
  /** The elements; a GPU tensor's are read back (its download function), then freed with releaseData. */
  getData(releaseData?: boolean): Promise<TypedArrayFor<T>>;
  reshape(dims: readonly number[]): Tensor<T>;
  /** A GPU tensor: its dispose function (a session's output: destroys the buffer). A CPU tensor: nothing to free. */
  dispose(): void;
}

/** Tensor.fromGpuBuffer's options, as onnxruntime-web's: the element type, dims, and how to read and free it. */
export interface GpuBufferTensorOptions<T extends DType> {
  dataType: T;
  dims: readonly number[];
  /** Reads the elements back (getData()); without it, getData() throws. A WebGPU model reads a GPU input itself. */
  download?: () => Promise<TypedArrayFor<T>>;
  /** Called by dispose(). */
  dispose?: () => void;
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
  /** A tensor in a GPUBuffer (STORAGE | COPY_SRC usage, of the model's device), for run() feeds. */
  fromGpuBuffer<T extends DType>(buffer: unknown, options: GpuBufferTensorOptions<T>): Tensor<T>;
  readonly prototype: Tensor;
}

const DTYPES = Object.keys(DTYPE_ARRAY);
// onnxruntime-web type names this engine has no tensors for.
const ORT_ONLY = new Set(['uint16', 'uint32', 'uint64', 'string', 'int4', 'uint4', 'float8e4m3fn', 'float8e5m2']);

function checkType(type: string): DType {
  if (DTYPE_ARRAY[type as DType]) return type as DType;
  const why = ORT_ONLY.has(type) ? 'is not supported by torch-ir-wasm' : 'is not a tensor type';
  throw new TypeError(`Tensor: type '${type}' ${why} (types: ${DTYPES.join(', ')})`);
}

// A plain array's type when none is given: booleans -> bool, bigints -> int64, else float32.
function arrayType(a: readonly unknown[]): DType {
  if (a.length > 0 && a.every((x) => typeof x === 'boolean')) return 'bool';
  if (a.length > 0 && a.every((x) => typeof x === 'bigint')) return 'int64';
  return 'float32';
}

/**
 * A tensor on the CPU, as onnxruntime-web's: {type, dims, data, size}. (A class expression: the
 * value is typed by TensorConstructor's per-dtype overloads, the instances by Tensor<T>.)
 */
export const Tensor = class Tensor {
  readonly type: DType;
  readonly dims: readonly number[];
  readonly data!: TypedArray;
  readonly size: number;
  /** @internal a 'gpu-buffer' tensor's buffer and functions */
  _gpu?: { buffer: unknown; download?: () => Promise<TypedArray>; dispose?: () => void };

  /**
   * new Tensor(type, data, dims?) or new Tensor(typedArray, dims?) (type from
   * the array: Float32Array -> float32, BigInt64Array -> int64, Uint8Array ->
   * uint8, Uint16Array -> float16 raw bits, ...). A typed array must be the
   * type's own class (no silent conversion); a plain array is converted.
   * dims default to [data.length].
   */
  constructor(typeOrData: string | TypedArray | readonly unknown[], dataOrDims?: unknown, maybeDims?: readonly number[]) {
    let type: DType | undefined;
    let data: unknown;
    let dims: unknown;
    if (typeof typeOrData === 'string') {
      type = checkType(typeOrData);
      data = dataOrDims;
      dims = maybeDims;
    } else {
      data = typeOrData;
      dims = dataOrDims;
      if (isTypedArray(data)) type = dtypeOfArray(data);
      else if (Array.isArray(data)) type = arrayType(data);
      if (!type) throw new TypeError(`Tensor: cannot infer a type from ${Object.prototype.toString.call(data)}; use new Tensor(type, data, dims)`);
    }
    const clamped = data instanceof Uint8ClampedArray && type === 'uint8'; // copied into a Uint8Array
    if (isTypedArray(data) && !(data instanceof DTYPE_ARRAY[type!]) && !clamped) {
      throw new TypeError(`Tensor: ${type} data must be a ${DTYPE_ARRAY[type!].name} (or a plain array), got ${data.constructor.name}`);
    }
    if (!isTypedArray(data) && !Array.isArray(data)) {
      throw new TypeError(`Tensor: data must be a typed array or an array, got ${Object.prototype.toString.call(data)}`);
    }
    if (dims !== undefined && (dims === null || typeof (dims as Iterable<unknown>)[Symbol.iterator] !== 'function')) {
      throw new TypeError('Tensor: dims must be an array of non-negative integers');
    }
    const shape = dims === undefined ? undefined : Array.from(dims as Iterable<unknown>, Number);
    const t = toTensor({ data, dtype: type, shape }, undefined, (msg) => {
      throw (/element\(s\) but shape|invalid shape/.test(msg) ? new RangeError(`Tensor: ${msg}`) : new TypeError(`Tensor: ${msg}`));
    });
    /** Element type ('float32', 'int64', ...). */
    this.type = type!;
    /** The shape. */
    this.dims = Object.freeze(t.shape);
    /** The elements (float16/bfloat16: raw bits in a Uint16Array; bool: 0/1 in a Uint8Array). */
    this.data = t.data;
    /** Number of elements. */
    this.size = numel(t.shape);
  }

  /**
   * A tensor whose elements are in a GPUBuffer, as onnxruntime-web's:
   * Tensor.fromGpuBuffer(buffer, {dataType, dims, download?, dispose?}). A WebGPU session takes
   * a float32 / int32 one as a feed without reading it back (docs/webgpu.md).
   */
  static fromGpuBuffer(buffer: unknown, options: GpuBufferTensorOptions<DType>): Tensor {
    if (!buffer || typeof (buffer as { size?: unknown }).size !== 'number') throw new TypeError('Tensor.fromGpuBuffer: buffer must be a GPUBuffer');
    if (!options || typeof options !== 'object') throw new TypeError('Tensor.fromGpuBuffer: options {dataType, dims} are required');
    const { dataType, dims, download, dispose } = options;
    const type = checkType(dataType);
    if (!dims || typeof (dims as Iterable<unknown>)[Symbol.iterator] !== 'function') throw new TypeError('Tensor.fromGpuBuffer: dims must be an array of non-negative integers');
    const shape = Array.from(dims as Iterable<unknown>, Number);
    if (shape.some((d) => !Number.isInteger(d) || d < 0)) throw new TypeError(`Tensor.fromGpuBuffer: invalid dims [${shape.join(', ')}]`);
    for (const [k, f] of [['download', download], ['dispose', dispose]] as const) {
      if (f !== undefined && typeof f !== 'function') throw new TypeError(`Tensor.fromGpuBuffer: ${k} must be a function`);
    }
    const t = Object.create(Tensor.prototype) as { -readonly [K in keyof Tensor]: Tensor[K] };
    t.type = type;
    t.dims = Object.freeze(shape);
    t.size = numel(shape);
    t._gpu = { buffer, download, dispose };
    Object.defineProperty(t, 'data', {
      get() {
        throw new Error('The data is not on CPU. Use `getData()` to download GPU data to CPU, or use `gpuBuffer` property to access the GPU data directly.');
      },
    });
    return t as unknown as Tensor;
  }

  /** dims and type under this package's names: a Tensor is also a {data, shape, dtype} value for execute/verify. */
  get shape(): readonly number[] {
    return this.dims;
  }

  get dtype(): DType {
    return this.type;
  }

  /** 'cpu', or 'gpu-buffer' (onnxruntime-web's data location). */
  get location(): 'cpu' | 'gpu-buffer' {
    return this._gpu ? 'gpu-buffer' : 'cpu';
  }

  /** The GPUBuffer of a 'gpu-buffer' tensor. */
  get gpuBuffer(): unknown {
    if (!this._gpu) throw new Error('The data is not stored as a WebGPU buffer.');
    return this._gpu.buffer;
  }

  /** The data; a GPU tensor's read back by its download function (then disposed with releaseData). */
  async getData(releaseData?: boolean): Promise<TypedArray> {
    if (!this._gpu) return this.data;
    if (!this._gpu.download) throw new Error('Tensor.getData: this GPU tensor has no download function (Tensor.fromGpuBuffer\'s options.download)');
    const data = await this._gpu.download();
    if (releaseData) this.dispose();
    return data;
  }

  /** A tensor of the same data with other dims (same element count); a GPU tensor shares its buffer. */
  reshape(dims: readonly number[]): Tensor {
    if (!this._gpu) return new Tensor(this.type, this.data, dims);
    if (numel(dims) !== this.size) throw new RangeError(`Tensor.reshape: dims [${dims.join(', ')}] do not hold ${this.size} element(s)`);
    return Tensor.fromGpuBuffer(this._gpu.buffer, { dataType: this.type, dims, download: this._gpu.download as GpuBufferTensorOptions<DType>["download"], dispose: this._gpu.dispose });
  }

  /** A GPU tensor: calls its dispose function (once). A CPU tensor: nothing to free. */
  dispose(): void {
    const f = this._gpu?.dispose;
    if (this._gpu) this._gpu.dispose = undefined;
    f?.();
  }
} as unknown as TensorConstructor;

// An output {name, shape, dtype, data} -> Tensor (data is already its dtype's class); one left on
// the GPU -> a 'gpu-buffer' Tensor over its buffer.
function outputTensor(o: OutputTensor): Tensor {
  if (o.location === 'gpu-buffer') {
    return Tensor.fromGpuBuffer(o.gpuBuffer, { dataType: o.dtype, dims: o.shape, download: o.getData as () => Promise<any>, dispose: o.dispose });
  }
  return new Tensor(o.dtype, o.data, o.shape);
}

// onnxruntime-web's option and argument types, under InferenceSession (merged with the class).
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
export class InferenceSession {
  /** @internal */
  _model: LoadedModel;

  // Private: sessions come from InferenceSession.create.
  private constructor(model: LoadedModel) {
    this._model = model;
  }

  /**
   * Loads a model: ir as loadIR takes it; options = loadIR's options (weights,
   * signal, onProgress, fetchOptions, ...) with executionProviders: ['webgpu', 'wasm'] or
   * ['wasm'] (a single provider may be given bare, as onnxruntime-web allows).
   */
  static async create(ir: IRSource, options: InferenceSession.SessionOptions = {}): Promise<InferenceSession> {
    const { executionProviders, ...rest } = options ?? {};
    const loadOptions: LoadOptions = rest;
    if (executionProviders !== undefined) {
      loadOptions.executionProviders = Array.isArray(executionProviders) ? executionProviders : [executionProviders];
    }
    return new InferenceSession(await loadIR(ir, loadOptions));
  }

  /** The loaded model (info(), verify(), toMermaid(), ...). */
  get model(): LoadedModel {
    return this._model;
  }

  get inputNames(): readonly string[] {
    return this._model.inputs.map((m) => m.name);
  }

  get outputNames(): readonly string[] {
    return this._model.outputs.map((m) => m.name);
  }

  /**
   * run(feeds, fetches?, options?) -> {outputName: Tensor}.
   * feeds: {inputName: Tensor} or a Map (any value execute() takes works too).
   * fetches: output names (array), or an object keyed by output name (values
   * ignored); default all. options: execute()'s options (carry).
   * As in onnxruntime-web, run(feeds, options) is accepted too.
   * run<'float32'>(...) states the outputs' dtype (unchecked).
   */
  run<D extends DType = DType>(feeds: InferenceSession.FeedsType, options?: InferenceSession.RunOptions): Promise<InferenceSession.ReturnType<D>>;
  run<D extends DType = DType>(feeds: InferenceSession.FeedsType, fetches: InferenceSession.FetchesType,
    options?: InferenceSession.RunOptions): Promise<InferenceSession.ReturnType<D>>;
  async run(feeds: any, fetches?: any, options?: any): Promise<Record<string, Tensor>> {
    if (feeds === null || typeof feeds !== 'object' || Array.isArray(feeds) || isTypedArray(feeds) || feeds instanceof Tensor) {
      throw new TypeError('InferenceSession.run: feeds must be an object (or Map) keyed by input name');
    }
    let names: string[] | undefined;
    if (Array.isArray(fetches)) {
      names = fetches;
    } else if (fetches && typeof fetches === 'object') {
      const keys = Object.keys(fetches);
      if (keys.some((k) => this.outputNames.includes(k))) names = keys;
      else if (options === undefined) options = fetches; // run(feeds, runOptions)
      else throw new TypeError(`InferenceSession.run: fetches names no output (outputs: ${this.outputNames.join(', ')})`);
    } else if (fetches !== undefined && fetches !== null) {
      throw new TypeError('InferenceSession.run: fetches must be an array of output names or an object keyed by output name');
    }
    const inputs = feeds instanceof Map ? Object.fromEntries(feeds) : feeds;
    const outputs = await this._model.execute(inputs, { carry: options?.carry, outputs: names });
    const result: Record<string, Tensor> = {};
    for (const o of outputs) result[o.name] = outputTensor(o);
    return result;
  }

  /** Frees the model (awaits the worker in proxy mode). */
  async release(): Promise<void> {
    await this._model.dispose();
  }
}

// `await using` / `using`, where the runtime has the symbols.
export interface InferenceSession {
  [Symbol.asyncDispose](): Promise<void>;
  /** Frees the model without waiting (proxy mode: the free is sent to the worker). */
  [Symbol.dispose](): void;
}
if (typeof Symbol.asyncDispose === 'symbol') InferenceSession.prototype[Symbol.asyncDispose] = InferenceSession.prototype.release;
if (typeof Symbol.dispose === 'symbol') {
  // `using`: frees at once (proxy mode: the free is sent to the worker, not awaited).
  InferenceSession.prototype[Symbol.dispose] = function dispose(this: InferenceSession) {
    Promise.resolve(this._model.dispose()).catch(() => {});
  };
}
