// GPU time of the tiled kernels (matmul.wgsl, conv2d_gemm.wgsl) at each output tile the lowering
// can pick (64 on 16x16 invocations, 16 on 8x8), whole and split-K, on the GEMM and convolution
// shapes of the comparison's models (BERT-base's linears and attention products, ResNet-50's
// convolutions): the data behind src/ops/webgpu_gemm.cpp's gemm_tile and gemm_k_split. Each
// configuration is dispatched `reps` times in one compute pass, submitted once and awaited: ms
// per dispatch, without the per-run upload/readback that peers.mjs's model timings include.
// Meaningless on lavapipe.
//   node bench/gpu/tiles.mjs [--reps N] [--md FILE]
// dawn.node: TIR_DAWN_NODE (default tests/webgpu's).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, median, parseArgs } from '../lib/common.mjs';
import { KernelLibrary, kernelSource, grid } from '../../npm/lib/webgpu/kernels.js';

const a = parseArgs(process.argv.slice(2));
const reps = Number(a.reps ?? 20);
const dawnPath = process.env.TIR_DAWN_NODE ?? join(REPO, 'tests', 'webgpu', 'node_modules', 'webgpu', 'index.js');
const { create } = await import(pathToFileURL(dawnPath).href);
const instance = create([]);
const adapter = await instance.requestAdapter();
if (!adapter) throw new Error('no WebGPU adapter');
const lim = adapter.limits;
const device = await adapter.requestDevice({ requiredLimits: { maxStorageBufferBindingSize: lim.maxStorageBufferBindingSize, maxBufferSize: lim.maxBufferSize } });
const lib = new KernelLibrary(device);
const info = adapter.info ?? {};
const STORAGE = 0x80 | 0x8;  // STORAGE | COPY_DST
const buf = (floats) => device.createBuffer({ size: Math.max(4, floats * 4), usage: STORAGE });
const THREADS = { 64: 16, 16: 8 };

// [label, kernel, meta, buffers' floats (the last two: the fused epilogue's Res and Affine, unused),
// workgroups(tile)]
function gemm(label, M, K, N, batch = 1) {
  const pad4 = (v) => [...v, 0, 0, 0].slice(0, 4);
  const meta = { m: M, n: N, k: K, batch_rank: batch > 1 ? 1 : 0, batch_shape: pad4(batch > 1 ? [batch] : []),
    a_off: 0, a_rs: K, a_cs: 1, a_bs: pad4(batch > 1 ? [M * K] : []),
    b_off: 0, b_rs: 1, b_cs: K, b_bs: pad4(batch > 1 ? [K * N] : []),  // B = W^T by strides, as linear
    alpha: { f32: 1 }, beta: { f32: 0 }, has_c: 0, y_rs: N };
  return { label, kernel: 'matmul', meta, sizes: [batch * M * N, batch * M * K, batch * K * N, 1, 1, 1],
    wg: (t) => [Math.ceil(N / t), Math.ceil(M / t), batch], flops: 2 * batch * M * N * K, k: K, m: M, out: batch * M * N };
}
function conv(label, cin, h, cout, k, stride, pad) {
  const oh = Math.floor((h + 2 * pad - k) / stride) + 1;
  const meta = { numel: cout * oh * oh, n: 1, cin, h, w: h, cout, oh, ow: oh, kh: k, kw: k, sh: stride, sw: stride,
    ph: pad, pw: pad, dh: 1, dw: 1, groups: 1, has_b: 1, x_off: 0, x_strides: [cin * h * h, h * h, h, 1] };
  return { label, kernel: 'conv2d_gemm', meta, sizes: [cout * oh * oh, cin * h * h, cout * cin * k * k, cout, 1, 1],
    wg: (t) => [Math.ceil((oh * oh) / t), Math.ceil(cout / t), 1], flops: 2 * cout * oh * oh * cin * k * k,
    k: cin * k * k, m: cout, out: cout * oh * oh };
}
const cases = [
  gemm('BERT QKV [128,768]x[768,2304]', 128, 768, 2304),
  gemm('BERT out proj [128,768]x[768,768]', 128, 768, 768),
  gemm('BERT FFN1 [128,768]x[768,3072]', 128, 768, 3072),
  gemm('BERT FFN2 [128,3072]x[3072,768]', 128, 3072, 768),
  gemm('attention QK^T 12x[128,64]x[64,128]', 128, 64, 128, 12),
  conv('ResNet-50 stem 7x7/2 3->64 @224', 3, 224, 64, 7, 2, 3),
  conv('ResNet-50 3x3 64 @56', 64, 56, 64, 3, 1, 1),
  conv('ResNet-50 3x3 128 @28', 128, 28, 128, 3, 1, 1),
  conv('ResNet-50 3x3 256 @14', 256, 14, 256, 3, 1, 1),
  conv('ResNet-50 3x3 512 @7', 512, 7, 512, 3, 1, 1),
  gemm('ResNet-50 1x1 256->64 @56 (GEMM)', 64, 256, 3136),
  gemm('ResNet-50 1x1 512->2048 @7 (GEMM)', 2048, 512, 49),
];

// One configuration: `reps` times the tiled dispatch (and with chunks > 1 split-K's
// split_k_sum after it, as the lowering emits the pair) in one compute pass; ms per rep.
async function time(c, buffers, tile, meta, chunks) {
  const src = kernelSource(c.kernel, { subst: { TILE: String(tile), THREADS: String(THREADS[tile]) } });
  const sumSrc = kernelSource('split_k_sum');
  const [wx, wy, wz] = c.wg(tile);
  const K = c.k;
  const kChunk = chunks > 1 ? Math.ceil(Math.ceil(K / chunks) / 16) * 16 : 0;
  const n = kChunk ? Math.ceil(K / kChunk) : 1;
  const parts = kChunk ? buf(n * c.out) : null;
  const unused = buf(1);  // split_k_sum's C, Bias, Res and Affine, all unused here
  const partMeta = kChunk ? { ...meta, k_chunk: kChunk, ...(c.kernel === 'conv2d_gemm' ? { has_b: 0 } : {}) } : meta;
  const partBufs = kChunk ? [parts, ...buffers.slice(1, 3), unused, unused, unused] : buffers;
  const sumMeta = { numel: c.out, m: c.m, n: c.out / c.m, chunks: n, alpha: { f32: 1 }, beta: { f32: 0 }, has_c: 0, has_bias: 0 };
  const times = [];
  for (let r = 0; r < 4; r++) {
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    const ubs = [];
    for (let i = 0; i < reps; i++) {
      ubs.push(lib.dispatch(pass, c.kernel, src, partMeta, partBufs, [wx, wy, wz * n]));
      if (kChunk) ubs.push(lib.dispatch(pass, 'split_k_sum', sumSrc, sumMeta, [buffers[0], parts, unused, unused, unused, unused], grid(Math.ceil(c.out / 64))));
    }
    pass.end();
    const t = performance.now();
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
    if (r > 0) times.push((performance.now() - t) / reps);  // the first pass compiles and warms
    ubs.forEach((u) => u.destroy());
  }
  parts?.destroy();
  unused.destroy();
  return { ms: median(times), wg: wx * wy * wz * n, chunks: n };
}

// Per shape: the 64 and 16 tiles (32 was never the fastest on an H100), each whole and split
// into 2, 4 and 8 chunks of K (split-K, src/ops/webgpu_gemm.cpp's gemm_k_split); the GEMMs' B is
// a linear's W^T, loaded k fastest (b_kfast, what the lowering sets: 10-30% faster than n
// fastest on an H200, 2026-11-28).
const SPLITS = [1, 2, 4, 8];
const rows = [];
for (const c of cases) {
  const buffers = c.sizes.map(buf);
  const row = { label: c.label, cells: {} };
  let best = Infinity;
  for (const tile of [64, 16]) {
    const got = [];
    for (const chunks of SPLITS.filter((k) => k === 1 || c.k / k >= 64)) {
      const r = await time(c, buffers, tile, c.kernel === 'matmul' ? { ...c.meta, b_kfast: 1 } : c.meta, chunks);
      got.push(`${r.ms.toFixed(3)}${r.chunks > 1 ? `/${r.chunks}` : ''}`);
      best = Math.min(best, r.ms);
    }
    row.cells[tile] = `${got.join(' ')} (${c.wg(tile).reduce((x, y) => x * y, 1)})`;
  }
  row.gflops = c.flops / 1e6 / best;
  rows.push(row);
  buffers.forEach((b) => b.destroy());
  console.log(`${c.label}: ${[64, 16].map((t) => `${t}: ${row.cells[t]}`).join(', ')}`);
}
const md = [`Adapter: ${[info.vendor, info.architecture, info.description].filter(Boolean).join(' ')}; ms per dispatch (median of 3 passes of ${reps}), float32. Each cell: whole K, then split-K as ms/chunks (the partial sums and split_k_sum); (workgroups unsplit).`, '',
  '| shape | tile 64 | tile 16 | best GFLOP/s |', '| --- | ---: | ---: | ---: |',
  ...rows.map((r) => `| ${r.label} | ${[64, 16].map((t) => r.cells[t]).join(' | ')} | ${r.gflops.toFixed(0)} |`)].join('\n') + '\n';
console.log('\n' + md);
if (a.md) writeFileSync(a.md, md);
device.destroy();
process.exit(0);
