// Data movement and indexing: permute/contiguous and slice copies, cat, cast, arange/full,
// index_select/embedding, gather, cumsum and in-place index_copy_ (KV cache update), against
// JS references over the same inputs (exact for moves; float64 for cumsum). The lowerings built
// from these kernels (roll, repeat, tril/triu, fills, index.Tensor, gather, take_along_dim, int64
// moves) run through the WebGPU provider against our engine's CPU kernels, exactly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest, elementwise, cat, indexSelect, cumsum, indexCopy, download, upload, numel, contiguousStrides } from './gpu.mjs';
import { rng, hostTensor, toGpu, at, indices, assertClose } from './ref.mjs';
import { getEngine, checkLowered, runBoth } from './engine.mjs';

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
  // ... read as parts of its rows (a table past the largest binding), odd ids, negative and invalid
  // ones (9 and -8: zeros, written by the part at row 0 only), each row by its own part
  const pids = [6, 0, 3, 9, -1, 2, -8, 4];
  for (const rowParts of [[[0, 3], [3, 2], [5, 2]], [[0, 1], [1, 6]], [[0, 7]]]) {
    const p = await indexSelect(gpu, toGpu(gpu, w), 0, upload(gpu, pids, 'int32', [pids.length]), { rowParts });
    const want = pids.flatMap((r) => Array.from({ length: 5 }, (_, c) => (r < -7 || r > 6 ? 0 : at(w, [r < 0 ? r + 7 : r, c]))));
    assert.deepEqual([...await download(gpu, p)], want, `embedding in parts ${JSON.stringify(rowParts)}`);
  }
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

// Casts to float16/bfloat16 (float32 in the engine) round to that precision on the CPU: the GPU
// must too, bit for bit (ties to even, float16 overflow to inf and subnormals, NaN), for
// _to_copy / to / type_as, and for fills of a float16 tensor.
test('casts to float16 / bfloat16 and fills of float16 round as the CPU does (WebGPU provider vs CPU, exact)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const edge = [1.0001, 3.14159265, -1e-6, 70000, -65519, 65520, 1e-8, 2 ** -25, 3 * 2 ** -26, 0.1, 65504, -0, Infinity,
    NaN, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 3.4e38, 2 ** -24 * 1.5, 1 + 2 ** -8, 1 + 3 * 2 ** -8];
  const rand = rng(9);
  const x = { ...hostTensor(rand, 'float32', [5, 13], 'transposed', { lo: -300, hi: 300 }) };
  edge.forEach((v, k) => { x.storage[k] = v; });
  for (const dtype of ['float16', 'bfloat16']) {
    await checkLowered(eng, gpu, 'aten._to_copy.default', [x], [{ shape: x.shape, dtype }], { dtype });
    await checkLowered(eng, gpu, 'aten._to_copy.default', [x], [{ shape: x.shape, dtype }], { dtype }, { transposed: [0] });
    await checkLowered(eng, gpu, 'aten.to.dtype', [x], [{ shape: x.shape, dtype }], { dtype });
  }
  const n = hostTensor(rand, 'int32', [7], 'contiguous', { lo: -70000, hi: 70000 });
  await checkLowered(eng, gpu, 'aten._to_copy.default', [n], [{ shape: [7], dtype: 'float16' }], { dtype: 'float16' });
  // type_as(x, h) with h float16, and fill / fill_.Scalar of a float16 tensor (made by a cast).
  const meta = (name, shape, dtype, producer) => ({ name, shape, dtype, ...(producer ? { producer_node: producer, producer_output_idx: 0 } : {}) });
  const xs = meta('x', [5, 13], 'float32', 'x');
  const h = meta('h', [5, 13], 'float16', 'h');
  const ir = { model_name: 'Casts', graph_inputs: [meta('x', [5, 13], 'float32')], weights: [], weight_name_mapping: {},
    graph_outputs: [meta('a', [5, 13], 'float16', 'a'), meta('f', [5, 13], 'float16', 'f'), meta('g', [5, 13], 'float16', 'g')],
    nodes: [
      { name: 'h', op_type: 'aten._to_copy.default', inputs: [xs], outputs: [meta('h', [5, 13], 'float16')], attrs: { dtype: 'float16' } },
      { name: 'a', op_type: 'aten.type_as.default', inputs: [xs, h], outputs: [meta('a', [5, 13], 'float16')], attrs: {} },
      { name: 'f', op_type: 'aten.fill.Scalar', inputs: [h], outputs: [meta('f', [5, 13], 'float16')], attrs: { value: 0.1 } },
      { name: 'g', op_type: 'aten.fill.Scalar', inputs: [h], outputs: [meta('g', [5, 13], 'float16')], attrs: { value: 70000 } },
    ] };
  const r = await runBoth(eng, gpu.device, ir, [x]);
  assert.deepEqual(r.placement.nodes, { webgpu: 4, wasm: 0 });
  r.cpu.forEach((want, k) => assertClose(r.gpu[k], want, { rtol: 0, atol: 0, what: `output ${ir.graph_outputs[k].name}` }));
  assert.equal(r.cpu[1][0], 0.0999755859375);
}));

test('lowerings: roll, repeat, tril/triu, diag, stack, eye, channel_shuffle, im2col, fills (WebGPU provider vs CPU, exact)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(6);
  const f = (shape, layout) => hostTensor(rand, 'float32', shape, layout);
  const i = (shape, layout) => hostTensor(rand, 'int32', shape, layout, { lo: -1000, hi: 1000 });
  const same = (h) => [{ shape: h.shape, dtype: h.dtype }];
  for (const [x, attrs, tr] of [[f([3, 5, 7]), { shifts: [2, -3], dims: [1, 2] }], [f([3, 5, 7]), { shifts: [2, -3], dims: [1, 2] }, [0]],
    [f([1, 4, 4, 3]), { shifts: [-2, -2], dims: [1, 2] }], [f([2, 5]), { shifts: [4] }], [f([6]), { shifts: [6], dims: [0] }],
    [f([4, 3]), { shifts: [1, 2], dims: [0, 0] }], [f([0, 3]), { shifts: [1], dims: [1] }], [i([5, 4]), { shifts: [-1], dims: [-1] }]]) {
    await checkLowered(eng, gpu, 'aten.roll.default', [x], same(x), attrs, { transposed: tr });
  }
  for (const [x, reps, tr] of [[f([2, 3]), [2, 1, 3]], [i([1, 1, 6]), [1, 6, 1]], [f([3]), [0, 2]], [f([3, 4]), [2, 2], [0]], [f([]), [3]]]) {
    const shape = reps.map((r, k) => r * (k < reps.length - x.shape.length ? 1 : x.shape[k - reps.length + x.shape.length]));
    await checkLowered(eng, gpu, 'aten.repeat.default', [x], [{ shape, dtype: x.dtype }], { repeats: reps }, { transposed: tr });
  }
  const b = hostTensor(rand, 'bool', [8, 8]);
  for (const [x, k, tr] of [[f([5, 7]), 0], [f([2, 4, 4]), 1], [f([3, 65]), -2], [f([6, 5]), 2, [0]], [b, 0], [f([0, 3]), 0], [i([4, 4]), -1]]) {
    await checkLowered(eng, gpu, 'aten.tril.default', [x], same(x), { diagonal: k }, { transposed: tr });
    await checkLowered(eng, gpu, 'aten.triu.default', [x], same(x), { diagonal: k }, { transposed: tr });
  }
  for (const [x, k, tr] of [[f([4]), 0], [f([3]), 1], [f([3]), -2], [f([5, 7]), 0], [f([5, 7]), 3], [f([5, 7]), -1, [0]], [f([0]), 0], [f([4, 2]), 5]]) {
    const n = x.shape[0];
    const shape = x.shape.length === 1 ? [n + Math.abs(k), n + Math.abs(k)]
      : [Math.max(0, Math.min(k >= 0 ? x.shape[0] : x.shape[0] + k, k >= 0 ? x.shape[1] - k : x.shape[1]))];
    await checkLowered(eng, gpu, 'aten.diag.default', [x], [{ shape, dtype: 'float32' }], { diagonal: k }, { transposed: tr });
  }
  const parts = [f([3, 4]), f([3, 4]), f([3, 4])];
  for (const dim of [0, 1, 2, -1]) {
    const shape = [3, 4];
    shape.splice(dim < 0 ? 3 + dim : dim, 0, 3);
    await checkLowered(eng, gpu, 'aten.stack.default', parts, [{ shape, dtype: 'float32' }], { dim, _tensor_list_sizes: [3] }, { transposed: [1] });
  }
  await checkLowered(eng, gpu, 'aten.eye.default', [], [{ shape: [4, 4], dtype: 'float32' }], { n: 4 });
  await checkLowered(eng, gpu, 'aten.eye.m', [], [{ shape: [3, 5], dtype: 'float32' }], { n: 3, m: 5 });
  for (const [shape, groups, tr] of [[[2, 4, 6, 6], 2], [[1, 6, 5], 3, [0]], [[3, 4, 1], 4]]) {
    await checkLowered(eng, gpu, 'aten.channel_shuffle.default', [f(shape)], [{ shape, dtype: 'float32' }], { groups }, { transposed: tr });
  }
  for (const [shape, k, dil, pad, st, tr] of [[[1, 3, 7, 6], [2, 3], [1, 1], [1, 0], [2, 1]], [[1, 3, 5, 5], [2, 2], [1, 1], [0, 0], [2, 2]],
    [[2, 2, 6, 5], [3, 3], [2, 1], [2, 1], [1, 2], [0]], [[1, 1, 2, 2], [3, 3], [1, 1], [1, 1], [1, 1]]]) {
    const o = (n, d) => Math.floor((n + 2 * pad[d] - dil[d] * (k[d] - 1) - 1) / st[d]) + 1;
    await checkLowered(eng, gpu, 'aten.im2col.default', [f(shape)], [{ shape: [shape[0], shape[1] * k[0] * k[1], o(shape[2], 0) * o(shape[3], 1)], dtype: 'float32' }],
      { kernel_size: k, dilation: dil, padding: pad, stride: st }, { transposed: tr });
  }
  await checkLowered(eng, gpu, 'aten.full.default', [], [{ shape: [8, 8], dtype: 'float32' }], { size: [8, 8], fill_value: -3.4028234663852886e+38 });
  await checkLowered(eng, gpu, 'aten.new_zeros.default', [f([3, 4])], [{ shape: [16, 5], dtype: 'float32' }], { size: [16, 5] });
  await checkLowered(eng, gpu, 'aten.ones_like.default', [hostTensor(rand, 'bool', [7, 3])], [{ shape: [7, 3], dtype: 'bool' }], {});
  await checkLowered(eng, gpu, 'aten.zeros_like.default', [f([0, 2])], [{ shape: [0, 2], dtype: 'float32' }], {});
}));

test('lowerings: index.Tensor, gather, take_along_dim, int64 moves (WebGPU provider vs CPU, exact)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(7);
  const f = (shape, layout) => hostTensor(rand, 'float32', shape, layout);
  const idx = (shape, n, layout) => hostTensor(rand, 'int32', shape, layout, { lo: -n, hi: n - 1 });  // negatives wrap
  const pos = (shape, n) => hostTensor(rand, 'int32', shape, 'contiguous', { lo: 0, hi: n - 1 });  // gather takes no negatives
  // One index tensor: at dim 0, at dim 1 (a None before it), multi-dim indices, a transposed self.
  await checkLowered(eng, gpu, 'aten.index.Tensor', [f([49, 2]), idx([256], 49)], [{ shape: [256, 2], dtype: 'float32' }], { _tensor_list_sizes: [1] });
  await checkLowered(eng, gpu, 'aten.index.Tensor', [f([1, 8]), idx([4], 8)], [{ shape: [1, 4], dtype: 'float32' }],
    { _tensor_list_sizes: [1], _tensor_list_none_masks: [[true, false]] });
  await checkLowered(eng, gpu, 'aten.index.Tensor', [f([5, 6, 7]), idx([2, 3], 6)], [{ shape: [5, 2, 3, 7], dtype: 'float32' }],
    { _tensor_list_sizes: [1], _tensor_list_none_masks: [[true, false]] }, { transposed: [0] });
  await checkLowered(eng, gpu, 'aten.index.Tensor', [f([4, 3]), idx([0], 4)], [{ shape: [0, 3], dtype: 'float32' }], { _tensor_list_sizes: [1] });
  // Two index tensors broadcast together (index_multi.wgsl): CLIP's pooled token, adjacent dims
  // after a None (their broadcast dims in place), dims 0 and 2 (broadcast dims first), a transposed self.
  await checkLowered(eng, gpu, 'aten.index.Tensor', [f([2, 8, 3]), idx([2], 2), idx([2], 8)], [{ shape: [2, 3], dtype: 'float32' }],
    { _tensor_list_sizes: [2] });
  await checkLowered(eng, gpu, 'aten.index.Tensor', [f([3, 4, 5, 2]), idx([2, 1], 4), idx([3], 5)], [{ shape: [3, 2, 3, 2], dtype: 'float32' }],
    { _tensor_list_sizes: [2], _tensor_list_none_masks: [[true, false, false]] });
  await checkLowered(eng, gpu, 'aten.index.Tensor', [f([4, 3, 6]), idx([5], 4), idx([5], 6)], [{ shape: [5, 3], dtype: 'float32' }],
    { _tensor_list_sizes: [2], _tensor_list_none_masks: [[false, true, false]] }, { transposed: [0] });
  for (const [x, dim, ishape, tr] of [[f([4, 5]), 1, [4, 3]], [f([4, 5]), 0, [2, 5], [0]], [f([3, 1, 65]), 2, [3, 1, 64]], [f([7]), 0, [9]]]) {
    await checkLowered(eng, gpu, 'aten.gather.default', [x, pos(ishape, x.shape[dim])], [{ shape: ishape, dtype: 'float32' }], { dim }, { transposed: tr });
  }
  await checkLowered(eng, gpu, 'aten.take_along_dim.default', [f([2, 4, 36]), pos([2, 4, 1], 36)], [{ shape: [2, 4, 1], dtype: 'float32' }], { dim: -1 });
  await checkLowered(eng, gpu, 'aten.take_along_dim.default', [f([1, 5]), pos([3, 2], 5)], [{ shape: [3, 2], dtype: 'float32' }], { dim: 1 });
  await checkLowered(eng, gpu, 'aten.take_along_dim.default', [f([4, 4]), pos([3], 16)],
    [{ shape: [3], dtype: 'float32' }], {});
  // int64 values move on the GPU (held as int32); int64 arithmetic stays on WASM.
  const c = hostTensor(rand, 'bool', [6, 6]);
  const a = idx([6, 6], 1e6), b2 = idx([6, 1], 1e6);
  await checkLowered(eng, gpu, 'aten.where.self', [c, a, b2], [{ shape: [6, 6], dtype: 'int32' }], {});
  await checkLowered(eng, gpu, 'aten.clone.default', [a], [{ shape: [6, 6], dtype: 'int32' }], {}, { transposed: [0] });
  await checkLowered(eng, gpu, 'aten.add.Tensor', [a, b2], [{ shape: [6, 6], dtype: 'int32' }], {}, { onGpu: false });
}));

test('scatter, scatter.value and scatter_add in gather form (WebGPU provider vs CPU)', gpuTest(async (t, gpu) => {
  const eng = await getEngine();
  if (!eng) { t.skip('npm/dist not built'); return; }
  const rand = rng(31);
  const f = (shape, layout) => hostTensor(rand, 'float32', shape, layout);
  const pos = (shape, n) => hostTensor(rand, 'int32', shape, 'contiguous', { lo: 0, hi: n - 1 });  // repeats: the last write wins
  const out = (x) => [{ shape: x.shape, dtype: x.dtype }];
  // MoE's routing weights: zeros [tokens, experts] scattered with the top-k's weights.
  const z = hostTensor(rand, 'float32', [6, 4]);
  z.storage.fill(0);
  await checkLowered(eng, gpu, 'aten.scatter.src', [z, pos([6, 2], 4), f([6, 2])], out(z), { dim: 1 });
  // An index smaller than self outside dim (those positions keep self), along dim 0, strided
  // operands, an index longer than self's dim, and int64 values (moved as int32).
  await checkLowered(eng, gpu, 'aten.scatter.src', [f([5, 4]), pos([3, 2], 5), f([4, 3])], out(f([5, 4])), { dim: 0 });
  await checkLowered(eng, gpu, 'aten.scatter.src', [f([4, 5]), pos([4, 5], 4), f([4, 5], 'transposed')], out(f([4, 5])), { dim: 0 }, { transposed: [0] });
  await checkLowered(eng, gpu, 'aten.scatter.src', [f([2, 3]), pos([2, 70], 3), f([2, 70])], out(f([2, 3])), { dim: 1 });
  const ints = hostTensor(rand, 'int32', [3, 4], 'contiguous', { lo: -1e6, hi: 1e6 });
  await checkLowered(eng, gpu, 'aten.scatter.src', [ints, pos([3, 2], 4), hostTensor(rand, 'int32', [3, 2], 'contiguous', { lo: -9, hi: 9 })],
    out(ints), { dim: 1 });
  await checkLowered(eng, gpu, 'aten.scatter.value', [f([4, 6]), pos([4, 3], 6)], out(f([4, 6])), { dim: 1, value: -2.5 });
  // scatter_add: repeated positions add in the CPU's order (exact).
  await checkLowered(eng, gpu, 'aten.scatter_add.default', [f([3, 5]), pos([3, 40], 5), f([3, 40])], out(f([3, 5])), { dim: 1 });
  await checkLowered(eng, gpu, 'aten.scatter_add.default', [f([6, 2, 3]), pos([9, 2, 3], 6), f([9, 2, 3])], out(f([6, 2, 3])), { dim: 0 });
  // int64 addition stays on WASM.
  await checkLowered(eng, gpu, 'aten.scatter_add.default', [ints, pos([3, 2], 4), hostTensor(rand, 'int32', [3, 2])], out(ints), { dim: 1 },
    { onGpu: false });
}));

function empty(gpu, dtype, shape) {
  return upload(gpu, new ({ float32: Float32Array, int32: Int32Array }[dtype])(numel(shape)), dtype, shape, contiguousStrides(shape));
}
