// GPU tensors, in onnxruntime-web's terms: graph inputs given as GPU buffers
// (Tensor.fromGpuBuffer, or an output left on the GPU by an earlier run) and outputs
// left on the GPU (loadIR's preferredOutputLocation 'gpu-buffer'). The engine's plan does the
// placement (Session::webgpu_plan with GPU-resident I/O): a resident input starts the run valid
// on the GPU only (a WASM reader downloads it), a kept output ends it there. Each set of
// resident inputs and kept outputs is a plan of its own, so a model holds one executor per set
// it has run (the weights' GPU buffers are shared among them). This file holds what is
// not the executor's: which inputs can stay on the GPU, the copies in and out, and the GPU
// tensors a run returns.
import { ExecutionError } from '../errors.js';
import { BUFFER_USAGE, MAP_MODE_READ, type GpuObject } from './kernels.js';
import { DTYPE_ARRAY, fromBytes, numel, normalizeDtype, shapeToString } from '../tensor.js';
import type { DType, GpuTensorValue, TypedArray } from '../tensor_types.js';
import type { WebGpuExecutor } from './executor.js';
import type { OutputLocation } from '../model_types.js';


export function isGpuTensor(v: unknown): v is GpuTensorValue {
  return typeof v === 'object' && v !== null && (v as { location?: unknown }).location === 'gpu-buffer';
}

/** A GPU tensor's dtype and shape (onnxruntime-web's type/dims or this package's dtype/shape). */
export function gpuTensorMeta(t: GpuTensorValue, what: string): { dtype: DType; shape: number[] } {
  const dtype = normalizeDtype(t.type ?? t.dtype);
  if (!dtype) throw new ExecutionError(`${what}: a GPU tensor needs a type (float32, int32, ...), got ${String(t.type ?? t.dtype)}`);
  const dims = t.dims ?? t.shape;
  if (!dims) throw new ExecutionError(`${what}: a GPU tensor needs dims`);
  if (!t.gpuBuffer || typeof (t.gpuBuffer as GpuObject).size !== 'number') throw new ExecutionError(`${what}: location 'gpu-buffer' but no gpuBuffer`);
  return { dtype, shape: Array.from(dims, Number) };
}

// Float32 and int32: the GPU kernels' storage is the CPU layout, so these move buffer to buffer.
const GPU_LAYOUT = new Set<string>(['float32', 'int32']);

/** Whether an input of `dtype` and `shape` can stay on the GPU for a graph input slot of `slot`. */
export function residentFits(meta: { dtype: DType; shape: number[] }, slot: { dtype: string; shape: number[] }): boolean {
  return GPU_LAYOUT.has(meta.dtype) && meta.dtype === slot.dtype && meta.shape.length === slot.shape.length &&
    meta.shape.every((d, i) => d === slot.shape[i]);
}

// 4-byte multiples: WebGPU copies and buffer sizes.
const words = (bytes: number): number => Math.max(4, Math.ceil(bytes / 4) * 4);

/** A buffer's bytes read back: a staging copy, mapped (the buffer needs COPY_SRC usage). */
export async function readBuffer(device: GpuObject, buffer: GpuObject, bytes: number, what: string): Promise<Uint8Array> {
  const staging = device.createBuffer({ size: words(bytes), usage: BUFFER_USAGE.MAP_READ | BUFFER_USAGE.COPY_DST });
  try {
    device.pushErrorScope('validation');
    const enc = device.createCommandEncoder();
    enc.copyBufferToBuffer(buffer, 0, staging, 0, words(bytes));
    device.queue.submit([enc.finish()]);
    const err = await device.popErrorScope();
    if (err) throw new ExecutionError(`WebGPU: reading ${what} back: ${err.message}`);
    await staging.mapAsync(MAP_MODE_READ);
    const out = new Uint8Array(staging.getMappedRange(0, words(bytes)).slice(0, bytes));
    staging.unmap();
    return out;
  } finally {
    staging.destroy();
  }
}

/** A GPU tensor's elements on the CPU: its own getData(), else read back on `device`. */
export async function gpuTensorData(t: GpuTensorValue, device: GpuObject | null, what: string): Promise<TypedArray> {
  const { dtype, shape } = gpuTensorMeta(t, what);
  const bytes = numel(shape) * DTYPE_ARRAY[dtype].BYTES_PER_ELEMENT;
  if (device) {
    checkInputBuffer(t.gpuBuffer, bytes, what);
    return fromBytes(await readBuffer(device, t.gpuBuffer, bytes, what), dtype);
  }
  const why = 'reading it back failed';
  if (typeof t.getData !== 'function') {
    throw new ExecutionError(`${what}: a GPU tensor, and this model runs on WASM: ${why}: it has no download function (Tensor.fromGpuBuffer(buffer, {dataType, dims, download}))`);
  }
  try {
    return await t.getData();
  } catch (e) {
    throw new ExecutionError(`${what}: a GPU tensor, and this model runs on WASM: ${why}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function checkInputBuffer(buffer: GpuObject, bytes: number, what: string): void {
  if (buffer.size < bytes) throw new ExecutionError(`${what}: its GPU buffer has ${buffer.size} bytes, the tensor needs ${bytes}`);
  if (typeof buffer.usage === 'number' && !(buffer.usage & BUFFER_USAGE.COPY_SRC)) {
    throw new ExecutionError(`${what}: its GPU buffer needs COPY_SRC usage (GPUBufferUsage.COPY_SRC)`);
  }
}

/** A resident input of one run: graph input `index`, copied from `buffer` into its plan slot. */
export interface ResidentInput {
  index: number;
  buffer: GpuObject;
  bytes: number;
  name: string;
}

/** Copies the resident inputs' buffers into the executor's input slots (queued before its run). */
export async function copyInputs(ex: WebGpuExecutor, inputs: readonly ResidentInput[]): Promise<void> {
  if (!inputs.length) return;
  const { device } = ex;
  for (const r of inputs) checkInputBuffer(r.buffer, r.bytes, `input ${r.index} ('${r.name}')`);
  device.pushErrorScope('validation');
  const enc = device.createCommandEncoder();
  for (const r of inputs) enc.copyBufferToBuffer(r.buffer, 0, ex.bufferOf(ex.plan.inputs[r.index]), 0, words(r.bytes));
  device.queue.submit([enc.finish()]);
  const err = await device.popErrorScope();
  if (err) {
    const names = inputs.map((r) => `'${r.name}'`).join(', ');
    throw new ExecutionError(`WebGPU: copying GPU input ${names} (a buffer of another device, or destroyed?): ${err.message}`);
  }
}

/** An output of execute() left on the GPU: read it with getData(), free it with dispose(). */
export interface GpuOutput {
  name: string;
  shape: number[];
  dtype: DType;
  location: 'gpu-buffer';
  /** A GPUBuffer (STORAGE | COPY_SRC | COPY_DST) of the model's device, owned by this tensor. */
  gpuBuffer: GpuObject;
  /** The elements, read back from the GPU. */
  getData(): Promise<TypedArray>;
  /** Destroys the buffer. */
  dispose(): void;
  /** Throws: the data is on the GPU (getData() reads it back). */
  readonly data: TypedArray;
}

const OUTPUT_USAGE = BUFFER_USAGE.STORAGE | BUFFER_USAGE.COPY_SRC | BUFFER_USAGE.COPY_DST;

function gpuOutput(device: GpuObject, name: string, shape: number[], dtype: DType, buffer: GpuObject): GpuOutput {
  const bytes = numel(shape) * DTYPE_ARRAY[dtype].BYTES_PER_ELEMENT;
  const out = {
    name, shape, dtype, location: 'gpu-buffer' as const, gpuBuffer: buffer,
    getData: async () => fromBytes(await readBuffer(device, buffer, bytes, `output '${name}'`), dtype),
    dispose: () => buffer.destroy(),
  };
  Object.defineProperty(out, 'data', {
    enumerable: false,
    get() {
      throw new ExecutionError(`output '${name}' ${shapeToString(shape)} is on the GPU (preferredOutputLocation 'gpu-buffer'): await getData() reads it back`);
    },
  });
  return out as GpuOutput;
}

/**
 * Output `k` of the last run as a GPU tensor: a copy of its plan slot when the plan kept it
 * (its GPU storage is its CPU layout), else its CPU bytes uploaded (int64, bool, a view of part
 * of a value: the bytes the CPU tensor would hold).
 */
export function outputOnGpu(ex: WebGpuExecutor, k: number, name: string, shape: number[], dtype: DType,
  cpuBytes: () => Uint8Array): GpuOutput {
  const { device } = ex;
  const bytes = numel(shape) * DTYPE_ARRAY[dtype].BYTES_PER_ELEMENT;
  const buffer = device.createBuffer({ size: words(bytes), usage: OUTPUT_USAGE });
  if ((ex.plan.kept_outputs ?? []).includes(k)) {
    const enc = device.createCommandEncoder();
    if (bytes) enc.copyBufferToBuffer(ex.bufferOf(ex.plan.outputs[k]), 0, buffer, 0, words(bytes));
    device.queue.submit([enc.finish()]);
  } else if (bytes) {
    const padded = new Uint8Array(words(bytes));
    padded.set(cpuBytes().subarray(0, bytes));
    device.queue.writeBuffer(buffer, 0, padded);
  }
  return gpuOutput(device, name, shape, dtype, buffer);
}

/**
 * preferredOutputLocation (one location for all outputs, or per output name) -> per output. An
 * unknown name or location is a TypeError naming it.
 */
export function outputLocations(pref: unknown, names: readonly string[]): OutputLocation[] {
  const check = (loc: unknown, what: string): OutputLocation => {
    if (loc === 'cpu' || loc === 'gpu-buffer') return loc;
    const why = loc === 'cpu-pinned' || loc === 'texture' || loc === 'ml-tensor' ? 'is not supported by torch-ir-wasm' : 'is not a location';
    throw new TypeError(`preferredOutputLocation${what}: ${JSON.stringify(loc)} ${why} (locations: 'cpu', 'gpu-buffer')`);
  };
  if (pref === undefined) return names.map(() => 'cpu');
  if (typeof pref === 'string') {
    const loc = check(pref, '');
    return names.map(() => loc);
  }
  if (typeof pref !== 'object' || pref === null) throw new TypeError("preferredOutputLocation must be 'cpu', 'gpu-buffer' or {outputName: location}");
  for (const k of Object.keys(pref)) {
    if (!names.includes(k)) throw new TypeError(`preferredOutputLocation: unknown output '${k}' (outputs: ${names.join(', ')})`);
  }
  return names.map((n) => (n in pref ? check((pref as Record<string, unknown>)[n], `['${n}']`) : 'cpu'));
}

/**
 * A model's executors, one per set of resident inputs and kept outputs (key 'in 0,2 | out 1'),
 * made on first use and shared weights with the first; at most `limit` beyond the first are
 * held (the least recently used is destroyed).
 */
export class ExecutorSet {
  private map = new Map<string, WebGpuExecutor>();
  constructor(readonly first: WebGpuExecutor, readonly firstKey: string, private make: (inputs: number[], outputs: number[]) => Promise<WebGpuExecutor>,
    private limit = 4) {
    this.map.set(firstKey, first);
  }

  static key(inputs: readonly number[], outputs: readonly number[]): string {
    return `in ${inputs.join(',')} | out ${outputs.join(',')}`;
  }

  async get(inputs: number[], outputs: number[]): Promise<WebGpuExecutor> {
    const key = ExecutorSet.key(inputs, outputs);
    let ex = this.map.get(key);
    if (ex) {
      if (key !== this.firstKey) { // most recently used last
        this.map.delete(key);
        this.map.set(key, ex);
      }
      return ex;
    }
    ex = await this.make(inputs, outputs);
    this.map.set(key, ex);
    if (this.map.size > this.limit + 1) {
      for (const [k, old] of this.map) {
        if (k === this.firstKey) continue;
        old.destroy();
        this.map.delete(k);
        break;
      }
    }
    return ex;
  }

  all(): WebGpuExecutor[] {
    return [...this.map.values()];
  }

  destroy(): void {
    // The first last: it holds the streamed weights' buffers the others share.
    for (const [k, ex] of this.map) if (k !== this.firstKey) ex.destroy();
    this.first.destroy();
    this.map.clear();
  }
}

/**
 * A WebGPU model's runs with GPU tensors: its executors (ExecutorSet), which inputs of a run stay
 * on the GPU, the outputs it keeps there (preferredOutputLocation), and the executor that ran last.
 */
export class GpuRuns {
  readonly executors: ExecutorSet;
  /** The executor of the last run (its profile, its kept outputs' slots). */
  last: WebGpuExecutor;
  /** Outputs the last run left on the GPU only: the engine's copies are stale (no carry from them). */
  keptLast = new Set<number>();
  /** The outputs preferredOutputLocation puts on the GPU. */
  readonly gpuOutputs: number[];
  private profiling = false;

  constructor(first: WebGpuExecutor, readonly locations: readonly OutputLocation[],
    another: (first: WebGpuExecutor, inputs: number[], outputs: number[]) => Promise<WebGpuExecutor>) {
    this.gpuOutputs = locations.flatMap((loc, k) => (loc === 'gpu-buffer' ? [k] : []));
    this.executors = new ExecutorSet(first, ExecutorSet.key([], this.gpuOutputs), async (inputs, outputs) => {
      const ex = await another(first, inputs, outputs);
      ex.profiling = this.profiling;
      ex.capturing = first.capturing;
      return ex;
    });
    this.last = first;
  }

  /** Whether node `node` ran on the GPU (a GPU step), or is a view (its values are its input's, wherever they are). */
  ranOnGpu(node: string): boolean {
    if (!this.gpuNodes) {
      const plan = this.executors.first.plan;
      this.gpuNodes = new Set([...plan.program.filter((i: { op: string }) => i.op === 'gpu').map((i: { node: string }) => i.node), ...(plan.view_nodes ?? [])]);
    }
    return this.gpuNodes.has(node);
  }

  private gpuNodes?: Set<string>;

  get device(): GpuObject {
    return this.executors.first.device;
  }

  setProfiling(on: boolean): void {
    this.profiling = on;
    for (const ex of this.executors.all()) ex.profiling = on;
  }

  /**
   * The GPU tensors among a run's inputs (by graph input index): those that fit their slot stay on
   * the GPU (`resident`); the others are read back (`values` gets their data).
   */
  async splitInputs(values: unknown[], names: readonly string[], slots: readonly { dtype: string; shape: number[] }[]):
    Promise<ResidentInput[]> {
    const resident: ResidentInput[] = [];
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (!isGpuTensor(v)) continue;
      const what = `input ${i} ('${names[i]}')`;
      const meta = gpuTensorMeta(v, what);
      if (residentFits(meta, slots[i]!)) {
        resident.push({ index: i, buffer: v.gpuBuffer, bytes: numel(meta.shape) * 4, name: names[i]! });
      } else {
        values[i] = { data: await gpuTensorData(v, this.device, what), shape: meta.shape, dtype: meta.dtype };
      }
    }
    return resident;
  }

  /** One run: the resident inputs copied in, the plan for them and for `keepOutputs`' outputs run. */
  async run(resident: readonly ResidentInput[], keepOutputs: boolean): Promise<void> {
    const ex = await this.executors.get(resident.map((r) => r.index), keepOutputs ? this.gpuOutputs : []);
    await copyInputs(ex, resident);
    this.keptLast = new Set();
    await ex.run();
    this.last = ex;
    this.keptLast = new Set(keepOutputs ? ex.plan.kept_outputs ?? [] : []);
  }

  destroy(): void {
    this.executors.destroy();
  }
}
