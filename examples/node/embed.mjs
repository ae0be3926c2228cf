#!/usr/bin/env node
// Sentence embeddings with sentence-transformers' all-MiniLM-L6-v2 on the WASM engine.
//
//   node examples/node/embed.mjs [--json] [--threads N] [--int8 | --dir DIR] SENTENCE...
//
// Prints each sentence's token count and the start of its 384-d embedding (mean-pooled over the
// attention mask and L2-normalised, as sentence-transformers computes it), then the cosine
// similarity of every pair. With --json the last stdout line is one JSON object,
// {"embeddings": [[384 floats], ...]}, in the order given.
// Needs `bash scripts/prepare_models.sh` (the model files and the tokenizer package) and a built
// npm/dist/ (`bash scripts/build_wasm.sh`). --int8: the int8 model, models/all-MiniLM-L6-v2-int8
// (PyTorch's PT2E dynamic int8 of the linears, exported by tools/export_minilm.py --int8: the
// engine runs its linears on int8 GEMMs). --dir: another folder with the files of
// models/all-MiniLM-L6-v2 (or of the int8 one: the layout is the same).
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// In your own project: import { loadIR } from 'torch-ir-wasm';
import { loadIR } from '../../npm/index.js';
import { MiniLM, cosine } from '../minilm/minilm.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const USAGE = 'usage: node examples/node/embed.mjs [--json] [--threads N] [--int8 | --dir DIR] SENTENCE...';

function parseArgs(argv) {
  const opts = { json: false, dir: join(ROOT, 'models', 'all-MiniLM-L6-v2'), sentences: [] };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} expects a value`);
      return argv[++i];
    };
    if (a === '--json') opts.json = true;
    else if (a === '--threads') opts.threads = Number(value());
    else if (a === '--dir') opts.dir = resolve(value());
    else if (a === '--int8') opts.dir = join(ROOT, 'models', 'all-MiniLM-L6-v2-int8');
    else if (a === '-h' || a === '--help') { console.log(USAGE); process.exit(0); }
    else if (a === '--') opts.sentences.push(...argv.slice(i + 1)), i = argv.length;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else opts.sentences.push(a);
  }
  if (opts.sentences.length === 0) throw new Error('no SENTENCE given');
  return opts;
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`embed: ${e.message}\n${USAGE}`);
    process.exit(2);
  }
  const read = async (name) => {
    const path = join(opts.dir, name);
    try {
      return new Uint8Array(await readFile(path));
    } catch (e) {
      throw new Error(`cannot read ${path} (${e.code ?? e.message}): run bash scripts/prepare_models.sh`);
    }
  };
  const t0 = performance.now();
  const model = await MiniLM.load({ loadIR, read, threads: opts.threads });
  const results = [];
  for (const s of opts.sentences) results.push(await model.embed(s));
  const ms = performance.now() - t0;
  for (const [i, r] of results.entries()) {
    const head = Array.from(r.embedding.slice(0, 4), (x) => x.toFixed(4)).join(', ');
    const text = opts.sentences[i].length > 60 ? `${opts.sentences[i].slice(0, 57)}...` : opts.sentences[i];
    console.log(`[${i}] ${r.tokens} tokens (length ${r.seq}): [${head}, ...]  ${text}`);
  }
  for (let i = 0; i < results.length; ++i) {
    for (let j = i + 1; j < results.length; ++j) {
      console.log(`cosine([${i}], [${j}]) = ${cosine(results[i].embedding, results[j].embedding).toFixed(4)}`);
    }
  }
  console.log(`${results.length} sentence(s) in ${ms.toFixed(0)} ms (model load included)`);
  await model.dispose();
  if (opts.json) {
    console.log(JSON.stringify({ embeddings: results.map((r) => Array.from(r.embedding)) }));
  }
}

main().catch((e) => {
  console.error(`embed: ${e.message}`);
  process.exit(1);
});
