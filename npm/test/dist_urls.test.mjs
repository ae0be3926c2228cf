// The dist files are named by literal `new URL('../dist/<file>', import.meta.url)`
// expressions (what bundlers detect and emit), and a failed load that points
// into vite's pre-bundling cache says how to fix it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getBackend, TorchIrError } from '../index.js';
import { distFileNames, resolveFile, VARIANTS } from '../lib/backend.js';
import { DIST_FILES, NPM_DIR } from './helpers.mjs';

test('every dist file has its own literal new URL(..., import.meta.url) in backend.js', () => {
  const src = readFileSync(join(NPM_DIR, 'lib', 'backend.js'), 'utf8');
  const names = [...distFileNames(VARIANTS.single), ...distFileNames(VARIANTS.threaded)];
  assert.deepEqual([...names].sort(), [...DIST_FILES].sort());
  for (const name of names) {
    assert.ok(src.includes(`new URL('../dist/${name}', import.meta.url)`), `literal URL of ${name}`);
    assert.equal(resolveFile(name, undefined), pathToFileURL(join(NPM_DIR, 'dist', name)).href);
  }
  assert.doesNotMatch(src, /new URL\(`/, 'no template-string URL (vite turns it into a glob)');
});

test('env.wasmPaths still overrides: a prefix or a per-file map', () => {
  assert.equal(resolveFile('torch-ir-wasm-simd.wasm', '/static/wasm'), '/static/wasm/torch-ir-wasm-simd.wasm');
  assert.equal(resolveFile('torch-ir-wasm-simd.wasm', { 'torch-ir-wasm-simd.wasm': 'https://cdn/x.wasm' }), 'https://cdn/x.wasm');
});

test("a load from vite's pre-bundling cache fails with the optimizeDeps.exclude fix", async () => {
  const wasmPaths = join(NPM_DIR, 'node_modules', '.vite', 'dist') + '/';
  await assert.rejects(getBackend({ threads: 1, wasmPaths }), (e) => e instanceof TorchIrError &&
    /optimizeDeps: \{ exclude: \['torch-ir-wasm'\] \}/.test(e.message));
});
