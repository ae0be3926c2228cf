// Checks a packed torch-ir-wasm tarball as npm would publish it (run by
// scripts/test_package.sh): the file list (everything the package reaches is
// in, nothing else is), no test hook in a packed .wasm, then publint.
// Usage: node check_package.mjs TARBALL FILE... (FILE: the paths `npm pack --json` listed).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';

// npm/ of this repo (this folder is tests/npm-package: outside npm/test, which node --test runs whole).
const NPM_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'npm');
const [tarball, ...packed] = process.argv.slice(2);
const files = new Set(packed);
const pkg = JSON.parse(readFileSync(join(NPM_DIR, 'package.json'), 'utf8'));
const problems = [];

// Every file the package can reach at run time: package.json entry points
// (exports/imports targets, main, types, bin)...
function targets(v, out = []) {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => targets(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => targets(x, out));
  return out;
}
const entries = [pkg.main, pkg.types, pkg.module, ...targets(pkg.exports), ...targets(pkg.imports), ...targets(pkg.bin)]
  .filter((t) => typeof t === 'string' && !t.includes('*'))
  .map((t) => posix.normalize(t));
for (const t of entries) if (!files.has(t)) problems.push(`entry point ${t} (package.json) is not in the tarball`);

// ...every source file of the package (lib/, bin/, index.*), and the relative
// imports and new URL(..., import.meta.url) files each packed JS file names.
function walk(dir) {
  return readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
}
const sources = ['index.js', 'index.d.ts', ...[...walk(join(NPM_DIR, 'lib')), ...walk(join(NPM_DIR, 'bin'))]
  .map((f) => relative(NPM_DIR, f).split('\\').join('/'))];
for (const s of sources) if (!files.has(s)) problems.push(`source file ${s} is not in the tarball`);
const REF = /(?:\bfrom\s*|\bimport\s*\(\s*|new URL\(\s*)['"](\.{1,2}\/[^'"$`]+)['"]/g;
for (const f of files) {
  if (!/\.(m?js|cjs)$/.test(f)) continue;
  const text = readFileSync(join(NPM_DIR, f), 'utf8');
  for (const [, ref] of text.matchAll(REF)) {
    const target = posix.normalize(posix.join(posix.dirname(f), ref));
    if (!files.has(target) && !files.has(posix.join(target, 'index.js'))) problems.push(`${f} refers to ${ref}, which is not in the tarball`);
  }
}

// Nothing else: tests, lockfiles, build inputs and editor files stay out.
const allowed = [
  /^package\.json$/, /^README\.md$/, /^LICENSE$/, /^index\.(js|d\.ts)$/, /^lib\/.+\.(js|d\.ts)$/, /^bin\/[^/]+\.js$/,
  /^dist\/package\.json$/, /^dist\/torch-ir-wasm-simd(-threaded)?\.(js|wasm)$/, /^dist\/torch-ir-wasm-simd-threaded\.worker\.js$/,
];
for (const f of files) if (!allowed.some((re) => re.test(f))) problems.push(`unexpected file in the tarball: ${f}`);
for (const d of ['dist/torch-ir-wasm-simd.wasm', 'dist/torch-ir-wasm-simd-threaded.wasm', 'LICENSE', 'README.md']) {
  if (!files.has(d)) problems.push(`${d} is not in the tarball`);
}
// Test code stays out of the shipped builds: no packed .wasm registers an
// internal hook of bindings/embind_debug.cpp (only the test-only modules in
// build/wasm-test have them; Embind keeps each name as a string in the module).
for (const f of files) {
  if (!f.endsWith('.wasm')) continue;
  const bytes = readFileSync(join(NPM_DIR, f)).toString('latin1');
  for (const hook of ['_debugFault', '_debugHeapInUse', 'kernelSelfcheck']) {
    if (bytes.includes(hook)) problems.push(`${f} registers the test hook ${hook} (test code in a dist build)`);
  }
}
if (pkg.license !== 'Apache-2.0') problems.push(`package.json license is ${pkg.license}`);
if (Object.keys(pkg.dependencies ?? {}).length) problems.push('the package must have no runtime dependencies');

// publint on the tarball itself: errors and warnings fail, suggestions are shown.
const { messages, pkg: linted } = await publint({ pack: { tarball: new Uint8Array(readFileSync(tarball)).buffer }, strict: false });
for (const m of messages) {
  const line = `publint ${m.type}: ${formatMessage(m, linted, { color: false }) ?? m.code}`;
  if (m.type === 'suggestion') console.log(line);
  else problems.push(line);
}

if (problems.length) {
  console.error(problems.map((p) => `FAIL: ${p}`).join('\n'));
  process.exit(1);
}
console.log(`package content ok: ${files.size} files, publint: ${messages.length ? `${messages.length} suggestion(s)` : 'clean'}`);
