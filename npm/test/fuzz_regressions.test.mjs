// Replays tests/fuzz-regressions/ (libFuzzer findings, issue 10) through the JS
// API: each file must end in success or a TorchIrError that is not an engine
// trap, and a good model must still run afterwards on the same module. The
// native suite replays the same files through fuzz/entry_points.cpp. The `op`
// folder holds the op target's own byte format (fuzz/op_input.h), which only
// the native replay decodes; its families (creation sizes, 0-d dims, split
// sizes, float attrs) are covered here by tests/malformed/.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadIR, TorchIrError, EngineTrapError } from '../index.js';
import { REPO, assertDist } from './helpers.mjs';

before(assertDist);

const DIR = join(REPO, 'tests', 'fuzz-regressions');
const GOOD = join(REPO, 'tests', 'malformed', '_good', 'w4.json');
const GOOD_W = join(REPO, 'tests', 'malformed', 'safetensors', 'good_w.safetensors');
// The fuzz targets' caps (fuzz/entry_points.cpp), so a legitimate refusal is an error, not an OOM.
const limits = { maxTensorBytes: 64 << 20, maxArenaBytes: 64 << 20, maxRunWork: 1e8 };
const MARKER = Buffer.from('\0TIRWEIGHTS\0', 'latin1');

function files(target) {
  return readdirSync(join(DIR, target)).filter((f) => f !== 'README.md').sort();
}

// target, file bytes -> loadIR arguments, as the native entry point splits them.
function loadArgs(target, bytes) {
  if (target === 'ir') return [bytes, { limits, compile: true }];
  if (target === 'bind') {
    const at = Buffer.from(bytes).indexOf(MARKER);
    if (at < 0) return [bytes, { limits, compile: true }];
    return [bytes.subarray(0, at), { limits, weights: bytes.subarray(at + MARKER.length) }];
  }
  return [GOOD, { limits, weights: bytes }];  // safetensors, torch_save: weights for a 4-float model
}

async function stillUsable() {
  const m = await loadIR(GOOD, { weights: GOOD_W });
  try {
    const [out] = await m.execute([new Float32Array([1, -1, 2, 0.5])]);
    assert.deepEqual(Array.from(out.data), [1, -2, 6, 2], 'module unusable after a fuzz regression');
  } finally { m.dispose(); }
}

for (const target of ['ir', 'safetensors', 'torch_save', 'bind']) {
  for (const name of files(target)) {
    test(`${target}/${name}: a TorchIrError or success, module still usable`, async () => {
      const bytes = new Uint8Array(readFileSync(join(DIR, target, name)));
      let model;
      try {
        model = await loadIR(...loadArgs(target, bytes));
      } catch (e) {
        assert.ok(e instanceof TorchIrError && !(e instanceof EngineTrapError),
          `${target}/${name}: ${e?.name}: ${e?.message}`);
      } finally {
        model?.dispose();
      }
      await stillUsable();
    });
  }
}
