// Shared test setup: the static server (COOP/COEP) and headless Debian chromium via playwright-core.
import { chromium } from 'playwright-core';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveViewer } from '../tools/serve.mjs';

export const WEB = join(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = join(WEB, '..');
export const ARTIFACTS = process.env.WEB_ARTIFACTS || join(REPO, 'build', 'web-artifacts');
mkdirSync(ARTIFACTS, { recursive: true });

export const CHROMIUM = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => p && existsSync(p));

/** Fresh headless chromium with its own profile dir; returns {browser, close}. */
export async function launch() {
  if (!CHROMIUM) throw new Error('chromium not found (set CHROMIUM=/path/to/chromium)');
  const profile = mkdtempSync(join(tmpdir(), 'tir-viewer-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
    viewport: { width: 1440, height: 900 },
    deviceScaleFactor: 1,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function startServer() {
  return serveViewer({ port: 0, isolate: true });
}

/** Opens the viewer with a query string and waits until the page's hooks are ready. */
export async function openViewer(context, url, query = '') {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(url + query);
  await page.waitForFunction(() => window.__viewer && window.__viewer.ready === true, null, { timeout: 60000 });
  page.errors = errors;
  return page;
}
