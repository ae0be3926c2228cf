// Data movement and indexing: permute/contiguous and slice copies, cat, cast, arange/full,
// index_select/embedding, gather, cumsum and in-place index_copy_ (KV cache update), against
// JS references over the same inputs (exact for moves; float64 for cumsum).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest, elementwise, cat, indexSelect, cumsum, indexCopy, download, upload, numel, contiguousStrides } from './gpu.mjs';
import { rng, hostTensor, toGpu, at, indices, assertClose } from './ref.mjs';

const values = (h) => Array.from(indices(h.shape), (idx) => at(h, idx));

test('permute / slice / contiguous copies and casts', gpuTest(async (t, gpu) => {
  const rand = rng(1);
  for (const [shape, layout] of [[[3, 5, 7], 'transposed'], [[4, 9], 'sliced'], [[1], 'contiguous'], [[0, 3], 'transposed'], [[], 'contiguous']]) {
    const h = hostTensor(rand, 'float32', shape, layout);
    const y = await elementwise(gpu, 'copy', [toGpu(gpu, h)]);
    assert.deepEqual([...await download(gpu, y)], values(h), `copy ${shape} ${layout}`);
  }
  // permute(0, 2, 1, 3) of a contiguous [2, 3, 4, 5]: a view with permuted strides, then a copy
  const h = hostTensor(rand, 'float32', [2, 3, 4, 5]);
  const p = { ...h, shape: [2, 4, 3, 5], strides: [60, 5, 20, 1] };
  assert.deepEqual([...await download(gpu, await elementwise(gpu, 'copy', [toGpu(gpu, p)]))], values(p));
  // casts: float32 -> int32 truncates toward zero, bool -> float32, int32 -> float32
  const f = upload(gpu, [1.7, -1.7, 2.5, -0.2, 0], 'float32', [5]);
  assert.deepEqual([...await download(gpu, await elementwise(gpu, 'copy', [f], { outDtype: 'int32' }))], [1, -1, 2, 0, 0]);
  const b = upload(gpu, [1, 0, 1], 'bool', [3]);
  assert.deepEqual([...await download(gpu, await elementwise(gpu, 'copy', [b], { outDtype: 'float32' }))], [1, 0, 1]);
}));

test('cat along each dim, mixed layouts, empty parts', gpuTest(async (t, gpu) => {
  const rand = rng(2);
  for (const [shapes, dim, layouts] of [[[[2, 3], [2, 5], [2, 1]], 1, ['contiguous', 'sliced', 'contiguous']],
    [[[2, 3, 4], [1, 3, 4]], 0, ['transposed', 'contiguous']], [[[3, 2], [3, 0], [3, 4]], -1, ['contiguous', 'contiguous', 'transposed']]]) {
    const hs = shapes.map((s, i) => hostTensor(rand, 'float32', s, layouts[i]));
    const y = await cat(gpu, hs.map((h) => toGpu(gpu, h)), dim);
    const d = dim < 0 ? dim + shapes[0].length : dim;
    const want = [];
    for (const idx of indices(y.shape)) {
      let j = idx[d], k = 0;
      while (j >= hs[k].shape[d]) { j -= hs[k].shape[d]; k++; }
      want.push(at(hs[k], idx.map((v, i) => (i === d ? j : v))));
    }
    assert.deepEqual([...await download(gpu, y)], want, `cat ${JSON.stringify(shapes)} dim ${dim}`);
  }
}));

test('arange and full', gpuTest(async (t, gpu) => {
  const a = await elementwise(gpu, 'arange', [], { p0: -2, p1: 0.5, out: { ...empty(gpu, 'float32', [9]) } });
  assert.deepEqual([...await download(gpu, a)], [-2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2]);
  const ai = await elementwise(gpu, 'arange', [], { p0: 3, p1: 2, out: empty(gpu, 'int32', [4]) });
  assert.deepEqual([...await download(gpu, ai)], [3, 5, 7, 9]);
  const f = await elementwise(gpu, 'full', [], { p0: 2.25, out: empty(gpu, 'float32', [2, 65]) });
  assert.deepEqual([...await download(gpu, f)], new Array(130).fill(2.25));
}));

test('index_select, embedding and gather; negative indices wrap', gpuTest(async (t, gpu) => {
  const rand = rng(3);
  const x = hostTensor(rand, 'float32', [5, 4, 3], 'transposed');
  for (const [dim, idxs] of [[0, [4, 0, 0, 2]], [1, [3, -1]], [2, [1]], [1, []]]) {
    const idx = upload(gpu, idxs, 'int32', [idxs.length]);
    const y = await indexSelect(gpu, toGpu(gpu, x), dim, idx);
    const want = Array.from(indices(y.shape), (ix) => {
      const j = idxs[ix[dim]];
      return at(x, ix.map((v, i) => (i === dim ? (j < 0 ? j + x.shape[dim] : j) : v)));
    });
    assert.deepEqual([...await download(gpu, y)], want, `index_select dim ${dim}`);
  }
  // embedding: weight [V, E] rows by token ids [2, 3] (as index_select over the flattened ids)
  const w = hostTensor(rand, 'float32', [7, 5]);
  const ids = [6, 0, 3, 3, 1, 2];
  const e = await indexSelect(gpu, toGpu(gpu, w), 0, upload(gpu, ids, 'int32', [6]));
  assert.deepEqual([...await download(gpu, e)], ids.flatMap((r) => Array.from({ length: 5 }, (_, c) => at(w, [r, c]))));
  // gather(x, dim, index) with a strided index
  for (const dim of [0, 1, 2]) {
    const ishape = [3, 4, 2];
    const ih = hostTensor(rand, 'int32', ishape, 'transposed', { lo: 0, hi: x.shape[dim] - 1 });
    const y = await indexSelect(gpu, toGpu(gpu, x), dim, toGpu(gpu, ih), { gather: true });
    const want = Array.from(indices(ishape), (ix) => at(x, ix.map((v, i) => (i === dim ? at(ih, ix) : v))));
    assert.deepEqual([...await download(gpu, y)], want, `gather dim ${dim}`);
  }
}));

test('cumsum over a dim, strided inputs', gpuTest(async (t, gpu) => {
  const rand = rng(4);
  for (const [shape, dim, layout] of [[[7], 0, 'contiguous'], [[3, 70], 1, 'transposed'], [[4, 5, 6], 1, 'sliced'], [[2, 0], 0, 'contiguous'], [[65, 2], 0, 'contiguous']]) {
    const h = hostTensor(rand, 'float32', shape, layout);
    const y = await cumsum(gpu, toGpu(gpu, h), dim);
    const want = Array.from(indices(shape), (ix) => {
      let s = 0;
      for (let k = 0; k <= ix[dim]; k++) s += at(h, ix.map((v, i) => (i === dim ? k : v)));
      return s;
    });
    assertClose(await download(gpu, y), want, { rtol: 1e-5, atol: 1e-5, what: `cumsum ${shape} dim ${dim}` });
  }
}));

test('index_copy_ in place into a KV cache', gpuTest(async (t, gpu) => {
  const rand = rng(5);
  const cacheShape = [2, 3, 8, 4];   // [B, H, S_max, D]
  const cache = hostTensor(rand, 'float32', cacheShape);
  const dst = toGpu(gpu, cache);
  const src = hostTensor(rand, 'float32', [2, 3, 2, 4], 'transposed');
  const pos = [5, -1];               // -1 wraps to 7
  await indexCopy(gpu, dst, 2, upload(gpu, pos, 'int32', [2]), toGpu(gpu, src));
  const want = Float32Array.from(cache.storage);
  for (const ix of indices(src.shape)) {
    const j = pos[ix[2]] < 0 ? pos[ix[2]] + 8 : pos[ix[2]];
    want[((ix[0] * 3 + ix[1]) * 8 + j) * 4 + ix[3]] = at(src, ix);
  }
  assert.deepEqual([...await download(gpu, dst)], [...want]);
}));

function empty(gpu, dtype, shape) {
  return upload(gpu, new ({ float32: Float32Array, int32: Int32Array }[dtype])(numel(shape)), dtype, shape, contiguousStrides(shape));
}
