// Test executor for the WGSL kernels (src/kernels/wgsl): a dawn.node device, strided tensor
// views on GPU buffers, and one function per op family that computes the kernel parameters
// (broadcast strides, batch folding, GEMV choice) and dispatches. In the product this is the
// plan executor's job, with the parameters computed by the C++ compiler (docs/webgpu.md).
import { after } from 'node:test';
import { create, globals } from 'webgpu';
import { KernelLibrary, kernelSource, elementwiseSource, elementwiseTypes, grid } from '../../npm/lib/webgpu/kernels.js';

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
    // The features the package's own device request asks for (npm/src/lib/webgpu/device.ts).
    const features = ['shader-f16', 'timestamp-query'].filter((f) => adapter.features.has(f));
    const device = await adapter.requestDevice({ requiredFeatures: features });
    device.addEventListener?.('uncapturederror', (e) => { throw new Error(`WebGPU error: ${e.error.message}`); });
    return { instance, device, adapter, lib: new KernelLibrary(device), f16: features.includes('shader-f16') };
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
  outDtype ??= out?.dtype;
  const { out: od } = elementwiseTypes(op, inputs.map((v) => v.dtype), outDtype);
  const shape = out ? out.shape : broadcastShapes(...inputs.map((v) => v.shape));
  if (shape.length > 6) throw new Error('elementwise: rank > 6');
  if (out && out.dtype !== od) throw new Error(`elementwise '${op}': result is ${od}, out is ${out.dtype}`);
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

// The binding types of the kernels that load floats through f32(...) (matmul, gemv, conv2d,
// rowwise, pool2d): f16 for float16 views, f32 otherwise (absent ones too).
const floatTypes = (views) => Object.fromEntries(Object.entries(views).map(([b, v]) => [b, v?.dtype === 'float16' ? 'f16' : 'f32']));

// torch.matmul semantics over strided views (1-d operands promoted and squeezed as torch does),
// with addmm's epilogue: alpha * (a @ b) + beta * c, c broadcast to the result.
// tile: the tiled kernel's output tile (64, 32 or 16; the C++ lowering picks it by size), on
// 16 x 16 invocations for 64 and 8 x 8 otherwise (as the lowering).
const tileSubst = (tile) => ({ TILE: String(tile), THREADS: tile === 64 ? '16' : '8' });

// A fused epilogue (epilogue.wgsl) as the producer kernels take it: {channels, inner, affine (a
// [2 * channels] view: scale then shift), residual (a view read at its offset + the flat output
// index), act ('relu' | 'clamp'), lo, hi}; null: none. Returns its parameters and its two buffers.
const ACT = { relu: 1, clamp: 2 };
function epilogueArgs(gpu, epi) {
  if (!epi) return { meta: {}, bufs: [dummy(gpu), dummy(gpu)] };
  const meta = { epi_bn: epi.affine ? epi.channels : 0, epi_inner: epi.inner ?? 1, epi_res: epi.residual ? 1 : 0,
    epi_res_off: epi.residual?.offset ?? 0, epi_act: ACT[epi.act] ?? 0,
    epi_lo: { f32: epi.lo ?? -Infinity }, epi_hi: { f32: epi.hi ?? Infinity } };
  return { meta, bufs: [epi.residual?.buffer ?? dummy(gpu), epi.affine?.buffer ?? dummy(gpu)] };
}

// bKfast: the tiled kernel's B-tile load order; by default the lowering's rule (k fastest where
// B's row stride is 1 and its column stride is not). kChunk (a multiple of 16): split-K, the
// tiled kernel's partial sums over K chunks of that size, then split_k_sum (as the lowering
// splits a long K over few tiles). yCols {first, width}: Y is the column window [first, first + N)
// of a zero-filled [batch, M, width] output (y_off, y_rs: a split weight's part); the result is
// that whole wider output.
export async function matmul(gpu, a, b, { c = null, alpha = 1, beta = 1, gemv = true, tile = 64, outDtype = 'float32', epilogue = null, bKfast = null, kChunk = 0, yCols = null } = {}) {
  const av = a.shape.length === 1 ? { ...a, shape: [1, a.shape[0]], strides: [0, a.strides[0]] } : a;
  const bv = b.shape.length === 1 ? { ...b, shape: [b.shape[0], 1], strides: [b.strides[0], 0] } : b;
  const [M, K] = av.shape.slice(-2);
  const [K2, N] = bv.shape.slice(-2);
  if (K !== K2) throw new Error(`matmul: ${K} vs ${K2}`);
  const batchShape = broadcastShapes(av.shape.slice(0, -2), bv.shape.slice(0, -2));
  if (batchShape.length > 4) throw new Error('matmul: more than 4 batch dims');
  const bs = (v) => broadcastStrides({ shape: v.shape.slice(0, -2), strides: v.strides.slice(0, -2) }, batchShape);
  const batch = numel(batchShape);
  let outShape = [...batchShape, M, yCols ? yCols.width : N];
  const out = empty(gpu, outDtype, outShape);
  if (a.shape.length === 1) outShape = outShape.filter((_, i) => i !== outShape.length - 2);
  if (b.shape.length === 1) outShape = outShape.slice(0, -1);
  const result = { ...out, shape: outShape, strides: contiguousStrides(outShape) };
  if (batch * M * N === 0) return result;
  const meta = { m: M, n: N, k: K, batch_rank: batchShape.length, batch_shape: pad4(batchShape),
    a_off: av.offset, a_rs: av.strides.at(-2), a_cs: av.strides.at(-1), a_bs: pad4(bs(av)),
    b_off: bv.offset, b_rs: bv.strides.at(-2), b_cs: bv.strides.at(-1), b_bs: pad4(bs(bv)),
    alpha: { f32: alpha }, beta: { f32: beta }, has_c: c ? 1 : 0, y_off: yCols?.first ?? 0, y_rs: yCols?.width ?? N };
  if (yCols) return matmulWindow(gpu, meta, av, bv, out, result, { gemv: gemv && M === 1, tile, batch, M, N, a, b });
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
  else meta.b_kfast = (bKfast ?? (meta.b_rs === 1 && meta.b_cs !== 1)) ? 1 : 0;
  const wg = useGemv ? grid(batch * N) : [Math.ceil(N / tile), Math.ceil(M / tile), batch];
  if (!useGemv && batch > 65535) throw new Error('matmul: batch > 65535');
  const types = floatTypes({ Y: out, A: a, B: b, C: c });
  const epi = epilogueArgs(gpu, epilogue);
  if (!useGemv && kChunk > 0) {
    const chunks = Math.ceil(K / kChunk);
    const parts = makeBuffer(gpu.device, Math.max(4, chunks * batch * M * N * 4));
    const partMeta = { ...meta, alpha: { f32: 1 }, beta: { f32: 0 }, has_c: 0, k_chunk: kChunk };
    const src = kernelSource(name, { types: { ...types, Y: 'f32' }, subst: tileSubst(tile) });
    const sumMeta = { numel: batch * M * N, m: M, n: N, chunks, alpha: { f32: alpha }, beta: { f32: beta },
      has_c: meta.has_c, c_off: meta.c_off ?? 0, c_rs: meta.c_rs ?? 0, c_cs: meta.c_cs ?? 0,
      batch_rank: meta.batch_rank, batch_shape: meta.batch_shape, c_bs: meta.c_bs ?? pad4([]), ...epi.meta };
    await submit(gpu, (d) => {
      d(name, src, partMeta, [parts, av.buffer, bv.buffer, dummy(gpu), dummy(gpu), dummy(gpu)], [wg[0], wg[1], wg[2] * chunks]);
      d('split_k_sum', kernelSource('split_k_sum', { types: { Y: types.Y, C: types.C } }), sumMeta,
        [out.buffer, parts, cbuf, dummy(gpu), ...epi.bufs], grid(Math.ceil((batch * M * N) / 64)));
    });
    parts.destroy();
    return result;
  }
  const src = useGemv ? kernelSource(name, { types }) : kernelSource(name, { types, subst: tileSubst(tile) });
  Object.assign(meta, epi.meta);
  await submit(gpu, (d) => d(name, src, meta, [out.buffer, av.buffer, bv.buffer, cbuf, ...epi.bufs], wg));
  return result;
}

// matmul() into a column window of a wider output (no C, epilogue or split-K).
async function matmulWindow(gpu, meta, av, bv, out, result, { gemv, tile, batch, M, N, a, b }) {
  const name = gemv ? 'gemv' : 'matmul';
  if (gemv) meta.batch = batch;
  else meta.b_kfast = meta.b_rs === 1 && meta.b_cs !== 1 ? 1 : 0;
  const wg = gemv ? grid(batch * N) : [Math.ceil(N / tile), Math.ceil(M / tile), batch];
  const types = floatTypes({ Y: out, A: a, B: b, C: null });
  const src = gemv ? kernelSource(name, { types }) : kernelSource(name, { types, subst: tileSubst(tile) });
  const d0 = dummy(gpu);
  await submit(gpu, (d) => d(name, src, meta, [out.buffer, av.buffer, bv.buffer, d0, d0, d0], wg));
  return result;
}

// Splits view `x` at `dim` into the kept dims (shape, strides) and the reduced dim.
function rowSplit(x, dim) {
  const d = dim < 0 ? dim + x.shape.length : dim;
  const keep = x.shape.map((_, i) => i).filter((i) => i !== d);
  return { d, shape: keep.map((i) => x.shape[i]), strides: keep.map((i) => x.strides[i]),
    r: x.shape.length ? x.shape[d] : 1, rStride: x.shape.length ? x.strides[d] : 1 };
}

const REDUCE_MODE = { sum: 0, mean: 1, amax: 2, amin: 3, var: 4, std: 5, argmax: 6, argmin: 7 };
// Reduction of `x` over `dim` (keepdim false); arg modes return {values, indices}.
export async function reduce(gpu, mode, x, dim, { correction = 1 } = {}) {
  const s = rowSplit(x, dim);
  if (s.shape.length > 6) throw new Error('reduce: rank > 7');
  const rows = numel(s.shape);
  const y = empty(gpu, 'float32', s.shape);
  const arg = mode === 'argmax' || mode === 'argmin';
  const idx = arg ? empty(gpu, 'int32', s.shape) : null;
  if (rows > 0) {
    if (s.r === 0 && mode !== 'sum') throw new Error(`reduce: ${mode} over an empty dim`);
    const meta = { rows, rank: s.shape.length, r: s.r, r_stride: s.rStride, x_off: x.offset,
      correction: { f32: correction }, shape: pad6(s.shape), x_strides: pad6(s.strides) };
    const src = kernelSource('reduce', { types: { I: 'i32' }, subst: { MODE: String(REDUCE_MODE[mode]), TX: 'f32', X_FLOAT: 'true' } });
    await submit(gpu, (d) => d('reduce', src, meta, [y.buffer, x.buffer, (idx ?? { buffer: dummyRw(gpu) }).buffer], grid(rows)));
  }
  return arg ? { values: y, indices: idx } : y;
}

// A second 4-byte buffer for unread read_write bindings.
function dummyRw(gpu) {
  gpu.dummyRw ??= makeBuffer(gpu.device, 4);
  return gpu.dummyRw;
}

const ROW_MODE = { softmax: 0, log_softmax: 1, norm: 2 };
async function rowwise(gpu, mode, x, dim, extra = {}) {
  const s = rowSplit(x, dim);
  const y = empty(gpu, 'float32', x.shape);
  const ys = rowSplit(y, s.d);
  const rows = numel(s.shape);
  if (rows > 0 && s.r > 0) {
    const meta = { rows, rank: s.shape.length, r: s.r, r_stride: s.rStride, x_off: x.offset,
      shape: pad6(s.shape), x_strides: pad6(s.strides), y_strides: pad6(ys.strides), y_r_stride: ys.rStride,
      groups: 1, cpg: 0, hw: 1, eps: { f32: 0 }, ...extra.meta };
    const types = floatTypes({ Y: y, X: x, W: extra.weight, Bias: extra.bias });
    const src = kernelSource('rowwise', { types, subst: { MODE: String(ROW_MODE[mode]) } });
    const w = extra.weight?.buffer ?? dummy(gpu);
    const b = extra.bias?.buffer ?? dummy(gpu);
    await submit(gpu, (d) => d('rowwise', src, meta, [y.buffer, x.buffer, w, b], grid(rows)));
  }
  return y;
}
export const softmax = (gpu, x, dim) => rowwise(gpu, 'softmax', x, dim);
export const logSoftmax = (gpu, x, dim) => rowwise(gpu, 'log_softmax', x, dim);

// layer_norm over the last normalized.length dims; they must merge into one strided dim.
export async function layerNorm(gpu, x, normalized, { weight, bias, eps = 1e-5 } = {}) {
  const r = x.shape.length;
  const k = normalized.length;
  for (let i = r - k; i < r - 1; i++) {
    if (x.strides[i] !== x.strides[i + 1] * x.shape[i + 1]) throw new Error('layerNorm: normalized dims do not merge (copy first)');
  }
  const merged = { ...x, shape: [...x.shape.slice(0, r - k), numel(normalized)], strides: [...x.strides.slice(0, r - k), k ? x.strides[r - 1] : 1] };
  const y = await rowwise(gpu, 'norm', merged, -1, { weight, bias,
    meta: { eps: { f32: eps }, has_w: weight ? 1 : 0, has_b: bias ? 1 : 0 } });
  return { ...y, shape: x.shape, strides: contiguousStrides(x.shape) };
}

// group_norm(x [N, C, *], G): contiguous x; rows are (n, g), each cpg * hw elements.
export async function groupNorm(gpu, x, groups, { weight, bias, eps = 1e-5 } = {}) {
  const [n, c] = x.shape;
  if (x.offset !== 0 || x.strides.some((st, i) => st !== contiguousStrides(x.shape)[i])) throw new Error('groupNorm: x must be contiguous');
  const hw = numel(x.shape.slice(2));
  const cpg = c / groups;
  const view = { ...x, shape: [n * groups, cpg * hw], strides: [cpg * hw, 1] };
  const y = await rowwise(gpu, 'norm', view, -1, { weight, bias,
    meta: { eps: { f32: eps }, has_w: weight ? 1 : 0, has_b: bias ? 1 : 0, groups, cpg, hw } });
  return { ...y, shape: x.shape, strides: contiguousStrides(x.shape) };
}

const poolOut = (h, k, s, p, d, ceil) => {
  let o = Math.floor((h + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0)) / s) + 1;
  if (ceil && (o - 1) * s >= h + p) o--;
  return Math.max(o, 0);
};
const pair = (v) => (Array.isArray(v) ? v : [v, v]);

// conv2d(x [N, C, H, W] strided, w [Co, C/groups, kh, kw] contiguous, bias [Co]); 1x1 stride-1
// unpadded ungrouped convolutions run as a GEMM (matmul kernel) when x's H, W merge, the other
// ungrouped ones as an implicit GEMM (conv2d_gemm, output tile `tile`), grouped ones directly.
// kChunk: split-K (matmul's), for the GEMM paths.
export async function conv2d(gpu, x, w, bias, { stride = 1, padding = 0, dilation = 1, groups = 1, gemm = true, tile = 64, epilogue = null, kChunk = 0 } = {}) {
  const [sh, sw] = pair(stride); const [ph, pw] = pair(padding); const [dh, dw] = pair(dilation);
  const [n, cin, h, wd] = x.shape;
  const [cout, , kh, kw] = w.shape;
  const oh = poolOut(h, kh, sh, ph, dh, false);
  const ow = poolOut(wd, kw, sw, pw, dw, false);
  const is1x1 = kh === 1 && kw === 1 && sh === 1 && sw === 1 && ph === 0 && pw === 0 && groups === 1;
  if (gemm && is1x1 && x.strides[2] === x.strides[3] * wd) {
    const a = { ...w, shape: [cout, cin], strides: [cin, 1] };
    const b = { ...x, shape: [n, cin, h * wd], strides: [x.strides[0], x.strides[1], x.strides[3]] };
    const c = bias ? { ...bias, shape: [cout, 1], strides: [1, 0] } : null;
    const y = await matmul(gpu, a, b, { c, gemv: false, tile, epilogue, kChunk });
    return { ...y, shape: [n, cout, oh, ow], strides: contiguousStrides([n, cout, oh, ow]) };
  }
  const y = empty(gpu, 'float32', [n, cout, oh, ow]);
  const total = numel(y.shape);
  if (total === 0) return y;
  const meta = { numel: total, n, cin, h, w: wd, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, groups,
    has_b: bias ? 1 : 0, x_off: x.offset, x_strides: x.strides };
  const epi = epilogueArgs(gpu, epilogue);
  Object.assign(meta, epi.meta);
  const bufs = [y.buffer, x.buffer, w.buffer, bias?.buffer ?? dummy(gpu), ...epi.bufs];
  const types = floatTypes({ Y: y, X: x, W: w, Bias: bias });
  const wg = [Math.ceil((oh * ow) / tile), Math.ceil(cout / tile), n];
  if (groups === 1 && kChunk > 0) {  // the partial sums, then their sum with the bias and epilogue
    const chunks = Math.ceil((cin * kh * kw) / kChunk);
    const parts = makeBuffer(gpu.device, Math.max(4, chunks * total * 4));
    const src = kernelSource('conv2d_gemm', { types: { ...types, Y: 'f32' }, subst: tileSubst(tile) });
    const partMeta = { ...meta, has_b: 0, k_chunk: kChunk, epi_bn: 0, epi_res: 0, epi_act: 0 };
    const sumMeta = { numel: total, m: cout, n: oh * ow, chunks, alpha: { f32: 1 }, beta: { f32: 0 }, has_c: 0,
      has_bias: bias ? 1 : 0, ...epi.meta };
    await submit(gpu, (d) => {
      d('conv2d_gemm', src, partMeta, [parts, x.buffer, w.buffer, dummy(gpu), dummy(gpu), dummy(gpu)], [wg[0], wg[1], n * chunks]);
      d('split_k_sum', kernelSource('split_k_sum', { types: { Y: types.Y, Bias: types.Bias } }), sumMeta,
        [y.buffer, parts, dummy(gpu), bias?.buffer ?? dummy(gpu), ...epi.bufs], grid(Math.ceil(total / 64)));
    });
    parts.destroy();
  } else if (groups === 1) {
    const src = kernelSource('conv2d_gemm', { types, subst: tileSubst(tile) });
    await submit(gpu, (d) => d('conv2d_gemm', src, meta, bufs, wg));
  } else {
    await submit(gpu, (d) => d('conv2d', kernelSource('conv2d', { types }), meta, bufs, grid(Math.ceil(total / 64))));
  }
  return y;
}

// max_pool2d / avg_pool2d / adaptive_avg_pool2d on x [N, C, H, W] (strided).
export async function pool2d(gpu, mode, x, { kernel = 1, stride, padding = 0, dilation = 1, ceilMode = false,
  countIncludePad = true, divisor = 0, outputSize } = {}) {
  const [n, c, h, wd] = x.shape;
  const [kh, kw] = pair(kernel); const [sh, sw] = pair(stride ?? kernel); const [ph, pw] = pair(padding);
  const [dh, dw] = pair(dilation);
  const [oh, ow] = mode === 'adaptive_avg' ? pair(outputSize)
    : [poolOut(h, kh, sh, ph, dh, ceilMode), poolOut(wd, kw, sw, pw, dw, ceilMode)];
  const y = empty(gpu, 'float32', [n, c, oh, ow]);
  const total = numel(y.shape);
  if (total === 0) return y;
  const meta = { numel: total, nc: n * c, c, h, w: wd, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw,
    count_include_pad: countIncludePad ? 1 : 0, divisor, x_off: x.offset, x_strides: x.strides };
  const src = kernelSource('pool2d', { types: floatTypes({ Y: y, X: x }),
    subst: { MODE: String({ max: 0, avg: 1, adaptive_avg: 2 }[mode]) } });
  await submit(gpu, (d) => d('pool2d', src, meta, [y.buffer, x.buffer], grid(Math.ceil(total / 64))));
  return y;
}

// index_select(x, dim, idx 1-d int32) and gather(x, dim, idx): x any GPU dtype (a float16 table
// gathered into a float32 output: outDtype). rowParts [[first, count], ...] (dim 0 of a contiguous
// table): the table is read as those parts of its rows, each its own buffer and dispatch, as the
// lowering reads a weight past the device's largest binding.
export async function indexSelect(gpu, x, dim, idx, { gather = false, outDtype = x.dtype, rowParts = null } = {}) {
  const d = dim < 0 ? dim + x.shape.length : dim;
  const shape = gather ? idx.shape : x.shape.map((s, i) => (i === d ? idx.shape[0] : s));
  const y = empty(gpu, outDtype, shape);
  const total = numel(shape);
  if (total === 0) return y;
  const meta = { numel: total, rank: shape.length, dim: d, x_dim_size: x.shape[d], x_off: x.offset,
    shape: pad6(shape), x_strides: pad6(x.strides), idx_strides: pad6(idx.strides), idx_off: idx.offset };
  const t = { float32: 'f32', int32: 'i32', bool: 'u32', float16: 'f16' };
  const src = kernelSource('index_select', { types: { Y: t[outDtype], X: t[x.dtype], Idx: 'i32' }, subst: { MODE: gather ? '1' : '0' } });
  if (rowParts) {
    const row = numel(x.shape.slice(1)) * ARRAY[x.dtype].BYTES_PER_ELEMENT;
    gpu.device.queue.writeBuffer(y.buffer, 0, new Uint8Array(y.buffer.size).fill(0xff));  // NaN where nothing writes
    const parts = rowParts.map(([first, count]) => {
      const b = makeBuffer(gpu.device, Math.max(4, count * row));
      const enc = gpu.device.createCommandEncoder();
      if (count) enc.copyBufferToBuffer(x.buffer, first * row, b, 0, count * row);
      gpu.device.queue.submit([enc.finish()]);
      return b;
    });
    await submit(gpu, (dd) => rowParts.forEach(([first, count], k) => dd('index_select', src,
      { ...meta, row_first: first, row_count: count }, [y.buffer, parts[k], idx.buffer], grid(Math.ceil(total / 64)))));
    parts.forEach((b) => b.destroy());
    return y;
  }
  await submit(gpu, (dd) => dd('index_select', src, meta, [y.buffer, x.buffer, idx.buffer], grid(Math.ceil(total / 64))));
  return y;
}

export async function cumsum(gpu, x, dim) {
  const s = rowSplit(x, dim);
  const y = empty(gpu, 'float32', x.shape);
  const ys = rowSplit(y, s.d);
  const rows = numel(s.shape);
  if (rows === 0 || s.r === 0) return y;
  const meta = { rows, rank: s.shape.length, r: s.r, r_stride: s.rStride, x_off: x.offset, shape: pad6(s.shape),
    x_strides: pad6(s.strides), y_strides: pad6(ys.strides), y_r_stride: ys.rStride };
  await submit(gpu, (d) => d('cumsum', kernelSource('cumsum'), meta, [y.buffer, x.buffer], grid(Math.ceil(rows / 64))));
  return y;
}

// dst.index_copy_(dim, idx, src), in place on dst's buffer (dst may be a strided view of it).
export async function indexCopy(gpu, dst, dim, idx, src) {
  const d = dim < 0 ? dim + dst.shape.length : dim;
  const total = numel(src.shape);
  if (total === 0) return dst;
  const meta = { numel: total, rank: src.shape.length, dim: d, dst_dim_size: dst.shape[d], src_off: src.offset,
    shape: pad6(src.shape), src_strides: pad6(src.strides), dst_strides: pad6(dst.strides) };
  if (dst.offset !== 0) throw new Error('indexCopy: dst offset must be 0 (bind the sub-buffer instead)');
  const src_ = kernelSource('index_copy', { types: { Idx: 'i32' } });
  await submit(gpu, (dd) => dd('index_copy', src_, meta, [dst.buffer, src.buffer, idx.buffer], grid(Math.ceil(total / 64))));
  return dst;
}

// cat along dim: each input is copied into its slice of the output (elementwise 'copy' with the
// output view's offset and strides).
export async function cat(gpu, xs, dim) {
  const d = dim < 0 ? dim + xs[0].shape.length : dim;
  const shape = xs[0].shape.map((s, i) => (i === d ? xs.reduce((a, x) => a + x.shape[d], 0) : s));
  const y = empty(gpu, xs[0].dtype, shape);
  let at = 0;
  for (const x of xs) {
    const view = { ...y, shape: x.shape, offset: at * y.strides[d] };
    await elementwise(gpu, 'copy', [x], { out: view });
    at += x.shape[d];
  }
  return y;
}

// scaled_dot_product_attention(q [B, Hq, L, D], k/v [B, Hkv, S, D|Dv], mask broadcast to
// [B, Hq, L, S] (float: additive, bool: keep), causal, scale).
export async function sdpa(gpu, q, k, v, { mask = null, causal = false, scale } = {}) {
  const [B, HQ, L, D] = q.shape;
  const [, HKV, S] = k.shape;
  const DV = v.shape[3];
  if (D > 256 || DV > 256) throw new Error('sdpa: head dims over 256');
  if (HQ % HKV) throw new Error('sdpa: hq must be a multiple of hkv');
  const o = empty(gpu, 'float32', [B, HQ, L, DV]);
  const rows = B * HQ * L;
  if (rows === 0 || DV === 0) return o;
  const meta = { b: B, hq: HQ, hkv: HKV, l: L, s: S, d: D, dv: DV, scale: { f32: scale ?? 1 / Math.sqrt(D) },
    causal: causal ? 1 : 0, mask_mode: mask ? (mask.dtype === 'bool' ? 2 : 1) : 0,
    q_off: q.offset, q_strides: q.strides, k_off: k.offset, k_strides: k.strides, v_off: v.offset, v_strides: v.strides };
  if (mask) Object.assign(meta, { m_off: mask.offset, m_strides: broadcastStrides(mask, [B, HQ, L, S]) });
  const src = kernelSource('sdpa', { types: { Mask: mask?.dtype === 'bool' ? 'u32' : 'f32' } });
  await submit(gpu, (dd) => dd('sdpa', src, meta, [o.buffer, q.buffer, k.buffer, v.buffer, mask?.buffer ?? dummy(gpu)], grid(rows)));
  return o;
}

// batch_norm (inference) on a contiguous x [N, C, *].
export async function batchNorm(gpu, x, mean, variance, { weight, bias, eps = 1e-5 } = {}) {
  const y = empty(gpu, 'float32', x.shape);
  const total = numel(x.shape);
  if (total === 0) return y;
  const meta = { numel: total, c: x.shape[1], hw: numel(x.shape.slice(2)), eps: { f32: eps },
    has_w: weight ? 1 : 0, has_b: bias ? 1 : 0 };
  const types = floatTypes({ Y: y, X: x, Mean: mean, Var: variance, W: weight, Bias: bias });
  await submit(gpu, (d) => d('batch_norm', kernelSource('batch_norm', { types }), meta,
    [y.buffer, x.buffer, mean.buffer, variance.buffer, weight?.buffer ?? dummy(gpu), bias?.buffer ?? dummy(gpu)], grid(Math.ceil(total / 64))));
  return y;
}
