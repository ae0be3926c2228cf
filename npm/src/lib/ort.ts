// The API onnxruntime-web users know (Tensor, InferenceSession.create,
// session.run), as a thin layer over loadIR / Model.execute: the checks that
// matter stay in Model and the engine; this file only renames things.
import { loadIR } from './model.js';
import { DTYPE_ARRAY, dtypeOfArray, isTypedArray, numel, toTensor } from './tensor.js';

const DTYPES = Object.keys(DTYPE_ARRAY);
// onnxruntime-web type names this engine has no tensors for.
const ORT_ONLY = new Set(['uint16', 'uint32', 'uint64', 'string', 'int4', 'uint4', 'float8e4m3fn', 'float8e5m2']);

function checkType(type) {
  if (DTYPE_ARRAY[type]) return type;
  const why = ORT_ONLY.has(type) ? 'is not supported by torch-ir-wasm' : 'is not a tensor type';
  throw new TypeError(`Tensor: type '${type}' ${why} (types: ${DTYPES.join(', ')})`);
}

// A plain array's type when none is given: booleans -> bool, bigints -> int64, else float32.
function arrayType(a) {
  if (a.length > 0 && a.every((x) => typeof x === 'boolean')) return 'bool';
  if (a.length > 0 && a.every((x) => typeof x === 'bigint')) return 'int64';
  return 'float32';
}

/** A tensor on the CPU, as onnxruntime-web's: {type, dims, data, size}. */
export class Tensor {
  /**
   * new Tensor(type, data, dims?) or new Tensor(typedArray, dims?) (type from
   * the array: Float32Array -> float32, BigInt64Array -> int64, Uint8Array ->
   * uint8, Uint16Array -> float16 raw bits, ...). A typed array must be the
   * type's own class (no silent conversion); a plain array is converted.
   * dims default to [data.length].
   */
  constructor(typeOrData, dataOrDims, maybeDims) {
    let type;
    let data;
    let dims;
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
    if (isTypedArray(data) && !(data instanceof DTYPE_ARRAY[type]) && !clamped) {
      throw new TypeError(`Tensor: ${type} data must be a ${DTYPE_ARRAY[type].name} (or a plain array), got ${data.constructor.name}`);
    }
    if (!isTypedArray(data) && !Array.isArray(data)) {
      throw new TypeError(`Tensor: data must be a typed array or an array, got ${Object.prototype.toString.call(data)}`);
    }
    if (dims !== undefined && (dims === null || typeof dims[Symbol.iterator] !== 'function')) {
      throw new TypeError('Tensor: dims must be an array of non-negative integers');
    }
    const shape = dims === undefined ? undefined : Array.from(dims, Number);
    const t = toTensor({ data, dtype: type, shape }, undefined, (msg) => {
      throw (/element\(s\) but shape|invalid shape/.test(msg) ? new RangeError(`Tensor: ${msg}`) : new TypeError(`Tensor: ${msg}`));
    });
    /** Element type ('float32', 'int64', ...). */
    this.type = type;
    /** The shape. */
    this.dims = Object.freeze(t.shape);
    /** The elements (float16/bfloat16: raw bits in a Uint16Array; bool: 0/1 in a Uint8Array). */
    this.data = t.data;
    /** Number of elements. */
    this.size = numel(t.shape);
  }

  /** dims and type under this package's names: a Tensor is also a {data, shape, dtype} value for execute/verify. */
  get shape() {
    return this.dims;
  }

  get dtype() {
    return this.type;
  }

  /** Always 'cpu' (onnxruntime-web's data location). */
  get location() {
    return 'cpu';
  }

  /** The data (async, like onnxruntime-web's for GPU tensors). */
  async getData() {
    return this.data;
  }

  /** A tensor of the same data with other dims (same element count). */
  reshape(dims) {
    return new Tensor(this.type, this.data, dims);
  }

  /** Nothing to free (the data is a JS typed array); here for onnxruntime-web code. */
  dispose() {}
}

// An output {name, shape, dtype, data} -> Tensor (data is already its dtype's class).
function outputTensor(o) {
  return new Tensor(o.dtype, o.data, o.shape);
}

/** onnxruntime-web's InferenceSession over a Model (or a proxy-mode model). */
export class InferenceSession {
  /** @internal use InferenceSession.create */
  constructor(model) {
    this._model = model;
  }

  /**
   * Loads a model: ir as loadIR takes it; options = loadIR's options (weights,
   * signal, onProgress, fetchOptions, ...) with executionProviders: ['webgpu', 'wasm'] or
   * ['wasm'] (a single provider may be given bare, as onnxruntime-web allows).
   */
  static async create(ir, options = {}) {
    const { executionProviders, ...loadOptions } = options ?? {};
    if (executionProviders !== undefined) {
      loadOptions.executionProviders = Array.isArray(executionProviders) ? executionProviders : [executionProviders];
    }
    return new InferenceSession(await loadIR(ir, loadOptions));
  }

  /** The underlying Model (info(), verify(), toMermaid(), ...). */
  get model() {
    return this._model;
  }

  get inputNames() {
    return this._model.inputs.map((m) => m.name);
  }

  get outputNames() {
    return this._model.outputs.map((m) => m.name);
  }

  /**
   * run(feeds, fetches?, options?) -> {outputName: Tensor}.
   * feeds: {inputName: Tensor} or a Map (any value execute() takes works too).
   * fetches: output names (array), or an object keyed by output name (values
   * ignored); default all. options: execute()'s options (carry).
   * As in onnxruntime-web, run(feeds, options) is accepted too.
   */
  async run(feeds, fetches, options) {
    if (feeds === null || typeof feeds !== 'object' || Array.isArray(feeds) || isTypedArray(feeds) || feeds instanceof Tensor) {
      throw new TypeError('InferenceSession.run: feeds must be an object (or Map) keyed by input name');
    }
    let names;
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
    const result = {};
    for (const o of outputs) result[o.name] = outputTensor(o);
    return result;
  }

  /** Frees the model (awaits the worker in proxy mode). */
  async release() {
    await this._model.dispose();
  }
}

if (typeof Symbol.asyncDispose === 'symbol') InferenceSession.prototype[Symbol.asyncDispose] = InferenceSession.prototype.release;
if (typeof Symbol.dispose === 'symbol') {
  // `using`: frees at once (proxy mode: the free is sent to the worker, not awaited).
  InferenceSession.prototype[Symbol.dispose] = function dispose() {
    Promise.resolve(this._model.dispose()).catch(() => {});
  };
}
