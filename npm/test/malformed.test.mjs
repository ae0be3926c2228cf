// The malformed-input suite through the JS API (issue 10 item 4): each case of
// tests/malformed/manifest.json ends in the recorded TorchIrError subclass with the exact recorded
// message (js_expect when the JS layer legitimately differs, else expect), and afterwards a good model
// still loads and runs on the same module. "pending" cases are skipped until re-recorded. With
// TIR_MALFORMED_RECORD=<file> outcomes are appended there instead (tools/hostile/update_malformed.py);
// TIR_MALFORMED_ONLY=<name> runs one case.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadIR, TorchIrError } from '../index.js';
import { REPO, assertDist } from './helpers.mjs';

before(assertDist);

const DIR = process.env.TIR_MALFORMED_DIR || join(REPO, 'tests', 'malformed');
const manifest = JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8'));
const RECORD = process.env.TIR_MALFORMED_RECORD;
const ONLY = process.env.TIR_MALFORMED_ONLY;
// {default_limit} in a native expectation is the native default limit (the machine's memory); the
// wasm32 build's default is always 2 GiB (src/runtime/limits.cpp).
const WASM_DEFAULT_LIMIT = '2147483648 bytes (2.0 GiB)';
const ARRAYS = { float32: Float32Array, float64: Float64Array, int32: Int32Array, uint8: Uint8Array, bool: Uint8Array };

function inputValue({ shape, dtype, data }) {
  const data2 = dtype === 'int64' ? BigInt64Array.from(data.map((v) => BigInt(v))) : ARRAYS[dtype].from(data);
  return { data: data2, shape, dtype };
}

async function runCase(c) {
  const p = (f) => join(DIR, f);
  let model;
  try {
    if (c.action === 'load_ir') model = await loadIR(p(c.ir), { compile: false });
    else if (c.action === 'compile') model = await loadIR(p(c.ir), { compile: true });
    else model = await loadIR(p(c.ir), c.weights ? { weights: p(c.weights) } : {});
    if (c.action === 'run') await model.execute((c.inputs || []).map(inputValue));
    return { class: 'ok', message: '' };
  } catch (e) {
    return { class: e instanceof TorchIrError ? e.name : `js:${e?.name}`, message: String(e?.message) };
  } finally {
    try { model?.dispose(); } catch { /* the outcome above is what is checked */ }
  }
}

// A good model on the same (cached) module: x * w with w = [1, 2, 3, 4].
async function stillUsable() {
  const m = await loadIR(join(DIR, '_good', 'w4.json'), { weights: join(DIR, 'safetensors', 'good_w.safetensors') });
  try {
    const [out] = await m.execute([new Float32Array([1, -1, 2, 0.5])]);
    assert.deepEqual(Array.from(out.data), [1, -2, 6, 2], 'module unusable after a malformed case');
  } finally { m.dispose(); }
}

test('the manifest has at least 60 cases', () => {
  assert.ok(manifest.cases.length >= 60, `only ${manifest.cases.length} cases`);
});

for (const c of manifest.cases) {
  if (ONLY && c.name !== ONLY) continue;
  const why = c.pending || c.js_pending;
  const skip = !RECORD && why ? `pending: ${why}` : false;
  test(`${c.name}: ${c.what}`, { skip }, async () => {
    const got = await runCase(c);
    if (RECORD) {
      let usable = true;
      try { await stillUsable(); } catch { usable = false; }
      appendFileSync(RECORD, `${JSON.stringify({ name: c.name, ...got, usable })}\n`);
      return;
    }
    const want = c.js_expect || c.expect;
    assert.ok(want, `${c.name}: no recorded outcome (run tools/hostile/update_malformed.py)`);
    assert.equal(got.class, want.class, `${c.name}: ${got.message}`);
    assert.equal(got.message, want.message.replaceAll('{dir}', DIR).replaceAll('{default_limit}', WASM_DEFAULT_LIMIT));
    await stillUsable();
  });
}
