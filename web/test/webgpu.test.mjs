// The npm package's WebGPU execution provider in headless Chromium (Debian's chromium with
// --enable-unsafe-webgpu: a SwiftShader adapter, a CPU emulation: correctness only). Fixtures
// load from the static server with executionProviders ['webgpu'] and verify against PyTorch's
// recorded outputs in the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, REPO, openViewer, startServer } from './helpers.mjs';

// Committed fixtures, and generated ones (tools/make_fixtures.sh) when present.
const FIXTURES = ['small_cnn', 'resnet18', 'bert_encoder'].map((m) => {
  const committed = `tests/fixtures/models/${m}/torch2.14-training`;
  return existsSync(join(REPO, committed, 'weights.safetensors')) ? committed : `build/fixtures/${m}/torch2.14-training`;
}).filter((d) => ['model.json', 'weights.safetensors', 'io.safetensors'].every((f) => existsSync(join(REPO, d, f))));

let server;
let context;
let profile;
before(async () => {
  server = await startServer();
  profile = mkdtempSync(join(tmpdir(), 'tir-webgpu-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless=new', '--no-sandbox', '--enable-unsafe-webgpu', '--disable-dev-shm-usage'],
  });
});
after(async () => {
  await context?.close();
  server?.server.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

for (const dir of FIXTURES) {
  test(`${dir.split('/').at(-2)} on WebGPU in headless Chromium (SwiftShader): verify rtol=atol=1e-5`, async () => {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    // A blank page of the server's origin, so that the package and fixtures load same-origin.
    await page.route('**/__blank.html', (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>webgpu</title>' }));
    await page.goto(`${server.origin}__blank.html`);
    const r = await page.evaluate(async (d) => {
      const tir = await import('/npm/index.js');
      if (!navigator.gpu) return { error: 'no navigator.gpu' };
      const adapter = await navigator.gpu.requestAdapter();
      if (!adapter) return { error: 'no adapter' };
      tir.env.webgpu.strict = true;
      const model = await tir.loadIR(`/${d}/model.json`, { weights: `/${d}/weights.safetensors`, threads: 1, executionProviders: ['webgpu'] });
      const io = tir.splitIo(tir.parseSafetensors(new Uint8Array(await (await fetch(`/${d}/io.safetensors`)).arrayBuffer())));
      const report = await model.verify(io.inputs, io.outputs, { rtol: 1e-5, atol: 1e-5 });
      const out = { isValid: report.isValid, maxDiff: report.maxDiff, placement: model.placement(), providers: model.executionProviders };
      model.dispose();
      return out;
    }, dir);
    await page.close();
    assert.deepEqual(errors, []);
    assert.equal(r.error, undefined, r.error);
    assert.deepEqual(r.providers, ['webgpu', 'wasm']);
    assert.ok(r.placement.nodes.webgpu > 0, JSON.stringify(r.placement));
    assert.ok(r.isValid, `maxDiff ${r.maxDiff}`);
  });
}

// The viewer's device switch: Run on WebGPU verifies, the summary says where the nodes ran and
// the timing table has a device column; switching back to WASM reloads and runs there.
test('viewer: Run on WebGPU (device switch) verifies PASSED and reports placement and devices', async () => {
  const page = await openViewer(context, server.url);
  const V = (fn, arg) => page.evaluate(fn, arg);
  await V((id) => window.__viewer.openSample(id), 'small_cnn');
  await page.selectOption('#sel-device', 'webgpu');
  await page.click('#btn-run');
  await page.waitForSelector('#verify-report', { timeout: 120000 });
  assert.match(await page.textContent('#verify-report'), /Verification PASSED/);
  assert.match(await page.textContent('#run-backend'), /^WebGPU \u00b7 \d+ of \d+ nodes on the GPU/);
  const devices = await V(() => [...document.querySelectorAll('#timing-table tr td:nth-child(5)')].map((td) => td.textContent));
  assert.ok(devices.length > 0 && devices.includes('webgpu'), JSON.stringify(devices));
  await page.selectOption('#sel-device', 'wasm');
  await page.click('#btn-run');
  await page.waitForFunction(() => /thread/.test(document.getElementById('run-backend')?.textContent || ''), null, { timeout: 60000 });
  assert.match(await page.textContent('#verify-report'), /Verification PASSED/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The LLM page on WebGPU (?ep=webgpu): the model trained on Debian's descriptions streams its text
// token by token from the GPU (SwiftShader), the same greedy text as on WASM where PyTorch's top-2
// margins are clear (tests/fixtures/llm/debian_lm/text_expected.json), and the page stays responsive.
test('LLM page on WebGPU: the trained model streams text token by token', async () => {
  const want = JSON.parse(readFileSync(join(REPO, 'tests/fixtures/llm/debian_lm/text_expected.json'), 'utf8')).prompts[0];
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${server.origin}examples/llm/?ep=webgpu&threads=1`);
  await page.waitForFunction(() => window.__demo && (window.__demo.ready || window.__demo.loadError), null, { timeout: 120000 });
  assert.equal(await page.evaluate(() => window.__demo.loadError), null);
  assert.match(await page.textContent('#model-status'), /WebGPU \+ simd/);
  await page.fill('#prompt', want.prompt);
  await page.fill('#max-new', '24');
  // Every token count the page showed, and timer ticks during the run (the page stays responsive).
  await page.evaluate(() => {
    window.__seen = [];
    window.__ticks = 0;
    window.__timer = setInterval(() => { window.__ticks++; }, 0);
    new MutationObserver(() => window.__seen.push(Number(document.getElementById('ids').dataset.count)))
      .observe(document.getElementById('ids'), { attributes: true });
  });
  await page.click('#generate');
  await page.waitForFunction(() => window.__demo.runs > 0, null, { timeout: 180000 });
  const r = await page.evaluate(() => ({ ...window.__demo.last, seen: window.__seen, ticks: window.__ticks }));
  assert.equal(r.error, null);
  assert.equal(r.stats.webgpu !== null, true, 'generated on the GPU');
  let n = 0;
  while (n < want.greedy.top1_top2_margins.length && want.greedy.top1_top2_margins[n] >= 0.05) n++;
  n = Math.min(n, r.ids.length);
  assert.deepEqual(r.ids.slice(0, n), want.greedy.ids.slice(0, n));
  assert.deepEqual([...new Set(r.seen)].filter((k) => k > 0), Array.from({ length: r.ids.length }, (_, i) => i + 1));
  assert.ok(r.ticks > r.ids.length, `${r.ticks} timer ticks during ${r.ids.length} tokens`);
  assert.equal(await page.textContent('#output'), want.prompt + r.text);
  assert.deepEqual(errors, []);
  await page.close();
});

// A model with nodes the GPU cannot take (PT2E static int8: its integer conv and its
// quantize / dequantize nodes run on WASM): the run summary lists each with why.
test('viewer: Run on WebGPU lists the nodes kept on WASM, and why', async () => {
  const d = '/tests/fixtures/quantized/cnn_pt2e_static/';
  const page = await openViewer(context, server.url, `?ir=${d}model.json&weights=${d}weights.safetensors&io=${d}io.safetensors`);
  await page.waitForFunction(() => window.__viewer.S && window.__viewer.S.name, null, { timeout: 60000 });
  await page.selectOption('#sel-device', 'webgpu');
  await page.click('#btn-run');
  await page.waitForSelector('#wasm-nodes', { timeout: 120000 });
  const rows = await page.evaluate(() => [...document.querySelectorAll('#wasm-nodes tr')].slice(1).map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.ok(rows.length > 0);
  assert.ok(rows.some(([, op, why]) => op === 'aten.conv2d.default' && /integer \(quantized\) kernel runs on WASM only/.test(why)), JSON.stringify(rows));
  assert.ok(rows.every(([node, op, why]) => node && op && why), JSON.stringify(rows));
  assert.match(await page.textContent('#wasm-nodes summary'), /^\d+ nodes? kept on WASM, and why$/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The per-node comparison in the viewer, on a GPU kernel broken on purpose in the page (relu's
// expression, which the WGSL elementwise kernels are generated from, scaled by 1.001): Compare
// names the first relu node, with the values WebGPU, WASM and float64 computed there.
test('viewer: Compare names a GPU kernel broken on purpose, with both values', async () => {
  const page = await openViewer(context, server.url);
  await page.evaluate((id) => window.__viewer.openSample(id), 'small_cnn');
  await page.selectOption('#sel-device', 'webgpu');
  await page.click('#btn-run');
  await page.waitForSelector('#btn-compare', { timeout: 120000 });
  const firstRelu = await page.evaluate(async () => {
    const k = await import('/npm/lib/webgpu/kernels.js');
    k.ELEMENTWISE_OPS.relu.expr = `T(1.001) * (${k.ELEMENTWISE_OPS.relu.expr})`;
    return window.__viewer.S.graph.nodes.find((n) => n.kind === 'op' && n.opType === 'aten.relu.default').name;
  });
  await page.click('#btn-compare');
  await page.waitForSelector('#compare-values, #compare-result .verdict', { timeout: 180000 });
  const text = await page.textContent('#compare-result');
  assert.match(text, new RegExp(`first mismatch node ${firstRelu} aten\\.relu\\.default on webgpu`), text);
  const [at, gpu, wasm, f64] = await page.evaluate(() => [...document.querySelectorAll('#compare-values td')].map((td) => td.textContent));
  assert.match(at, /^\[\d+(, \d+)*\]$/);
  assert.ok(Math.abs(Number(gpu) / Number(wasm) - 1.001) < 3e-4, `${gpu} vs ${wasm}`);
  assert.ok(Math.abs(Number(wasm) - Number(f64)) < 1e-4 * Math.max(1, Math.abs(Number(f64))), `${wasm} vs ${f64}`);
  assert.deepEqual(page.errors, [`first GPU mismatch: ${firstRelu}`]); // the status line's finding, and nothing else
  await page.close();
});
