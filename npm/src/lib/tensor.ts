// Tensor conversion between JS values and the bytes the WASM glue takes:
// dtype names (IR spelling), typed-array classes, shapes, and one byte view
// per tensor (no copy when the caller passes a typed array of the right type).

import type { DType, TypedArray } from './tensor_types.js';

/** A typed array class (Float32Array, BigInt64Array, ...). */
export type TypedArrayClass = { new (n: number): TypedArray; new (buffer: ArrayBufferLike, byteOffset: number, length: number): TypedArray; readonly BYTES_PER_ELEMENT: number; readonly name: string };

/** A tensor as the glue takes it: IR dtype, shape, data and a byte view of the data. */
export interface NormalizedTensor {
  dtype: DType;
  shape: number[];
  data: TypedArray;
  bytes: Uint8Array;
}

/** A tensor's IR facts (an input's or a weight's): they fill in what a value leaves out. */
export interface TensorMeta {
  dtype?: string;
  shape: readonly number[];
}

// IR dtype name -> typed array class used for its data.
export const DTYPE_ARRAY: Readonly<Record<DType, TypedArrayClass>> = {
  float32: Float32Array,
  float64: Float64Array,
  float16: Uint16Array, // raw IEEE half bits
  bfloat16: Uint16Array, // raw bfloat16 bits
  int64: BigInt64Array,
  int32: Int32Array,
  int16: Int16Array,
  int8: Int8Array,
  uint8: Uint8Array,
  bool: Uint8Array, // 0 / 1
};

const ALIASES: Readonly<Record<string, DType>> = {
  float: 'float32', f32: 'float32', float32: 'float32',
  double: 'float64', f64: 'float64', float64: 'float64',
  half: 'float16', f16: 'float16', float16: 'float16',
  bf16: 'bfloat16', bfloat16: 'bfloat16',
  long: 'int64', i64: 'int64', int64: 'int64',
  int: 'int32', i32: 'int32', int32: 'int32',
  short: 'int16', i16: 'int16', int16: 'int16',
  i8: 'int8', int8: 'int8',
  u8: 'uint8', uint8: 'uint8',
  bool: 'bool', boolean: 'bool',
};

// 'torch.float32', 'F32', 'float' ... -> 'float32'; undefined when unknown.
export function normalizeDtype(d: unknown): DType | undefined {
  if (typeof d !== 'string') return undefined;
  const k = d.trim().toLowerCase().replace(/^torch\./, '');
  return ALIASES[k];
}

// Typed array -> the IR dtype it naturally holds (Uint8Array -> uint8, Uint16Array -> float16).
export function dtypeOfArray(a: unknown): DType | undefined {
  if (a instanceof Float32Array) return 'float32';
  if (a instanceof Float64Array) return 'float64';
  if (a instanceof BigInt64Array) return 'int64';
  if (a instanceof Int32Array) return 'int32';
  if (a instanceof Int16Array) return 'int16';
  if (a instanceof Int8Array) return 'int8';
  if (a instanceof Uint8Array || a instanceof Uint8ClampedArray) return 'uint8';
  if (a instanceof Uint16Array) return 'float16';
  return undefined;
}

export function isTypedArray(v: unknown): v is TypedArray {
  return ArrayBuffer.isView(v) && !(v instanceof DataView);
}

export function numel(shape: Iterable<number>): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function shapeToString(shape: readonly number[]): string {
  return '[' + shape.join(', ') + ']';
}

// Embind may hand back arrays, vectors or numbers as BigInt: plain number[].
export function toShape(s: any): number[] {
  if (s == null) return [];
  if (typeof s.size === 'function' && typeof s.get === 'function') {
    const out: number[] = [];
    for (let i = 0; i < s.size(); ++i) out.push(Number(s.get(i)));
    if (typeof s.delete === 'function') s.delete();
    return out;
  }
  return Array.from(s, Number);
}

function flatten(v: unknown, out: unknown[]): unknown[] {
  if (Array.isArray(v)) for (const x of v) flatten(x, out);
  else if (isTypedArray(v)) for (const x of v) out.push(x);
  else out.push(v);
  return out;
}

function nestedShape(v: unknown): number[] {
  const shape: number[] = [];
  while (Array.isArray(v)) {
    shape.push(v.length);
    v = v[0];
  }
  return shape;
}

/** Throws the caller's error class with `msg`. */
export type Fail = (msg: string) => never;

// Builds a typed array of `dtype` from any numbers/booleans/bigints.
function convertValues(values: ArrayLike<unknown>, dtype: DType, fail: Fail): TypedArray {
  const Cls = DTYPE_ARRAY[dtype];
  if (!Cls) fail(`unsupported dtype '${dtype}'`);
  if (dtype === 'float16' || dtype === 'bfloat16') {
    if (values instanceof Uint16Array) return values;
    fail(`${dtype} data must be a Uint16Array of raw bits (or pass float32 data with dtype 'float32')`);
  }
  const out = new Cls(values.length);
  if (out instanceof BigInt64Array) {
    for (let i = 0; i < values.length; ++i) {
      const x = values[i];
      if (typeof x === 'bigint') out[i] = x;
      else if (typeof x === 'boolean') out[i] = x ? 1n : 0n;
      else if (Number.isInteger(x)) out[i] = BigInt(x as number);
      else fail(`int64 data must be integers, got ${x} at index ${i}`);
    }
  } else {
    for (let i = 0; i < values.length; ++i) {
      const x = values[i];
      out[i] = typeof x === 'bigint' || typeof x === 'boolean' ? Number(x) : x as number;
    }
  }
  return out;
}

// Typed array class and dtype agree (Uint8Array works for both uint8 and bool).
function arrayMatches(a: TypedArray, dtype: string): boolean {
  const Cls = (DTYPE_ARRAY as Record<string, TypedArrayClass | undefined>)[dtype];
  return !!Cls && a instanceof Cls && !(a instanceof Uint8ClampedArray && dtype !== 'uint8');
}

/**
 * Normalizes a tensor value to {dtype, shape, data (typed array), bytes (Uint8Array view)}.
 * value: TypedArray | number[] (nested allowed) | {data, shape?, dtype?}.
 * meta: {dtype, shape} from the IR (fills in what the value leaves out), may be undefined.
 * fail(msg): throws the caller's error class.
 */
export function toTensor(value: any, meta: TensorMeta | undefined, fail: Fail): NormalizedTensor {
  let data = value;
  let shape;
  let dtype: DType | undefined;
  if (value && typeof value === 'object' && !isTypedArray(value) && !Array.isArray(value)) {
    if (!('data' in value)) fail('expected a TypedArray, an array, or {data, shape, dtype}');
    data = value.data;
    shape = value.shape;
    if (value.dtype !== undefined) {
      dtype = normalizeDtype(value.dtype);
      if (!dtype) fail(`unknown dtype '${value.dtype}'`);
    }
  }
  if (data === undefined || data === null) fail('no data');
  if (typeof data === 'number' || typeof data === 'bigint' || typeof data === 'boolean') data = [data];
  const metaDtype = meta ? normalizeDtype(meta.dtype) ?? meta.dtype as DType : undefined;
  if (!dtype) {
    if (isTypedArray(data)) {
      dtype = dtypeOfArray(data);
      if (!dtype) fail(`unsupported typed array ${data.constructor.name}`);
      // Uint8Array for a bool tensor, Uint16Array for bfloat16: follow the IR.
      if (metaDtype && arrayMatches(data, metaDtype)) dtype = metaDtype;
    } else {
      dtype = metaDtype || 'float32';
    }
  }
  if (Array.isArray(data)) {
    if (shape === undefined && !meta) shape = nestedShape(data);
    data = convertValues(flatten(data, []), dtype, fail);
  } else if (isTypedArray(data)) {
    if (!arrayMatches(data, dtype)) data = convertValues(data, dtype, fail);
  } else {
    fail(`unsupported data type ${Object.prototype.toString.call(data)}`);
  }
  if (shape === undefined) shape = meta ? meta.shape : [data.length];
  shape = Array.from(shape as Iterable<number>, Number);
  if (shape.some((d) => !Number.isInteger(d) || d < 0)) fail(`invalid shape ${shapeToString(shape)}`);
  const n = numel(shape);
  if (data.length !== n) fail(`data has ${data.length} element(s) but shape ${shapeToString(shape)} needs ${n}`);
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return { dtype, shape, data, bytes };
}

// Bytes (an owned copy, offset 0) -> typed array for dtype.
export function fromBytes(bytes: Uint8Array, dtype: string): TypedArray {
  const Cls = (DTYPE_ARRAY as Record<string, TypedArrayClass | undefined>)[dtype] || Uint8Array;
  if (bytes.byteOffset % Cls.BYTES_PER_ELEMENT !== 0) bytes = Uint8Array.prototype.slice.call(bytes);
  return new Cls(bytes.buffer, bytes.byteOffset, bytes.byteLength / Cls.BYTES_PER_ELEMENT);
}

// Copies a view into WASM memory (possibly a SharedArrayBuffer) into a plain buffer.
export function copyBytes(view: Uint8Array): Uint8Array {
  const out = new Uint8Array(view.length);
  out.set(view);
  return out;
}
