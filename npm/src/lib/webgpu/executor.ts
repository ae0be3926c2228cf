// The WebGPU executor: replays the program the engine's compiler emitted for a
// session (runtime/webgpu_plan.cpp; docs/webgpu.md). It decides nothing about
// the graph: placement, transfers, GPU memory and every kernel parameter come
// from the plan. At create it builds the pipelines, parameter blocks and bind
// groups once and uploads the constant weights; a run then encodes the GPU
// parts into compute passes, runs the WASM parts in the engine (runSteps) and
// moves values between the devices where the plan says.
import { ExecutionError, check } from '../errors.js';
import { BUFFER_USAGE, KernelLibrary, MAP_MODE_READ, elementwiseSource, kernelSource, packMeta, type GpuObject } from './kernels.js';
import type { Placement } from '../model_types.js';
import type { StreamedWeights } from './streaming.js';
import { GpuTimer } from './gpu_timer.js';

/**
 * The engine's WebGPU plan of a session (runtime/webgpu_plan.cpp; its JSON, parsed): slots,
 * values, the program, placement. Read as the engine writes it, not re-declared here.
 */
export type WebGpuPlan = any;
type PlanItem = any;

/** A plan value as the transfers read it: its dtype, element count, label, address and GPU slot. */
interface PlanValue {
  dtype: string;
  /** Its GPU storage: as dtype, 'float16' for a float16 weight held as f16 (shader-f16), 'int8' / 'uint8' as bytes, 'int4' as nibbles. */
  gpu_dtype?: string;
  numel: number;
  label?: string;
  ptr: number;
  slot: number;
  /** A weight streamed to the GPU (no bytes in WASM memory): its source tensor's name. */
  streamed?: string;
  /**
   * A part of a weight larger than the device's largest binding, streamed: its first element in
   * the source tensor (numel elements from there). A part in WASM memory has its own ptr.
   */
  part_first?: number;
}

/** The engine side of a run: runs the WASM parts of the plan (steps first..last). */
export interface WasmSteps {
  runSteps(first: number, last: number): unknown;
}

/** A view of WASM memory: `bytes` bytes at `ptr`. */
export type MemoryView = (ptr: number, bytes: number) => Uint8Array;

/** One entry of a profiled GPU run (Model.profile's NodeTiming fields). */
export interface GpuTiming {
  node: string;
  covers: string[];
  opType: string;
  ms: number;
  device: 'webgpu' | 'wasm';
  /** 'gpu': from timestamp queries; 'wall': submit to done, or a WASM segment's run. */
  clock: 'gpu' | 'wall';
}

/** Dispatches and transfers of an executor's runs so far. */
export interface GpuStats {
  dispatches: number;
  uploads: number;
  downloads: number;
  uploadBytes: number;
  downloadBytes: number;
}

const STORAGE = BUFFER_USAGE.STORAGE | BUFFER_USAGE.COPY_SRC | BUFFER_USAGE.COPY_DST;
// One kernel library per device: models on the same device share compiled pipelines.
const libraries = new WeakMap<GpuObject, KernelLibrary>();
function libraryFor(device: GpuObject): KernelLibrary {
  let lib = libraries.get(device);
  if (!lib) libraries.set(device, (lib = new KernelLibrary(device)));
  return lib;
}

// A value's bytes (in WASM memory, or `owned`: the caller's streamed weights) -> its GPU storage
// (int64 narrowed to i32, bool widened to u32, int8 / uint8 as bytes padded to whole words).
function toGpuBytes(value: PlanValue, bytes: Uint8Array, owned = false): Uint8Array | Uint32Array | Int32Array {
  if (value.dtype === 'int64' && bytes.byteOffset % 8) bytes = bytes.slice(); // BigInt64Array alignment
  switch (value.dtype) {
    case 'float32':
    case 'int32':
      return owned ? bytes : bytes.slice(); // a copy: never hand a view of (shared) WASM memory to the GPU queue
    case 'bool':
      return Uint32Array.from(bytes);
    case 'int8':
    case 'uint8': {
      if (value.gpu_dtype === 'int4') return nibbleGpuBytes(value, bytes);
      const out = new Uint8Array(Math.ceil(value.numel / 4) * 4);
      out.set(bytes.subarray(0, value.numel));
      return out;
    }
    case 'int64': {
      const src = new BigInt64Array(bytes.buffer, bytes.byteOffset, value.numel);
      const out = new Int32Array(value.numel);
      for (let i = 0; i < src.length; i++) {
        const v = src[i]!;
        if (v < -2147483648n || v > 2147483647n) {
          throw new ExecutionError(`WebGPU: value '${value.label}' holds ${v}, outside the int32 range the GPU kernels take`);
        }
        out[i] = Number(v);
      }
      return out;
    }
    default:
      throw new ExecutionError(`WebGPU: cannot upload value '${value.label}' of dtype ${value.dtype}`);
  }
}

// An int8 weight declared 4-bit (GpuDispatch::nibbles) as nibbles, eight to a word, element i at
// bits 4 (i & 7) of word i >> 3; a value outside [-8, 7] fails naming the weight (its dequantize
// declared it 4-bit; a kernel reading nibbles would see another number).
function nibbleGpuBytes(value: PlanValue, bytes: Uint8Array): Uint32Array {
  const src = new Int8Array(bytes.buffer, bytes.byteOffset, value.numel);
  const out = new Uint32Array(Math.max(1, Math.ceil(value.numel / 8)));
  for (let i = 0; i < src.length; i++) {
    const v = src[i]!;
    if (v < -8 || v > 7) {
      throw new ExecutionError(`WebGPU: weight '${value.label}' holds ${v} at element ${i}, outside the 4-bit range [-8, 7] its dequantize declares`);
    }
    out[i >> 3] = (out[i >> 3]! | ((v & 15) << ((i & 7) * 4))) >>> 0;
  }
  return out;
}

// float32 -> float16 bits, rounded to nearest even (a float16 weight's float32 copy converts exactly).
function halfBits(f: number): number {
  F32[0] = f;
  const x = U32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0); // inf, nan
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00; // overflow: inf
  if (e <= 0) { // subnormal half (or zero)
    if (e < -10) return sign;
    const m = mant | 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    let r = m >>> shift;
    const rest = m & ((1 << shift) - 1);
    if (rest > half || (rest === half && (r & 1))) r++;
    return sign | r;
  }
  let r = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (r & 1))) r++; // a carry into the exponent is right too
  return sign | r;
}
const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

// A weight's f16 GPU storage, padded to whole 4-byte words (WebGPU writes): from its file's
// float16 bytes (streamed), or rounded from float32 values (its copy in WASM memory, or a
// float32 file's bytes under weightDtype 'float16').
function halfGpuBytes(value: PlanValue, bytes: Uint8Array, fromFile: boolean): Uint8Array {
  const out = new Uint8Array(Math.ceil(value.numel / 2) * 4);
  if (fromFile) {
    out.set(bytes.subarray(0, value.numel * 2));
    return out;
  }
  const src = new Float32Array(bytes.slice().buffer, 0, value.numel);
  const dst = new Uint16Array(out.buffer);
  for (let i = 0; i < src.length; i++) dst[i] = halfBits(src[i]!);
  return out;
}

// GPU storage (an ArrayBuffer of gpuBytes(value)) -> the value's bytes in WASM memory.
function fromGpuBytes(value: PlanValue, words: ArrayBuffer, dst: Uint8Array): void {
  switch (value.dtype) {
    case 'float32':
    case 'int32':
      dst.set(new Uint8Array(words, 0, value.numel * 4));
      return;
    case 'bool':
      dst.set(new Uint32Array(words, 0, value.numel));
      return;
    case 'int8':
    case 'uint8':
      dst.set(new Uint8Array(words, 0, value.numel));
      return;
    case 'int64': {
      const out = new BigInt64Array(dst.buffer, dst.byteOffset, value.numel);
      const src = new Int32Array(words, 0, value.numel);
      for (let i = 0; i < src.length; i++) out[i] = BigInt(src[i]!);
      return;
    }
    default:
      throw new ExecutionError(`WebGPU: cannot download value '${value.label}' of dtype ${value.dtype}`);
  }
}

const ITEM: Readonly<Record<string, number>> = { float32: 4, int32: 4, int64: 8, bool: 1, int8: 1, uint8: 1 };

// Bytes of a value's GPU storage, in whole words: half a byte per int4 element, 1 per int8 /
// uint8, 2 per f16, else 4.
function gpuBytes(value: PlanValue): number {
  const item = value.gpu_dtype === 'int4' ? 0.5 : value.gpu_dtype === 'int8' || value.gpu_dtype === 'uint8' ? 1
    : value.gpu_dtype === 'float16' ? 2 : 4;
  return Math.max(4, Math.ceil((value.numel * item) / 4) * 4);
}

function nodeRange(nodes: readonly string[] | null | undefined): string {
  if (!nodes?.length) return 'no node';
  return nodes.length === 1 ? `node '${nodes[0]}'` : `nodes '${nodes[0]}' .. '${nodes[nodes.length - 1]}'`;
}

/**
 * Constant weights' GPU buffers, shared by the executors of graphs bound to the same weights (an
 * LLM's prefill and decode, models loaded with weightsFrom), counted: the last user destroys one.
 */
export class SharedWeightBuffers {
  private entries = new Map<string, { buffer: GpuObject; users: number }>();

  /** The buffer of weight `key` (counted as used), or null. */
  take(key: string): GpuObject | null {
    const e = this.entries.get(key);
    if (!e) return null;
    e.users++;
    return e.buffer;
  }

  add(key: string, buffer: GpuObject): void {
    this.entries.set(key, { buffer, users: 1 });
  }

  release(key: string): void {
    const e = this.entries.get(key);
    if (!e || --e.users > 0) return;
    e.buffer.destroy();
    this.entries.delete(key);
  }
}

export class WebGpuExecutor {
  device: GpuObject;
  plan: WebGpuPlan;
  handle: WasmSteps;
  memoryView: MemoryView;
  lib: KernelLibrary;
  stats: GpuStats;
  /** The device's loss info, once lost: runs then fail naming it. */
  lost: { message?: string; reason?: string } | null;
  /** Set by the model: each GPU node is timed (run()). */
  profiling?: boolean;
  /** Timestamp queries for profiled runs, made at the first one (null: the device has none). */
  private timer?: GpuTimer | null;
  /** The timings of the last profiled run. */
  lastProfile?: GpuTiming[];
  /**
   * Set by a model loaded with keepIntermediates: each GPU node's outputs are read back after it
   * runs (a sync per node), into `captured` by IR output name.
   */
  capturing = false;
  captured = new Map<string, { dtype: string; bytes: Uint8Array }>();
  slots!: GpuObject[];
  private dummyRead: GpuObject;
  private dummyWrite: GpuObject;
  private steps!: PlanItem[];
  private _owned: GpuObject[];
  private _building?: string | null;
  /** The streamed weights' bytes, until create() has uploaded them. */
  private streamed: StreamedWeights | null = null;
  /** Constant weights' GPU buffers shared with other executors on the same weights (a model's prefill and decode). */
  weightBuffers: SharedWeightBuffers = new SharedWeightBuffers();
  /** Values whose buffer another executor already filled. */
  private sharedValues = new Set<number>();
  /** The weightBuffers keys this executor uses (released at destroy). */
  private weightKeys: string[] = [];

  /**
   * device: a GPUDevice; plan: the parsed plan; handle: the model's WasmModel;
   * memoryView(ptr, bytes): a Uint8Array on the WASM memory; streamed: the StreamedWeights
   * holding the bytes of the plan's "streamed" weights (read once, here), or null; weightBuffers:
   * the constant weights' GPU buffers of executors on the same weights (its own otherwise).
   */
  static async create({ device, plan, handle, memoryView, streamed = null, weightBuffers = null }:
    {
      device: GpuObject; plan: WebGpuPlan; handle: WasmSteps; memoryView: MemoryView;
      streamed?: StreamedWeights | null; weightBuffers?: SharedWeightBuffers | null;
    }): Promise<WebGpuExecutor> {
    const ex = new WebGpuExecutor(device, plan, handle, memoryView);
    ex.streamed = streamed;
    if (weightBuffers) ex.weightBuffers = weightBuffers;
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    let failed = null;
    try {
      ex._build();
    } catch (e) {
      failed = e;
    }
    const validation = await device.popErrorScope();
    const oom = await device.popErrorScope();
    // A failed create frees what it made (shared weight buffers it added were never filled).
    if (failed || oom || validation) ex.destroy();
    if (failed) throw failed;
    if (oom) throw new ExecutionError(`WebGPU: out of GPU memory while creating the model's buffers: ${oom.message}`);
    if (validation) throw new ExecutionError(`WebGPU: ${ex._building ?? 'building the model'}: ${validation.message}`);
    try {
      await ex._uploadWeights();
    } catch (e) {
      ex.destroy();
      throw e;
    }
    ex.streamed = null;
    return ex;
  }

  constructor(device: GpuObject, plan: WebGpuPlan, handle: WasmSteps, memoryView: MemoryView) {
    this.device = device;
    this.plan = plan;
    this.handle = handle;
    this.memoryView = memoryView;
    this.lib = libraryFor(device);
    this.stats = { dispatches: 0, uploads: 0, downloads: 0, uploadBytes: 0, downloadBytes: 0 };
    this._owned = [];
    this.lost = null; // the device's loss info, once lost: runs then fail naming it
    device.lost?.then((info: { message?: string; reason?: string }) => { this.lost = info; });
  }

  /** The GPU buffer holding value `id` of the plan (a graph I/O's: plan.inputs / plan.outputs). */
  bufferOf(id: number): GpuObject {
    const v = this.plan.values[id];
    if (!v || v.slot < 0) throw new ExecutionError(`WebGPU: value ${id} has no GPU buffer in this plan`);
    return this.slots[v.slot];
  }

  private _buffer(size: number, usage: number): GpuObject {
    const b = this.device.createBuffer({ size: Math.max(4, Math.ceil(size / 4) * 4), usage });
    this._owned.push(b);
    return b;
  }

  private _build(): void {
    const { plan, device } = this;
    // A constant weight has a slot of its own: one buffer per weight, shared through weightBuffers.
    const weightOfSlot = new Map<number, number>(plan.prepare.map((id: number) => [plan.values[id].slot, id]));
    this.slots = plan.slots.map((bytes: number, slot: number) => {
      const id = weightOfSlot.get(slot);
      if (id === undefined) return this._buffer(bytes, STORAGE);
      const v: PlanValue = plan.values[id];
      const held = v.gpu_dtype === 'float16' || v.gpu_dtype === 'int4' ? ` as ${v.gpu_dtype}` : '';
      const key = (v.streamed !== undefined ? `streamed ${v.streamed} from ${v.part_first ?? 0} ${v.numel}` : `at ${v.ptr} ${v.numel} ${v.dtype}`) + held;
      this.weightKeys.push(key);
      const shared = this.weightBuffers.take(key);
      if (shared) {
        this.sharedValues.add(id);
        return shared;
      }
      const b = this.device.createBuffer({ size: Math.max(4, Math.ceil(bytes / 4) * 4), usage: STORAGE });
      this.weightBuffers.add(key, b);
      return b;
    });
    this.dummyRead = this._buffer(4, STORAGE);
    this.dummyWrite = this._buffer(4, STORAGE);
    this.steps = [];
    for (const item of plan.program) {
      if (item.op !== 'gpu') {
        if (item.op === 'download') item.staging = this._buffer(gpuBytes(plan.values[item.value]), BUFFER_USAGE.MAP_READ | BUFFER_USAGE.COPY_DST);
        this.steps.push(item);
        continue;
      }
      this._building = `node '${item.node}' (${item.op_type})`;
      const dispatches = item.dispatches.map((d: PlanItem) => {
        const source = d.kernel === 'elementwise'
          ? elementwiseSource(d.ew.op, d.ew.in, d.ew.out, d.ew.alias)
          : kernelSource(d.kernel, { types: d.types, subst: d.subst });
        const p = this.lib.pipeline(d.kernel, source);
        const u = packMeta(d.kernel, d.meta);
        const ub = this._buffer(u.byteLength, BUFFER_USAGE.UNIFORM | BUFFER_USAGE.COPY_DST);
        device.queue.writeBuffer(ub, 0, u);
        const written = new Set(d.written);
        const entries: object[] = [{ binding: 0, resource: { buffer: ub } }];
        for (let i = 0; i < p.bindings; i++) {
          const id = d.bind[i] ?? -1;
          const buffer = id >= 0 ? this.slots[plan.values[id].slot] : written.has(i) ? this.dummyWrite : this.dummyRead;
          entries.push({ binding: i + 1, resource: { buffer } });
        }
        return { pipeline: p.pipeline, bindGroup: device.createBindGroup({ layout: p.bgl, entries }), wg: d.wg };
      });
      this.steps.push({ ...item, dispatches });
    }
    this._building = null;
  }

  private _valueBytes(v: PlanValue): Uint8Array {
    return this.memoryView(v.ptr, v.numel * ITEM[v.dtype]!);
  }

  private _upload(id: number): void {
    const v = this.plan.values[id];
    if (v.streamed !== undefined) throw new ExecutionError(`WebGPU: weight '${v.label}' was streamed: it uploads once, at create`);
    // A float16 weight held as f16 (shader-f16) narrows its float32 copy exactly.
    this._write(v, v.gpu_dtype === 'float16' ? halfGpuBytes(v, this._valueBytes(v), false) : toGpuBytes(v, this._valueBytes(v)));
  }

  private _write(v: PlanValue, data: ArrayBufferView): void {
    if (data.byteLength) this.device.queue.writeBuffer(this.slots[v.slot], 0, data);
    this.stats.uploads++;
    this.stats.uploadBytes += data.byteLength;
  }

  // The constant weights, once; streamed ones are read from their file one at a time (only one
  // tensor's bytes are held at once), in plan order. A weight held as f16 takes the file's
  // float16 bytes as they are; one of another dtype (held as f16 under weightDtype 'float16')
  // is read as float32 and rounded, as the CPU rounds the halves it packs. The parts of a weight
  // larger than the largest binding come one after another: its bytes are read once for them all.
  private async _uploadWeights(): Promise<void> {
    let last = null as { key: string; bytes: Uint8Array } | null;
    for (const id of this.plan.prepare) {
      if (this.sharedValues.has(id)) continue;
      const v = this.plan.values[id];
      if (v.streamed === undefined) {
        this._upload(id);
        continue;
      }
      if (!this.streamed) throw new ExecutionError(`WebGPU: weight '${v.label}' was streamed, but its file is gone`);
      const half = v.gpu_dtype === 'float16';
      const fileHalf = half && this.streamed.fileDtype(v.streamed) === 'float16';
      const dtype = fileHalf ? 'float16' : v.dtype;
      const key = `${v.streamed} as ${dtype}`;
      if (last?.key !== key) last = { key, bytes: await this.streamed.bytesOf(v.streamed, dtype) };
      const item = dtype === 'float16' ? 2 : ITEM[v.dtype]!;
      const first = v.part_first ?? 0;
      const bytes = last.bytes.subarray(first * item, (first + v.numel) * item);
      this._write(v, half ? halfGpuBytes(v, bytes, fileHalf) : toGpuBytes(v, bytes, true));
    }
  }

  /**
   * One run: the graph inputs are in the engine's input slots; the outputs end there too.
   * With `profiling` set, `lastProfile` gets each GPU node's time: on a device with
   * 'timestamp-query', the GPU time of the node's own compute pass (clock 'gpu'); else the node
   * is submitted alone and awaited, and its wall time from submit to done includes ~tens of µs of
   * submit/sync latency (clock 'wall'). Either way a profiled run is slower than a normal one.
   */
  async run(): Promise<void> {
    const { device } = this;
    if (this.lost) throw this._lostError(null);
    const prof: GpuTiming[] | null = this.profiling ? [] : null;
    if (this.capturing) this.captured.clear();
    const timer = prof ? this._timer() : null;
    const timed: GpuTiming[] = []; // the prof entries the timer fills, in pass order
    let encoder: GpuObject = null;
    let pass: GpuObject = null;
    // Each submitted segment has its own error scope, popped without waiting, so an error
    // names the nodes it came from and a run still syncs only on its downloads.
    const segments: { nodes: string[] | null; errors: Promise<GpuObject>[] }[] = [];
    let nodes: string[] | null = null;
    const flush = () => {
      if (!encoder) return;
      pass?.end();
      device.queue.submit([encoder.finish()]);
      segments.push({ nodes, errors: [device.popErrorScope(), device.popErrorScope()] });
      encoder = pass = null;
    };
    device.pushErrorScope('validation');
    let failure: unknown = null;
    let current: PlanItem = null;
    try {
      for (const step of this.steps) {
        current = step;
        if (step.op === 'gpu') {
          if (!encoder) {
            device.pushErrorScope('internal');
            device.pushErrorScope('validation');
            nodes = [];
            encoder = device.createCommandEncoder();
            pass = timer ? null : encoder.beginComputePass();
          }
          nodes!.push(step.node);
          if (timer) pass = encoder.beginComputePass(timer.passOf(timed.length));
          for (const d of step.dispatches) {
            pass.setPipeline(d.pipeline);
            pass.setBindGroup(0, d.bindGroup);
            pass.dispatchWorkgroups(d.wg[0], d.wg[1], d.wg[2]);
            this.stats.dispatches++;
          }
          if (this.capturing && step.outputs?.length) {
            flush();
            await this._capture(step);
          }
          if (timer) {
            pass?.end();
            pass = null;
            const t: GpuTiming = { node: step.node, covers: step.covers ?? [], opType: step.op_type, ms: 0, device: 'webgpu', clock: 'gpu' };
            timed.push(t);
            prof!.push(t);
          } else if (prof) {
            const t0 = performance.now();
            flush();
            await device.queue.onSubmittedWorkDone();
            prof.push({ node: step.node, covers: step.covers ?? [], opType: step.op_type, ms: performance.now() - t0, device: 'webgpu', clock: 'wall' });
          }
        } else if (step.op === 'upload') {
          flush(); // the slot may still be read by dispatches recorded before
          this._upload(step.value);
        } else if (step.op === 'download') {
          flush();
          const v = this.plan.values[step.value];
          const enc = device.createCommandEncoder();
          enc.copyBufferToBuffer(this.slots[v.slot], 0, step.staging, 0, step.staging.size);
          device.queue.submit([enc.finish()]);
          await step.staging.mapAsync(MAP_MODE_READ);
          fromGpuBytes(v, step.staging.getMappedRange(), this._valueBytes(v));
          step.staging.unmap();
          this.stats.downloads++;
          this.stats.downloadBytes += v.numel * ITEM[v.dtype]!;
        } else if (step.op === 'wasm') {
          const t0 = prof ? performance.now() : 0;
          check(this.handle.runSteps(step.first, step.last), 'ExecutionError');
          if (prof) prof.push({ node: step.nodes?.[0] ?? '', covers: step.nodes?.slice(1) ?? [], opType: 'wasm', ms: performance.now() - t0, device: 'wasm', clock: 'wall' });
        }
      }
      flush();
      if (timer && timed.length) (await timer.read(timed.length)).forEach((ms, k) => { timed[k]!.ms = ms; });
      if (prof) this.lastProfile = prof;
    } catch (e) {
      failure = e;
    }
    if (encoder) { // a throw mid-segment: close its scope
      encoder = pass = null;
      segments.push({ nodes, errors: [device.popErrorScope(), device.popErrorScope()] });
    }
    const errors = await Promise.all(segments.map(async (g) => {
      const [validation, internal] = await Promise.all(g.errors.map((e) => e.catch(() => null)));
      return validation ?? internal;
    }));
    const err = await device.popErrorScope().catch(() => null);
    if (this.lost) throw this._lostError(current, failure);
    if (failure) throw failure;
    const k = errors.findIndex(Boolean);
    if (k >= 0) throw new ExecutionError(`WebGPU: ${errors[k].message} (in ${nodeRange(segments[k]!.nodes)})`);
    if (err) throw new ExecutionError(`WebGPU: ${err.message}`);
  }

  // A GPU node's outputs read back (keepIntermediates): its slots may hold other values later.
  private async _capture(step: PlanItem): Promise<void> {
    const { device } = this;
    for (const o of step.outputs as { name: string; value: number }[]) {
      const v: PlanValue = this.plan.values[o.value];
      const bytes = v.numel * ITEM[v.dtype]!;
      const staging = device.createBuffer({ size: Math.max(4, Math.ceil(bytes / 4) * 4), usage: BUFFER_USAGE.MAP_READ | BUFFER_USAGE.COPY_DST });
      try {
        const enc = device.createCommandEncoder();
        enc.copyBufferToBuffer(this.slots[v.slot], 0, staging, 0, staging.size);
        device.queue.submit([enc.finish()]);
        await staging.mapAsync(MAP_MODE_READ);
        this.captured.set(o.name, { dtype: v.dtype, bytes: new Uint8Array(staging.getMappedRange().slice(0, bytes)) });
        staging.unmap();
      } finally {
        staging.destroy();
      }
    }
  }

  private _timer(): GpuTimer | null {
    if (this.timer === undefined) {
      const nodes = this.steps.filter((s) => s.op === 'gpu').length;
      this.timer = GpuTimer.available(this.device) && nodes ? new GpuTimer(this.device, nodes) : null;
    }
    return this.timer;
  }

  private _lostError(step: PlanItem, cause?: unknown): ExecutionError {
    // GPU work is asynchronous: name where the run had got to, not a culprit.
    const at = step?.op === 'gpu' ? ` (the run had reached node '${step.node}', ${step.op_type})`
      : step?.op === 'wasm' ? ` (the run had reached WASM ${nodeRange(step.nodes)})`
        : step ? ` (the run had reached a ${step.op} of value '${this.plan.values[step.value]?.label}')` : ' before the run';
    const why = this.lost!.message || this.lost!.reason || 'unknown reason';
    return new ExecutionError(`WebGPU: the device was lost${at}: ${why}`, cause ? { cause } : undefined);
  }

  /** Compute nodes per device, the transfers of one run (views are not nodes), and each node kept on WASM with why. */
  placement(): Placement {
    const p = this.plan.placement;
    const wasmNodes = (this.plan.fallbacks ?? []).map((f: { node: string; op_type: string; why: string }) => ({ node: f.node, opType: f.op_type, why: f.why }));
    return { nodes: { webgpu: p.webgpu, wasm: p.wasm }, transfers: { uploads: p.uploads, downloads: p.downloads }, wasmNodes };
  }

  destroy(): void {
    this.timer?.destroy();
    this.timer = undefined;
    for (const b of this._owned) b.destroy();
    this._owned = [];
    for (const key of this.weightKeys) this.weightBuffers.release(key);
    this.weightKeys = [];
  }
}

