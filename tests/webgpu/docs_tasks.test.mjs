// The task pages that need a GPU (docs/tasks/*.md marked `<!-- runs on: webgpu -->`) run as
// written on dawn.node over lavapipe: `from 'webgpu'` is this directory's dawn.node package
// (npm/test/helpers.mjs: runTaskPage, as npm/test/docs_tasks.test.mjs runs the others).
import { test } from 'node:test';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO, runTaskPage } from '../../npm/test/helpers.mjs';
import { getDevice } from './gpu.mjs';

const TASKS = join(REPO, 'docs', 'tasks');
const DAWN = join(fileURLToPath(new URL('.', import.meta.url)), 'node_modules', 'webgpu', 'index.js');
const pages = readdirSync(TASKS).filter((f) => f.endsWith('.md') && readFileSync(join(TASKS, f), 'utf8').includes('<!-- runs on: webgpu -->')).sort();

for (const page of pages) {
  test(`docs/tasks/${page} runs as written on dawn.node`, async (t) => {
    if (!(await getDevice())) { t.skip('no WebGPU adapter'); return; }
    runTaskPage(join(TASKS, page), { webgpu: DAWN });
  });
}
