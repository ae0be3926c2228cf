// Text generation on WebGPU: the engine's LanguageModel keeps the loop (inputs, masks,
// positions, sampler); this runs its two sessions' plans (LanguageModel::webgpu_plan) with one
// executor each and does the buffer copies that plan lists. The KV caches live in the decode
// executor's GPU buffers for the whole generation: prefill's key/value outputs are copied into
// them on the GPU, each step's updated caches are copied back into its inputs on the GPU, and
// only the small per-step inputs go up and the logits come down.
import { ExecutionError, check } from '../errors.js';
import { parseJsonLoose } from '../json.js';
import { WebGpuExecutor } from './executor.js';

const PREFILL = 0;
const DECODE = 1;

function counts(s) {
  return { dispatches: s.dispatches, uploads: s.uploads, downloads: s.downloads, uploadBytes: s.uploadBytes, downloadBytes: s.downloadBytes };
}
function delta(a, b) {
  return Object.fromEntries(Object.keys(a).map((k) => [k, a[k] - b[k]]));
}

export class GpuGeneration {
  /** device: a GPUDevice; handle: a compiled WasmLM (setWebGpu before compile). Throws on failure. */
  static async create(device, backend, handle) {
    const text = String(handle.webgpuPlan(device.limits.maxStorageBufferBindingSize));
    const plan = parseJsonLoose(text);
    if (plan && plan.kind && plan.message !== undefined) check(text, 'ExecutionError');
    const placed = plan.prefill.placement.webgpu + plan.decode.placement.webgpu;
    if (placed === 0) throw new ExecutionError(`no node of the prefill or decode graph can run on the GPU (${plan.decode.fallbacks[0]?.why ?? 'no compute node'})`);
    const memoryView = (ptr, bytes) => backend.call('memoryView', () => backend.module.memoryView(ptr, bytes));
    const executors = [];
    try {
      for (const which of [PREFILL, DECODE]) {
        executors.push(await WebGpuExecutor.create({
          device,
          plan: which === PREFILL ? plan.prefill : plan.decode,
          handle: { runSteps: (first, last) => handle.runSteps(which, first, last) },
          memoryView,
        }));
      }
      const gen = new GpuGeneration(device, plan, executors);
      await gen._copy(gen._clears, gen._fills, 'setting up the KV caches'); // validates the copy ranges once
      return gen;
    } catch (e) {
      for (const ex of executors) ex.destroy();
      throw e;
    }
  }

  constructor(device, plan, [prefill, decode]) {
    this.device = device;
    this.plan = plan;
    this.prefillEx = prefill;
    this.decodeEx = decode;
    const io = (ex, list, i) => ex.bufferOf(ex.plan[list][i]);
    this._clears = [];
    this._fills = [];
    this._carries = [];
    for (const c of plan.caches) {
      const cache = io(decode, 'inputs', c.decode_in);
      this._clears.push([cache, ...c.clear]);
      const from = io(prefill, 'outputs', c.prefill_out);
      for (const [src, dst, n] of c.fill) this._fills.push([from, src, cache, dst, n]);
      const updated = io(decode, 'outputs', c.decode_out);
      for (const [src, dst, n] of c.carry) this._carries.push([updated, src, cache, dst, n]);
    }
    this.copyBytesPerStep = this._carries.reduce((a, c) => a + c[4], 0);
    this.last = { prefill: null, step: null };
  }

  // Buffer copies on the GPU queue (after the run's own work, in queue order).
  async _copy(clears, copies, what) {
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
  async prefill() {
    const before = counts(this.prefillEx.stats);
    await this.prefillEx.run();
    await this._copy(this._clears, this._fills, 'copying the prefill keys/values into the KV caches');
    this.last.prefill = delta(counts(this.prefillEx.stats), before);
  }

  // One decode step (inputs written by beginStep), then the updated caches back into the inputs.
  async step() {
    const before = counts(this.decodeEx.stats);
    await this.decodeEx.run();
    if (this._carries.length) await this._copy([], this._carries, 'carrying the updated KV caches');
    this.last.step = delta(counts(this.decodeEx.stats), before);
  }

  placement() {
    return { prefill: this.prefillEx.placement(), decode: this.decodeEx.placement() };
  }

  destroy() {
    this.prefillEx.destroy();
    this.decodeEx.destroy();
  }
}
