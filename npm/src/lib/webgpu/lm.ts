// Text generation on WebGPU: the engine's LanguageModel keeps the loop (inputs, masks,
// positions, sampler); this runs its two sessions' plans (LanguageModel::webgpu_plan) with one
// executor each and does the buffer copies that plan lists. The KV caches live in the decode
// executor's GPU buffers for the whole generation: prefill's key/value outputs are copied into
// them on the GPU, each step's updated caches are copied back into its inputs on the GPU, and
// only the small per-step inputs go up and the logits come down.
import { ExecutionError, check } from '../errors.js';
import { parseJsonLoose } from '../json.js';
import { SharedWeightBuffers, WebGpuExecutor, type GpuStats, type WebGpuPlan } from './executor.js';
import type { Backend, EmbindObject } from '../backend.js';
import type { GpuTransfers } from '../lm_types.js';
import type { Placement } from '../model_types.js';
import type { GpuObject } from './kernels.js';
import { bindingLimit } from './device.js';
import { memoryViewOf } from './provider.js';
import type { StreamedWeights } from './streaming.js';

const PREFILL = 0;
const DECODE = 1;

function counts(s: GpuStats): GpuTransfers {
  return { dispatches: s.dispatches, uploads: s.uploads, downloads: s.downloads, uploadBytes: s.uploadBytes, downloadBytes: s.downloadBytes };
}
function delta(a: GpuTransfers, b: GpuTransfers): GpuTransfers {
  return Object.fromEntries(Object.keys(a).map((k) => [k, a[k as keyof GpuTransfers] - b[k as keyof GpuTransfers]])) as unknown as GpuTransfers;
}

/** A GPU copy: [source buffer, source offset, destination buffer, destination offset, bytes]. */
type BufferCopy = [GpuObject, number, GpuObject, number, number];
/** A GPU clear: [buffer, offset, bytes]. */
type BufferClear = [GpuObject, number, number];

export class GpuGeneration {
  device: GpuObject;
  plan: WebGpuPlan;
  prefillEx: WebGpuExecutor;
  decodeEx: WebGpuExecutor;
  /** Cache bytes copied on the GPU per decode step (0 with donate). */
  copyBytesPerStep: number;
  /** The transfers of the last prefill and of the last decode step. */
  last: { prefill: GpuTransfers | null; step: GpuTransfers | null };
  private _clears: BufferClear[];
  private _fills: BufferCopy[];
  private _carries: BufferCopy[];

  /**
   * device: a GPUDevice; handle: a compiled WasmLM (setWebGpu before compile); streamed: its
   * StreamedWeights when weights skipped WASM memory (streaming.js). Throws on failure.
   */
  static async create(device: GpuObject, backend: Backend, handle: EmbindObject,
    streamed: StreamedWeights | null = null): Promise<GpuGeneration> {
    handle.setShaderF16(device.features?.has('shader-f16') ?? false);
    const text = String(handle.webgpuPlan(bindingLimit(device)));
    const plan = parseJsonLoose(text);
    if (plan && plan.kind && plan.message !== undefined) check(text, 'ExecutionError');
    const placed = plan.prefill.placement.webgpu + plan.decode.placement.webgpu;
    if (placed === 0) throw new ExecutionError(`no node of the prefill or decode graph can run on the GPU (${plan.decode.fallbacks[0]?.why ?? 'no compute node'})`);
    const memoryView = memoryViewOf(backend);
    const executors: WebGpuExecutor[] = [];
    const weightBuffers = new SharedWeightBuffers(); // both graphs read one copy of each weight
    try {
      for (const which of [PREFILL, DECODE]) {
        executors.push(await WebGpuExecutor.create({
          device,
          plan: which === PREFILL ? plan.prefill : plan.decode,
          handle: { runSteps: (first: number, last: number) => handle.runSteps(which, first, last) },
          memoryView,
          streamed,
          weightBuffers,
        }));
      }
      const gen = new GpuGeneration(device, plan, executors as [WebGpuExecutor, WebGpuExecutor]);
      await gen._copy(gen._clears, gen._fills, 'setting up the KV caches'); // validates the copy ranges once
      return gen;
    } catch (e) {
      for (const ex of executors) ex.destroy();
      throw e;
    }
  }

  constructor(device: GpuObject, plan: WebGpuPlan, [prefill, decode]: [WebGpuExecutor, WebGpuExecutor]) {
    this.device = device;
    this.plan = plan;
    this.prefillEx = prefill;
    this.decodeEx = decode;
    const io = (ex: WebGpuExecutor, list: 'inputs' | 'outputs', i: number) => ex.bufferOf(ex.plan[list][i]);
    this._clears = [];
    this._fills = [];
    this._carries = [];
    for (const c of plan.caches) {
      const cache = io(decode, 'inputs', c.decode_in);
      this._clears.push([cache, ...c.clear] as BufferClear);
      const from = io(prefill, 'outputs', c.prefill_out);
      for (const [src, dst, n] of c.fill) this._fills.push([from, src, cache, dst, n]);
      const updated = io(decode, 'outputs', c.decode_out);
      for (const [src, dst, n] of c.carry) this._carries.push([updated, src, cache, dst, n]);
    }
    this.copyBytesPerStep = this._carries.reduce((a, c) => a + c[4], 0);
    this.last = { prefill: null, step: null };
  }

  // Buffer copies on the GPU queue (after the run's own work, in queue order).
  private async _copy(clears: readonly BufferClear[], copies: readonly BufferCopy[], what: string): Promise<void> {
    const { device } = this;
    device.pushErrorScope('validation');
    const enc = device.createCommandEncoder();
    for (const [buf, offset, size] of clears) enc.clearBuffer(buf, offset, size);
    for (const [src, so, dst, doff, n] of copies) enc.copyBufferToBuffer(src, so, dst, doff, n);
    device.queue.submit([enc.finish()]);
    const err = await device.popErrorScope().catch(() => null);
    if (this.decodeEx.lost) throw new ExecutionError(`WebGPU: the device was lost while ${what}: ${this.decodeEx.lost.message || this.decodeEx.lost.reason}`);
    if (err) throw new ExecutionError(`WebGPU: ${what}: ${err.message}`);
  }

  // The prefill (its inputs written by the engine's beginStart), then the caches: zeroed, with
  // the prefill's P slots copied in.
  async prefill(): Promise<void> {
    const before = counts(this.prefillEx.stats);
    await this.prefillEx.run();
    await this._copy(this._clears, this._fills, 'copying the prefill keys/values into the KV caches');
    this.last.prefill = delta(counts(this.prefillEx.stats), before);
  }

  // One decode step (inputs written by beginStep), then the updated caches back into the inputs.
  async step(): Promise<void> {
    const before = counts(this.decodeEx.stats);
    await this.decodeEx.run();
    if (this._carries.length) await this._copy([], this._carries, 'carrying the updated KV caches');
    this.last.step = delta(counts(this.decodeEx.stats), before);
  }

  placement(): { prefill: Placement; decode: Placement } {
    return { prefill: this.prefillEx.placement(), decode: this.decodeEx.placement() };
  }

  destroy(): void {
    this.prefillEx.destroy();
    this.decodeEx.destroy();
  }
}
