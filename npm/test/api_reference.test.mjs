// docs/api-reference.md is generated from the package's TypeScript (scripts/gen_api_reference.mjs):
// a change to the public API that is not regenerated fails here. Needs no build (the sources and
// npm/node_modules/typescript only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SCRIPT = join(REPO, 'scripts', 'gen_api_reference.mjs');

test('docs/api-reference.md matches the TypeScript (node scripts/gen_api_reference.mjs --check)', () => {
  const r = spawnSync(process.execPath, [SCRIPT, '--check'], { cwd: REPO, encoding: 'utf8', timeout: 120000 });
  assert.equal(r.status, 0, `${r.stderr}${r.stdout}`);
});
