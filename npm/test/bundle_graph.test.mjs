// The browser entry (index.js) and everything it imports statically must be
// bundleable for browsers: no `node:` imports, no require(), and Node-only
// code only behind `import('#node')`, which package.json maps to
// lib/node/unavailable.js outside Node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { NPM_DIR } from './helpers.mjs';

// Static import/export-from specifiers of an ES module's source.
function staticImports(src) {
  const out = [];
  const re = /^\s*(?:import|export)\s[^;]*?\sfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]/gms;
  for (const m of src.matchAll(re)) out.push(m[1] ?? m[2]);
  return out;
}

function reachable(entry) {
  const seen = new Map(); // file -> source
  const todo = [resolve(entry)];
  while (todo.length) {
    const f = todo.pop();
    if (seen.has(f)) continue;
    const src = readFileSync(f, 'utf8');
    seen.set(f, src);
    for (const spec of staticImports(src)) {
      assert.ok(spec.startsWith('.'), `${f} imports '${spec}' statically`);
      todo.push(join(dirname(f), spec));
    }
  }
  return seen;
}

test('index.js reaches no node: import, require or #node statically', () => {
  const files = reachable(join(NPM_DIR, 'index.js'));
  assert.ok(files.size > 5, 'the walk found the library files');
  for (const [f, src] of files) {
    assert.doesNotMatch(src, /['"]node:/, `${f} names a node: module`);
    assert.doesNotMatch(src, /\brequire\s*\(/, `${f} calls require`);
    assert.ok(!f.includes(`${join('lib', 'node')}`), `${f} is Node-only but reached statically`);
  }
});

test('package.json maps #node to the Node code in Node and to stubs elsewhere', async () => {
  const pkg = JSON.parse(readFileSync(join(NPM_DIR, 'package.json'), 'utf8'));
  assert.deepEqual(pkg.imports['#node'], { node: './lib/node/index.js', default: './lib/node/unavailable.js' });
  const real = await import('../lib/node/index.js');
  const stub = await import('../lib/node/unavailable.js');
  assert.deepEqual(Object.keys(stub).sort(), Object.keys(real).sort(), 'the stub exports the same names');
  for (const name of Object.keys(stub)) assert.throws(() => stub[name](), /needs Node\.js/);
});
