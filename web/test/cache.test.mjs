// env.cache in a page: the LLM demo page (examples/llm/, the trained model with its tokenizer)
// loads its five model files once; a reload reads them from the Cache API and requests none.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, startServer } from './helpers.mjs';

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.server.close();
});

test('LLM page: a reload makes no model request (env.cache, Cache API)', async () => {
  const page = await browser.context.newPage();
  const model = [];
  page.on('request', (r) => {
    if (r.url().includes('/tests/fixtures/llm/debian_lm/')) model.push(r.url().split('/').pop());
  });
  const ready = () => page.waitForFunction(() => window.__demo && (window.__demo.ready || window.__demo.loadError), null, { timeout: 120000 });
  await page.goto(`${server.origin}examples/llm/`);
  await ready();
  assert.equal(await page.evaluate(() => window.__demo.loadError), null);
  const first = [...model].sort();
  for (const f of ['decode.json', 'kv_mapping.json', 'prefill.json', 'tokenizer.json', 'weights.safetensors']) assert.ok(first.includes(f), `first load fetched ${f}: ${first}`);
  model.length = 0;
  await page.reload();
  await ready();
  assert.equal(await page.evaluate(() => window.__demo.loadError), null);
  // text_expected.json is the page's own reference, not a model file
  assert.deepEqual(model.filter((f) => f !== 'text_expected.json'), [], 'no model file requested on reload');
  await page.close();
});
