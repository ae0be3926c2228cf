// The 'webgpu' execution provider as loadIR / loadLM see it: the providers option, the GPU
// device (or the WASM fallback with its warning), and the executor of a compiled session's plan.
import { env } from '../backend.js';
import { ExecutionError, check } from '../errors.js';
import { parseJsonLoose } from '../json.js';
import { warn } from '../warn.js';
import { bindingLimit, webgpuDevice } from './device.js';

export { bindingLimit };
import { WebGpuExecutor, type SharedWeightBuffers, type WebGpuPlan } from './executor.js';
import type { Backend, EmbindObject } from '../backend.js';
import type { ExecutionProvider } from '../model_types.js';
import type { GpuObject } from './kernels.js';
import type { StreamedWeights } from './streaming.js';

const PROVIDERS = ['webgpu', 'wasm'];
// loadIR's executionProviders (onnxruntime-web's spelling: names or {name}) -> names.
export function executionProviders(list: unknown): ('webgpu' | 'wasm')[] {
  if (list === undefined) return ['wasm'];
  if (!Array.isArray(list) || list.length === 0) throw new TypeError("executionProviders must be a non-empty array, e.g. ['webgpu', 'wasm']");
  return list.map((p: ExecutionProvider) => {
    const name = typeof p === 'string' ? p : p?.name;
    if (!PROVIDERS.includes(name)) throw new TypeError(`executionProviders: unknown provider ${JSON.stringify(name)} (known: ${PROVIDERS.join(', ')})`);
    return name;
  });
}

// A 'webgpu' request that cannot be met: an error with env.webgpu.strict, else a warning
// (the model then runs on WASM).
export function declineWebGpu(why: string): void {
  if (env.webgpu.strict) throw new ExecutionError(`WebGPU: ${why} (env.webgpu.strict is set)`);
  warn(`WebGPU: ${why}; the model runs on WASM`);
}

// The GPU device for a model that asks for 'webgpu', or null with a warning (the model then
// compiles for WASM alone); with env.webgpu.strict, no GPU is an error.
export async function gpuOrFallback(): Promise<GpuObject | null> {
  const { device, why } = await webgpuDevice();
  if (device) return device;
  declineWebGpu(why);
  return null;
}

// The session's WebGPU plan (parsed) for `device`, with graph inputs `gpuInputs` resident on the
// GPU and outputs `gpuOutputs` kept there (GPU tensors: gpu_io.ts), or none.
export function webgpuPlanOf(handle: EmbindObject, device: GpuObject, gpuInputs: readonly number[] = [],
  gpuOutputs: readonly number[] = []): WebGpuPlan {
  const text = String(gpuInputs.length || gpuOutputs.length
    ? handle.webgpuPlanIO(bindingLimit(device), [...gpuInputs], [...gpuOutputs])
    : handle.webgpuPlan(bindingLimit(device)));
  const plan = parseJsonLoose(text);
  if (plan && plan.kind && plan.message !== undefined) check(text, 'ExecutionError');
  return plan;
}

// The WebGPU executor of a session compiled for it, or null when the plan puts no node on
// the GPU (the session then runs on WASM as planned).
// streamed: the model's StreamedWeights when its weights skipped WASM memory (streaming.js);
// weightBuffers: the GPU weights of the model whose weights this one shares (weightsFrom);
// gpuOutputs: the outputs to keep on the GPU (preferredOutputLocation 'gpu-buffer').
export async function startWebGpu(device: GpuObject, backend: Backend, handle: EmbindObject,
  streamed: StreamedWeights | null = null, weightBuffers: SharedWeightBuffers | null = null,
  gpuOutputs: readonly number[] = []): Promise<WebGpuExecutor | null> {
  const plan = webgpuPlanOf(handle, device, [], gpuOutputs);
  if (plan.placement.webgpu === 0) {
    declineWebGpu(`no node of this model can run on the GPU (${plan.fallbacks[0]?.why ?? 'no compute node'})`);
    return null;
  }
  return WebGpuExecutor.create({ device, plan, handle, memoryView: memoryViewOf(backend), streamed, weightBuffers });
}

// Another executor of a session that has one (`first`): the plan for other GPU-resident I/O,
// on the first one's weight buffers (GPU tensors: gpu_io.ts's ExecutorSet).
export function anotherExecutor(first: WebGpuExecutor, backend: Backend, handle: EmbindObject,
  gpuInputs: readonly number[], gpuOutputs: readonly number[]): Promise<WebGpuExecutor> {
  const plan = webgpuPlanOf(handle, first.device, gpuInputs, gpuOutputs);
  return WebGpuExecutor.create({ device: first.device, plan, handle, memoryView: memoryViewOf(backend), weightBuffers: first.weightBuffers });
}

/** WASM memory views for an executor (its MemoryView). */
export function memoryViewOf(backend: Backend): (ptr: number, bytes: number) => Uint8Array {
  return (ptr, bytes) => backend.call('memoryView', () => backend.module.memoryView(ptr, bytes));
}
