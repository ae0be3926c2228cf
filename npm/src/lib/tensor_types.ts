// The package's public tensor types: dtype names and the typed arrays that hold
// them, the values execute/verify take (TensorLike, Inputs) and the tensors they
// return (OutputTensor). Types only (this module emits no JavaScript); the
// conversions are tensor.ts's.
import type { Tensor } from './ort.js';

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
export type TensorLike = TypedArray | NestedArray<Scalar> | TensorValue | Tensor | GpuTensorValue;

/**
 * A tensor in a GPU buffer (an output left on the GPU, or any {location, gpuBuffer, dims/shape,
 * type/dtype}): on a WebGPU model a float32 / int32 input of its slot's shape is copied on the
 * GPU; any other is read back (docs/webgpu.md).
 */
export interface GpuTensorValue {
  readonly location: 'gpu-buffer';
  /** A GPUBuffer with COPY_SRC usage, of the model's device. */
  readonly gpuBuffer: unknown;
  readonly dims?: readonly number[];
  readonly shape?: readonly number[];
  readonly type?: DType;
  readonly dtype?: DType;
  getData?(): Promise<TypedArray>;
}

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

/**
 * An output of execute(): {name, shape, dtype, data}. float16/bfloat16 outputs come back as float32.
 * An output left on the GPU (loadIR's preferredOutputLocation 'gpu-buffer') has location
 * 'gpu-buffer', its gpuBuffer, getData() (reads it back) and dispose() (frees the buffer); its
 * `data` throws.
 */
export type OutputTensor<D extends DType = DType> = TensorData<D> & {
  name: string;
  /** 'gpu-buffer' for an output left on the GPU; absent for one on the CPU. */
  location?: 'gpu-buffer';
  /** The GPUBuffer holding an output left on the GPU (the elements, densely). */
  gpuBuffer?: unknown;
  /** An output left on the GPU: its elements read back. */
  getData?(): Promise<TypedArrayFor<D>>;
  /** An output left on the GPU: destroys its buffer. */
  dispose?(): void;
};

export interface TensorInfo {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: readonly number[];
}

