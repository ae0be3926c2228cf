// all-MiniLM-L6-v2 on the WASM engine against PyTorch (issue 24's fidelity check): the Node
// example examples/node/embed.mjs --json on held-out sentences (short, non-ASCII, one past 256
// word pieces) must give embeddings within cosine 0.99999 of transformers' AutoModel + mean pooling
// + L2 normalisation (models/all-MiniLM-L6-v2/reference.json, written in the torch 2.x chroot by
// tools/export_minilm.py), in the order given; tokenizers.js must give transformers' token ids.
// Needs scripts/prepare_models.sh and npm/dist/ (scripts/test_minilm.sh runs both first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MiniLM, cosine } from '../../examples/minilm/minilm.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIR = process.env.TIR_MINILM_DIR ?? join(ROOT, 'models', 'all-MiniLM-L6-v2');
const EMBED = join(ROOT, 'examples', 'node', 'embed.mjs');
const MIN_COSINE = 0.99999;

function readReference() {
  try {
    return JSON.parse(readFileSync(join(DIR, 'reference.json'), 'utf8'));
  } catch (e) {
    throw new Error(`${join(DIR, 'reference.json')}: ${e.message} (run bash scripts/prepare_models.sh)`);
  }
}

test('tokenizers.js reading tokenizer.json gives transformers\' ids, truncated at 256', async () => {
  const ref = readReference();
  const model = await MiniLM.load({ loadIR: null, read: async (n) => readFileSync(join(DIR, n)) });
  for (const s of ref.sentences) assert.deepEqual(model.tokenize(s.text), s.input_ids, s.text);
  assert.ok(ref.sentences.some((s) => s.input_ids.length === 256), 'a sentence is truncated');
});

test('embed.mjs --json: cosine >= 0.99999 with PyTorch on held-out sentences, in order', () => {
  const ref = readReference();
  const texts = ref.sentences.map((s) => s.text);
  // Reversed, so that the order of the output is checked too.
  const order = texts.map((_, i) => texts.length - 1 - i);
  const r = spawnSync(process.execPath, [EMBED, '--json', '--dir', DIR, ...order.map((i) => texts[i])],
    { encoding: 'utf8', timeout: 600000 });
  assert.equal(r.status, 0, `embed.mjs failed: ${r.stderr}`);
  const lines = r.stdout.trim().split('\n');
  const { embeddings } = JSON.parse(lines[lines.length - 1]);
  assert.equal(embeddings.length, texts.length);
  let minCos = 1, maxDiff = 0;
  embeddings.forEach((e, k) => {
    const want = ref.sentences[order[k]].embedding;
    assert.equal(e.length, 384);
    const norm = Math.sqrt(e.reduce((a, x) => a + x * x, 0));
    assert.ok(Math.abs(norm - 1) < 1e-5, `norm ${norm}`);
    const c = cosine(e, want);
    minCos = Math.min(minCos, c);
    maxDiff = Math.max(maxDiff, ...e.map((x, i) => Math.abs(x - want[i])));
    assert.ok(c >= MIN_COSINE, `"${texts[order[k]].slice(0, 40)}": cosine ${c}`);
  });
  console.log(`# MiniLM on WASM vs PyTorch: ${embeddings.length} sentences, min cosine ${minCos.toFixed(9)} ` +
              `(1 - cos = ${(1 - minCos).toExponential(1)}), max |diff| ${maxDiff.toExponential(2)}`);
});

test('embed.mjs without the model files says what to run', () => {
  const r = spawnSync(process.execPath, [EMBED, '--dir', join(ROOT, 'no-such-dir'), 'hello'],
    { encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /no-such-dir.*manifest\.json.*prepare_models\.sh/);
});
