// all-MiniLM-L6-v2 on WebGPU (issue 24's fidelity check, on the GPU): the held-out sentences of
// models/all-MiniLM-L6-v2/reference.json embedded through examples/minilm/minilm.js with
// executionProviders ['webgpu'] must stay within cosine 0.99999 of transformers' AutoModel + mean
// pooling + L2 normalisation, as they do on WASM (tests/minilm/). Needs scripts/prepare_models.sh;
// with CI=true a missing model fails instead of skipping.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tir from '../../npm/index.js';
import { MiniLM, cosine } from '../../examples/minilm/minilm.js';
import { getDevice } from './gpu.mjs';
import { int8Bounds } from '../minilm/int8_bounds.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIR = process.env.TIR_MINILM_DIR ?? join(ROOT, 'models', 'all-MiniLM-L6-v2');
const MIN_COSINE = 0.99999;

// The MiniLM in `dir` on WebGPU with its reference.json, recording each length's placement and
// fallback op types; null (a skip) without the model files (outside CI) or an adapter.
async function loadOnGpu(t, dir) {
  if (!existsSync(join(dir, 'reference.json'))) {
    if (process.env.CI === 'true') assert.fail(`${dir}: no model files (run bash scripts/prepare_models.sh)`);
    t.skip(`no ${dir} (run bash scripts/prepare_models.sh)`);
    return null;
  }
  const gpu = await getDevice();
  if (!gpu) {
    t.skip('no WebGPU adapter');
    return null;
  }
  tir.env.webgpu.device = gpu.device;
  const ref = JSON.parse(readFileSync(join(dir, 'reference.json'), 'utf8'));
  const placements = [];
  const fallbacks = new Set();
  const loadIR = async (ir, options) => {
    const m = await tir.loadIR(ir, { ...options, threads: 1, executionProviders: ['webgpu'] });
    placements.push(m.placement());
    for (const f of m._gpu.plan.fallbacks) fallbacks.add(f.op_type);
    return m;
  };
  const model = await MiniLM.load({ loadIR, read: async (n) => new Uint8Array(readFileSync(join(dir, n))) });
  return { ref, model, placements, fallbacks };
}

test('all-MiniLM-L6-v2 on WebGPU: cosine >= 0.99999 with PyTorch on the held-out sentences', { timeout: 600000 }, async (t) => {
  const loaded = await loadOnGpu(t, DIR);
  if (!loaded) return;
  const { ref, model, placements } = loaded;
  try {
    let minCos = 1;
    let maxDiff = 0;
    for (const s of ref.sentences) {
      const { embedding, tokens, seq } = await model.embed(s.text);
      assert.equal(tokens, s.input_ids.length, s.text);
      const c = cosine(embedding, s.embedding);
      for (let i = 0; i < embedding.length; ++i) maxDiff = Math.max(maxDiff, Math.abs(embedding[i] - s.embedding[i]));
      minCos = Math.min(minCos, c);
      assert.ok(c >= MIN_COSINE, `"${s.text.slice(0, 40)}..." (${tokens} tokens, length ${seq}): cosine ${c}`);
    }
    const nodes = placements.reduce((a, p) => ({ webgpu: a.webgpu + p.nodes.webgpu, wasm: a.wasm + p.nodes.wasm }), { webgpu: 0, wasm: 0 });
    console.log(`  MiniLM on WebGPU: ${ref.sentences.length} sentences, min cosine ${minCos.toFixed(7)}, max abs diff ` +
      `${maxDiff.toExponential(2)}; ${placements.length} lengths loaded, compute nodes webgpu/wasm ${nodes.webgpu}/${nodes.wasm}`);
    assert.ok(nodes.webgpu >= 0.9 * (nodes.webgpu + nodes.wasm), `nodes on the GPU: ${nodes.webgpu} of ${nodes.webgpu + nodes.wasm}`);
  } finally {
    await model.dispose();
  }
});

// The PT2E dynamic int8 MiniLM (models/all-MiniLM-L6-v2-int8) on WebGPU: its quantized linears
// on the GPU (choose_qparams_rows over each activation, quantize_blocks, qlinear; only the
// float model's WASM nodes stay there), and the embeddings within the bounds its WASM run meets
// (tests/minilm/int8_bounds.mjs).
const INT8_DIR = process.env.TIR_MINILM_INT8_DIR ?? join(ROOT, 'models', 'all-MiniLM-L6-v2-int8');
test('all-MiniLM-L6-v2 int8 (PT2E dynamic) on WebGPU: its quantized linears on the GPU, within PyTorch int8\'s own noise', { timeout: 600000 }, async (t) => {
  const loaded = await loadOnGpu(t, INT8_DIR);
  if (!loaded) return;
  const { ref, model, placements, fallbacks } = loaded;
  try {
    let minQ = 1, minF32 = 1, sumF32 = 0;
    for (const s of ref.sentences) {
      const { embedding } = await model.embed(s.text);
      const b = int8Bounds(ref, s);
      const c = cosine(embedding, s.embedding);
      minQ = Math.min(minQ, c);
      const f = cosine(embedding, s.embedding_f32);
      minF32 = Math.min(minF32, f);
      sumF32 += f;
      assert.ok(c >= b.cos, `"${s.text.slice(0, 40)}": cosine with PyTorch int8 ${c} < ${b.cos}`);
    }
    const b = int8Bounds(ref, ref.sentences[0]);
    const meanF32 = sumF32 / ref.sentences.length;
    assert.ok(minF32 >= b.f32 && meanF32 >= b.mean, `vs float32: min ${minF32}, mean ${meanF32} (bounds ${b.f32}, ${b.mean})`);
    const wasm = placements.reduce((a, p) => a + p.nodes.wasm, 0);
    console.log(`  MiniLM int8 on WebGPU: ${ref.sentences.length} sentences, vs PyTorch int8 min cosine ${minQ.toFixed(6)}; ` +
      `vs float32 min ${minF32.toFixed(6)}, mean ${meanF32.toFixed(6)}; ${placements.length} lengths, ${wasm} WASM nodes ` +
      `(${[...fallbacks].join(', ')})`);
    assert.ok(![...fallbacks].some((op) => op === 'aten.linear.default' || op.startsWith('quantized_decomposed.')), [...fallbacks].join(', '));
  } finally {
    await model.dispose();
  }
});
