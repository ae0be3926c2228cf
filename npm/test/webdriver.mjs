// Headless Chromium through chromedriver's WebDriver HTTP API (no npm dependencies), shared by the
// browser tests (npm/test/browser.test.mjs, tests/minilm/search_page.test.mjs). skip is a reason
// when chromium / chromedriver are not installed (apt-get install chromium chromium-driver).
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { REPO, assertDist } from './helpers.mjs';
import { serve } from '../../web/tools/static-server.mjs';

const which = (names) => names.find((p) => p && existsSync(p));
export const CHROMIUM = which([process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']);
export const DRIVER = which([process.env.CHROMEDRIVER, '/usr/bin/chromedriver']);
export const skip = !CHROMIUM || !DRIVER ? 'chromium and chromedriver not installed' : false;

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

export async function wd(method, path, body) {
  const res = await fetch(driverUrl + path, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`WebDriver ${method} ${path}: ${JSON.stringify(json.value)}`);
  return json.value;
}

export async function startDriver() {
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
}

export function stopDriver() {
  driver?.kill();
}

// A fresh headless browser on a static server of the repository; fn(session id, base url).
// extraArgs: more Chromium switches (e.g. --js-flags for the benchmarks).
export async function withBrowser(isolate, fn, extraArgs = []) {
  const { server, url } = await serve({ root: REPO, port: 0, isolate });
  const session = await wd('POST', '/session', {
    capabilities: {
      alwaysMatch: {
        browserName: 'chrome',
        'goog:chromeOptions': {
          binary: CHROMIUM,
          args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', ...extraArgs],
        },
      },
    },
  });
  const id = session.sessionId;
  try {
    return await fn(id, url);
  } finally {
    await wd('DELETE', `/session/${id}`).catch(() => {});
    server.close();
  }
}

export const js = (id, script, ...args) => wd('POST', `/session/${id}/execute/sync`, { script, args });

// Polls a page expression until it is truthy; on timeout fails with what describe() returns.
export async function waitFor(id, expr, describe, ms = 120000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await js(id, `return ${expr}`);
    if (r) return r;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expr}: ${await js(id, `return ${describe}`)}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

// Saves a PNG screenshot of the session's page to path.
export async function screenshot(id, path) {
  writeFileSync(path, Buffer.from(await wd('GET', `/session/${id}/screenshot`), 'base64'));
}
