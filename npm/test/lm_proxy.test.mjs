// loadLM with env.proxy (proxy_lm.ts): the trained model (tests/fixtures/llm/debian_lm) generates in
// the worker; its text, stream and ids equal the same model's on this thread; this thread's event
// loop keeps running; breaking out, onToken returning false and an AbortSignal stop the worker's
// generation; what cannot cross to the worker fails clearly.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { env, loadLM, ExecutionError } from '../index.js';
import { FIXTURES, assertDist } from './helpers.mjs';

before(assertDist);

const DIR = join(FIXTURES, 'llm', 'debian_lm');
const files = {
  prefill: join(DIR, 'prefill.json'), decode: join(DIR, 'decode.json'), kvMapping: join(DIR, 'kv_mapping.json'),
  weights: join(DIR, 'weights.safetensors'), tokenizer: join(DIR, 'tokenizer.json'), threads: 1,
};
let local;
let proxied;
before(async () => {
  local = await loadLM(files);
  env.proxy = true;
  try {
    proxied = await loadLM(files);
  } finally {
    env.proxy = false;
  }
});
after(async () => {
  local?.dispose();
  await proxied?.dispose();
});

test('the worker model generates what this thread\'s does: text, streamed pieces, ids', async () => {
  assert.equal(proxied.backend.proxy, true);
  assert.deepEqual(proxied.info, local.info);
  assert.deepEqual(proxied.tokenizer.endIds, [0]);
  const opts = { maxNewTokens: 24, repetitionPenalty: 1.3, stopStrings: ['.'] };
  const want = await local.generate('This package provides', opts);
  assert.equal(await proxied.generate('This package provides', opts), want);
  const pieces = [];
  for await (const p of proxied.stream('This package provides', opts)) pieces.push(p);
  assert.equal(pieces.join(''), want);
  assert.equal(pieces.length, local.stats.decodeSteps + 1);
  assert.equal(proxied.stats.decodeSteps, local.stats.decodeSteps);
  const ids = [1212, 1313, 14];
  assert.deepEqual(await proxied.generate(ids, { maxNewTokens: 10, temperature: 0.8, topK: 20, seed: 5 }),
    await local.generate(ids, { maxNewTokens: 10, temperature: 0.8, topK: 20, seed: 5 }));
});

test('this thread\'s event loop runs while the worker generates', async () => {
  let ticks = 0;
  const timer = setInterval(() => { ticks++; }, 1);
  let tokens = 0;
  try {
    await proxied.generate([1212, 1313], { maxNewTokens: 64, stop: [], onToken: () => { tokens++; } });
  } finally {
    clearInterval(timer);
  }
  assert.equal(tokens, 64);
  assert.ok(ticks >= 8, `${ticks} timer ticks during 64 tokens`);
});

test('break, onToken returning false and an AbortSignal stop the generation in the worker', async () => {
  const full = await local.generate([1212, 1313], { maxNewTokens: 40, stop: [] });
  let n = 0;
  for await (const _ of proxied.stream([1212, 1313], { maxNewTokens: 200, stop: [] })) { // eslint-disable-line no-unused-vars
    if (++n === 3) break;
  }
  assert.deepEqual(await proxied.generate([1212, 1313], { maxNewTokens: 40, stop: [], onToken: (id, i) => i < 4 }), full.slice(0, 5));
  const ac = new AbortController();
  const reason = new Error('user left');
  await assert.rejects(proxied.generate([1212, 1313], { maxNewTokens: 200, stop: [], onToken: (id, i) => { if (i === 2) ac.abort(reason); }, signal: ac.signal }), (e) => e === reason);
  // still usable
  assert.deepEqual(await proxied.generate([1212, 1313], { maxNewTokens: 40, stop: [] }), full);
});

test('what cannot go to the worker fails clearly', async () => {
  await assert.rejects(proxied.generate('x', { logitsProcessor: () => {} }), (e) => e instanceof ExecutionError && /a function cannot be sent there/.test(e.message));
  await assert.rejects(proxied.generate('x', { maxNewToken: 3 }), /unknown option 'maxNewToken'/);
  env.proxy = true;
  try {
    await assert.rejects(loadLM({ ...files, tokenizer: local.tokenizer }), /give the tokenizer as its tokenizer.json/);
    const bare = await loadLM({ ...files, tokenizer: undefined });
    await assert.rejects(bare.generate('x'), /text needs a tokenizer/);
    await bare.dispose();
    await assert.rejects(bare.generate([1]), /disposed/);
  } finally {
    env.proxy = false;
  }
});
