// The same index.js in headless Chromium, from a static server: with COOP/COEP
// headers the page runs the threaded build, without them the single-threaded
// one; both verify the bundled model, the drawing pad classifies digits painted and
// drawn on its canvas, and the text generation demo (examples/llm/) streams the tiny
// LLaMA's tokens. Drives Debian's chromium through chromedriver's WebDriver HTTP API (no npm dependencies;
// npm/test/webdriver.mjs). Skipped when
// chromium / chromedriver are not installed (apt-get install chromium chromium-driver).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { FIXTURES, GENERATED, REPO } from './helpers.mjs';
import { js, skip, startDriver, stopDriver, waitFor, wd, withBrowser } from './webdriver.mjs';
import { parseSafetensors } from '../index.js';
import { inkToDigit, readTestSet } from '../../examples/digits/digits.js';

before(startDriver);
after(stopDriver);

// Opens the example page in a fresh headless browser and waits for its result.
function runPage(isolate, query = '') {
  return withBrowser(isolate, async (id, url) => {
    await wd('POST', `/session/${id}/url`, { url: `${url}examples/browser/?runs=3${query}` });
    return waitFor(id, 'window.__result || null', 'document.getElementById("log").textContent');
  });
}

test('browser, cross-origin isolated (COOP/COEP): threaded build verifies the bundled model', { skip, timeout: 180000 }, async () => {
  const r = await runPage(true);
  assert.equal(r.error, undefined);
  assert.equal(r.crossOriginIsolated, true);
  assert.equal(r.variant, 'simd-threaded');
  assert.ok(r.threads >= 1);
  assert.equal(r.isValid, true, `maxDiff ${r.maxDiff}`);
});

test('browser, not isolated: falls back to the single-threaded build', { skip, timeout: 180000 }, async () => {
  const r = await runPage(false);
  assert.equal(r.error, undefined);
  assert.equal(r.crossOriginIsolated, false);
  assert.equal(r.variant, 'simd');
  assert.equal(r.threads, 1);
  assert.equal(r.isValid, true, `maxDiff ${r.maxDiff}`);
});

test('browser, proxy mode: the threaded build runs in a Web Worker', { skip, timeout: 180000 }, async () => {
  const r = await runPage(true, '&proxy=1&threads=2');
  assert.equal(r.error, undefined);
  assert.equal(r.proxy, true);
  assert.equal(r.variant, 'simd-threaded');
  assert.equal(r.threads, 2);
  assert.equal(r.isValid, true, `maxDiff ${r.maxDiff}`);
});

test('browser, proxy mode without isolation: single-threaded build in a Web Worker', { skip, timeout: 180000 }, async () => {
  const r = await runPage(false, '&proxy=1');
  assert.equal(r.error, undefined);
  assert.equal(r.proxy, true);
  assert.equal(r.variant, 'simd');
  assert.equal(r.isValid, true, `maxDiff ${r.maxDiff}`);
});

// The test-only modules' kernel sweeps (npm/test/kernels.test.mjs runs them in Node) in Chromium,
// whose V8 has relaxed SIMD: where its int8 dot product is exact on unsigned bytes (x86 with
// AVX-VNNI), the int8 GEMM runs on the relaxed kernel (kernels/wasm_relaxed/) and must equal the
// reference bit for bit; elsewhere on the SIMD128 one. Which one ran depends on the CPU: printed.
// The blocked f32 GEMM runs on the relaxed module's relaxed_madd wherever relaxed SIMD is (the
// gemm sweep checks it against float64 either way; whether the madd was fused is printed).
const testBuild = join(REPO, 'build/wasm-test/torch-ir-wasm-simd.wasm');
for (const isolate of [true, false]) {
  test(`browser (${isolate ? 'threaded, 2 threads' : 'single-threaded'} test build): kernel selfcheck, the int8 GEMM on relaxed SIMD where it is exact`,
    { skip: skip || (!existsSync(testBuild) && 'build/wasm-test missing: scripts/build_wasm.sh --tests'), timeout: 300000 },
    () => withBrowser(isolate, async (id, url) => {
      await wd('POST', `/session/${id}/url`, { url: `${url}npm/test/pages/kernel_selfcheck.html?threads=${isolate ? 2 : 1}` });
      const r = await waitFor(id, 'window.__result || null', 'document.getElementById("log").textContent', 280000);
      assert.equal(r.error, undefined);
      assert.equal(r.variant, isolate ? 'simd-threaded' : 'simd');
      assert.equal(typeof r.relaxed_s8, 'boolean');
      assert.equal(r.relaxed_f32, true, 'Chromium has relaxed SIMD: the f32 GEMM must use it');
      for (const k of ['gemm', 'conv', 'pool', 'transcendental', 'quantized']) assert.equal(r[k].failures, 0, `${k}: ${r[k].report}`);
      assert.ok(r.quantized.cases > 400, `quantized cases: ${r.quantized.cases}`);
      console.log(`# ${r.variant}: int8 GEMM on ${r.relaxed_s8 ? 'the relaxed-SIMD' : 'the SIMD128'} kernel; ` +
                  `f32 GEMM on relaxed_madd (${r.relaxed_f32_fused ? 'fused' : 'not fused'})`);
    }));
}

test('the example pages and server exist', () => {
  assert.ok(existsSync(join(REPO, 'examples', 'browser', 'index.html')));
  assert.ok(existsSync(join(REPO, 'examples', 'llm', 'index.html')));
});

// ---------------------------------------------------------------- text generation demo (examples/llm/)
const LLM_DIR = join(FIXTURES, 'llm', 'tiny_llama');
const LLM_WEIGHTS = join(GENERATED, 'llm', 'tiny_llama', 'weights.safetensors');
const llmExpected = JSON.parse(readFileSync(join(LLM_DIR, 'expected.json'), 'utf8')).prompts;
const weightsRel = relative(REPO, LLM_WEIGHTS);
const llmSkip = skip || (!existsSync(LLM_WEIGHTS) ? `no ${LLM_WEIGHTS} (run tools/make_fixtures.sh build/fixtures)` : weightsRel.startsWith('..') ? `${LLM_WEIGHTS} is outside the served repository` : false);
// ?model=tiny loads the random-weight fixture; generated fixtures elsewhere in the repository go by ?weights=.
const defaultWeights = weightsRel.split(sep).join('/') === 'build/fixtures/llm/tiny_llama/weights.safetensors';
const llmQuery = '?model=tiny' + (defaultWeights ? '' : `&weights=/${weightsRel.split(sep).join('/')}&expected=/tests/fixtures/llm/tiny_llama/expected.json`);

const el = async (id, css) => Object.values(await wd('POST', `/session/${id}/element`, { using: 'css selector', value: css }))[0];
async function type(id, css, text) {
  const e = await el(id, css);
  await wd('POST', `/session/${id}/element/${e}/clear`, {});
  await wd('POST', `/session/${id}/element/${e}/value`, { text });
}
const click = async (id, css) => wd('POST', `/session/${id}/element/${await el(id, css)}/click`, {});
const text = (id, css) => js(id, 'return document.querySelector(arguments[0]).textContent', css);
const demoState = 'JSON.stringify({ demo: window.__demo, status: document.getElementById("model-status").textContent, error: document.getElementById("error").textContent })';

// Types the prompt, clicks Generate and waits for the run to end; returns window.__demo.last.
// stopAt: click Stop once that many tokens are shown.
async function generateIn(id, prompt, maxNew = 32, stopAt = -1) {
  const runs = await js(id, 'return window.__demo.runs');
  await type(id, '#prompt', prompt);
  await type(id, '#max-new', String(maxNew));
  // every token count the page shows on the way (tokens stream in one by one)
  await js(id, `const ids = document.getElementById('ids'); window.__seen = new Set();
    window.__obs?.disconnect();
    (window.__obs = new MutationObserver(() => {
      window.__seen.add(Number(ids.dataset.count));
      if (Number(ids.dataset.count) === arguments[0]) document.getElementById('stop').click();
    })).observe(ids, { attributes: true });`, stopAt);
  await click(id, '#generate');
  await waitFor(id, `window.__demo.runs > ${runs}`, demoState);
  return { ...(await js(id, 'return window.__demo.last')), seen: await js(id, 'return [...window.__seen].sort((a, b) => a - b)') };
}

for (const isolate of [true, false]) {
  const variant = isolate ? 'simd-threaded' : 'simd';
  test(`LLM demo page (${isolate ? 'COOP/COEP' : 'not isolated'}, ${variant}): streamed greedy tokens equal Hugging Face generate(), tokens/s shown; a text prompt${isolate ? '' : '; Stop; a too-long prompt'}`, { skip: llmSkip, timeout: 180000 }, () => withBrowser(isolate, async (id, url) => {
    await wd('POST', `/session/${id}/url`, { url: `${url}examples/llm/${llmQuery}` });
    await waitFor(id, 'window.__demo && (window.__demo.ready || window.__demo.loadError)', demoState);
    assert.equal(await js(id, 'return window.__demo.loadError'), null);
    assert.match(await text(id, '#model-status'), new RegExp(`4 layers, vocabulary 1024, prompts up to 32 tokens, 128 cache slots \\u00b7 ${variant} build`));
    const p = llmExpected.find((x) => x.input_ids.length === 7);
    const r = await generateIn(id, p.input_ids.join(', '));
    assert.equal(r.error, null);
    assert.equal(r.kind, 'ids');
    assert.deepEqual(r.ids, p.generated_ids);
    assert.deepEqual(r.seen.filter((n) => n > 0), Array.from({ length: 32 }, (_, i) => i + 1), 'the page showed 1, 2, ..., 32 tokens');
    assert.deepEqual((await text(id, '#ids')).split(' ').map(Number), p.generated_ids, 'the ids shown on the page');
    assert.equal(r.backend.variant, variant);
    if (!isolate) assert.equal(r.backend.threads, 1);
    const stats = await text(id, '#stats');
    assert.match(stats, /prefill[\d.]+ tokens\/s/);
    assert.match(stats, /decode[\d.]+ tokens\/s · 31 steps/);
    assert.match(stats, new RegExp(`build${variant} · \\d+ threads?`));
    assert.match(stats, /KV cache256 KiB · 0 B copied per step \(updated in place\)/);
    assert.match(await text(id, '#check'), /the same 32 tokens as Hugging Face generate/);
    // text through the byte tokenizer: the prompt's bytes are shown, new tokens stream after them
    const t = await generateIn(id, 'Hi there', 8);
    assert.equal(t.error, null);
    assert.equal(t.kind, 'text');
    assert.deepEqual(t.prompt, [...Buffer.from('Hi there')]);
    assert.equal(t.ids.length, 8);
    assert.ok((await text(id, '#output')).startsWith('Hi there'));
    if (!isolate) {
      // Stop (an AbortSignal) ends the run after the token on screen
      const s = await generateIn(id, p.input_ids.join(' '), 100, 3);
      assert.equal(s.stopped, true);
      assert.equal(s.error, null);
      assert.deepEqual(s.ids, p.generated_ids.slice(0, 3));
      assert.match(await text(id, '#run-status'), /3 new tokens in \d+ ms \(stopped\)/);
      // a prompt longer than the prefill IR's 32 slots: the engine's message on the page
      const e = await generateIn(id, Array.from({ length: 33 }, (_, i) => i + 1).join(' '));
      assert.match(e.error, /33 tokens but the prefill IR takes at most 32/);
      assert.match(await text(id, '#error'), /33 tokens but the prefill IR takes at most 32/);
    }
  }));
}

// The page's default: the model trained on Debian's package descriptions, with its tokenizer.json
// (tests/fixtures/llm/debian_lm). Text streams in one piece per token; the greedy ids follow PyTorch's
// generation (tools/lm_text_reference.py) up to a step whose top-2 margin is thin (8da4w).
const DEB = JSON.parse(readFileSync(join(FIXTURES, 'llm', 'debian_lm', 'text_expected.json'), 'utf8'));
test('LLM demo page (default model, trained on Debian descriptions): text streams token by token and follows PyTorch', { skip, timeout: 180000 }, () => withBrowser(true, async (id, url) => {
  await wd('POST', `/session/${id}/url`, { url: `${url}examples/llm/` });
  await waitFor(id, 'window.__demo && (window.__demo.ready || window.__demo.loadError)', demoState);
  assert.equal(await js(id, 'return window.__demo.loadError'), null);
  assert.match(await text(id, '#model-status'), /Debian package-description LM .*vocabulary 2048 \(tokenizer\.json\), prompts up to 64 tokens, 256 cache slots/);
  for (const p of DEB.prompts.slice(0, 2)) {
    const r = await generateIn(id, p.prompt, DEB.max_new_tokens);
    assert.equal(r.error, null);
    assert.equal(r.kind, 'text');
    assert.deepEqual(r.prompt, p.input_ids);
    let n = 0;
    while (n < p.greedy.top1_top2_margins.length && p.greedy.top1_top2_margins[n] >= 0.05) n++;
    assert.deepEqual(r.ids.slice(0, n), p.greedy.ids.slice(0, n), `${p.prompt}: first ${n} steps`);
    if (n === p.greedy.ids.length) assert.equal(r.text, p.greedy.text);
    assert.deepEqual(r.seen.filter((k) => k > 0), Array.from({ length: r.ids.length }, (_, i) => i + 1), 'one token at a time');
    assert.equal(await text(id, '#output'), p.prompt + r.text);
    assert.match(await text(id, '#check'), /\u2714/);
  }
}));

// ?proxy=1 (env.proxy): the model generates in a Web Worker; the page shows the same text, and
// its own timers keep firing while the worker computes.
test('LLM demo page ?proxy=1: the trained model generates in a Web Worker, the page stays responsive', { skip, timeout: 180000 }, () => withBrowser(true, async (id, url) => {
  await wd('POST', `/session/${id}/url`, { url: `${url}examples/llm/?proxy=1` });
  await waitFor(id, 'window.__demo && (window.__demo.ready || window.__demo.loadError)', demoState);
  assert.equal(await js(id, 'return window.__demo.loadError'), null);
  assert.match(await text(id, '#model-status'), /in a Web Worker/);
  const p = DEB.prompts[0];
  await js(id, 'window.__ticks = 0; window.__timer = setInterval(() => { window.__ticks++; }, 1);');
  const r = await generateIn(id, p.prompt, DEB.max_new_tokens);
  const ticks = await js(id, 'clearInterval(window.__timer); return window.__ticks');
  assert.equal(r.error, null);
  assert.equal(r.backend.proxy, true);
  let n = 0;
  while (n < p.greedy.top1_top2_margins.length && p.greedy.top1_top2_margins[n] >= 0.05) n++;
  assert.deepEqual(r.ids.slice(0, n), p.greedy.ids.slice(0, n));
  assert.equal(await text(id, '#output'), p.prompt + r.text);
  assert.ok(ticks > r.ids.length, `${ticks} timer ticks during ${r.ids.length} tokens`);
}));

// ?model=int4: the tiny LLaMA quantized by torchao (8da4w; tests/fixtures/llm/tiny_llama_8da4w, its
// weights committed): greedy tokens follow PyTorch's quantized generation (up to a step where
// PyTorch's top-2 margin is thin: tests/cpp/unit/quantized_lm_test.cpp), and the page says so.
const LM8 = JSON.parse(readFileSync(join(FIXTURES, 'llm', 'tiny_llama_8da4w', 'expected.json'), 'utf8')).prompts;
test('LLM demo page ?model=int4: the torchao 8da4w model generates PyTorch\'s quantized tokens', { skip, timeout: 180000 }, () => withBrowser(true, async (id, url) => {
  await wd('POST', `/session/${id}/url`, { url: `${url}examples/llm/?model=int4` });
  await waitFor(id, 'window.__demo && (window.__demo.ready || window.__demo.loadError)', demoState);
  assert.equal(await js(id, 'return window.__demo.loadError'), null);
  assert.match(await text(id, '#model-status'), /4 layers, vocabulary 1024/);
  const p = LM8.find((x) => x.input_ids.length === 7);
  let n = 0;
  while (n < p.top1_top2_margins.length && p.top1_top2_margins[n] >= 0.05) n++;
  const r = await generateIn(id, p.input_ids.join(', '));
  assert.equal(r.error, null);
  assert.equal(r.ids.length, 32);
  assert.deepEqual(r.ids.slice(0, n), p.generated_ids.slice(0, n));
  assert.match(await text(id, '#check'), /\u2714 the same (first )?\d+ tokens as Hugging Face generate/);
}));

// ---------------------------------------------------------------- drawing pad (digits CNN, examples/browser/digits-pad.js)
const digitsSet = readTestSet(parseSafetensors(readFileSync(join(REPO, 'examples', 'digits', 'digits_test.safetensors'))));
const digitsState = 'JSON.stringify({ digits: window.__digits, status: document.getElementById("digit-status").textContent })';

async function openPad(id, url, query = '') {
  await wd('POST', `/session/${id}/url`, { url: `${url}examples/browser/?runs=1${query}` });
  await waitFor(id, 'window.__digits && (window.__digits.ready || window.__digits.loadError)', digitsState);
  assert.equal(await js(id, 'return window.__digits.loadError'), null);
}

// Paints an 8x8 image (0..1) onto the pad, `cell` pixels per pixel at (x, y), as gray ink
// (the pad reads darkness), classifies it and returns window.__digits.last and the page's text.
async function paintDigit(id, image, cell, x, y) {
  const runs = await js(id, 'return window.__digits.runs');
  await js(id, `window.__digits.clear();
    const ctx = document.getElementById('pad').getContext('2d');
    arguments[0].forEach((v, i) => {
      const g = Math.round(255 * (1 - v));
      ctx.fillStyle = 'rgb(' + g + ',' + g + ',' + g + ')';
      ctx.fillRect(arguments[2] + (i % 8) * arguments[1], arguments[3] + Math.floor(i / 8) * arguments[1], arguments[1], arguments[1]);
    });
    window.__digits.classify();`, Array.from(image), cell, x, y);
  await waitFor(id, `window.__digits.runs > ${runs}`, digitsState);
  return { ...(await js(id, 'return window.__digits.last')), shown: await text(id, '#digit-pred'), top3: await text(id, '#digit-top3') };
}

test('drawing pad: held-out digits painted on the canvas are read back as 8x8 and classified; the label is shown', { skip, timeout: 180000 }, () => withBrowser(true, async (id, url) => {
  await openPad(id, url);
  // the first held-out digit of each class
  for (let label = 0; label < 10; ++label) {
    const i = digitsSet.labels.indexOf(label);
    const r = await paintDigit(id, digitsSet.image(i), 25, 30 + 3 * label, 20);
    assert.equal(r.digit, label, `held-out digit #${i} (${label}) read as ${r.digit}`);
    assert.equal(r.shown, String(label));
    assert.match(r.top3, new RegExp(`^${label}: \\d+\\.\\d%`));
    assert.equal(r.top.length, 3);
    // the 8x8 the model saw is what inkToDigit makes of the same gray squares (the digit,
    // its ink centred left-right): the pad reads its pixels right
    const expected = inkToDigit(Float32Array.from({ length: 64 * 25 * 25 }, (_, p) => {
      const v = digitsSet.image(i)[Math.floor(p / (8 * 25 * 25)) * 8 + Math.floor((p % (8 * 25)) / 25)];
      return 1 - Math.round(255 * (1 - v)) / 255;
    }), 8 * 25, 8 * 25);
    const diff = r.input.reduce((m, v, j) => Math.max(m, Math.abs(v - expected[j])), 0);
    assert.ok(diff < 1e-3, `digit #${i}: the pad's 8x8 differs by ${diff}`);
  }
  // Clear empties the prediction
  await click(id, '#clear');
  assert.equal(await text(id, '#digit-pred'), '?');
}));

// Strokes of the mouse or a finger (WebDriver pointer actions) through the page's pointer
// handlers; points in pad pixels from the pad's centre (y down).
async function drawStrokes(id, strokes, pointerType = 'mouse') {
  const pad = { 'element-6066-11e4-a52e-4f735466cecf': await el(id, '#pad') };
  const actions = [];
  for (const points of strokes) {
    actions.push({ type: 'pointerMove', origin: pad, x: points[0][0], y: points[0][1], duration: 0 }, { type: 'pointerDown', button: 0 });
    for (const [x, y] of points.slice(1)) actions.push({ type: 'pointerMove', origin: pad, x, y, duration: 10 });
    actions.push({ type: 'pointerUp', button: 0 });
  }
  await wd('POST', `/session/${id}/actions`, { actions: [{ type: 'pointer', id: pointerType, parameters: { pointerType }, actions }] });
  await wd('DELETE', `/session/${id}/actions`);
}
// (rx, ry) ellipse arc around (cx, cy) from angle a0 to a1 (degrees, 0 = right, 90 = down)
const arc = (cx, cy, rx, ry, a0, a1, n = 24) => Array.from({ length: n + 1 }, (_, k) => {
  const a = ((a0 + ((a1 - a0) * k) / n) * Math.PI) / 180;
  return [Math.round(cx + rx * Math.cos(a)), Math.round(cy + ry * Math.sin(a))];
});
// Digits drawn the way load_digits writes them (a 1 with a flag, a 7 with a crossbar).
const DRAWN = [
  [arc(0, 0, 55, 100, -90, 270, 40)],
  [[[-30, -70], [0, -100], [0, 100]]],
  [[...arc(0, -50, 50, 50, 180, 360, 16), [-55, 100], [55, 100]]],
  [[...arc(0, -50, 48, 48, -160, 90, 20), ...arc(0, 50, 50, 50, -90, 160, 20)]],
  [[[20, -100], [-60, 40], [60, 40]], [[30, -30], [30, 100]]],
  [[[50, -100], [-40, -100], [-45, -10], ...arc(0, 40, 55, 55, -130, 150, 20)]],
  [[[40, -100], [-20, -60], [-50, 10], ...arc(0, 45, 50, 50, 180, 540, 30)]],
  [[[-55, -100], [55, -100], [-10, 100]], [[-30, 0], [40, 0]]],
  [arc(0, -55, 42, 42, 90, 450), arc(0, 50, 50, 50, -90, 270)],
  [[...arc(0, -45, 50, 50, 0, 360, 30), [40, 100]]],
];

test('drawing pad: the digits 0-9 drawn with mouse and touch strokes, large and small, are recognised live', { skip, timeout: 180000 }, () => withBrowser(false, async (id, url) => {
  await openPad(id, url);
  for (const [label, strokes] of DRAWN.entries()) {
    // full size with the mouse; at 30% size off-centre with a finger (the model sees the same)
    const small = strokes.map((s) => s.map(([x, y]) => [Math.round(0.3 * x) + 40, Math.round(0.3 * y) - 30]));
    for (const [what, drawn, pointerType] of [['large', strokes, 'mouse'], ['small', small, 'touch']]) {
      await click(id, '#clear');
      const runs = await js(id, 'return window.__digits.runs');
      await drawStrokes(id, drawn, pointerType);
      await waitFor(id, `!window.__digits.busy && window.__digits.runs > ${runs}`, digitsState, 20000);
      const last = await js(id, 'return window.__digits.last');
      assert.equal(last.digit, label, `${what} ${label} (${pointerType}) read as ${JSON.stringify(last.top)}`);
      assert.equal(await text(id, '#digit-pred'), String(label));
      // live: classified while the pen moved, not only when it was lifted
      const during = (await js(id, 'return window.__digits.runs')) - runs;
      assert.ok(during > drawn.length, `${label}: ${during} classification(s) for ${drawn.length} stroke(s)`);
    }
  }
}));

test('drawing pad in proxy mode: the model runs in a Web Worker and classifies a painted digit', { skip, timeout: 180000 }, () => withBrowser(true, async (id, url) => {
  await openPad(id, url, '&proxy=1');
  const i = digitsSet.labels.indexOf(5);
  const r = await paintDigit(id, digitsSet.image(i), 20, 0, 0);
  assert.equal(r.digit, 5);
  assert.equal(r.shown, '5');
}));
