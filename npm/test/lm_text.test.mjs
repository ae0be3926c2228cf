// Text in, text out, on the demo language model (tests/fixtures/llm/debian_lm: trained on Debian's
// package descriptions by tools/train_lm.py, torchao 8da4w, byte-level BPE tokenizer.json):
// generate(text) continues prompts as Hugging Face generate() does (greedy, repetition penalty,
// min new tokens; tools/lm_text_reference.py), stream() yields one piece per token that never
// splits a character, stop strings cut the text, the penalties and the logits processor hook
// agree with a JavaScript rendering of their formulas, and misuse fails with clear errors.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadLM, loadTokenizer, ExecutionError, IRFormatError } from '../index.js';
import { TextStream } from '../lib/text.js';
import { FIXTURES, NPM_DIR, REPO, assertDist, nativeCli } from './helpers.mjs';

before(assertDist);

const DIR = join(FIXTURES, 'llm', 'debian_lm');
const file = (name) => join(DIR, name);
const expected = JSON.parse(readFileSync(file('text_expected.json'), 'utf8'));
const files = { prefill: file('prefill.json'), decode: file('decode.json'), kvMapping: file('kv_mapping.json'), weights: file('weights.safetensors') };
// Where the top-1 / top-2 margin is thinner than this, 8da4w's per-token activation
// quantization may pick the other token (quantized.test.mjs uses the same bound).
const CLEAR = 0.05;
const clearSteps = (margins) => {
  let n = 0;
  while (n < margins.length && margins[n] >= CLEAR) n++;
  return n;
};
const OPTIONS = { greedy: {}, repetition_penalty_2: { repetitionPenalty: 2 }, min_new_tokens_30: { minNewTokens: 30 } };

let lm;
before(async () => {
  lm = await loadLM({ ...files, tokenizer: file('tokenizer.json'), threads: 1 });
});

test('the tokenizer and the model fit; the end-of-text token stops by default', () => {
  assert.equal(lm.tokenizer.vocabSize, lm.info.vocabSize);
  assert.deepEqual(lm.tokenizer.endIds, [expected.eos_token_id]);
  for (const p of expected.prompts) assert.deepEqual(lm.tokenizer.encode(p.prompt), p.input_ids, p.prompt);
});

test('generate(text) continues each prompt as Hugging Face generate() does (greedy, repetition penalty, min new tokens)', async () => {
  let compared = 0;
  for (const p of expected.prompts) {
    for (const [name, opts] of Object.entries(OPTIONS)) {
      const want = p[name];
      const ids = await lm.generate(p.input_ids, { maxNewTokens: expected.max_new_tokens, ...opts });
      const n = clearSteps(want.top1_top2_margins);
      assert.deepEqual(ids.slice(0, n), want.ids.slice(0, n), `${p.prompt} (${name}): first ${n} steps`);
      compared += n;
      if (name === 'min_new_tokens_30') assert.ok(ids.length >= 30, 'no end token before 30 new tokens');
      const text = await lm.generate(p.prompt, { maxNewTokens: expected.max_new_tokens, ...opts });
      assert.equal(text, lm.tokenizer.decode(ids), 'the text is the decoded ids');
      if (n === want.ids.length) assert.equal(text, want.text, `${p.prompt} (${name})`);
    }
  }
  assert.ok(compared > 100, `${compared} steps compared`);
});

test('stream() yields one piece per token; joined, the pieces are generate()\'s text', async () => {
  for (const opts of [{}, { temperature: 0.9, topK: 40, seed: 3 }]) {
    for (const prompt of ['This package provides', 'Überblick: café ☕ 日本語 — naïve']) {
      const text = await lm.generate(prompt, { maxNewTokens: 24, ...opts });
      const tokens = lm.stats.decodeSteps + 1;
      const pieces = [];
      for await (const piece of lm.stream(prompt, { maxNewTokens: 24, ...opts })) pieces.push(piece);
      assert.equal(pieces.length, tokens);
      assert.equal(pieces.join(''), text);
    }
  }
  // Breaking out stops generation and frees the model for the next call.
  const it = lm.stream('A library for', { maxNewTokens: 30 });
  for await (const _ of it) break; // eslint-disable-line no-unused-vars
  assert.equal(typeof (await lm.generate('A library for', { maxNewTokens: 2 })), 'string');
});

test('a piece never ends inside a character or a possible stop string', async () => {
  const tok = await loadTokenizer(file('tokenizer.json'));
  const text = 'Überblick: café ☕ 日本語 — naïve 🚀 done';
  const ids = tok.encode(text);
  assert.ok(ids.length > [...text].length / 2, 'multi-byte characters span several tokens');
  const stream = new TextStream(tok);
  const pieces = ids.map((id) => stream.push(id));
  pieces.push(stream.flush());
  assert.equal(pieces.join(''), text);
  for (const p of pieces) assert.ok(!p.includes('\ufffd'), `piece ${JSON.stringify(p)}`);
  const stops = new TextStream(tok, ['日本語', 'zzz']);
  let out = '';
  for (const id of ids) {
    out += stops.push(id);
    assert.ok(!out.includes('日'), 'the stop string is never emitted, not even its start');
    if (stops.stopped) break;
  }
  assert.ok(stops.stopped);
  assert.equal(out + stops.flush(), 'Überblick: café ☕ ');
});

test('stopStrings: the text ends before the first stop string, in generate() and stream()', async () => {
  const full = await lm.generate('This package provides', { maxNewTokens: 40 });
  const words = full.trim().split(/\s+/);
  assert.ok(words.length > 4, full);
  const stop = ` ${words[3]}`;
  const cut = full.slice(0, full.indexOf(stop));
  assert.equal(await lm.generate('This package provides', { maxNewTokens: 40, stopStrings: [stop, 'never appears'] }), cut);
  let streamed = '';
  for await (const piece of lm.stream('This package provides', { maxNewTokens: 40, stopStrings: [stop] })) streamed += piece;
  assert.equal(streamed, cut);
});

// The engine's penalties against their formulas applied by a logits processor (float32 results,
// as the engine stores them).
test('repetition, frequency and presence penalties equal their formulas run as a logits processor', async () => {
  const prompt = expected.prompts[0].input_ids;
  const counts = (ids) => {
    const c = new Map();
    for (const id of ids.slice(prompt.length)) c.set(id, (c.get(id) ?? 0) + 1);
    return c;
  };
  const penalize = (f, p) => (l, ids) => { for (const [id, n] of counts(ids)) l[id] = Math.fround(l[id] - f * n - p); };
  // [options, the same as a processor, whether they change this prompt's greedy tokens]
  const cases = [
    [{ repetitionPenalty: 2 }, (l, ids) => { for (const id of new Set(ids)) l[id] = l[id] > 0 ? l[id] / 2 : l[id] * 2; }, true],
    [{ frequencyPenalty: 3, presencePenalty: 3 }, penalize(3, 3), true],
    [{ frequencyPenalty: 0.75, presencePenalty: 0.5 }, penalize(0.75, 0.5), false], // margins wider than the penalty
  ];
  const greedy = await lm.generate(prompt, { maxNewTokens: 32 });
  for (const [opts, processor, changes] of cases) {
    const engine = await lm.generate(prompt, { maxNewTokens: 32, ...opts });
    const js = await lm.generate(prompt, { maxNewTokens: 32, logitsProcessor: processor });
    assert.deepEqual(engine, js, JSON.stringify(opts));
    assert.equal(JSON.stringify(engine) !== JSON.stringify(greedy), changes, `${JSON.stringify(opts)} changes the greedy tokens: ${changes}`);
  }
});

test('logitsProcessor: sees the ids so far, can ban tokens, and bad rows fail clearly', async () => {
  const prompt = expected.prompts[1].input_ids;
  const greedy = await lm.generate(prompt, { maxNewTokens: 8 });
  const seen = [];
  const banned = await lm.generate(prompt, {
    maxNewTokens: 8,
    logitsProcessor: (logits, ids) => {
      seen.push(ids.length);
      logits[greedy[0]] = -Infinity;
    },
  });
  assert.ok(!banned.includes(greedy[0]));
  assert.deepEqual(seen, banned.map((_, i) => prompt.length + i));
  const returned = await lm.generate(prompt, { maxNewTokens: 4, logitsProcessor: async (l) => { const r = new Float32Array(l.length); r[7] = 1; return r; } });
  assert.deepEqual(returned, [7, 7, 7, 7]);
  await assert.rejects(lm.generate(prompt, { logitsProcessor: () => new Float32Array(3) }), (e) => e instanceof ExecutionError && /Float32Array of 2048 values/.test(e.message));
  await assert.rejects(lm.generate(prompt, { logitsProcessor: (l) => { l[5] = NaN; } }), /logit 5 is NaN/);
  await assert.rejects(lm.generate(prompt, { logitsProcessor: (l) => { l.fill(-Infinity); } }), /every logit is -Infinity/);
  // The model recovers after a failed processor.
  assert.deepEqual(await lm.generate(prompt, { maxNewTokens: 8 }), greedy);
});

test('misuse fails with clear errors', async () => {
  await assert.rejects(lm.generate('x', { stopStrings: [''] }), /stopStrings must be non-empty strings/);
  await assert.rejects(lm.generate([1, 2], { stopStrings: ['a'] }), /stopStrings need a text prompt/);
  await assert.rejects(lm.generate('', {}), /the prompt is empty/);
  await assert.rejects(lm.generate('x', { maxNewToken: 3 }), /unknown option 'maxNewToken'/);
  await assert.rejects(lm.generate('x', { repetitionPenalty: 0 }), /repetitionPenalty must be a finite number > 0/);
  await assert.rejects(lm.generate('x', { minNewTokens: -1 }), /minNewTokens must be an integer >= 0/);
  await assert.rejects(lm.generate('x', { frequencyPenalty: NaN }), /frequencyPenalty and presencePenalty must be finite/);
  const bare = await loadLM({ ...files, threads: 1 });
  try {
    await assert.rejects(bare.generate('hello'), /text needs a tokenizer/);
    await assert.rejects(bare.stream([1, 2]).next(), /text needs a tokenizer/);
    assert.ok(Array.isArray(await bare.generate([1, 2], { maxNewTokens: 2 })));
  } finally {
    bare.dispose();
  }
  await assert.rejects(loadLM({ ...files, tokenizer: '{"model": {}}' }), (e) => e instanceof IRFormatError && /tokenizer: not a Hugging Face tokenizer.json/.test(e.message));
  await assert.rejects(loadLM({ ...files, tokenizer: file('missing.json') }), (e) => e instanceof IRFormatError && /tokenizer: .*missing\.json: cannot open tokenizer file/.test(e.message));
  const big = JSON.parse(readFileSync(file('tokenizer.json'), 'utf8'));
  for (let i = 0; i < 10; i++) big.model.vocab[`extra${i}`] = 2048 + i;
  await assert.rejects(loadLM({ ...files, tokenizer: big }), /its vocabulary has 2058 tokens but the model's logits have 2048/);
});

test('examples/node/generate.mjs streams the continuation; --json prints the text and its pieces', () => {
  const run = (args) => spawnSync(process.execPath, [join(REPO, 'examples', 'node', 'generate.mjs'), ...args], { encoding: 'utf8' });
  const r = run(['--json', '--max-new', '12', 'This package provides']);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.equal(out.pieces.length, 12);
  assert.equal(out.pieces.join(''), out.text);
  const plain = run(['--max-new', '12', 'This package provides']);
  assert.equal(plain.status, 0, plain.stderr);
  assert.equal(plain.stdout, `This package provides${out.text}\n`);
  const bad = run(['--temperature', 'hot', 'x']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--temperature expects a number, got 'hot'/);
});

test('npm CLI generate --tokenizer --prompt prints the continuation; the native CLI takes ids only and says so', async () => {
  const want = await lm.generate('This package provides', { maxNewTokens: 12 });
  const args = ['generate', files.prefill, files.decode, '--kv-mapping', files.kvMapping, '--weights', files.weights, '--max-new-tokens', '12'];
  const cli = (extra) => spawnSync(process.execPath, [join(NPM_DIR, 'bin', 'torch-ir-wasm.js'), ...args, ...extra, '--threads', '1'], { encoding: 'utf8', timeout: 120000 });
  const r = cli(['--tokenizer', file('tokenizer.json'), '--prompt', 'This package provides']);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, want + '\n');
  const noTok = cli(['--prompt', 'x']);
  assert.equal(noTok.status, 2);
  assert.match(noTok.stderr, /--prompt TEXT needs --tokenizer tokenizer.json/);
  const neither = cli([]);
  assert.equal(neither.status, 2);
  assert.match(neither.stderr, /generate needs --prompt-ids 1,2,3, or --prompt TEXT/);
  const native = nativeCli();
  if (native) {
    const n = spawnSync(native, [...args, '--tokenizer', file('tokenizer.json'), '--prompt', 'x'], { encoding: 'utf8' });
    assert.equal(n.status, 2, n.stderr);
    assert.match(n.stderr, /--prompt and --tokenizer are torch-ir-wasm's/);
  }
});
