// Float64 references for the WGSL kernel tests: seeded random tensors (values rounded to f32, so
// the GPU and the reference see the same inputs), strided views over them, element access, and
// tolerance checks. The references compute in float64 from the same f32 inputs.
import assert from 'node:assert/strict';
import { contiguousStrides, numel, upload } from './gpu.mjs';

export function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A host tensor: {storage (typed array), dtype, shape, strides, offset}. layout:
// 'contiguous'; 'transposed' (last two dims swapped in memory: a permuted view); 'sliced'
// (every other element of the last dim, offset 1: a strided slice).
export function hostTensor(rand, dtype, shape, layout = 'contiguous', { lo = -2, hi = 2 } = {}) {
  const gen = () => {
    if (dtype === 'bool') return rand() < 0.5 ? 1 : 0;
    if (dtype === 'int32') return Math.floor(lo + rand() * (hi - lo + 1));
    return Math.fround(lo + rand() * (hi - lo));
  };
  const r = shape.length;
  let strides, offset = 0, size;
  if (layout === 'transposed' && r >= 2) {
    const mem = [...shape];
    [mem[r - 1], mem[r - 2]] = [mem[r - 2], mem[r - 1]];
    const ms = contiguousStrides(mem);
    strides = [...ms];
    [strides[r - 1], strides[r - 2]] = [ms[r - 2], ms[r - 1]];
    size = numel(shape);
  } else if (layout === 'sliced' && r >= 1) {
    const mem = [...shape];
    mem[r - 1] = 2 * shape[r - 1] + 1;
    strides = contiguousStrides(mem);
    strides[r - 1] = 2;
    offset = 1;
    size = numel(mem);
  } else {
    strides = contiguousStrides(shape);
    size = numel(shape);
  }
  const A = { float32: Float32Array, int32: Int32Array, bool: Uint32Array }[dtype];
  const storage = new A(size);
  for (let i = 0; i < size; i++) storage[i] = gen();
  return { storage, dtype, shape, strides, offset };
}

export const toGpu = (gpu, h) => upload(gpu, h.storage, h.dtype, h.shape, h.strides, h.offset);

// Element at multi-index `idx` of a host tensor, broadcast to `idx.length` dims.
export function at(h, idx) {
  let o = h.offset;
  const k = idx.length - h.shape.length;
  for (let i = 0; i < h.shape.length; i++) if (h.shape[i] !== 1) o += idx[i + k] * h.strides[i];
  return h.storage[o];
}

// All multi-indices of `shape` in row-major order.
export function* indices(shape) {
  const n = numel(shape);
  const idx = new Array(shape.length).fill(0);
  for (let i = 0; i < n; i++) {
    yield idx;
    for (let d = shape.length - 1; d >= 0; d--) { if (++idx[d] < shape[d]) break; idx[d] = 0; }
  }
}

// |got - want| <= atol + rtol * |want| everywhere (NaN must match NaN, inf must match inf).
export function assertClose(got, want, { rtol = 1e-5, atol = 1e-5, what = '' } = {}) {
  assert.equal(got.length, want.length, `${what}: length`);
  for (let i = 0; i < want.length; i++) {
    const g = Number(got[i]);
    const w = Number(want[i]);
    if (Number.isNaN(w) && Number.isNaN(g)) continue;
    if (!Number.isFinite(w) && g === w) continue;
    const ok = Math.abs(g - w) <= atol + rtol * Math.abs(w);
    if (!ok) assert.fail(`${what}: element ${i}: got ${g}, want ${w} (rtol ${rtol}, atol ${atol})`);
  }
}

// erf in float64: Taylor series below 3, continued fraction of erfc above (|err| < 1e-14).
export function erf(x) {
  const ax = Math.abs(x);
  if (ax < 3) {
    let term = ax, sum = ax;
    for (let n = 1; n < 200; n++) {
      term *= -ax * ax / n;
      const t = term / (2 * n + 1);
      sum += t;
      if (Math.abs(t) < 1e-17 * Math.abs(sum)) break;
    }
    return Math.sign(x) * sum * 2 / Math.sqrt(Math.PI);
  }
  let f = 0;
  for (let n = 60; n >= 1; n--) f = (n / 2) / (ax + f);
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / (ax + f);
  return Math.sign(x) * (1 - erfc);
}

// float16 bits <-> numbers (round to nearest even), for the f16 kernel tests.
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
export function toHalf(x) {
  f32[0] = x;
  const b = u32[0];
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++;
  return sign | h;
}
export function fromHalf(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}
