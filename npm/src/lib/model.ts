// The public API: loadIR / execute / verify and the Model class, a thin layer
// over the Embind WasmModel (bindings/API.md). All checks that matter are the
// engine's; JS only reshapes arguments and maps errors and reports.
import { env, getBackend } from './backend.js';
import { abortable, canProxy, cloneableFetchOptions, loadIRProxy } from './proxy.js';
import { addTensors, closeTensorFiles, collectTensors, irMetaFrom, irOrigin, loadControls, readIrText } from './load_sources.js';
import type { TensorOp } from './load_sources.js';
import {
  TorchIrError, ExecutionError, VerificationError, check,
} from './errors.js';
import { parseJsonLoose } from './json.js';
import { applyLimits, validateLimits } from './limits.js';
import { checkTensorKeys } from './weight_keys.js';
import { weightDtypeSpec } from './weight_dtype.js';
import { bindingLimit, executionProviders, gpuOrFallback, startWebGpu } from './webgpu/provider.js';
import { StreamedWeights } from './webgpu/streaming.js';
import { copyBytes, fromBytes, isTypedArray, numel, toShape, toTensor, DTYPE_ARRAY, type NormalizedTensor } from './tensor.js';
import type { Backend, EmbindObject } from './backend.js';
import type { IrMeta } from './load_sources.js';
import type { LoadControls } from './source.js';
import type { Limits } from './limits.js';
import type { WebGpuExecutor } from './webgpu/executor.js';
import type { DType, Inputs, OutputTensor, TensorInfo } from './tensor_types.js';
import type {
  ExecuteOptions, Expected, IRSource, LoadOptions, LoadedModel, NodeTiming, Placement, VerifyOptions, VerifyReport,
  WeightDtype,
} from './model_types.js';
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
  /** @internal */ _slotInfo?: { dtype: string; shape: number[] }[];
  /** @internal */ _lastCarryBytes?: number;
  /** @internal */ _ran?: boolean;
  /** @internal */ _outMeta?: { name: string; shape: number[]; dtype: string }[] | null;

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

  // The inputs as a list in graph_inputs order (array, single typed array, or {name: value}).
  private _inputList(inputs: any, carried: Map<number, number> | null): (NormalizedTensor | null)[] {
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
        if (carried?.has(i)) return null;
        if (!(m.name in inputs)) throw new ExecutionError(`input ${i} ('${m.name}') is missing`);
        return inputs[m.name];
      });
    } else if (metas.length === 0 && inputs === undefined) {
      list = [];
    } else {
      throw new ExecutionError('inputs must be an array (graph_inputs order) or an object keyed by input name');
    }
    if (list.length !== metas.length) throw new ExecutionError(`expected ${metas.length} input(s) (${metas.map((m) => `'${m.name}'`).join(', ')}), got ${list.length}`);
    return list.map((v, i) => (carried?.has(i) ? null : toTensor(v, metas[i], (msg) => {
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

  private _run(given: Inputs | undefined, carry?: ExecuteOptions['carry']): Promise<void> | undefined {
    const inputs = byName(given);
    this._ensureCompiled();
    const h = this._h;
    this._backend.useThreads(this._threads);
    const carried = this._carryPlan(inputs, carry);
    const tensors = this._inputList(inputs, carried);
    const slots = this._slots();
    // Fast path: every input already has its slot's dtype and shape, so its
    // bytes go straight into the engine's input memory. Anything else (other
    // shapes, float16 widening) takes setInput, which converts and explains.
    const direct = tensors.every((t, i) => carried?.has(i) || (t!.dtype === slots[i]!.dtype && sameShape(t!.shape, slots[i]!.shape)));
    if (direct) {
      if (carried) {
        for (const [i, o] of carried) this._lastCarryBytes! += Number(h.carry(o, i));
      }
      tensors.forEach((t, i) => { if (!carried?.has(i)) h.inputSlot(i).set(t!.bytes); });
      if (this._gpu) return this._runGpu();
      check(h.runSlots(), 'ExecutionError');
      this._ran = true;
      return undefined;
    }
    if (carried) throw new ExecutionError('carry: the other inputs must have exactly their graph input dtype and shape (no conversion)');
    tensors.forEach((t, i) => check(h.setInput(i, t!.dtype, t!.shape, t!.bytes), 'ExecutionError'));
    if (this._gpu) {
      check(h.stageInputs(), 'ExecutionError');
      return this._runGpu();
    }
    check(h.run(), 'ExecutionError');
    this._ran = true;
    return undefined;
  }

  // The WebGPU executor runs the graph (inputs are in their slots); outputs end in the engine.
  private async _runGpu(): Promise<void> {
    await this._gpu!.run();
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
      plan.set(names.get(inName)!, outs.get(outName)!);
    }
    return plan.size ? plan : null;
  }

  /** @internal */
  _readOutputs(only?: readonly string[]): OutputTensor[] {
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
        return this._readOutputs(only);
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
    return this._readOutputs(options.outputs) as OutputTensor<D>[];
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
    await this._run(inputs);
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
    if (this._gpu) {
      return (this._gpu.lastProfile ?? []).map((t) => ({ node: t.node, opType: t.opType, ms: t.ms, covers: t.covers, folded: false, device: t.device, clock: t.clock }));
    }
    return parseJsonLoose(String(this._h.profile())).map((t: any) => ({ node: t.node, opType: t.op_type, ms: t.ms, covers: t.covers || [], folded: !!t.folded }));
  }

  /** Turns per-node profiling on or off. */
  setProfiling(on: boolean): void {
    this._h.setProfiling(Boolean(on));
    if (this._gpu) this._gpu.profiling = Boolean(on);
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
    this._gpu?.destroy();
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

// Proxy mode: a signal cannot cross to the worker. An abort rejects at once;
// a model the worker still finishes loading is disposed there.
function loadIRProxied(ir: IRSource, options: LoadOptions, { signal, fetchOptions }: LoadControls): Promise<ProxyModel> {
  const rest: LoadOptions = { ...options };
  delete rest.signal;
  delete rest.fetchOptions;
  const init = cloneableFetchOptions(fetchOptions);
  if (init) rest.fetchOptions = init; // plain data: structured-cloneable
  return abortable(loadIRProxy(ir, rest, env), signal);
}

/**
 * Loads an IR and its weights into a new Model.
 * options: {weights, constants, threads, wasmPaths, onProgress, profile, compile, weightDtype, limits,
 * signal (AbortSignal: rejects with its reason, nothing stays loaded), fetchOptions (RequestInit for URLs),
 * strictWeights (keys that match nothing in the IR throw instead of warning)}
 *
 * Rejects with IRFormatError (unreadable IR file
 * or URL, malformed JSON, invalid IR), WeightLoadError (unreadable or malformed
 * weights/constants, a weight the graph needs is missing), ExecutionError
 * (unsupported ops, invalid limits), the signal's reason when aborted, or
 * TorchIrError when the WASM files cannot be loaded.
 */
export async function loadIR(ir: IRSource, options: LoadOptions = {}): Promise<LoadedModel> {
  const limits = validateLimits(options.limits, 'loadIR');
  const load = loadControls(options, 'loadIR');
  load.signal?.throwIfAborted();
  if (env.proxy && canProxy()) return loadIRProxied(ir, options, load) as unknown as Promise<LoadedModel>;
  const { weights, onProgress } = options;
  const from = weightsFromModel(options);
  const weightDtype = (options.weightDtype === undefined && options.weightGroupSize === undefined && from
    ? from._weightDtype
    : weightDtypeSpec(options.weightDtype ?? 'float32', options.weightGroupSize, 'loadIR')) as WeightDtype;
  const irText = await readIrText(ir, onProgress, load);
  const irMeta = irMetaFrom(irText);
  // A WebGPU model opens its weights files for ranged reads (streamed to the GPU) instead of
  // reading them whole.
  const wantsGpu = executionProviders(options.executionProviders).includes('webgpu');
  const weightOps = await collectTensors(weights, 'weights', irMeta, onProgress, load, wantsGpu && !from);
  try {
    return await loadCollected(ir, irText, irMeta, weightOps, options, limits, load, from, weightDtype, wantsGpu);
  } finally {
    await closeTensorFiles(weightOps);
  }
}

async function loadCollected(ir: IRSource, irText: string, irMeta: IrMeta, weightOps: TensorOp[], options: LoadOptions, limits: Limits | null,
  load: LoadControls, from: Model | null, weightDtype: WeightDtype, wantsGpu: boolean): Promise<LoadedModel> {
  const { weights, constants, onProgress, profile = false } = options;
  const constantOps = await collectTensors(constants, 'constants', irMeta, onProgress, load);
  // A model sharing another's weights lives in that model's engine instance.
  const backend = from ? from._backend : await getBackend(options);
  const gpu = wantsGpu ? await gpuOrFallback() : null;
  load.signal?.throwIfAborted();
  const handle = backend.create('WasmModel');
  let model: Model | undefined;
  let streamed: StreamedWeights | null = null;
  try {
    applyLimits(handle, limits, 'loadIR');
    check(handle.loadIR(irText, irOrigin(ir)), 'IRFormatError');
    if (from) {
      check(handle.shareWeights(from._h), 'ExecutionError');
    } else {
      streamed = gpu ? new StreamedWeights() : null;
      await addTensors(handle, weightOps, constantOps, streamed);
      streamed?.bind(handle);
      // After the engine read the sources (a broken file is reported as such),
      // before compile (whose missing-weight error a typo would explain).
      checkTensorKeys(handle, options.strictWeights);
    }
    // Compile now when weights/constants are given (errors surface here);
    // otherwise at the first execute, so info/visualize work on a bare IR.
    const compileNow = Boolean(gpu) || Boolean(from) ||
      (options.compile ?? (weights !== undefined || constants !== undefined));
    if (gpu) {
      handle.setWebGpu(true);
      handle.setMaxBinding(bindingLimit(gpu));
      handle.setShaderF16(gpu.features?.has('shader-f16') ?? false);
    }
    if (compileNow) check(handle.compile(weightDtype), 'ExecutionError');
    // Streamed weights: compile placed the nodes; the CPU's weights are read, then bound.
    if (compileNow && handle.compilePending()) {
      await streamed!.supply(handle);
      check(handle.finishCompile(), 'ExecutionError');
    }
    if (profile) handle.setProfiling(true);
    model = Model._create(backend, handle, irText, compileNow, weightDtype, from ? from._threads : backend.currentThreads);
    if (gpu) model._gpu = await startWebGpu(gpu, backend, handle, streamed?.count ? streamed : null, from?._gpu?.weightBuffers);
    if (model._gpu) model._gpu.profiling = Boolean(profile);
  } catch (e) {
    if (model) model.dispose(); // also unregisters its finalizer (which would delete the handle again)
    else handle.delete();
    throw e;
  } finally {
    streamed?.release(); // the GPU holds them now (or the load failed)
  }
  return model as LoadedModel;
}

// options.weightsFrom: a loaded Model whose weights, constants and packed copies the new model binds
// to (another IR of the same module, e.g. one per sequence length). The new model runs in that
// model's engine instance, so threads and wasmPaths come from it.
function weightsFromModel(options: LoadOptions): Model | null {
  const from = options.weightsFrom;
  if (from === undefined || from === null) return null;
  if (!(from instanceof Model)) {
    throw new ExecutionError('loadIR: weightsFrom must be a Model returned by loadIR (in this thread; with ' +
      'env.proxy, a model of the same worker)');
  }
  if (options.weights !== undefined || options.constants !== undefined) {
    throw new ExecutionError('loadIR: give either weights/constants or weightsFrom, not both');
  }
  from._h; // throws if disposed
  from._ensureCompiled();
  return from;
}

/** execute(model, inputs, options) === model.execute(inputs, options). */
export function execute<D extends DType = DType>(model: Model | ProxyModel, inputs: Inputs, options?: ExecuteOptions): Promise<OutputTensor<D>[]> {
  return model.execute<D>(inputs, options);
}

/** verify(model, inputs, expected, {rtol, atol}) === model.verify(...). */
export function verify(model: Model | ProxyModel, inputs: Inputs, expected: Expected, options?: VerifyOptions): Promise<VerifyReport> {
  return model.verify(inputs, expected, options);
}
