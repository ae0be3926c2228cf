// The task pages (docs/tasks/*.md) run as written: each page's ```js blocks, joined in order,
// run as one ES module from the repository root, with `from 'torch-ir-wasm'` pointing at this
// checkout's package. A page that throws, or prints nothing, fails.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NPM_DIR, REPO, assertDist } from './helpers.mjs';

before(assertDist);

const TASKS = join(REPO, 'docs', 'tasks');
const pages = readdirSync(TASKS).filter((f) => f.endsWith('.md')).sort();

test('there are task pages', () => assert.ok(pages.length > 0));

for (const page of pages) {
  test(`docs/tasks/${page} runs as written`, () => {
    const md = readFileSync(join(TASKS, page), 'utf8');
    const blocks = [...md.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
    assert.ok(blocks.length > 0, `${page} has no js block`);
    const pkg = pathToFileURL(join(NPM_DIR, 'index.js')).href;
    const code = blocks.join('\n').replaceAll("from 'torch-ir-wasm'", `from '${pkg}'`);
    const dir = mkdtempSync(join(tmpdir(), 'tir-task-'));
    try {
      writeFileSync(join(dir, 'page.mjs'), code);
      const r = spawnSync(process.execPath, [join(dir, 'page.mjs')], { cwd: REPO, encoding: 'utf8', timeout: 300000 });
      assert.equal(r.status, 0, `${page}: ${r.stderr}`);
      assert.ok(r.stdout.trim().length > 0, `${page} printed nothing`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
