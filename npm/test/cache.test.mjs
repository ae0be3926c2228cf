// env.cache in Node: model files fetched from http(s) URLs are kept in env.cache.dir; a second
// load makes no request and says so in its progress events; a damaged entry is fetched again;
// paths and a cache that is off are untouched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env, loadLM } from '../index.js';
import { FIXTURES, assertDist } from './helpers.mjs';

before(assertDist);

const DIR = join(FIXTURES, 'llm', 'debian_lm');
const FILES = ['prefill.json', 'decode.json', 'kv_mapping.json', 'weights.safetensors', 'tokenizer.json'];
let server;
let base;
const requests = [];
let dir;
const saved = { ...env.cache };

before(async () => {
  server = createServer((req, res) => {
    const name = decodeURIComponent(req.url.slice(1).split('?')[0]);
    requests.push(name);
    if (!FILES.includes(name)) {
      res.writeHead(404).end();
      return;
    }
    const body = readFileSync(join(DIR, name));
    res.writeHead(200, { 'content-length': body.length, etag: `"${name}-1"` }).end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}/`;
  dir = mkdtempSync(join(tmpdir(), 'tir-cache-'));
});
after(() => {
  Object.assign(env.cache, saved);
  server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function load() {
  const done = {};
  const lm = await loadLM({
    prefill: base + 'prefill.json', decode: base + 'decode.json', kvMapping: base + 'kv_mapping.json',
    weights: base + 'weights.safetensors', tokenizer: base + 'tokenizer.json', threads: 1,
    onProgress: (e) => { if (e.status === 'done') done[e.file.slice(base.length)] = e.cached === true; },
  });
  const text = await lm.generate('This package provides', { maxNewTokens: 8 });
  lm.dispose();
  return { done, text };
}

test('a second load reads every file from env.cache.dir: no request, progress says cached', async () => {
  assert.equal(env.cache.enabled, false, 'off by default in Node');
  env.cache.dir = dir;
  requests.length = 0;
  const first = await load();
  assert.deepEqual([...requests].sort(), [...FILES].sort());
  assert.deepEqual(Object.values(first.done), FILES.map(() => false));
  requests.length = 0;
  const second = await load();
  assert.deepEqual(requests, [], 'no request on the second load');
  assert.deepEqual(Object.keys(second.done).sort(), [...FILES].sort());
  assert.ok(Object.values(second.done).every((c) => c === true), JSON.stringify(second.done));
  assert.equal(second.text, first.text);
  // One file and its metadata per URL, named by the URL's SHA-256.
  const name = createHash('sha256').update(base + 'weights.safetensors').digest('hex');
  assert.ok(readdirSync(dir).includes(name) && readdirSync(dir).includes(name + '.json'));
});

test('a damaged entry is fetched again; a cache that is off makes every request', async () => {
  env.cache.dir = dir;
  const name = createHash('sha256').update(base + 'weights.safetensors').digest('hex');
  const bytes = readFileSync(join(dir, name));
  bytes[bytes.length - 1] ^= 0xff; // same size, other bytes: the SHA-256 catches it
  writeFileSync(join(dir, name), bytes);
  requests.length = 0;
  const r = await load();
  assert.deepEqual(requests, ['weights.safetensors']);
  assert.equal(r.done['weights.safetensors'], false);
  writeFileSync(join(dir, name), bytes.subarray(0, 100)); // truncated
  requests.length = 0;
  await load();
  assert.deepEqual(requests, ['weights.safetensors']);
  env.cache.dir = undefined;
  env.cache.enabled = false;
  requests.length = 0;
  await load();
  assert.equal(requests.length, FILES.length);
});
