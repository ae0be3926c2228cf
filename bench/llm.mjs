#!/usr/bin/env node
// LLM text generation benchmark (bench/README.md, "LLM generation"): the tiny LLaMA fixture
// (tests/fixtures/llm/tiny_llama) generating 32 greedy tokens after each of expected.json's 3
// prompts, through our WASM engine (loadLM/generate: f32 weights, the half weight dtypes when
// loadLM takes `weightDtype`, and donate: false), onnxruntime-web and onnxruntime-node (a greedy
// loop in JS over the ONNX export of the same prefill/decode pair) and our native CLI
// (`torchir generate`). Every engine's tokens are checked against Hugging Face generate()'s
// (expected.json generated_ids). Prefill and decode tokens/s at each thread count, interleaved:
// in every pass each configuration runs once, as a fresh process, in an order that rotates from
// pass to pass; the table shows the median across passes of each process's median.
//
//   node bench/llm.mjs [--engines LIST] [--threads 1,2] [--caches 128,1024] [--passes 3]
//        [--runs 15] [--warmup-ms 3000] [--weight-dtypes float32,float16,bfloat16]
//        [--native-runs 6] [--torchir PATH] [--dir build/bench/llm] [--no-export] [--out FILE]
//   node bench/llm.mjs --child JSON          (one process: used by the above)
//
// Cache lengths other than the fixture's 128 use a prefill/decode pair exported with
// tools/export_llm.py --cache-len C into DIR/c<C> (IR and ONNX; same weights, same prompts); the
// ONNX pair of the fixture goes to DIR. Missing exports are made through tools/torch2-chroot.sh
// (waits while another chroot run is in progress).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { BENCH_DIR, REPO, list, median, parseArgs, runProcess } from './lib/common.mjs';

const require = createRequire(import.meta.url);
const FIXTURE = path.join(REPO, 'tests', 'fixtures', 'llm', 'tiny_llama');
const WEIGHTS = path.join(REPO, 'build', 'fixtures', 'llm', 'tiny_llama', 'weights.safetensors');
const FIXTURE_CACHE = 128;
const MAX_NEW_TOKENS = 32;
const F32_MIN = -3.4028234663852886e38; // torch.finfo(torch.float32).min, the masks' "blocked"

// Our engine's weight dtypes: loadLM's `weightDtype` (float32 = the option left out). Adding a
// dtype is one entry here; the halves are skipped with a note when loadLM ignores the option.
const WEIGHT_DTYPES = ['float32', 'float16', 'bfloat16'];
// ours: loadLM (donated caches); ours-copy: loadLM({donate: false}); native / native-copy:
// torchir generate [--no-donate]; ort-web / ort-node: the JS greedy loop over the ONNX pair.
const ALL_ENGINES = ['ours', 'ours-copy', 'ort-web', 'ort-node', 'native', 'native-copy'];

const USAGE = `usage: node bench/llm.mjs [options]     (npm ci in bench/ first, or bench/run.sh --llm)
  --engines LIST        ${ALL_ENGINES.join(',')} (default: all)
  --threads LIST        thread counts (default 1,2; ours: 1 = the single-threaded build)
  --caches LIST         decode cache lengths C (default 128,1024; 128 = the fixture)
  --weight-dtypes LIST  ours at the fixture's C (default ${WEIGHT_DTYPES.join(',')})
  --passes N            interleaved passes (default 3)
  --runs N              timed generate() calls per JS process, prompts rotating (default 15)
  --warmup-ms MS        JS processes warm up at least this long (default 3000: WASM tier-up)
  --native-runs N       torchir generate processes per configuration and pass (default 6)
  --torchir PATH        native CLI (default $TORCHIR, else build/native/torchir)
  --dir DIR             ONNX / long-cache exports (default build/bench/llm); results beside it
  --no-export           do not export what is missing (skip those configurations)
  --timeout S           per process (default 600)
  --wait-idle S         before each process, wait up to S s for the machine to go idle (other
                        processes < 0.2 cores over 2 s; default 0: do not wait)
  --max-others CORES    processes during which other processes used more than this many cores
                        on average are left out of the medians when clean ones exist (default 0.25)
  --out FILE            raw results (default build/bench/llm-results-<date>.json)`;

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

function config() {
  const cfg = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'config.json'), 'utf8'));
  const heads = cfg.num_attention_heads;
  return {
    layers: cfg.num_hidden_layers,
    kvHeads: cfg.num_key_value_heads || heads,
    headDim: cfg.head_dim || cfg.hidden_size / heads,
    vocab: cfg.vocab_size,
  };
}

function expectedPrompts() {
  const e = JSON.parse(fs.readFileSync(path.join(FIXTURE, 'expected.json'), 'utf8'));
  return { P: e.prefill_seq_len, prompts: e.prompts.map((p) => ({ ids: p.input_ids, want: p.generated_ids })) };
}

/** IR and ONNX files for cache length C. */
function filesFor(dir, C) {
  const d = C === FIXTURE_CACHE ? null : path.join(dir, `c${C}`);
  const ir = d ?? FIXTURE;
  const onnx = d ?? dir;
  return {
    prefill: path.join(ir, 'prefill.json'), decode: path.join(ir, 'decode.json'), kvMapping: path.join(ir, 'kv_mapping.json'),
    prefillOnnx: path.join(onnx, 'prefill.onnx'), decodeOnnx: path.join(onnx, 'decode.onnx'),
  };
}

function chrootBusy() {
  return spawnSync('pgrep', ['-f', 'torch2-chroot.sh'], { encoding: 'utf8' }).status === 0;
}

// tools/export_llm.py in the torch 2.x chroot (the repository is mounted at /repo there, so
// every path is given relative to it). One chroot run at a time on this machine.
function exportPair(dir, C) {
  const f = filesFor(dir, C);
  const need = C === FIXTURE_CACHE ? [f.prefillOnnx, f.decodeOnnx] : Object.values(f);
  if (need.every((p) => fs.existsSync(p))) return null;
  const rel = (p) => {
    const r = path.relative(REPO, p);
    if (r.startsWith('..')) throw new Error(`${p} is outside the repository (the chroot sees only ${REPO})`);
    return r;
  };
  const args = ['--weights', rel(WEIGHTS), '--skip-io'];
  if (C === FIXTURE_CACHE) {
    args.push('--skip-export', '--skip-reference', '--onnx-dir', rel(dir));
  } else {
    const d = path.dirname(f.prefill);
    fs.mkdirSync(d, { recursive: true });
    fs.copyFileSync(path.join(FIXTURE, 'config.json'), path.join(d, 'config.json'));
    args.push('--out', rel(d), '--cache-len', String(C), '--onnx-dir', rel(d));
  }
  for (let waited = 0; chrootBusy(); waited += 10) {
    if (waited >= 1800) return 'the torch2 chroot stayed busy for 30 min';
    if (waited === 0) console.error('llm: another tools/torch2-chroot.sh run is in progress; waiting');
    spawnSync('sleep', ['10']);
  }
  console.error(`llm: exporting C=${C}: tools/torch2-chroot.sh run -- python3 tools/export_llm.py ${args.join(' ')}`);
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('bash', [path.join(REPO, 'tools', 'torch2-chroot.sh'), 'run', '--', 'python3', 'tools/export_llm.py', ...args],
    { cwd: REPO, stdio: ['ignore', 'inherit', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) return `export_llm.py failed (exit ${r.status}): ${String(r.stderr).trim().split('\n').slice(-2).join(' | ')}`;
  return need.every((p) => fs.existsSync(p)) ? null : 'export_llm.py did not write every file';
}

// ---------------------------------------------------------------------------------------------
// One process: one engine, thread count, weight dtype and cache length
// ---------------------------------------------------------------------------------------------

function argmax(a, off, n) {
  let best = 0;
  let bv = a[off];
  for (let i = 1; i < n; i++) if (a[off + i] > bv) { bv = a[off + i]; best = i; }
  return best;
}

// The ABI of export_llm.py's wrappers, greedy, in JS: the prompt right-padded to P with pad keys
// masked in the additive mask, the P prefill slots copied into zeroed C-slot caches, decode step
// k at slot prompt_len + k - 1 (position_ids = cache_position = slot), the updated caches fed
// back. Timed like our LanguageModel: prefill = inputs, run, argmax, cache setup; a decode step =
// inputs, run, argmax, caches carried to the next step.
async function ortGenerator(ort, createSession, files, P, C) {
  const { layers, kvHeads: H, headDim: D, vocab: V } = config();
  const pre = await createSession(files.prefillOnnx);
  const dec = await createSession(files.decodeOnnx);
  const kvNames = Array.from({ length: 2 * layers }, (_, i) => `${i % 2 ? 'value' : 'key'}_${i >> 1}`);
  const pastNames = kvNames.map((n) => `past_${n}`);
  for (const n of ['input_ids', 'attention_mask', 'position_ids', 'cache_position', ...pastNames]) {
    if (!dec.inputNames.includes(n)) throw new Error(`decode.onnx has no input ${n} (${dec.inputNames.join(', ')})`);
  }
  const pIds = new BigInt64Array(P);
  const pMask = new Float32Array(P * P);
  const pPos = BigInt64Array.from({ length: P }, (_, i) => BigInt(i));
  const dMask = new Float32Array(C);
  const cacheBytes = 2 * layers * H * C * D * 4;
  const gen = async (prompt, maxNew) => {
    const n = prompt.length;
    const t0 = performance.now();
    for (let q = 0; q < P; q++) {
      pIds[q] = q < n ? BigInt(prompt[q]) : 0n;
      const visible = Math.min(q + 1, n);
      pMask.fill(0, q * P, q * P + visible);
      pMask.fill(F32_MIN, q * P + visible, (q + 1) * P);
    }
    const po = await pre.run({
      input_ids: new ort.Tensor('int64', pIds, [1, P]),
      attention_mask: new ort.Tensor('float32', pMask, [1, 1, P, P]),
      position_ids: new ort.Tensor('int64', pPos, [1, P]),
    });
    let tok = argmax(po.logits.data, (n - 1) * V, V);
    let kv = kvNames.map((name) => {
      const src = po[name].data;
      const dst = new Float32Array(H * C * D);
      for (let h = 0; h < H; h++) dst.set(src.subarray(h * P * D, (h + 1) * P * D), h * C * D);
      return new ort.Tensor('float32', dst, [1, H, C, D]);
    });
    dMask.fill(0, 0, n);
    dMask.fill(F32_MIN, n);
    const prefillMs = performance.now() - t0;
    const ids = [tok];
    let decodeMs = 0;
    for (let step = 1; step < maxNew; step++) {
      const t1 = performance.now();
      const slot = n + step - 1;
      dMask[slot] = 0;
      const feeds = {
        input_ids: new ort.Tensor('int64', BigInt64Array.of(BigInt(tok)), [1, 1]),
        attention_mask: new ort.Tensor('float32', dMask, [1, 1, 1, C]),
        position_ids: new ort.Tensor('int64', BigInt64Array.of(BigInt(slot)), [1, 1]),
        cache_position: new ort.Tensor('int64', BigInt64Array.of(BigInt(slot)), [1]),
      };
      pastNames.forEach((name, i) => (feeds[name] = kv[i]));
      const o = await dec.run(feeds);
      tok = argmax(o.logits.data, 0, V);
      kv = kvNames.map((name) => o[name]);
      decodeMs += performance.now() - t1;
      ids.push(tok);
    }
    return { ids, prefillMs, decodeMs, steps: maxNew - 1, wallMs: performance.now() - t0, cacheBytes, copied: null };
  };
  return gen;
}

const ENGINES = {
  async ours(job, files) {
    const tir = await import(pathToFileURL(path.join(REPO, 'npm', 'index.js')).href);
    const opts = { prefill: files.prefill, decode: files.decode, kvMapping: files.kvMapping, weights: WEIGHTS, threads: job.threads, donate: job.donate };
    if (job.weights !== 'float32') opts.weightDtype = job.weights;
    const lm = await tir.loadLM(opts);
    const gen = async (prompt, maxNew) => {
      const t0 = performance.now();
      const ids = await lm.generate(prompt, { maxNewTokens: maxNew });
      const wallMs = performance.now() - t0;
      const s = lm.stats;
      return { ids, prefillMs: s.prefillMs, decodeMs: s.decodeMs, steps: s.decodeSteps, wallMs, cacheBytes: s.cacheBytes, copied: s.cacheBytesCopiedPerStep };
    };
    return { gen, info: { ...lm.backend, ...lm.info } };
  },

  async 'ort-web'(job, files, P, C) {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = job.threads;
    ort.env.wasm.proxy = false;
    const create = async (file) => ort.InferenceSession.create(fs.readFileSync(file), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    return { gen: await ortGenerator(ort, create, files, P, C), info: { version: ort.env.versions?.web, numThreads: ort.env.wasm.numThreads } };
  },

  async 'ort-node'(job, files, P, C) {
    const ort = require('onnxruntime-node');
    const create = async (file) => ort.InferenceSession.create(file, {
      executionProviders: ['cpu'], graphOptimizationLevel: 'all', intraOpNumThreads: job.threads, interOpNumThreads: 1, executionMode: 'sequential',
    });
    return { gen: await ortGenerator(ort, create, files, P, C), info: { version: ort.env.versions?.node } };
  },
};
ENGINES['ours-copy'] = ENGINES.ours;

const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const firstMismatch = (a, b) => { const i = a.findIndex((x, k) => x !== b[k]); return i < 0 ? (a.length === b.length ? -1 : Math.min(a.length, b.length)) : i; };

async function child(job) {
  const { P, prompts } = expectedPrompts();
  const files = filesFor(job.dir, job.cache);
  const t0 = performance.now();
  const { gen, info } = await ENGINES[job.engine](job, files, P, job.cache);
  const loadMs = performance.now() - t0;
  // First outputs (cold), for every prompt.
  const firstIds = [];
  for (const p of prompts) firstIds.push((await gen(p.ids, MAX_NEW_TOKENS)).ids);
  const warm0 = performance.now();
  for (let i = 0; i < 3 || performance.now() - warm0 < job.warmupMs; i++) await gen(prompts[i % prompts.length].ids, MAX_NEW_TOKENS);
  const runs = [];
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let i = 0; i < Math.max(job.runs, prompts.length); i++) {
    const k = i % prompts.length;
    runs.push({ prompt: k, ...(await gen(prompts[k].ids, MAX_NEW_TOKENS)) });
  }
  const cpu = process.cpuUsage(cpu0);
  const cpuUtil = (cpu.user + cpu.system) / 1000 / (performance.now() - wall0);
  // Last outputs (warm): each prompt's last timed run.
  const lastIds = prompts.map((_, k) => runs.filter((r) => r.prompt === k).pop().ids);
  const match = prompts.map((p, k) => same(firstIds[k], p.want) && same(lastIds[k], p.want));
  const prefillByLen = {};
  prompts.forEach((p, k) => (prefillByLen[p.ids.length] = median(runs.filter((r) => r.prompt === k).map((r) => r.prefillMs))));
  const full = prompts.findIndex((p) => p.ids.length === P); // the prompt that fills the prefill window
  const prefillMs = full >= 0 ? prefillByLen[P] : median(runs.map((r) => r.prefillMs));
  const decodeMsPerToken = median(runs.map((r) => r.decodeMs / r.steps));
  return {
    prefill_ms: prefillMs,
    prefill_tok_s: (1000 * P) / prefillMs,
    prefill_ms_by_prompt_len: prefillByLen,
    decode_ms_per_token: decodeMsPerToken,
    decode_tok_s: 1000 / decodeMsPerToken,
    decode_ms_per_token_min: Math.min(...runs.map((r) => r.decodeMs / r.steps)),
    // generate() as the caller sees it: for ours this adds the JS side of each step (the
    // embind call, onToken, the event-loop yield) to the engine's own decode time.
    wall_ms_per_token: median(runs.map((r) => (r.wallMs - r.prefillMs) / r.steps)),
    cache_bytes: runs[0].cacheBytes,
    cache_bytes_copied_per_step: runs[0].copied,
    tokens_match: match.every(Boolean),
    first_mismatch: prompts.map((p, k) => Math.max(firstMismatch(firstIds[k], p.want), firstMismatch(lastIds[k], p.want))),
    runs: runs.length, cpu_util: cpuUtil, load_ms: loadMs, info, node: process.version,
  };
}

// ---------------------------------------------------------------------------------------------
// Native: torchir generate, one process per prompt and run
// ---------------------------------------------------------------------------------------------

const GEN_RE = /prefill: (\d+) tokens \(padded to (\d+)\) in ([\d.]+) ms; decode: (\d+) steps in ([\d.]+) ms \(([\d.]+) tokens\/s\); cache (\d+) bytes, (\d+) copied per step/;

function nativeJob(o, job) {
  const { P, prompts } = expectedPrompts();
  const files = filesFor(o.dir, job.cache);
  const runs = [];
  const match = prompts.map(() => true);
  const mism = prompts.map(() => -1);
  for (let i = 0; i < Math.max(o.nativeRuns, prompts.length); i++) {
    const k = i % prompts.length;
    const args = ['generate', files.prefill, files.decode, '--kv-mapping', files.kvMapping, '--weights', WEIGHTS,
      '--prompt-ids', prompts[k].ids.join(','), '--max-new-tokens', String(MAX_NEW_TOKENS), '--threads', String(job.threads)];
    if (!job.donate) args.push('--no-donate');
    const r = spawnSync(o.torchir, args, { encoding: 'utf8', timeout: o.timeout * 1000 });
    const m = GEN_RE.exec(r.stderr || '');
    if (r.status !== 0 || !m) return { error: `torchir generate: exit ${r.status}: ${String(r.stderr).trim().split('\n').slice(-2).join(' | ')}` };
    const ids = r.stdout.trim().split('\n').pop().trim().split(/[\s,]+/).map(Number);
    if (!same(ids, prompts[k].want)) {
      match[k] = false;
      mism[k] = Math.max(mism[k], firstMismatch(ids, prompts[k].want));
    }
    runs.push({ prompt: k, len: prompts[k].ids.length, prefillMs: Number(m[3]), steps: Number(m[4]), decodeMs: Number(m[5]), cacheBytes: Number(m[7]), copied: Number(m[8]) });
  }
  const prefillByLen = {};
  prompts.forEach((p, k) => (prefillByLen[p.ids.length] = median(runs.filter((r) => r.prompt === k).map((r) => r.prefillMs))));
  const prefillMs = prefillByLen[P] ?? median(runs.map((r) => r.prefillMs));
  const decodeMsPerToken = median(runs.map((r) => r.decodeMs / r.steps));
  return {
    prefill_ms: prefillMs, prefill_tok_s: (1000 * P) / prefillMs, prefill_ms_by_prompt_len: prefillByLen,
    decode_ms_per_token: decodeMsPerToken, decode_tok_s: 1000 / decodeMsPerToken,
    decode_ms_per_token_min: Math.min(...runs.map((r) => r.decodeMs / r.steps)),
    cache_bytes: runs[0].cacheBytes, cache_bytes_copied_per_step: runs[0].copied,
    tokens_match: match.every(Boolean), first_mismatch: mism, runs: runs.length,
    info: { bin: o.torchir, note: 'one process per run: prefill is each process\'s first run' },
  };
}

// ---------------------------------------------------------------------------------------------
// Orchestration
// ---------------------------------------------------------------------------------------------

// Other processes' CPU use while one of ours ran (the machine is shared): /proc/stat's busy time
// minus this process's and its waited-for children's (/proc/self/stat utime, stime, cutime,
// cstime), in cores. null where /proc is missing.
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
function cpuSnapshot() {
  try {
    const [user, nice, system, , , irq, softirq, steal] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const self = fs.readFileSync('/proc/self/stat', 'utf8');
    const f = self.slice(self.lastIndexOf(')') + 2).split(' ').map(Number); // f[0] is field 3 (state)
    return { busy: user + nice + system + irq + softirq, steal, own: f[11] + f[12] + f[13] + f[14], t: performance.now() };
  } catch {
    return null;
  }
}
function othersCores(a, b) {
  if (!a || !b || b.t <= a.t) return null;
  return Math.max(0, (b.busy - a.busy - (b.own - a.own)) / CLK_TCK / ((b.t - a.t) / 1000));
}
const sleepMs = (ms) => new Promise((r) => setTimeout(r, ms));
// Waits (at most maxS seconds) until other processes use less than `below` cores over 2 s.
async function waitIdle(maxS, below = 0.2) {
  const t0 = performance.now();
  for (;;) {
    const a = cpuSnapshot();
    await sleepMs(2000);
    const o = othersCores(a, cpuSnapshot());
    if (o == null || o < below || performance.now() - t0 > maxS * 1000) return (performance.now() - t0) / 1000;
  }
}

function opts() {
  const a = parseArgs(process.argv.slice(2), ['no_export', 'help', 'h']);
  if (a.help || a.h) {
    console.log(USAGE);
    process.exit(0);
  }
  const o = {
    engines: list(a.engines ?? ALL_ENGINES.join(',')),
    threads: list(a.threads ?? '1,2').map(Number),
    caches: list(a.caches ?? `${FIXTURE_CACHE},1024`).map(Number),
    weightDtypes: list(a.weight_dtypes ?? WEIGHT_DTYPES.join(',')),
    passes: Number(a.passes ?? 3),
    runs: Number(a.runs ?? 15),
    warmupMs: Number(a.warmup_ms ?? 3000),
    nativeRuns: Number(a.native_runs ?? 6),
    torchir: path.resolve(a.torchir ?? process.env.TORCHIR ?? path.join(REPO, 'build', 'native', 'torchir')),
    dir: path.resolve(a.dir ?? path.join(REPO, 'build', 'bench', 'llm')),
    export: !a.no_export,
    timeout: Number(a.timeout ?? 600),
    waitIdle: Number(a.wait_idle ?? 0),
    maxOthers: Number(a.max_others ?? 0.25),
    out: a.out,
  };
  const bad = [...o.engines.filter((e) => !ALL_ENGINES.includes(e)), ...o.weightDtypes.filter((d) => !WEIGHT_DTYPES.includes(d)), ...a._];
  if (bad.length) throw new Error(`unknown ${bad.join(', ')}\n${USAGE}`);
  return o;
}

// Whether loadLM takes `weightDtype`: it names the option, or it rejects a dtype that does not
// exist. A loadLM that loads with weightDtype: 'no-such-dtype' ignores the option.
async function weightDtypeSupport(files) {
  const tir = await import(pathToFileURL(path.join(REPO, 'npm', 'index.js')).href);
  if (/weightDtype/.test(tir.loadLM.toString())) return { supported: true };
  try {
    const lm = await tir.loadLM({ prefill: files.prefill, decode: files.decode, kvMapping: files.kvMapping, weights: WEIGHTS, threads: 1, weightDtype: 'no-such-dtype' });
    lm.dispose();
    return { supported: false, why: 'this loadLM ignores weightDtype (it loaded with weightDtype: "no-such-dtype")' };
  } catch (e) {
    return /dtype/i.test(e.message) ? { supported: true } : { supported: false, why: `probe failed: ${e.message}` };
  }
}

const keyOf = (j) => `${j.engine}|${j.threads}|${j.weights}|${j.cache}`;
const fmt = (v, d = 0) => (v == null || Number.isNaN(v) ? '-' : v.toFixed(d));
const fmtBytes = (b) => (b == null ? '-' : b === 0 ? '0' : b >= 1 << 20 ? `${(b / (1 << 20)).toFixed(b % (1 << 20) ? 1 : 0)} MiB` : `${(b / 1024).toFixed(0)} KiB`);

function summarize(raw, maxOthers) {
  const groups = new Map();
  for (const r of raw) {
    const k = keyOf(r);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(r);
  }
  const sum = new Map();
  for (const [k, rs] of groups) {
    const done = rs.filter((r) => !r.error);
    const clean = done.filter((r) => r.others_cores == null || r.others_cores <= maxOthers);
    // Medians over the processes that had the machine to themselves, when there are any.
    const ok = clean.length ? clean : done;
    const med = (f) => (ok.length ? median(ok.map((r) => r[f])) : null);
    sum.set(k, {
      engine: rs[0].engine, threads: rs[0].threads, weights: rs[0].weights, cache: rs[0].cache, donate: rs[0].donate,
      processes: rs.length, ok: done.length, clean: clean.length, contended: !clean.length && done.length > 0,
      others_cores: done.map((r) => r.others_cores),
      prefill_tok_s: med('prefill_tok_s'), decode_tok_s: med('decode_tok_s'),
      prefill_ms: med('prefill_ms'), decode_ms_per_token: med('decode_ms_per_token'), wall_ms_per_token: ok[0]?.wall_ms_per_token == null ? null : med('wall_ms_per_token'),
      pass_decode_tok_s: ok.map((r) => r.decode_tok_s), pass_prefill_tok_s: ok.map((r) => r.prefill_tok_s),
      cache_bytes: ok[0]?.cache_bytes ?? null, cache_bytes_copied_per_step: ok[0]?.cache_bytes_copied_per_step ?? null,
      tokens_match: done.length === rs.length && done.every((r) => r.tokens_match),
      first_mismatch: (done.find((r) => !r.tokens_match) ?? done[0])?.first_mismatch,
      cpu_util: ok.length && ok[0].cpu_util != null ? median(ok.map((r) => r.cpu_util)) : null,
      error: rs.find((r) => r.error)?.error,
    });
  }
  return sum;
}

const LABEL = { ours: 'ours (WASM)', 'ours-copy': 'ours (WASM), donate: false', 'ort-web': 'onnxruntime-web', 'ort-node': 'onnxruntime-node', native: 'ours native (torchir generate)', 'native-copy': 'ours native, --no-donate' };
const COPIED = { 'ort-web': 'caches in + out of WASM each step', 'ort-node': 'n/a' };

// Ratios are tokens/s over the reference's at the same threads and C (> 1: faster than it):
// WASM rows against onnxruntime-web, native rows against onnxruntime-node.
const REFERENCE = { ours: 'ort-web', 'ours-copy': 'ort-web', native: 'ort-node', 'native-copy': 'ort-node', 'ort-node': 'ort-web' };

function table(o, sum) {
  const lines = [];
  lines.push('| engine | threads | weights | C | prefill tok/s | decode tok/s | decode ms/token | prefill / decode vs reference | cache bytes copied per step | tokens = HF | processes used |');
  lines.push('|---|---:|---|---:|---:|---:|---:|---:|---|---|---:|');
  for (const C of o.caches) {
    for (const t of o.threads) {
      for (const s of sum.values()) {
        if (s.cache !== C || s.threads !== t) continue;
        const refName = REFERENCE[s.engine];
        const ref = refName && sum.get(keyOf({ engine: refName, threads: t, weights: 'float32', cache: C }));
        const ratio = (a, b) => (a == null || b == null ? '-' : `${(a / b).toFixed(2)}x`);
        const vs = ref ? `${ratio(s.prefill_tok_s, ref.prefill_tok_s)} / ${ratio(s.decode_tok_s, ref.decode_tok_s)} ${refName}` : '';
        const copied = s.engine in COPIED ? COPIED[s.engine] + (s.engine === 'ort-web' ? ` (2 x ${fmtBytes(s.cache_bytes)})` : '') : fmtBytes(s.cache_bytes_copied_per_step);
        const match = s.error ? `ERROR ${String(s.error).slice(0, 120)}` : s.tokens_match ? 'yes' : `no (first differing token per prompt: ${s.first_mismatch?.join(', ')})`;
        const w = { float32: 'f32', float16: 'f16', bfloat16: 'bf16' }[s.weights] ?? s.weights;
        lines.push(`| ${LABEL[s.engine]} | ${t} | ${w} | ${C} | ${fmt(s.prefill_tok_s)} | ${fmt(s.decode_tok_s)} | ${fmt(s.decode_ms_per_token, 3)} | ${vs} | ${copied} | ${match} | ${s.contended ? `${s.ok}/${s.processes}, all contended` : `${s.clean}/${s.processes}`} |`);
      }
    }
  }
  return lines.join('\n');
}

async function main() {
  const a = process.argv.slice(2);
  if (a[0] === '--child') {
    const job = JSON.parse(a[1]);
    process.stdout.write(JSON.stringify({ ...job, ...(await child(job)) }) + '\n');
    return;
  }
  const o = opts();
  const skipped = {};
  const caches = [];
  for (const C of o.caches) {
    const why = o.export ? exportPair(o.dir, C) : null;
    const f = filesFor(o.dir, C);
    if (why) skipped[`C=${C}`] = why;
    else if (!fs.existsSync(f.decode)) skipped[`C=${C}`] = `${f.decode} missing (run without --no-export)`;
    else caches.push({ C, onnx: fs.existsSync(f.decodeOnnx) });
  }
  if (!fs.existsSync(WEIGHTS)) throw new Error(`${WEIGHTS} missing (tools/make_fixtures.sh)`);
  const has = (e) => o.engines.includes(e);
  if ((has('native') || has('native-copy')) && !fs.existsSync(o.torchir)) {
    skipped.native = `${o.torchir} missing (scripts/build.sh, or --torchir PATH)`;
  }
  let halves = o.weightDtypes.filter((d) => d !== 'float32');
  if (has('ours') && halves.length) {
    const s = await weightDtypeSupport(filesFor(o.dir, FIXTURE_CACHE));
    if (!s.supported) {
      skipped[`ours ${halves.join('/')}`] = s.why;
      halves = [];
    }
  }
  const jobs = [];
  for (const { C, onnx } of caches) {
    for (const t of o.threads) {
      const base = { threads: t, cache: C, weights: 'float32', donate: true };
      if (has('ours')) {
        if (o.weightDtypes.includes('float32')) jobs.push({ ...base, engine: 'ours' });
        if (C === FIXTURE_CACHE) for (const d of halves) jobs.push({ ...base, engine: 'ours', weights: d });
      }
      if (has('ours-copy')) jobs.push({ ...base, engine: 'ours-copy', donate: false });
      for (const e of ['ort-web', 'ort-node']) {
        if (!has(e)) continue;
        if (onnx) jobs.push({ ...base, engine: e });
        else skipped[`${e} C=${C}`] = 'no ONNX export';
      }
      if (!skipped.native) {
        if (has('native')) jobs.push({ ...base, engine: 'native' });
        if (has('native-copy')) jobs.push({ ...base, engine: 'native-copy', donate: false });
      }
    }
  }
  for (const [k, why] of Object.entries(skipped)) console.error(`llm: skipping ${k}: ${why}`);
  const load0 = os.loadavg();
  if (load0[0] > 0.5) console.error(`llm: load average ${load0.map((x) => x.toFixed(2)).join(' ')}: the machine is not idle, timings will be noisy`);
  const started = new Date();
  const raw = [];
  let done = 0;
  for (let pass = 0; pass < o.passes; pass++) {
    // Rotate (and every other pass reverse) the order, so drifting load hits every engine alike.
    const k = jobs.length ? (pass * 3) % jobs.length : 0;
    let order = [...jobs.slice(k), ...jobs.slice(0, k)];
    if (pass % 2) order = order.reverse();
    for (const job of order) {
      const waited = o.waitIdle > 0 ? await waitIdle(o.waitIdle) : 0;
      const snap0 = cpuSnapshot();
      const t0 = performance.now();
      let r;
      if (job.engine.startsWith('native')) {
        r = { ...job, ...nativeJob(o, job) };
      } else {
        const spec = { ...job, dir: o.dir, runs: o.runs, warmupMs: o.warmupMs };
        r = (await runProcess(process.execPath, [path.join(BENCH_DIR, 'llm.mjs'), '--child', JSON.stringify(spec)], o.timeout)).pop();
        r = { ...job, ...r };
      }
      r.pass_no = pass + 1;
      r.wall_s = (performance.now() - t0) / 1000;
      r.others_cores = othersCores(snap0, cpuSnapshot());
      r.waited_idle_s = waited;
      raw.push(r);
      done++;
      const what = r.error ? `ERROR ${r.error}` :
        `prefill ${fmt(r.prefill_tok_s)} tok/s (${r.prefill_ms.toFixed(2)} ms), decode ${fmt(r.decode_tok_s)} tok/s (${r.decode_ms_per_token.toFixed(3)} ms/token)` +
        `${r.cpu_util != null ? `, cpu ${r.cpu_util.toFixed(2)}` : ''}${r.others_cores != null ? `, others ${r.others_cores.toFixed(2)} cores` : ''}, copied/step ${r.cache_bytes_copied_per_step ?? '-'}, tokens ${r.tokens_match ? 'match' : 'DIFFER ' + r.first_mismatch}`;
      console.error(`[${done}/${o.passes * jobs.length}] pass ${pass + 1} ${job.engine} ${job.threads}t ${job.weights} C=${job.cache}: ${what}`);
    }
  }
  const sum = summarize(raw, o.maxOthers);
  console.log('\n' + table(o, sum));
  for (const [k, why] of Object.entries(skipped)) console.log(`\n(${k} skipped: ${why})`);
  const stamp = started.toISOString().replace(/[:]/g, '-').replace(/\..*/, '');
  const outFile = o.out ?? path.join(path.dirname(o.dir), `llm-results-${stamp}.json`);
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, JSON.stringify({
    started: started.toISOString(), finished: new Date().toISOString(),
    host: { cpu: os.cpus()[0]?.model, cpus: os.cpus().length, node: process.version, loadavg_start: load0, loadavg_end: os.loadavg() },
    options: o, skipped, summary: [...sum.values()], raw,
  }, null, 1) + '\n');
  console.log(`\nraw results: ${path.relative(process.cwd(), outFile) || outFile}`);
  if (raw.some((r) => r.error || !r.tokens_match && r.weights === 'float32')) process.exitCode = 1;
}

main().then(
  () => { if (process.argv[2] === '--child') process.exit(0); }, // ort-web's worker threads keep a child alive
  (e) => {
    if (process.argv[2] === '--child') process.stdout.write(JSON.stringify({ error: String(e?.message || e).split('\n')[0] }) + '\n');
    console.error(`llm: ${e?.stack || e}`);
    process.exit(process.argv[2] === '--child' ? 1 : 2);
  },
);
