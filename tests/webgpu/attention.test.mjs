// scaled_dot_product_attention (flash-style kernel) against a float64 reference: key tiles
// edges (S = 63, 64, 65, 130), causal, additive and bool masks, GQA, head dims over 64,
// strided (transposed) K and a decode step (L = 1) reading a KV cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest, sdpa, download } from './gpu.mjs';
import { rng, hostTensor, toGpu, at, assertClose } from './ref.mjs';

function refSdpa(q, k, v, { mask, causal, scale }) {
  const [B, HQ, L, D] = q.shape;
  const [, HKV, S] = k.shape;
  const DV = v.shape[3];
  const sc = scale ?? 1 / Math.sqrt(D);
  const out = [];
  for (let b = 0; b < B; b++) for (let h = 0; h < HQ; h++) for (let i = 0; i < L; i++) {
    const hk = Math.floor(h / (HQ / HKV));
    const s = [];
    for (let j = 0; j < S; j++) {
      let dot = 0;
      for (let d = 0; d < D; d++) dot += at(q, [b, h, i, d]) * at(k, [b, hk, j, d]);
      let x = dot * sc;
      if (causal && j > i) x = -Infinity;
      if (mask) { const m = at(mask, [b, h, i, j]); x = mask.dtype === 'bool' ? (m ? x : -Infinity) : x + m; }
      s.push(x);
    }
    const mx = Math.max(...s);
    const p = s.map((x) => Math.exp(x - mx));
    const l = p.reduce((a, c) => a + c, 0);
    for (let d = 0; d < DV; d++) {
      let acc = 0;
      for (let j = 0; j < S; j++) acc += p[j] * at(v, [b, hk, j, d]);
      out.push(acc / l);
    }
  }
  return out;
}

test('sdpa: tiles, masks, causal, GQA, strided K, decode', gpuTest(async (t, gpu) => {
  const cases = [
    // [B, HQ, HKV, L, S, D, DV, options]
    [1, 2, 2, 5, 7, 8, 8, {}],
    [2, 2, 2, 70, 70, 16, 16, { causal: true }],
    [1, 4, 2, 3, 65, 8, 8, { scale: 0.3 }],                      // GQA
    [1, 2, 1, 6, 64, 65, 130, { mask: 'float' }],                // MQA, head dims > 64
    [1, 2, 2, 4, 63, 8, 8, { mask: 'bool', kLayout: 'transposed' }],
    [1, 8, 2, 1, 130, 32, 32, { kLayout: 'transposed' }],        // decode step over a cache
    [1, 1, 1, 9, 9, 1, 3, { causal: true, mask: 'float' }],
  ];
  let seed = 1;
  for (const [B, HQ, HKV, L, S, D, DV, o] of cases) {
    const rand = rng(seed++);
    const q = hostTensor(rand, 'float32', [B, HQ, L, D]);
    const k = hostTensor(rand, 'float32', [B, HKV, S, D], o.kLayout);
    const v = hostTensor(rand, 'float32', [B, HKV, S, DV]);
    let mask = null;
    if (o.mask === 'float') mask = hostTensor(rand, 'float32', [L, S], 'contiguous', { lo: -3, hi: 1 });
    if (o.mask === 'bool') {
      mask = hostTensor(rand, 'bool', [1, HQ, L, S]);
      for (let i = 0; i < HQ * L; i++) mask.storage[i * S] = 1;   // no fully masked row
    }
    const y = await sdpa(gpu, toGpu(gpu, q), toGpu(gpu, k), toGpu(gpu, v),
      { mask: mask && toGpu(gpu, mask), causal: o.causal, scale: o.scale });
    assert.deepEqual(y.shape, [B, HQ, L, DV]);
    const want = refSdpa(q, k, v, { mask, causal: o.causal, scale: o.scale });
    assertClose(await download(gpu, y), want, { rtol: 1e-5, atol: 2e-6, what: `sdpa ${JSON.stringify([B, HQ, HKV, L, S, D, DV, o])}` });
  }
}));
