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

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIR = process.env.TIR_MINILM_DIR ?? join(ROOT, 'models', 'all-MiniLM-L6-v2');
const MIN_COSINE = 0.99999;

test('all-MiniLM-L6-v2 on WebGPU: cosine >= 0.99999 with PyTorch on the held-out sentences', { timeout: 600000 }, async (t) => {
  if (!existsSync(join(DIR, 'reference.json'))) {
    if (process.env.CI === 'true') assert.fail(`${DIR}: no model files (run bash scripts/prepare_models.sh)`);
    t.skip(`no ${DIR} (run bash scripts/prepare_models.sh)`);
    return;
  }
  const gpu = await getDevice();
  if (!gpu) {
    t.skip('no WebGPU adapter');
    return;
  }
  tir.env.webgpu.device = gpu.device;
  const ref = JSON.parse(readFileSync(join(DIR, 'reference.json'), 'utf8'));
  const placements = [];
  const loadIR = async (ir, options) => {
    const m = await tir.loadIR(ir, { ...options, threads: 1, executionProviders: ['webgpu'] });
    placements.push(m.placement());
    return m;
  };
  const model = await MiniLM.load({ loadIR, read: async (n) => new Uint8Array(readFileSync(join(DIR, n))) });
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
