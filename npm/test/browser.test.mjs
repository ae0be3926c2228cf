// The same index.js in headless Chromium, from a static server: with COOP/COEP
// headers the page runs the threaded build, without them the single-threaded
// one; both verify the bundled model. Drives Debian's chromium through
// chromedriver's WebDriver HTTP API (no npm dependencies). Skipped when
// chromium / chromedriver are not installed (apt-get install chromium chromium-driver).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { REPO, assertDist } from './helpers.mjs';
import { serve } from '../../examples/browser/serve.mjs';

const which = (names) => names.find((p) => p && existsSync(p));
const CHROMIUM = which([process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']);
const DRIVER = which([process.env.CHROMEDRIVER, '/usr/bin/chromedriver']);
const skip = !CHROMIUM || !DRIVER ? 'chromium and chromedriver not installed' : false;

let driver;
let driverUrl;

function freePort() {
  return new Promise((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

async function wd(method, path, body) {
  const res = await fetch(driverUrl + path, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`WebDriver ${method} ${path}: ${JSON.stringify(json.value)}`);
  return json.value;
}

before(async () => {
  if (skip) return;
  assertDist();
  const port = await freePort();
  driverUrl = `http://127.0.0.1:${port}`;
  driver = spawn(DRIVER, [`--port=${port}`], { stdio: 'ignore' });
  for (let i = 0; i < 100; ++i) {
    try {
      if ((await wd('GET', '/status')).ready) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('chromedriver did not start');
});

after(() => driver?.kill());

// Opens the example page in a fresh headless browser and waits for its result.
async function runPage(isolate, query = '') {
  const { server, url } = await serve({ root: REPO, port: 0, isolate });
  const session = await wd('POST', '/session', {
    capabilities: {
      alwaysMatch: {
        browserName: 'chrome',
        'goog:chromeOptions': {
          binary: CHROMIUM,
          args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
        },
      },
    },
  });
  const id = session.sessionId;
  try {
    await wd('POST', `/session/${id}/url`, { url: `${url}examples/browser/?runs=3${query}` });
    const deadline = Date.now() + 120000;
    for (;;) {
      const r = await wd('POST', `/session/${id}/execute/sync`, { script: 'return window.__result || null', args: [] });
      if (r) return r;
      if (Date.now() > deadline) {
        const log = await wd('POST', `/session/${id}/execute/sync`, { script: 'return document.getElementById("log").textContent', args: [] });
        throw new Error(`page did not finish: ${log}`);
      }
      await new Promise((res) => setTimeout(res, 250));
    }
  } finally {
    await wd('DELETE', `/session/${id}`).catch(() => {});
    server.close();
  }
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

test('the example page and server exist', () => {
  assert.ok(existsSync(join(REPO, 'examples', 'browser', 'index.html')));
});
