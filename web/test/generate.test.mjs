// The viewer's Generate panel on the tiny LLaMA fixture (tests/fixtures/llm/tiny_llama,
// weights from tools/make_fixtures.sh): opened through ?prefill=&decode=&kv=&weights=
// and through the file picker; greedy tokens of the 7-token prompt equal Hugging Face
// generate()'s, tokens stream, tokens/s are shown, the graph toggles to the decode IR.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { launch, startServer, openViewer, ARTIFACTS, REPO } from './helpers.mjs';

const DIR = join(REPO, 'tests', 'fixtures', 'llm', 'tiny_llama');
const GENERATED = process.env.TIR_GENERATED_FIXTURES || join(REPO, 'build', 'fixtures');
const WEIGHTS = join(GENERATED, 'llm', 'tiny_llama', 'weights.safetensors');
const expected = JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8')).prompts;
const p7 = expected.find((p) => p.input_ids.length === 7);
const skip = existsSync(WEIGHTS) ? false : `no ${WEIGHTS} (run tools/make_fixtures.sh build/fixtures)`;
// URL form: the server serves the repository, so the weights must lie inside it.
const urlOf = (f) => '/' + relative(REPO, f).split(sep).join('/');
const urlSkip = skip || (relative(REPO, WEIGHTS).startsWith('..') ? `${WEIGHTS} is outside the served repository` : false);

let server;
let url;
let browser;

before(async () => {
  if (skip) return;
  ({ server, url } = await startServer());
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.close();
});

const panelState = () => {
  const g = window.__viewer.gen;
  return JSON.stringify({ ready: g.ready, loadError: g.loadError, runs: g.runs, last: g.last, message: document.getElementById('message').textContent });
};

// Types the prompt into the panel, clicks Generate, waits for the run; returns gen.last
// plus every token count the page showed on the way.
// stopAt: click Stop once that many tokens are shown.
async function generate(page, prompt, maxNew = 32, stopAt = -1) {
  const runs = await page.evaluate(() => window.__viewer.gen.runs);
  await page.fill('#gen-prompt', prompt);
  await page.fill('#gen-max', String(maxNew));
  await page.evaluate((stopAt) => {
    const ids = document.getElementById('gen-ids');
    window.__seen = new Set();
    window.__obs?.disconnect();
    (window.__obs = new MutationObserver(() => {
      window.__seen.add(Number(ids.dataset.count));
      if (Number(ids.dataset.count) === stopAt) document.getElementById('gen-stop').click();
    })).observe(ids, { attributes: true });
  }, stopAt);
  await page.click('#gen-run');
  await page.waitForFunction((n) => window.__viewer.gen.runs > n, runs, { timeout: 120000 }).catch(async (e) => {
    throw new Error(`${e.message}: ${await page.evaluate(panelState)}`);
  });
  return page.evaluate(() => ({ ...window.__viewer.gen.last, seen: [...window.__seen].sort((a, b) => a - b) }));
}

test('Generate panel from ?prefill=&decode=&kv=&weights=: greedy tokens equal Hugging Face generate(), streamed, tokens/s; graph toggles to decode', { skip: urlSkip, timeout: 180000 }, async () => {
  const q = new URLSearchParams({ prefill: urlOf(join(DIR, 'prefill.json')), decode: urlOf(join(DIR, 'decode.json')), kv: urlOf(join(DIR, 'kv_mapping.json')), weights: urlOf(WEIGHTS) });
  const page = await openViewer(browser.context, url, '?' + q);
  try {
    await page.waitForFunction(() => window.__viewer.gen.ready || window.__viewer.gen.loadError, null, { timeout: 60000 });
    assert.equal(await page.evaluate(() => window.__viewer.gen.loadError), null);
    assert.equal(await page.isVisible('#tab-generate'), true);
    assert.equal(await page.isVisible('#btn-generate'), true);
    assert.equal(await page.evaluate(() => window.__viewer.S.name), 'TinyLlamaPrefill');
    assert.match(await page.textContent('#gen-model'), /prefill\.json \+ decode\.json \+ kv_mapping\.json \+ weights\.safetensors · 4 layers, vocab 1024, prompt ≤ 32, cache 128/);
    const r = await generate(page, p7.input_ids.join(', '));
    assert.equal(r.error, null);
    assert.equal(r.kind, 'ids');
    assert.deepEqual(r.ids, p7.generated_ids);
    assert.deepEqual((await page.textContent('#gen-ids')).split(' ').map(Number), p7.generated_ids);
    assert.deepEqual(r.seen.filter((n) => n > 0), Array.from({ length: 32 }, (_, i) => i + 1), 'tokens appeared one by one');
    assert.equal(r.backend.variant, 'simd-threaded');
    const stats = await page.textContent('#gen-stats');
    assert.match(stats, /prefill[\d.]+ tokens\/s/);
    assert.match(stats, /decode[\d.]+ tokens\/s · 31 steps/);
    assert.match(stats, /buildsimd-threaded · \d+ threads?/);
    assert.match(stats, /KV cache256 KiB · 0 B copied per step/);
    assert.match(await page.textContent('#message'), /generated 32 tokens in .* · decode \d+ tokens\/s/);
    await page.screenshot({ path: join(ARTIFACTS, 'generate-light.png') });
    // the graph view switches to the decode IR; the panel and its model stay
    await page.click('[data-graph="decode"]');
    await page.waitForFunction(() => window.__viewer.S.name === 'TinyLlamaDecode' && window.__viewer.gen.graph === 'decode');
    assert.ok(await page.evaluate(() => window.__viewer.S.graph.ir.graph_inputs.some((g) => g.name === 'cache_position')));
    assert.equal(await page.isVisible('#tab-generate'), true);
    assert.deepEqual((await generate(page, p7.input_ids.join(' '), 5)).ids, p7.generated_ids.slice(0, 5));
    // opening another model closes the panel
    await page.evaluate(() => window.__viewer.openSample('SimpleMLP'));
    assert.equal(await page.isVisible('#btn-generate'), false);
    assert.equal(await page.evaluate(() => window.__viewer.gen.set), null);
    assert.deepEqual(page.errors.filter((e) => !/Blocking on the main thread/.test(e)), []);
  } finally {
    await page.close();
  }
});

test('Generate panel from the file picker (files sorted by content), a text prompt, Stop, a too-long prompt', { skip, timeout: 180000 }, async () => {
  const page = await openViewer(browser.context, url);
  try {
    // any order; prefill_io.safetensors is not taken as the weights
    await page.setInputFiles('#file-input', [join(DIR, 'kv_mapping.json'), join(DIR, 'decode.json'), WEIGHTS, join(DIR, 'prefill_io.safetensors'), join(DIR, 'prefill.json')]);
    await page.waitForFunction(() => window.__viewer.gen.ready || window.__viewer.gen.loadError, null, { timeout: 60000 });
    assert.equal(await page.evaluate(() => window.__viewer.gen.loadError), null);
    assert.equal(await page.evaluate(() => window.__viewer.S.name), 'TinyLlamaPrefill');
    assert.equal(await page.evaluate(() => window.__viewer.S.weightsName), 'weights.safetensors');
    const t = await generate(page, 'Hello, world!', 8);
    assert.equal(t.error, null);
    assert.equal(t.kind, 'text');
    assert.deepEqual(t.prompt, [...Buffer.from('Hello, world!')]);
    assert.equal(t.ids.length, 8);
    assert.ok((await page.textContent('#gen-output')).startsWith('Hello, world!'));
    const stopped = await generate(page, p7.input_ids.join(' '), 100, 3);
    assert.equal(stopped.stopped, true);
    assert.deepEqual(stopped.ids, p7.generated_ids.slice(0, 3));
    assert.match(await page.textContent('#message'), /generated 3 tokens in .* \(stopped\)/);
    const long = await generate(page, Array.from({ length: 33 }, (_, i) => i).join(' '));
    assert.match(long.error, /33 tokens but the prefill IR takes at most 32/);
    assert.match(await page.textContent('#gen-error'), /33 tokens but the prefill IR takes at most 32/);
    // two of the three files: a clear message, nothing opened
    await page.setInputFiles('#file-input', [join(DIR, 'kv_mapping.json'), join(DIR, 'prefill.json')]);
    await page.waitForFunction(() => /not a generation set/.test(document.getElementById('message').textContent));
    assert.match(await page.textContent('#message'), /missing a decode IR \(with a cache_position input\)/);
  } finally {
    await page.close();
  }
});

// The model trained on Debian's descriptions (tests/fixtures/llm/debian_lm, committed) with its
// tokenizer.json among the picked files: text prompts go through that tokenizer and the
// continuation streams as text, following PyTorch's greedy ids (up to a thin top-2 margin: 8da4w).
const DEB = join(REPO, 'tests', 'fixtures', 'llm', 'debian_lm');
test('Generate panel with a tokenizer.json among the files: text in, streamed text out', { timeout: 180000 }, async () => {
  const { server: srv, url: u } = skip ? await startServer() : { server: null, url };
  const b = skip ? await launch() : browser;
  const page = await openViewer(b.context, u);
  try {
    const want = JSON.parse(readFileSync(join(DEB, 'text_expected.json'), 'utf8')).prompts[0];
    await page.setInputFiles('#file-input', ['tokenizer.json', 'kv_mapping.json', 'decode.json', 'weights.safetensors', 'prefill.json'].map((f) => join(DEB, f)));
    await page.waitForFunction(() => window.__viewer.gen.ready || window.__viewer.gen.loadError, null, { timeout: 60000 });
    assert.equal(await page.evaluate(() => window.__viewer.gen.loadError), null);
    assert.match(await page.textContent('#gen-model'), /\+ tokenizer\.json/);
    const r = await generate(page, want.prompt, 24);
    assert.equal(r.error, null);
    assert.equal(r.kind, 'text');
    assert.deepEqual(r.prompt, want.input_ids);
    let n = 0;
    while (n < want.greedy.top1_top2_margins.length && want.greedy.top1_top2_margins[n] >= 0.05) n++;
    n = Math.min(n, r.ids.length);
    assert.deepEqual(r.ids.slice(0, n), want.greedy.ids.slice(0, n));
    assert.deepEqual(r.seen.filter((k) => k > 0), Array.from({ length: r.ids.length }, (_, i) => i + 1));
    assert.equal(await page.textContent('#gen-output'), want.prompt + r.text);
  } finally {
    await page.close();
    if (skip) {
      await b.close();
      srv.close();
    }
  }
});
