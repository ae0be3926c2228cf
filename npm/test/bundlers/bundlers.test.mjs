// The packed package inside a user's app: app/main.ts (loads small_cnn, runs
// it, compares with the recorded outputs) built with esbuild and vite (build
// and dev server), each run in headless chromium with and without COOP/COEP
// (threaded / single-threaded build), in the page and in proxy mode.
// Run by scripts/test_bundlers.sh (npm ci here, `npm pack` of npm/ installed
// into node_modules/); skipped otherwise, so the plain node suite needs none
// of this folder's dependencies.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../../../web/tools/static-server.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = join(HERE, '..', '..', '..');
const APP = join(HERE, 'app');
const OUT = process.env.TIR_BUNDLER_OUT || join(REPO, 'build', 'bundlers');
const PKG = join(HERE, 'node_modules', 'torch-ir-wasm');
const MODEL = join(REPO, 'tests', 'fixtures', 'models', 'small_cnn', 'torch2.14-training');
const CHROMIUM = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
const skip = process.env.TIR_BUNDLER_TESTS !== '1' ? 'run by scripts/test_bundlers.sh (TIR_BUNDLER_TESTS=1)' : false;
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

let context;
let profile;
const closers = [];

before(async () => {
  if (skip) return;
  assert.ok(existsSync(join(PKG, 'package.json')), 'torch-ir-wasm is not installed here: run scripts/test_bundlers.sh');
  assert.ok(CHROMIUM, 'chromium not found (set CHROMIUM)');
  const { chromium } = await import('playwright-core');
  profile = await mkdtemp(join(tmpdir(), 'tir-bundlers-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
});

after(async () => {
  for (const c of closers.reverse()) await c();
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

function copyModel(dir) {
  mkdirSync(join(dir, 'model'), { recursive: true });
  for (const f of ['model.json', 'weights.safetensors', 'io.safetensors']) copyFileSync(join(MODEL, f), join(dir, 'model', f));
}

async function staticServer(root, isolate) {
  const { server, url } = await serve({ root, port: 0, isolate });
  // (closeAllConnections: chromium keeps idle keep-alive sockets open, and
  // close() alone waits for them.)
  return { url, close: () => new Promise((ok) => { server.close(ok); server.closeAllConnections(); }) };
}

// Opens the app, waits for its #result; returns the result and the page's console errors.
async function runPage(url, timeoutMs = 60000) {
  const page = await context.newPage();
  const logs = [];
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') logs.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => logs.push(`pageerror: ${e.message}`));
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.tirResult !== undefined, null, { timeout: timeoutMs });
    return { result: await page.evaluate(() => window.tirResult), logs };
  } finally {
    await page.close();
  }
}

// The 4 combinations of isolation x proxy on the servers from
// serverFor(isolate) -> {url, close} (+ `query` for every page).
async function checkMatrix(name, serverFor, query = '') {
  for (const isolate of [true, false]) {
    const { url: base, close } = await serverFor(isolate);
    closers.push(close);
    for (const proxy of [false, true]) {
      const q = new URLSearchParams(query);
      if (isolate) q.set('threads', '2');
      if (proxy) q.set('proxy', '1');
      const url = `${base}?${q}`;
      const { result, logs } = await runPage(url);
      const what = `${name} ${isolate ? 'COOP/COEP' : 'no isolation'}${proxy ? ' proxy' : ''}: ${JSON.stringify(result)}\n${logs.join('\n')}`;
      assert.equal(result.ok, true, what);
      assert.equal(result.isolated, isolate, what);
      assert.equal(result.variant, isolate ? 'simd-threaded' : 'simd', what);
      assert.equal(result.threads, isolate ? 2 : 1, what);
      assert.equal(result.proxy, proxy, what);
      console.log(`ok ${name}, ${isolate ? 'COOP/COEP, threaded' : 'no isolation, single-threaded'}${proxy ? ', proxy' : ''}: max |diff| ${result.maxDiff}`);
    }
    closers.pop();
    await close();
  }
}

test('esbuild --bundle --platform=browser --format=esm (dist files copied, env.wasmPaths, proxy worker as a 2nd entry + env.workerPath)', { skip }, async () => {
  const esbuild = await import('esbuild');
  const out = join(OUT, 'esbuild');
  rmSync(out, { recursive: true, force: true });
  const result = await esbuild.build({
    absWorkingDir: HERE,
    entryPoints: { main: join(APP, 'main.ts'), 'proxy-worker': 'torch-ir-wasm/proxy-worker' },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    outdir: out,
    logLevel: 'silent',
  });
  assert.deepEqual(result.warnings.map((w) => w.text), [], 'esbuild warnings');
  for (const f of readdirSync(out)) assert.doesNotMatch(readFileSync(join(out, f), 'utf8'), /["']node:/, `${f} names a node: module`);
  cpSync(join(PKG, 'dist'), join(out, 'torch-ir-wasm'), { recursive: true });
  writeFileSync(join(out, 'index.html'), readFileSync(join(APP, 'index.html'), 'utf8').replace('./main.ts', './main.js'));
  copyModel(out);
  await checkMatrix('esbuild', (isolate) => staticServer(out, isolate), 'wasmPaths=torch-ir-wasm/&workerPath=proxy-worker.js');
});

test('a pthread worker script that is missing or throws rejects the load within seconds, naming the URL', { skip }, async () => {
  const out = join(OUT, 'esbuild'); // from the test above
  for (const [dir, worker] of [['no-worker', null], ['throwing-worker', 'throw new Error("boom in the pthread worker");']]) {
    mkdirSync(join(out, dir), { recursive: true });
    for (const f of ['torch-ir-wasm-simd-threaded.js', 'torch-ir-wasm-simd-threaded.wasm']) copyFileSync(join(PKG, 'dist', f), join(out, dir, f));
    if (worker) writeFileSync(join(out, dir, 'torch-ir-wasm-simd-threaded.worker.js'), worker);
  }
  const { url, close } = await staticServer(out, true);
  closers.push(close);
  for (const [dir, want] of [
    ['no-worker', /cannot fetch the pthread worker script http:\/\/\S+\/no-worker\/torch-ir-wasm-simd-threaded\.worker\.js: HTTP 404/],
    ['throwing-worker', /a pthread worker died: .*boom in the pthread worker/],
  ]) {
    const t0 = Date.now();
    const { result, logs } = await runPage(`${url}?threads=2&wasmPaths=${dir}/`, 20000);
    const took = Date.now() - t0;
    assert.equal(result.ok, false, `${dir}: ${JSON.stringify(result)}`);
    assert.match(result.error, want, `${dir}: ${logs.join('\n')}`);
    assert.ok(took < 10000, `${dir}: rejected after ${took} ms`);
    console.log(`ok ${dir}: rejected after ${took} ms: ${result.error}`);
  }
});

test('vite build (dist files and the proxy worker emitted by vite, no configuration)', { skip }, async () => {
  const vite = await import('vite');
  const out = join(OUT, 'vite');
  const pub = join(OUT, 'vite-public');
  copyModel(pub);
  const warnings = [];
  await vite.build({
    root: APP,
    configFile: false,
    publicDir: pub,
    logLevel: 'warn',
    customLogger: { ...vite.createLogger('warn'), warn: (m) => warnings.push(m), warnOnce: (m) => warnings.push(m) },
    build: { outDir: out, emptyOutDir: true },
  });
  assert.deepEqual(warnings, [], 'vite build warnings');
  const assets = readdirSync(join(out, 'assets'));
  for (const re of [/^torch-ir-wasm-simd-[\w-]{8}\.js$/, /^torch-ir-wasm-simd-[\w-]{8}\.wasm$/, /^torch-ir-wasm-simd-threaded-[\w-]{8}\.js$/,
    /^torch-ir-wasm-simd-threaded-[\w-]{8}\.wasm$/, /^proxy-worker-[\w-]{8}\.js$/]) {
    assert.ok(assets.some((a) => re.test(a)), `vite emitted ${re}: ${assets}`);
  }
  // The 3 KB pthread worker script is under vite's assetsInlineLimit: a data:
  // URL, which the loader must start from a blob: URL to work under COOP/COEP.
  if (!assets.some((a) => a.startsWith('torch-ir-wasm-simd-threaded.worker'))) console.log('vite inlined the pthread worker script (data: URL)');
  await checkMatrix('vite build', (isolate) => staticServer(out, isolate));
});

// A dev server on app/ (its dependency cache in node_modules/.vite unless
// `extra` says otherwise) -> {url, close}.
async function viteDev(isolate, extra = {}) {
  const vite = await import('vite');
  const pub = join(OUT, 'vite-public');
  copyModel(pub);
  const server = await vite.createServer({
    root: APP,
    configFile: false,
    publicDir: pub,
    logLevel: 'silent',
    server: { host: '127.0.0.1', port: 0, strictPort: false, headers: isolate ? ISOLATION : {}, hmr: false },
    ...extra,
  });
  await server.listen();
  const { port } = server.httpServer.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => server.close() };
}

test('vite dev server, dependency pre-bundling as configured by default', { skip }, async () => {
  await checkMatrix('vite dev', (isolate) => viteDev(isolate, { optimizeDeps: { force: true } }));
});

test("vite dev server with optimizeDeps: { exclude: ['torch-ir-wasm'] }", { skip }, async () => {
  await checkMatrix('vite dev (excluded from pre-bundling)', (isolate) => viteDev(isolate, { optimizeDeps: { exclude: ['torch-ir-wasm'] } }));
});
