// loadIR: reads an IR and its weights (files, URLs, bytes or objects; load_sources.ts), makes the
// engine's WasmModel, compiles it (on WebGPU with the device's plan: webgpu/provider.ts) and
// wraps it in a Model; with env.proxy, the load happens in the proxy worker (proxy.ts).
import { env, getBackend } from './backend.js';
import { abortable, canProxy, cloneableFetchOptions, loadIRProxy } from './proxy.js';
import { addTensors, closeTensorFiles, collectTensors, irMetaFrom, irOrigin, loadControls, readIrText } from './load_sources.js';
import type { TensorOp, IrMeta } from './load_sources.js';
import { ExecutionError, check } from './errors.js';
import { applyLimits, validateLimits } from './limits.js';
import { checkTensorKeys } from './weight_keys.js';
import { weightDtypeSpec } from './weight_dtype.js';
import { anotherExecutor, bindingLimit, executionProviders, gpuOrFallback, startWebGpu } from './webgpu/provider.js';
import { GpuRuns, outputLocations } from './webgpu/gpu_io.js';
import { StreamedWeights } from './webgpu/streaming.js';
import { Model } from './model.js';
import type { LoadControls } from './source.js';
import type { Limits } from './limits.js';
import type { IRSource, LoadOptions, LoadedModel, WeightDtype } from './model_types.js';
import type { ProxyModel } from './proxy.js';

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
  if (env.proxy && canProxy()) {
    if (JSON.stringify(options.preferredOutputLocation ?? '').includes('gpu-buffer')) {
      throw new TypeError("loadIR: preferredOutputLocation 'gpu-buffer' does not apply with env.proxy (GPU buffers cannot leave the worker)");
    }
    return loadIRProxied(ir, options, load) as unknown as Promise<LoadedModel>;
  }
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
    if (options.keepIntermediates) handle.setKeepIntermediates(true);
    if (options.float64) handle.setFloat64(true);
    if (compileNow) check(handle.compile(weightDtype), 'ExecutionError');
    // Streamed weights: compile placed the nodes; the CPU's weights are read, then bound.
    if (compileNow && handle.compilePending()) {
      await streamed!.supply(handle);
      check(handle.finishCompile(), 'ExecutionError');
    }
    if (profile) handle.setProfiling(true);
    model = Model._create(backend, handle, irText, compileNow, weightDtype, from ? from._threads : backend.currentThreads);
    model._keepIntermediates = Boolean(options.keepIntermediates);
    const locations = outputLocations(options.preferredOutputLocation, model.outputs.map((o) => o.name));
    const gpuOutputs = locations.flatMap((loc, k) => (loc === 'gpu-buffer' ? [k] : []));
    if (gpu) model._gpu = await startWebGpu(gpu, backend, handle, streamed?.count ? streamed : null, from?._gpu?.weightBuffers, gpuOutputs);
    if (gpuOutputs.length && !model._gpu) {
      throw new ExecutionError("preferredOutputLocation 'gpu-buffer' needs the model on WebGPU (executionProviders ['webgpu', 'wasm']), and it runs on WASM");
    }
    if (model._gpu) {
      model._gpuRuns = new GpuRuns(model._gpu, locations, (first, ins, outs) => anotherExecutor(first, backend, handle, ins, outs));
      model._gpuRuns.setProfiling(Boolean(profile));
      model._gpu.capturing = model._keepIntermediates;
    }
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
