// The task pages (docs/tasks/*.md) run as written: each page's ```js blocks, joined in order,
// run as one ES module from the repository root, with `from 'torch-ir-wasm'` pointing at this
// checkout's package (helpers.mjs: runTaskPage). A page that throws, or prints nothing, fails.
// Pages marked `<!-- runs on: webgpu -->` need a GPU (dawn.node): tests/webgpu/docs_tasks.test.mjs
// runs those.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, assertDist, runTaskPage } from './helpers.mjs';

before(assertDist);

const TASKS = join(REPO, 'docs', 'tasks');
const pages = readdirSync(TASKS).filter((f) => f.endsWith('.md')).sort();

test('there are task pages', () => assert.ok(pages.length > 0));

for (const page of pages) {
  const gpu = readFileSync(join(TASKS, page), 'utf8').includes('<!-- runs on: webgpu -->');
  test(`docs/tasks/${page} runs as written`, { skip: gpu && 'a WebGPU page: tests/webgpu/docs_tasks.test.mjs runs it' }, () => {
    runTaskPage(join(TASKS, page));
  });
}
