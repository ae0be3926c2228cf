// The GPUDevice models run on: env.webgpu.device, else one requested from
// env.webgpu.adapter, env.webgpu.gpu, navigator.gpu or (Node) dawn.node, in
// that order. One device per process, shared by every WebGPU model.
import { env } from '../backend.js';
import type { GpuObject } from './kernels.js';

/** A GPUDevice, or null and why there is none. */
export interface DeviceResult {
  device: GpuObject | null;
  why: string;
}

let devicePromise: Promise<DeviceResult> | null = null;

async function requestDevice(): Promise<DeviceResult> {
  const w = env.webgpu;
  let adapter: GpuObject = w.adapter;
  if (!adapter) {
    let gpu: GpuObject = w.gpu ?? (globalThis.navigator as { gpu?: unknown } | undefined)?.gpu;
    if (!gpu && typeof process === 'object' && process.versions?.node) gpu = await (await import('#node')).nodeWebGpu();
    if (!gpu) return { device: null, why: 'no WebGPU implementation (navigator.gpu, env.webgpu.gpu, or the `webgpu` package in Node)' };
    adapter = await gpu.requestAdapter(w.powerPreference ? { powerPreference: w.powerPreference } : undefined);
    if (!adapter) return { device: null, why: 'the WebGPU implementation has no adapter' };
  }
  const lim = adapter.limits;
  // shader-f16: float16 weights held as f16; timestamp-query: profile()'s per-node GPU times.
  const wanted = ['shader-f16', 'timestamp-query'];
  const device = await adapter.requestDevice({
    requiredFeatures: wanted.filter((f) => adapter.features.has(f)),
    // The adapter's own ceilings: a large model needs big buffers.
    requiredLimits: { maxStorageBufferBindingSize: lim.maxStorageBufferBindingSize, maxBufferSize: lim.maxBufferSize },
  });
  device.lost?.then(() => { devicePromise = null; });
  return { device, why: '' };
}

/** The largest storage binding models on `device` are planned for (env.webgpu.maxBindingBytes caps the device's). */
export function bindingLimit(device: GpuObject): number {
  const own = Number(device.limits.maxStorageBufferBindingSize);
  const cap = env.webgpu.maxBindingBytes;
  return cap !== undefined && cap > 0 ? Math.min(own, Math.floor(cap)) : own;
}

/** {device, why}: device null (and why) when there is no usable GPU. */
export async function webgpuDevice(): Promise<DeviceResult> {
  if (env.webgpu.device) return { device: env.webgpu.device, why: '' };
  devicePromise ??= requestDevice().then((r) => {
    if (!r.device) devicePromise = null; // try again next time: the caller may install one
    return r;
  }, (e) => {
    devicePromise = null;
    return { device: null, why: `requesting a WebGPU device failed: ${e?.message ?? e}` };
  });
  return devicePromise;
}
