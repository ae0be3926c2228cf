// Test executor for the WGSL kernels (src/kernels/wgsl): a dawn.node device, strided tensor
// views on GPU buffers, and one function per op family that computes the kernel parameters
// (broadcast strides, batch folding, GEMV choice) and dispatches. In the product this is the
// plan executor's job, with the parameters computed by the C++ compiler (docs/webgpu.md).
import { after } from 'node:test';
import { create, globals } from 'webgpu';
import { KernelLibrary, kernelSource, elementwiseSource, elementwiseTypes, grid } from '../../src/kernels/wgsl/kernels.mjs';

Object.assign(globalThis, globals);

const ARRAY = { float32: Float32Array, int32: Int32Array, bool: Uint32Array, float16: Uint16Array };
export const contiguousStrides = (shape) => {
  const s = new Array(shape.length);
  let st = 1;
  for (let i = shape.length - 1; i >= 0; i--) { s[i] = st; st *= shape[i]; }
  return s;
};
export const numel = (shape) => shape.reduce((a, b) => a * b, 1);

let devicePromise = null;
// A live device keeps dawn.node's event polling (and the process) running: destroy it after the
// test file's tests (registered here, at the file's top level, not inside a test).
after(async () => { const g = await devicePromise; g?.device.destroy(); });
// The device, or null (outside CI) when there is no adapter. In CI (CI=true) a missing adapter
// throws: the GPU tests must run there, never skip.
export function getDevice() {
  devicePromise ??= (async () => {
    // The instance must stay referenced while its devices live: once V8 collects it, Dawn frees
    // state the device still uses, and the process dies in a pthread assertion or with
    // std::system_error 'Invalid argument' (docs/webgpu.md).
    const instance = create([]);
    const adapter = await instance.requestAdapter();
    if (!adapter) {
      const msg = 'WebGPU: dawn.node found no adapter (needs Vulkan: mesa-vulkan-drivers >= 24, see scripts/setup_webgpu.sh)';
      if (process.env.CI === 'true') throw new Error(msg);
      console.log(`# SKIP ${msg}`);
      return null;
    }
    const features = adapter.features.has('shader-f16') ? ['shader-f16'] : [];
    const device = await adapter.requestDevice({ requiredFeatures: features });
    device.addEventListener?.('uncapturederror', (e) => { throw new Error(`WebGPU error: ${e.error.message}`); });
    return { instance, device, adapter, lib: new KernelLibrary(device), f16: features.length > 0 };
  })();
  return devicePromise;
}

// Runs fn(t, gpu) as a test body, skipping (outside CI) without an adapter.
export function gpuTest(fn) {
  return async (t) => {
    const gpu = await getDevice();
    if (!gpu) { t.skip('no WebGPU adapter'); return; }
    await fn(t, gpu);
  };
}

// A 4-byte buffer for bindings a dispatch does not read (an absent bias).
export function dummy(gpu) {
  gpu.dummy ??= makeBuffer(gpu.device, 4);
  return gpu.dummy;
}

function makeBuffer(device, bytes) {
  // Zero-size bindings are invalid: empty tensors get a 4-byte buffer no kernel reads.
  const size = Math.max(4, Math.ceil(bytes / 4) * 4);
  return device.createBuffer({ size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
}

// A view {buffer, dtype, shape, strides, offset} on a fresh buffer holding `storage`.
export function upload(gpu, storage, dtype, shape, strides = contiguousStrides(shape), offset = 0) {
  const data = storage instanceof ARRAY[dtype] ? storage : ARRAY[dtype].from(storage);
  const buffer = makeBuffer(gpu.device, data.byteLength);
  if (data.byteLength) {
    const padded = data.byteLength % 4 ? new Uint8Array(Math.ceil(data.byteLength / 4) * 4) : null;
    if (padded) padded.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    gpu.device.queue.writeBuffer(buffer, 0, padded ?? data);
  }
  return { buffer, dtype, shape, strides, offset };
}

export function empty(gpu, dtype, shape) {
  const bytes = numel(shape) * ARRAY[dtype].BYTES_PER_ELEMENT;
  return { buffer: makeBuffer(gpu.device, bytes), dtype, shape, strides: contiguousStrides(shape), offset: 0 };
}

export async function download(gpu, view) {
  const n = view.buffer.size;
  const rb = gpu.device.createBuffer({ size: n, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = gpu.device.createCommandEncoder();
  enc.copyBufferToBuffer(view.buffer, 0, rb, 0, n);
  gpu.device.queue.submit([enc.finish()]);
  await rb.mapAsync(GPUMapMode.READ);
  const A = ARRAY[view.dtype];
  const out = new A(rb.getMappedRange().slice(0)).subarray(0, numel(view.shape));
  rb.unmap();
  rb.destroy();
  return out;
}

// Encodes one compute pass of dispatches and submits it; validation errors (a shader that does
// not compile, a bad binding) reject with Dawn's message.
export async function submit(gpu, record) {
  gpu.device.pushErrorScope('validation');
  const enc = gpu.device.createCommandEncoder();
  const pass = enc.beginComputePass();
  const uniforms = [];
  record((name, source, meta, buffers, wg) => uniforms.push(gpu.lib.dispatch(pass, name, source, meta, buffers, wg)));
  pass.end();
  gpu.device.queue.submit([enc.finish()]);
  const err = await gpu.device.popErrorScope();
  for (const u of uniforms) u.destroy();
  if (err) throw new Error(`WebGPU validation: ${err.message}`);
}

// torch's broadcast of shapes.
export function broadcastShapes(...shapes) {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = [];
  for (let i = 0; i < rank; i++) {
    let d = 1;
    for (const s of shapes) {
      const v = s[s.length - rank + i] ?? 1;
      if (v !== 1) { if (d !== 1 && d !== v) throw new Error(`shapes ${JSON.stringify(shapes)} do not broadcast`); d = v; }
    }
    out.push(d);
  }
  return out;
}
// The view's strides for `outShape` (stride 0 on broadcast dims).
export function broadcastStrides(view, outShape) {
  const r = outShape.length;
  return outShape.map((_, i) => {
    const j = i - (r - view.shape.length);
    return j < 0 || view.shape[j] === 1 ? 0 : view.strides[j];
  });
}

const pad6 = (a) => [...a, ...new Array(6 - a.length).fill(0)].slice(0, 6);

// Elementwise op over broadcast inputs; `out` (a view, possibly strided: a slice of a cat
// output) is created when not given.
export async function elementwise(gpu, op, inputs, { p0 = 0, p1 = 0, outDtype, out } = {}) {
  const { out: od } = elementwiseTypes(op, inputs.map((v) => v.dtype), outDtype);
  const shape = out ? out.shape : broadcastShapes(...inputs.map((v) => v.shape));
  if (shape.length > 6) throw new Error('elementwise: rank > 6');
  out ??= empty(gpu, od, shape);
  const n = numel(shape);
  if (n === 0) return out;
  const meta = { numel: n, rank: shape.length, p0: { f32: p0 }, p1: { f32: p1 }, shape: pad6(shape),
    y_off: out.offset, y_strides: pad6(out.strides) };
  ['a', 'b', 'c'].slice(0, inputs.length).forEach((x, i) => {
    meta[`${x}_off`] = inputs[i].offset;
    meta[`${x}_strides`] = pad6(broadcastStrides(inputs[i], shape));
  });
  const src = elementwiseSource(op, inputs.map((v) => v.dtype), od);
  await submit(gpu, (d) => d('elementwise', src, meta, [out.buffer, ...inputs.map((v) => v.buffer)], grid(Math.ceil(n / 64))));
  return out;
}

const pad4 = (a) => [...a, ...new Array(4 - a.length).fill(0)];

// torch.matmul semantics over strided views (1-d operands promoted and squeezed as torch does),
// with addmm's epilogue: alpha * (a @ b) + beta * c, c broadcast to the result.
export async function matmul(gpu, a, b, { c = null, alpha = 1, beta = 1, gemv = true } = {}) {
  const av = a.shape.length === 1 ? { ...a, shape: [1, a.shape[0]], strides: [0, a.strides[0]] } : a;
  const bv = b.shape.length === 1 ? { ...b, shape: [b.shape[0], 1], strides: [b.strides[0], 0] } : b;
  const [M, K] = av.shape.slice(-2);
  const [K2, N] = bv.shape.slice(-2);
  if (K !== K2) throw new Error(`matmul: ${K} vs ${K2}`);
  const batchShape = broadcastShapes(av.shape.slice(0, -2), bv.shape.slice(0, -2));
  if (batchShape.length > 4) throw new Error('matmul: more than 4 batch dims');
  const bs = (v) => broadcastStrides({ shape: v.shape.slice(0, -2), strides: v.strides.slice(0, -2) }, batchShape);
  const batch = numel(batchShape);
  let outShape = [...batchShape, M, N];
  const out = empty(gpu, 'float32', outShape);
  if (a.shape.length === 1) outShape = outShape.filter((_, i) => i !== outShape.length - 2);
  if (b.shape.length === 1) outShape = outShape.slice(0, -1);
  const result = { ...out, shape: outShape, strides: contiguousStrides(outShape) };
  if (batch * M * N === 0) return result;
  const meta = { m: M, n: N, k: K, batch_rank: batchShape.length, batch_shape: pad4(batchShape),
    a_off: av.offset, a_rs: av.strides.at(-2), a_cs: av.strides.at(-1), a_bs: pad4(bs(av)),
    b_off: bv.offset, b_rs: bv.strides.at(-2), b_cs: bv.strides.at(-1), b_bs: pad4(bs(bv)),
    alpha: { f32: alpha }, beta: { f32: beta }, has_c: c ? 1 : 0 };
  let cbuf = dummy(gpu);
  if (c) {
    const full = [...batchShape, M, N];
    const st = broadcastStrides(c, full);
    Object.assign(meta, { c_off: c.offset, c_rs: st.at(-2), c_cs: st.at(-1), c_bs: pad4(st.slice(0, -2)) });
    cbuf = c.buffer;
  }
  const useGemv = gemv && M === 1;
  const name = useGemv ? 'gemv' : 'matmul';
  if (useGemv) meta.batch = batch;
  const wg = useGemv ? grid(batch * N) : [Math.ceil(N / 64), Math.ceil(M / 64), batch];
  if (!useGemv && batch > 65535) throw new Error('matmul: batch > 65535');
  await submit(gpu, (d) => d(name, kernelSource(name), meta, [out.buffer, av.buffer, bv.buffer, cbuf], wg));
  return result;
}
