// The semantic-search page (examples/search/) in headless Chromium, cross-origin isolated: it
// embeds the first entries of the Debian package corpus with a progress bar, answers a query with
// the top 10 matches and their scores, and a second visit takes the embeddings from IndexedDB.
// The query is one corpus entry's own text, so its top match must be that entry (score ~1) on
// any machine's corpus; int8=1 does the same on the PT2E dynamic int8 model. Saves a screenshot to $WEB_ARTIFACTS (default build/web-artifacts)/search.png.
// Needs scripts/prepare_models.sh and npm/dist/ (scripts/test_real_models.sh runs both first).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../../npm/test/helpers.mjs';
import { js, screenshot, skip, startDriver, stopDriver, waitFor, wd, withBrowser } from '../../npm/test/webdriver.mjs';

const LIMIT = 48;
const PICK = 17;
const ARTIFACTS = process.env.WEB_ARTIFACTS ?? join(REPO, 'build', 'web-artifacts');

before(startDriver);
after(stopDriver);

const corpus = () => JSON.parse(readFileSync(join(REPO, 'models', 'corpus', 'debian-packages.json'), 'utf8')).entries;
const pageState = 'JSON.stringify({ ...window.__search, query: undefined, status: document.getElementById("status").textContent })';

async function visit(id, url, query) {
  await wd('POST', `/session/${id}/url`, { url: `${url}examples/search/?limit=${LIMIT}${query}` });
  await waitFor(id, 'window.__search && ["answered", "error"].includes(window.__search.state)', pageState, 300000);
  return js(id, 'const s = window.__search; return { ...s, query: undefined, status: document.getElementById("status").textContent, '
    + 'progress: document.getElementById("progress").value, '
    + 'rows: Array.from(document.querySelectorAll("#results li"), (li) => li.textContent) }');
}

test('search page: corpus embedded with progress, the top match of an entry\'s own text is that entry, cached on the next visit',
  { skip, timeout: 600000 }, () => withBrowser(true, async (id, url) => {
    const entries = corpus();
    assert.ok(entries.length > PICK);
    const q = `&q=${encodeURIComponent(entries[PICK].text)}`;
    const first = await visit(id, url, q);
    assert.equal(first.error, undefined, first.status);
    assert.equal(first.crossOriginIsolated, true);
    assert.equal(first.variant, 'simd-threaded');
    assert.equal(first.n, LIMIT);
    assert.equal(first.cached, false);
    assert.equal(first.progress, 1);
    assert.equal(first.lastHits.length, 10);
    assert.equal(first.lastHits[0].package, entries[PICK].package);
    assert.ok(first.lastHits[0].score > 0.9999, `top score ${first.lastHits[0].score}`);
    for (let i = 1; i < 10; ++i) assert.ok(first.lastHits[i].score <= first.lastHits[i - 1].score);
    assert.equal(first.rows.length, 10);
    assert.match(first.rows[0], new RegExp(`^1\\.0{3}${entries[PICK].package.replace(/[.+]/g, '\\$&')} `));
    mkdirSync(ARTIFACTS, { recursive: true });
    await screenshot(id, join(ARTIFACTS, 'search.png'));

    const again = await visit(id, url, q);
    assert.equal(again.cached, true, again.status);
    assert.match(again.status, /from the cache/);
    assert.deepEqual(again.lastHits, first.lastHits);
  }));

test('search page, int8=1: the PT2E int8 model embeds the corpus and finds an entry by its own text',
  { skip, timeout: 600000 }, () => withBrowser(true, async (id, url) => {
    const entries = corpus();
    const got = await visit(id, url, `&nocache=1&int8=1&q=${encodeURIComponent(entries[PICK].text)}`);
    assert.equal(got.error, undefined, got.status);
    assert.equal(got.weights, 'int8');
    assert.equal(got.n, LIMIT);
    assert.equal(got.cached, false);
    assert.equal(got.lastHits[0].package, entries[PICK].package);
    // the same tokens through the same graph: the same embedding
    assert.ok(got.lastHits[0].score > 0.9999, `top score ${got.lastHits[0].score}`);
  }));
