// Documentation links cannot rot: every relative link or image in the repository's Markdown files
// (README.md, docs/, the folders' READMEs) names a file or folder that exists, and every
// #anchor names a heading of its target page (GitHub's heading slugs). Needs no build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SKIP_DIRS = new Set(['node_modules', 'build', 'dist', 'vendor']);

function markdownFiles(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.') || SKIP_DIRS.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) markdownFiles(p, out);
    else if (e.name.endsWith('.md')) out.push(p);
  }
  return out;
}

// The text outside fenced code blocks and inline code spans (links there are not links).
function prose(text) {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, -1, -2, ...
// for repeats.
function anchors(file) {
  const seen = new Map();
  const out = new Set();
  const text = readFileSync(file, 'utf8').replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of text.matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const base = m[1].replace(/<[^>]+>/g, '').toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.add(m[1]);
  return out;
}

function brokenLinks(file) {
  const bad = [];
  for (const m of prose(readFileSync(file, 'utf8')).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const link = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;  // http:, https:, mailto:, data:
    const [path, anchor] = link.split('#', 2);
    const target = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
    const where = `${relative(REPO, file)}: (${link})`;
    if (!existsSync(target)) {
      bad.push(`${where}: ${relative(REPO, target)} does not exist`);
    } else if (anchor && target.endsWith('.md') && statSync(target).isFile() && !anchors(target).has(anchor)) {
      bad.push(`${where}: ${relative(REPO, target)} has no heading for #${anchor}`);
    }
  }
  return bad;
}

test('every relative link in the Markdown files resolves', () => {
  const files = markdownFiles(REPO);
  assert.ok(files.some((f) => relative(REPO, f) === 'README.md'), 'README.md not found');
  assert.ok(files.some((f) => relative(REPO, f).startsWith('docs')), 'docs/*.md not found');
  assert.deepEqual(files.flatMap(brokenLinks), []);
});

test('the checker itself sees a missing file and a missing anchor', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tir-doc-links-'));
  try {
    const page = join(dir, 'page.md');
    writeFileSync(page, '# A page (`x`)\n\n[ok](#a-page-x) [ok](page.md#a-page-x) `[code](gone.md)`\n'
      + '[gone](gone.md) [bad anchor](#nope) ![img](img/none.png) [web](https://example.org/x.md)\n');
    assert.deepEqual(brokenLinks(page).map((b) => b.replace(/^.*?: \(/, '(')), [
      `(gone.md): ${relative(REPO, join(dir, 'gone.md'))} does not exist`,
      `(#nope): ${relative(REPO, page)} has no heading for #nope`,
      `(img/none.png): ${relative(REPO, join(dir, 'img', 'none.png'))} does not exist`,
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
