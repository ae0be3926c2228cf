// The Model class (what loadIR returns: load_model.ts) and execute / verify, a thin layer over
// the Embind WasmModel (bindings/API.md). All checks that matter are the engine's; JS only
// reshapes arguments and maps errors and reports.
import { irMetaFrom } from './load_sources.js';
import { TorchIrError, ExecutionError, VerificationError, check } from './errors.js';
import { parseJsonLoose } from './json.js';
import { gpuTensorData, gpuTensorMeta, isGpuTensor, outputOnGpu, type GpuRuns, type ResidentInput } from './webgpu/gpu_io.js';
import { copyBytes, fromBytes, isTypedArray, numel, toShape, toTensor, DTYPE_ARRAY, type NormalizedTensor } from './tensor.js';
import type { Backend, EmbindObject } from './backend.js';
import type { IrMeta } from './load_sources.js';
import type { WebGpuExecutor } from './webgpu/executor.js';
import type { DType, Inputs, OutputTensor, TensorInfo } from './tensor_types.js';
import type { ExecuteOptions, Expected, NodeTiming, Placement, VerifyOptions, VerifyReport } from './model_types.js';
import type { ProxyModel } from './proxy.js';

// Handles are guarded (lib/trap.js): delete() skips a discarded instance.
const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((handle: EmbindObject) => {
    try {
      handle.delete();
    } catch {
      // already freed
    }
  })
  : null;

// _runValues' answer when inputs on the GPU must be read back first (another input needs conversion).
const NEEDS_CPU = Symbol('needs-cpu');

// Inputs/expected given as a Map (name -> value) read like {name: value}.
function byName(v: any): any {
  return v instanceof Map ? Object.fromEntries(v) : v;
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

function infoList(handle: EmbindObject, count: number, get: (this: EmbindObject, i: number) => EmbindObject): readonly TensorInfo[] {
  const out: TensorInfo[] = [];
  for (let i = 0; i < count; ++i) {
    const m = get.call(handle, i);
    out.push(Object.freeze({ name: String(m.name), dtype: String(m.dtype) as DType, shape: Object.freeze(toShape(m.shape)) }));
  }
  return Object.freeze(out);
}

// expected / reference64 argument -> array in graph_outputs order.
function outputList(given: Expected, metas: readonly TensorInfo[], what: string): any[] {
  const v: any = byName(given);
  if (Array.isArray(v)) return v;
  if (isTypedArray(v) && metas.length === 1) return [v];
  if (v && typeof v === 'object') return metas.map((m) => v[m.name]);
  throw new VerificationError(`${what} must be an array (graph_outputs order) or an object keyed by output name`);
}

function camelReport(r: any): VerifyReport {
  return {
    isValid: Boolean(r.is_valid),
    maxDiff: r.max_diff,
    meanDiff: r.mean_diff,
    numOutputs: r.num_outputs,
    outputDetails: (r.output_details || []).map((o: any) => ({
      index: o.index,
      shape: toShape(o.shape),
      isClose: Boolean(o.is_close),
      maxDiff: o.max_diff,
      meanDiff: o.mean_diff,
    })),
    errorMessage: r.error_message ?? null,
    text: String(r.text),
  };
}

/**
 * A loaded model (the default mode): one engine session inside the WASM module.
 * Dispose it, or `using m = await loadIR(...)`.
 *
 * execute() returns OutputTensor (a union over dtypes, discriminated by
 * `dtype`); `execute<'float32'>(...)` states the dtype of every output instead
 * (unchecked, like a cast: use it when the graph's outputs are known).
 */
export class Model {
  /** graph_inputs metadata from the IR. */
  readonly inputs: readonly TensorInfo[];
  /** graph_outputs metadata from the IR. */
  readonly outputs: readonly TensorInfo[];
  /** @internal */ _weightDtype: string;
  /** @internal */ _backend: Backend;
  /** @internal */ _threads: number;
  /** @internal */ _handle: EmbindObject | null;
  /** @internal */ _irMeta: IrMeta;
  /** @internal */ _compiled: boolean;
  /** @internal */ _gpu: WebGpuExecutor | null;
  /** @internal the runs with GPU tensors (its executors, the first being _gpu), or null: WASM only */
  _gpuRuns: GpuRuns | null = null;
  /** @internal */ _slotInfo?: { dtype: string; shape: number[] }[];
  /** @internal */ _lastCarryBytes?: number;
  /** @internal */ _ran?: boolean;
  /** @internal */ _outMeta?: { name: string; shape: number[]; dtype: string }[] | null;
  /** @internal loaded with keepIntermediates */ _keepIntermediates = false;

  // Private: models come from loadIR (Model._create), so `new Model()` does not type-check.
  private constructor(backend: Backend, handle: EmbindObject, irText: string, compiled: boolean, weightDtype = 'float32',
    threads: number = backend.currentThreads) {
    this._weightDtype = String(weightDtype);
    this._backend = backend;
    // The count this model was loaded with: the module has one count, which a later load with
    // another `threads` changes, so each run sets this model's own back (backend.useThreads).
    this._threads = threads;
    this._handle = handle;
    this._irMeta = irMetaFrom(irText);
    this._compiled = compiled;
    this._gpu = null; // the WebGPU executor (loadIR executionProviders), or null: WASM only
    this.inputs = infoList(handle, Number(handle.numInputs()), handle.inputInfo);
    this.outputs = infoList(handle, Number(handle.numOutputs()), handle.outputInfo);
    finalizer?.register(this, handle, this);
  }

  /** @internal loadIR's way to the private constructor. */
  static _create(backend: Backend, handle: EmbindObject, irText: string, compiled: boolean, weightDtype: string,
    threads: number): Model {
    return new Model(backend, handle, irText, compiled, weightDtype, threads);
  }

  /** Which build runs this model: {variant: 'simd-threaded' | 'simd', threads}. */
  get backend(): { readonly variant: 'simd-threaded' | 'simd'; readonly threads: number } {
    const b = this._backend;
    return { variant: b.variant, threads: b.threaded && !b.dead ? this._threads : 1 };
  }

  /** @internal the engine handle; throws once disposed or after a trap */
  get _h(): EmbindObject {
    if (!this._handle) throw new TorchIrError('model is disposed');
    if (this._backend.dead) this._backend.call('Model', () => {}); // throws the discarded-instance error
    return this._handle;
  }

  /** @internal */
  _ensureCompiled(): void {
    if (!this._compiled) {
      check(this._h.compile(this._weightDtype), 'ExecutionError');
      this._compiled = true;
    }
  }

  // The input values in graph_inputs order (array, single typed array, or {name: value});
  // undefined for the carried ones.
  private _inputValues(inputs: any, carried: Map<number, number> | null): unknown[] {
    const metas = this.inputs;
    let list: unknown[];
    if (Array.isArray(inputs)) {
      list = inputs;
    } else if (isTypedArray(inputs) && metas.length === 1) {
      list = [inputs];
    } else if (inputs && typeof inputs === 'object') {
      const names = new Set(metas.map((m) => m.name));
      for (const k of Object.keys(inputs)) {
        if (!names.has(k)) throw new ExecutionError(`unknown input '${k}' (graph inputs: ${metas.map((m) => m.name).join(', ')})`);
      }
      list = metas.map((m, i) => {
        if (carried?.has(i)) return undefined;
        if (!(m.name in inputs)) throw new ExecutionError(`input ${i} ('${m.name}') is missing`);
        return inputs[m.name];
      });
    } else if (metas.length === 0 && inputs === undefined) {
      list = [];
    } else {
      throw new ExecutionError('inputs must be an array (graph_inputs order) or an object keyed by input name');
    }
    if (list.length !== metas.length) throw new ExecutionError(`expected ${metas.length} input(s) (${metas.map((m) => `'${m.name}'`).join(', ')}), got ${list.length}`);
    return [...list];
  }

  // Input values -> tensors the engine takes (null for those in `skip`: carried, or on the GPU).
  private _inputTensors(list: readonly unknown[], skip: ReadonlySet<number>): (NormalizedTensor | null)[] {
    const metas = this.inputs;
    return list.map((v, i) => (skip.has(i) ? null : toTensor(v, metas[i], (msg) => {
      throw new ExecutionError(`input ${i} ('${metas[i]!.name}'): ${msg}`);
    })));
  }

  // Per input, the slot the graph reads ({dtype, shape}), fetched once per compile.
  private _slots(): { dtype: string; shape: number[] }[] {
    if (!this._slotInfo) {
      const h = this._h;
      this._slotInfo = this.inputs.map((_, i) => {
        const [dtype, ...dims] = String(h.inputSlotInfo(i)).split(' ');
        return { dtype: dtype!, shape: dims.map(Number) };
      });
    }
    return this._slotInfo;
  }

  // keepOutputs: leave the preferredOutputLocation 'gpu-buffer' outputs on the GPU (execute;
  // verify reads them all on the CPU).
  private _run(given: Inputs | undefined, carry?: ExecuteOptions['carry'], keepOutputs = true): Promise<void> | undefined {
    const inputs = byName(given);
    this._ensureCompiled();
    const carried = this._carryPlan(inputs, carry);
    const values = this._inputValues(inputs, carried);
    if (values.some(isGpuTensor)) return this._runGpuTensors(values, carried, keepOutputs);
    return this._runValues(values, carried, [], keepOutputs) as Promise<void> | undefined;
  }

  // GPU tensors among the inputs: on a WebGPU model those that fit their slot stay on the GPU,
  // the others (and all, on WASM) are read back first.
  private async _runGpuTensors(values: unknown[], carried: Map<number, number> | null, keepOutputs: boolean): Promise<void> {
    const names = this.inputs.map((m) => m.name);
    const readBack = async (i: number): Promise<void> => {
      const v = values[i];
      if (!isGpuTensor(v)) return;
      const what = `input ${i} ('${names[i]}')`;
      const { shape, dtype } = gpuTensorMeta(v, what);
      values[i] = { data: await gpuTensorData(v, this._gpuRuns?.device ?? null, what), shape, dtype };
    };
    const resident = this._gpuRuns ? await this._gpuRuns.splitInputs(values, names, this._slots()) : [];
    if (!this._gpuRuns) for (let i = 0; i < values.length; i++) await readBack(i);
    const r = this._runValues(values, carried, resident, keepOutputs);
    if (r !== NEEDS_CPU) return r;
    for (const { index } of resident) await readBack(index); // another input needs conversion
    return this._runValues(values, carried, [], keepOutputs) as Promise<void> | undefined;
  }

  private _runValues(values: readonly unknown[], carried: Map<number, number> | null, resident: readonly ResidentInput[],
    keepOutputs: boolean): Promise<void> | undefined | typeof NEEDS_CPU {
    const h = this._h;
    this._backend.useThreads(this._threads);
    const skip = new Set<number>([...(carried?.keys() ?? []), ...resident.map((r) => r.index)]);
    const tensors = this._inputTensors(values, skip);
    const slots = this._slots();
    // Fast path: every input already has its slot's dtype and shape, so its
    // bytes go straight into the engine's input memory. Anything else (other
    // shapes, float16 widening) takes setInput, which converts and explains.
    const direct = tensors.every((t, i) => skip.has(i) || (t!.dtype === slots[i]!.dtype && sameShape(t!.shape, slots[i]!.shape)));
    if (direct) {
      if (carried) {
        for (const [i, o] of carried) this._lastCarryBytes! += Number(h.carry(o, i));
      }
      tensors.forEach((t, i) => { if (!skip.has(i)) h.inputSlot(i).set(t!.bytes); });
      if (this._gpuRuns) return this._runGpu(resident, keepOutputs);
      check(h.runSlots(), 'ExecutionError');
      this._ran = true;
      return undefined;
    }
    if (resident.length) return NEEDS_CPU; // setInput takes every input from here
    if (carried) throw new ExecutionError('carry: the other inputs must have exactly their graph input dtype and shape (no conversion)');
    tensors.forEach((t, i) => check(h.setInput(i, t!.dtype, t!.shape, t!.bytes), 'ExecutionError'));
    if (this._gpuRuns) {
      check(h.stageInputs(), 'ExecutionError');
      return this._runGpu([], keepOutputs);
    }
    check(h.run(), 'ExecutionError');
    this._ran = true;
    return undefined;
  }

  // The WebGPU executor runs the graph (inputs are in their slots, or resident on the GPU);
  // outputs end in the engine, or on the GPU where kept.
  private async _runGpu(resident: readonly ResidentInput[], keepOutputs: boolean): Promise<void> {
    await this._gpuRuns!.run(resident, keepOutputs);
    check(this._h.collectOutputs(), 'ExecutionError');
    this._ran = true;
  }

  /**
   * Where the compute nodes run ({nodes: {webgpu, wasm}, transfers: {uploads, downloads}}):
   * views (reshapes, slices, ...) are not counted, they cost nothing on either device;
   * transfers are the value moves between the devices in one run.
   */
  placement(): Placement {
    this._ensureCompiled();
    const w = this._h.weightBytes();
    const weights = { wasm: w.wasm, webgpu: w.streamed };
    if (this._gpu) return { ...this._gpu.placement(), weights };
    const p = JSON.parse(String(this._h.webgpuPlan(2 ** 31))).placement ?? {};
    return { nodes: { webgpu: 0, wasm: (p.webgpu ?? 0) + (p.wasm ?? 0) }, transfers: { uploads: 0, downloads: 0 }, weights };
  }

  /** The execution providers this model runs on, in order: ['webgpu', 'wasm'] or ['wasm']. */
  get executionProviders(): readonly ('webgpu' | 'wasm')[] {
    return this._gpu ? ['webgpu', 'wasm'] : ['wasm'];
  }

  // carry {inputName: outputName} -> Map(input index -> output index) of the
  // inputs to take from the previous run (those not given in `inputs`).
  private _carryPlan(inputs: any, carry: ExecuteOptions['carry']): Map<number, number> | null {
    this._lastCarryBytes = 0;
    if (!carry) return null;
    const names = new Map(this.inputs.map((m, i) => [m.name, i]));
    const outs = new Map(this.outputs.map((m, i) => [m.name, i]));
    const given = inputs && typeof inputs === 'object' && !Array.isArray(inputs) && !isTypedArray(inputs) ? inputs : null;
    if (!given) throw new ExecutionError('carry needs inputs given as an object keyed by input name');
    const plan = new Map<number, number>();
    for (const [inName, outName] of carry instanceof Map ? carry : Object.entries(carry)) {
      if (!names.has(inName)) throw new ExecutionError(`carry: unknown input '${inName}'`);
      if (!outs.has(outName)) throw new ExecutionError(`carry: unknown output '${outName}' (for input '${inName}')`);
      if (inName in given) continue;  // given values win
      if (!this._ran) throw new ExecutionError(`input '${inName}' is missing: carry takes it from the previous run, and there is none yet`);
      if (this._gpuRuns?.keptLast.has(outs.get(outName)!)) {
        throw new ExecutionError(`carry: output '${outName}' was left on the GPU by the last run (preferredOutputLocation 'gpu-buffer'); pass it as input '${inName}' instead`);
      }
      plan.set(names.get(inName)!, outs.get(outName)!);
    }
    return plan.size ? plan : null;
  }

  /** @internal */
  _readOutputs(only?: readonly string[], gpu = false): OutputTensor[] {
    const h = this._h;
    const n = Number(h.numOutputs());
    const wanted = only ? new Set(only) : null;
    if (wanted) {
      for (const name of wanted) {
        if (!this.outputs.some((o) => o.name === name)) throw new ExecutionError(`unknown output '${name}' (graph outputs: ${this.outputs.map((o) => o.name).join(', ')})`);
      }
    }
    // Output names/dtypes/shapes are fixed once compiled; read them after the
    // first run (the engine reports float16 outputs as float32) and reuse them.
    if (!this._outMeta) {
      this._outMeta = [];
      for (let i = 0; i < n; ++i) {
        const m = h.outputInfo(i);
        this._outMeta.push({ name: String(m.name), shape: toShape(m.shape), dtype: String(m.dtype) });
      }
    }
    const out: OutputTensor[] = [];
    for (let i = 0; i < n; ++i) {
      const { name, shape, dtype } = this._outMeta[i]!;
      if (wanted && !wanted.has(name)) continue;
      const bytes = h.outputBytes(i);
      const size = DTYPE_ARRAY[dtype as DType]?.BYTES_PER_ELEMENT;
      if (!size || bytes.length !== numel(shape) * size) {  // not what was cached: ask again
        this._outMeta = null;
        return this._readOutputs(only, gpu);
      }
      if (gpu && this._gpuRuns?.locations[i] === 'gpu-buffer') {
        out.push(outputOnGpu(this._gpuRuns.last, i, name, [...shape], dtype as DType, () => h.outputBytes(i)) as unknown as OutputTensor);
        continue;
      }
      out.push({ name, shape: [...shape], dtype, data: fromBytes(copyBytes(bytes), dtype) } as OutputTensor);
    }
    return out;
  }

  /**
   * Runs the graph. inputs: array (graph_inputs order), {name: value} or a Map.
   * options.carry {inputName: outputName}: inputs left out of `inputs` take
   * that output of the previous run without leaving the engine; when the graph
   * rewrites the input out of place (index_copy into a KV cache), the input's
   * memory is donated to the output and carrying costs nothing.
   * options.outputs: names of the outputs to return (default: all).
   * Rejects with ExecutionError for a missing/unknown input or a wrong shape/dtype/size (naming the input).
   */
  async execute<D extends DType = DType>(inputs: Inputs, options: ExecuteOptions = {}): Promise<OutputTensor<D>[]> {
    await this._run(inputs, options.carry);
    return this._readOutputs(options.outputs, true) as OutputTensor<D>[];
  }

  /** Bytes the last execute() copied to carry outputs into inputs (0 when donated in place). */
  get lastCarryBytes(): number {
    return this._lastCarryBytes ?? 0;
  }

  /**
   * Runs and compares with `expected` (graph_outputs order) like pytorch-ir's verify_ir.
   * options.reference64: float64 outputs (same forms as `expected`); the report then also has
   * `reference64`: per output our max error and `expected`'s max error against them, and whether
   * an rtol/atol failure is only reassociation (the engine's src/verify/truth.cpp). isValid stays rtol/atol's.
   * Rejects with VerificationError only for unusable expected values (e.g. data that does not fit its shape).
   */
  async verify(inputs: Inputs, expected: Expected, { rtol = 1e-5, atol = 1e-5, reference64 }: VerifyOptions = {}): Promise<VerifyReport> {
    await this._run(inputs, undefined, false);
    const h = this._h;
    const metas = this.outputs;
    const list = outputList(expected, metas, 'expected');
    // Another count than the graph's: the engine's report says so (nothing to compare).
    h.setExpectedCount(list.length);
    if (list.length === Number(h.numOutputs())) list.forEach((v, i) => {
      const t = toTensor(v, metas[i], (msg) => {
        throw new VerificationError(`expected output ${i} ('${metas[i]!.name}'): ${msg}`);
      });
      check(h.setExpected(i, t.dtype, t.shape, t.bytes), 'VerificationError');
    });
    const r = parseJsonLoose(h.verify(rtol, atol));
    if (r && r.kind && r.message !== undefined) check(JSON.stringify(r), 'VerificationError');
    const report = camelReport(r);
    if (list.length !== report.numOutputs) return report;
    if (reference64 !== undefined && reference64 !== null) {
      const truth = outputList(reference64, metas, 'reference64').map((v, i) => toTensor(
        v, metas[i] ? { shape: metas[i].shape, dtype: 'float64' } : undefined,
        (msg) => { throw new VerificationError(`reference64 output ${i} ('${metas[i]?.name}'): ${msg}`); }));
      // The engine compares its outputs and the expected ones set above (verify/truth.cpp).
      h.clearReference64();
      truth.forEach((t) => check(h.addReference64(t.dtype, t.shape, t.bytes), 'VerificationError'));
      const { text, ...t } = h.compareWithTruth(!report.isValid);
      report.reference64 = { ...t, reassociationOnly: !report.isValid && t.withinBound };
      report.text += text;
    }
    return report;
  }

  /** pytorch-ir's `info` text, or its JSON (a string) with {json: true}. */
  info({ json = false }: { json?: boolean } = {}): string {
    return String(this._h.info(Boolean(json)));
  }

  /** Mermaid flowchart, identical to pytorch-ir's ir_to_mermaid. */
  toMermaid({ maxNodes = 30, includeWeights = true }: { maxNodes?: number; includeWeights?: boolean } = {}): string {
    return String(this._h.mermaid(maxNodes, Boolean(includeWeights)));
  }

  /** Mermaid pie of op types, identical to generate_op_distribution_pie. */
  opDistributionPie({ topN = 10 }: { topN?: number } = {}): string {
    return String(this._h.pie(topN));
  }

  /**
   * Per-node timings of the last execute() (needs loadIR's `profile: true`). On WebGPU: each
   * GPU node's time (from timestamp queries where the device has them, else wall time with a
   * sync after every node: `clock`) and each WASM segment's (node: its first node, covers: the
   * others), `device` saying which.
   */
  profile(): NodeTiming[] {
    if (this._gpuRuns) {
      return (this._gpuRuns.last.lastProfile ?? []).map((t) => ({ node: t.node, opType: t.opType, ms: t.ms, covers: t.covers, folded: false, device: t.device, clock: t.clock }));
    }
    return parseJsonLoose(String(this._h.profile())).map((t: any) => ({ node: t.node, opType: t.op_type, ms: t.ms, covers: t.covers || [], folded: !!t.folded }));
  }

  /** Turns per-node profiling on or off. */
  setProfiling(on: boolean): void {
    this._h.setProfiling(Boolean(on));
    this._gpuRuns?.setProfiling(Boolean(on));
  }

  /** Original names of weights/buffers the graph writes in place (KV caches). */
  mutatedBuffers(): string[] {
    this._ensureCompiled();
    return parseJsonLoose(String(this._h.mutatedBuffers()));
  }

  /** Current value of a buffer: {name, shape, dtype, data} (float16/bfloat16 buffers come back as float32). */
  bufferValue(name: string): OutputTensor {
    this._ensureCompiled();
    const bytes = copyBytes(this._h.bufferBytes(name));
    const meta = this._irMeta().tensor(name) || { dtype: 'float32', shape: [bytes.length / 4] };
    const shape = toShape(meta.shape);
    let dtype = meta.dtype;
    const size = DTYPE_ARRAY[dtype as DType]?.BYTES_PER_ELEMENT;
    if (!size || numel(shape) * size !== bytes.length) dtype = 'float32'; // f16/bf16 are widened at bind
    return { name, shape, dtype, data: fromBytes(bytes, dtype!) } as OutputTensor;
  }

  /**
   * A node output of the last run by its IR name (loadIR's keepIntermediates): {name, shape,
   * dtype, data}, or null when the graph has no such value, or on WebGPU when none was read back
   * (a view's output, which is its input's; an output a GPU node writes into part of a buffer).
   */
  intermediate(name: string): OutputTensor | null {
    if (!this._keepIntermediates) throw new ExecutionError('intermediate(): load the model with keepIntermediates: true');
    if (!this._ran) throw new ExecutionError('intermediate(): no run yet');
    const node = this._nodeOf(name);
    const runs = this._gpuRuns;
    if (runs) {
      const c = runs.last.captured.get(name);
      if (c) return { name, shape: [...(node?.shape ?? [c.bytes.length / (DTYPE_ARRAY[c.dtype as DType]?.BYTES_PER_ELEMENT ?? 1)])], dtype: c.dtype, data: fromBytes(c.bytes, c.dtype) } as OutputTensor;
      if (node && runs.ranOnGpu(node.node)) return null; // not read back: the engine's copy is stale
    }
    const r = this._h.intermediate(name);
    if (!r) return null;
    return { name, shape: toShape(r.shape), dtype: String(r.dtype), data: fromBytes(r.bytes, String(r.dtype)) } as OutputTensor;
  }

  // IR output name -> its node and shape (the IR's nodes, indexed once).
  private _nodeOf(name: string): { node: string; shape: number[] } | undefined {
    if (!this._outputsByName) {
      this._outputsByName = new Map();
      for (const n of this._irMeta().nodes()) for (const o of n.outputs) this._outputsByName.set(o.name, { node: n.name, shape: o.shape });
    }
    return this._outputsByName.get(name);
  }

  private _outputsByName?: Map<string, { node: string; shape: number[] }>;

  /** Restores every buffer written in place to its loaded value. */
  resetBuffers(): void {
    this._ensureCompiled();
    this._h.resetBuffers();
  }

  /** Bytes of the model's activation arena. */
  arenaBytes(): number {
    this._ensureCompiled();
    return Number(this._h.arenaBytes());
  }

  /** Frees the model's WASM memory; later calls throw TorchIrError('model is disposed'). */
  dispose(): void {
    if (!this._handle) return;
    this._gpuRuns?.destroy();
    this._gpuRuns = null;
    this._gpu = null;
    finalizer?.unregister(this);
    this._handle.delete();
    this._handle = null;
  }

  get disposed(): boolean {
    return !this._handle;
  }
}

// `using m = await loadIR(...)`: where the runtime has Symbol.dispose.
export interface Model {
  [Symbol.dispose](): void;
}
if (typeof Symbol.dispose === 'symbol') Model.prototype[Symbol.dispose] = Model.prototype.dispose;

export function execute<D extends DType = DType>(model: Model | ProxyModel, inputs: Inputs, options?: ExecuteOptions): Promise<OutputTensor<D>[]> {
  return model.execute<D>(inputs, options);
}

/** verify(model, inputs, expected, {rtol, atol}) === model.verify(...). */
export function verify(model: Model | ProxyModel, inputs: Inputs, expected: Expected, options?: VerifyOptions): Promise<VerifyReport> {
  return model.verify(inputs, expected, options);
}
