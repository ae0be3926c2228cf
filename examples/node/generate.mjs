#!/usr/bin/env node
// Text generation with the small language model trained on Debian's package descriptions
// (tests/fixtures/llm/debian_lm: Llama architecture, int4 weights, byte-level BPE tokenizer;
// tools/train_lm.py), streamed to the terminal token by token.
//
//   node examples/node/generate.mjs [--json] [--max-new N] [--min-new N] [--temperature T]
//       [--top-k K] [--top-p P] [--seed S] [--repetition-penalty R] [--stop TEXT]...
//       [--threads N] [--dir DIR] PROMPT
//
// Prints the prompt, then the continuation as it is generated, then the speed on stderr. With
// --json the last stdout line is one object {"text": ..., "pieces": [...]}: the continuation
// without the prompt, and the streamed pieces in order, one per token (joined, they are the text).
// Greedy unless --temperature > 0. Needs a built npm/dist/ (`bash scripts/build_wasm.sh`).
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// In your own project: import { loadLM } from 'torch-ir-wasm';
import { loadLM } from '../../npm/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE = 'usage: node examples/node/generate.mjs [--json] [--max-new N] [--min-new N] [--temperature T] '
  + '[--top-k K] [--top-p P] [--seed S] [--repetition-penalty R] [--stop TEXT]... [--threads N] [--dir DIR] PROMPT';

function parseArgs(argv) {
  const opts = { json: false, dir: join(ROOT, 'tests', 'fixtures', 'llm', 'debian_lm'), gen: { maxNewTokens: 48 }, stop: [], prompt: [] };
  const numbers = {
    '--max-new': 'maxNewTokens', '--min-new': 'minNewTokens', '--temperature': 'temperature', '--top-k': 'topK',
    '--top-p': 'topP', '--seed': 'seed', '--repetition-penalty': 'repetitionPenalty',
  };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} expects a value`);
      return argv[++i];
    };
    const number = () => {
      const v = value();
      if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(v)) throw new Error(`${a} expects a number, got '${v}'`);
      return Number(v);
    };
    if (a === '--json') opts.json = true;
    else if (a in numbers) opts.gen[numbers[a]] = number();
    else if (a === '--stop') opts.stop.push(value());
    else if (a === '--threads') opts.threads = number();
    else if (a === '--dir') opts.dir = resolve(value());
    else if (a === '-h' || a === '--help') { console.log(USAGE); process.exit(0); }
    else if (a === '--') opts.prompt.push(...argv.slice(i + 1)), i = argv.length;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else opts.prompt.push(a);
  }
  if (opts.prompt.length === 0) throw new Error('no PROMPT given');
  opts.prompt = opts.prompt.join(' ');
  if (opts.stop.length) opts.gen.stopStrings = opts.stop;
  return opts;
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`generate: ${e.message}\n${USAGE}`);
    process.exit(2);
  }
  const file = async (name) => {
    const path = join(opts.dir, name);
    try {
      return new Uint8Array(await readFile(path));
    } catch (e) {
      throw new Error(`cannot read ${path} (${e.code ?? e.message})`);
    }
  };
  const lm = await loadLM({
    prefill: await file('prefill.json'),
    decode: await file('decode.json'),
    kvMapping: await file('kv_mapping.json'),
    weights: await file('weights.safetensors'),
    tokenizer: await file('tokenizer.json'),
    threads: opts.threads,
  });
  const pieces = [];
  if (!opts.json) process.stdout.write(opts.prompt);
  for await (const piece of lm.stream(opts.prompt, opts.gen)) {
    pieces.push(piece);
    if (!opts.json) process.stdout.write(piece);
  }
  if (!opts.json) process.stdout.write('\n');
  const s = lm.stats;
  process.stderr.write(`${s.promptTokens} prompt tokens, ${pieces.length} new in ${(s.prefillMs + s.decodeMs).toFixed(1)} ms `
    + `(decode ${s.decodeTokensPerSecond.toFixed(1)} tokens/s, ${lm.backend.variant}, ${lm.backend.threads} thread(s))\n`);
  if (opts.json) console.log(JSON.stringify({ text: pieces.join(''), pieces }));
  lm.dispose();
}

main().catch((e) => {
  console.error(`generate: ${e.message}`);
  process.exit(1);
});
