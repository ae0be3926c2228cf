// Shared by run.mjs and runner.mjs: argument parsing, safetensors reading,
// statistics and the comparison against PyTorch's outputs. Kept free of any
// engine so that every runner reads the reference the same way.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const REPO = path.dirname(BENCH_DIR);

/** --key value / --flag pairs into an object ({ _: [positional] }). */
export function parseArgs(argv, flags = []) {
  const out = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      out._.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const key = (eq > 0 ? a.slice(2, eq) : a.slice(2)).replace(/-/g, '_');
    if (eq > 0) out[key] = a.slice(eq + 1);
    else if (flags.includes(key)) out[key] = true;
    else if (i + 1 < argv.length) out[key] = argv[++i];
    else throw new Error(`missing value for ${a}`);
  }
  return out;
}

export const list = (s) => String(s).split(',').map((x) => x.trim()).filter(Boolean);

const DTYPES = { F32: Float32Array, F64: Float64Array, I64: BigInt64Array, I32: Int32Array };

/** Reads a .safetensors file: { name: {dtype, shape, data} } (data copied, aligned). */
export function readSafetensors(file) {
  const buf = fs.readFileSync(file);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const base = 8 + n;
  const out = {};
  for (const [name, h] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const Ctor = DTYPES[h.dtype];
    if (!Ctor) throw new Error(`${file}: ${name} has unsupported dtype ${h.dtype}`);
    const [b, e] = h.data_offsets;
    const bytes = new Uint8Array(e - b);
    bytes.set(buf.subarray(base + b, base + e));
    out[name] = { dtype: h.dtype, shape: h.shape, data: new Ctor(bytes.buffer) };
  }
  return out;
}

/** Model files written by export_bench.py: meta, input, expected output. */
export function loadBenchModel(dir, name) {
  const mdir = path.join(dir, 'models', name);
  const metaPath = path.join(mdir, 'meta.json');
  if (!fs.existsSync(metaPath)) throw new Error(`${metaPath} missing: run bench/export_bench.py`);
  const meta = JSON.parse(fs.readFileSync(metaPath, 'utf8'));
  const io = readSafetensors(path.join(mdir, 'io.safetensors'));
  const input = io[`input.${meta.input}`];
  const expected = io['output.0'];
  if (!input || !expected) throw new Error(`${mdir}/io.safetensors lacks input.${meta.input} / output.0`);
  return { mdir, meta, input, expected };
}

export function quantile(sorted, q) {
  if (!sorted.length) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export function median(values) {
  return quantile([...values].sort((a, b) => a - b), 0.5);
}

export function timingStats(times) {
  const s = [...times].sort((a, b) => a - b);
  return { median_ms: quantile(s, 0.5), min_ms: s[0], p90_ms: quantile(s, 0.9) };
}

/**
 * Output vs PyTorch: max |a-b|, max |a-b| / max(|b|, atol) (relative error where
 * the reference is not tiny), and torch.allclose(a, b, rtol, atol) semantics
 * for PASS. Non-finite values or a size mismatch fail.
 */
export function compare(actual, expected, rtol, atol) {
  const e = expected.data;
  const a = actual;
  if (!a || a.length !== e.length) {
    return { max_abs_diff: null, max_rel_diff: null, pass: false,
             error: `output has ${a ? a.length : 0} values, PyTorch's ${e.length}` };
  }
  let maxAbs = 0;
  let maxRel = 0;
  let pass = true;
  for (let i = 0; i < e.length; i++) {
    const d = Math.abs(a[i] - e[i]);
    if (!(d <= atol + rtol * Math.abs(e[i]))) pass = false; // NaN fails too
    if (!(d <= maxAbs)) maxAbs = Number.isNaN(d) ? Infinity : Math.max(maxAbs, d);
    const r = d / Math.max(Math.abs(e[i]), atol);
    if (!(r <= maxRel)) maxRel = Number.isNaN(r) ? Infinity : Math.max(maxRel, r);
  }
  return { max_abs_diff: maxAbs, max_rel_diff: maxRel, pass };
}

/**
 * Node flags for the engines' processes (bench/run.mjs --tiering eager, the default):
 * V8 compiles every WASM function with its optimizing tier at load. With V8's
 * default dynamic tiering, code starts in the baseline tier and hot functions are
 * optimized in the background; with both cores of a 2-core machine running an
 * engine's two threads that takes seconds: our ResNet-18 at 2 threads ran
 * 108-116 ms per run for its first ~6.5 s, then 47 ms (Node 20, 2026-11-27), so a
 * 3 s warm-up measured the baseline tier. Every engine gets the same flags.
 */
export const V8_EAGER_WASM_FLAGS = ['--no-liftoff', '--no-wasm-lazy-compilation'];

/**
 * Re-executes the calling script (scriptUrl: its import.meta.url) with V8_EAGER_WASM_FLAGS unless
 * they are given or tiering is 'dynamic' (V8's default tiering); exits with the child's status.
 */
export function reexecWithEagerWasm(scriptUrl, tiering = 'eager') {
  if (tiering !== 'eager') return;
  if (V8_EAGER_WASM_FLAGS.every((f) => process.execArgv.includes(f))) return;
  const r = spawnSync(process.execPath, [...process.execArgv, ...V8_EAGER_WASM_FLAGS,
    fileURLToPath(scriptUrl), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

/**
 * Our npm package on the test build (build/wasm-test: the same engine plus
 * bindings/embind_debug.cpp's hooks), for a memory probe: { tir, backend, inUse() } where inUse()
 * is the WASM heap malloc holds (dlmalloc's mallinfo). null when that build is missing.
 */
export async function testBuildHeap() {
  const testDir = path.join(REPO, 'build', 'wasm-test');
  if (!fs.existsSync(path.join(testDir, 'torch-ir-wasm-simd.wasm'))) return null;
  const tir = await import(pathToFileURL(path.join(REPO, 'npm', 'index.js')).href);
  tir.env.wasmPaths = pathToFileURL(testDir).href + '/';
  const backend = await tir.getBackend({ threads: 1 });
  return { tir, backend, inUse: () => Number(backend.module._debugHeapInUse()) };
}

/**
 * Warm-up (at least `warmup` runs and `warmupMs`), then timed runs of `step` (input in, output out as a typed array).
 * runs > 0: exactly that many; else adaptive: enough for about budgetMs,
 * between minRuns and maxRuns. Returns the first and the last output: both are
 * checked, so an engine that goes wrong once warm does not pass.
 */
export async function timeRuns(step, { warmup = 3, warmupMs = 3000, runs = 0, minRuns = 10, maxRuns = 50, budgetMs = 3000 } = {}) {
  let first = null;
  let warmMs = Infinity;
  // At least `warmup` runs and `warmupMs`: V8 compiles WASM with its baseline
  // tier first and tiers hot functions up separately in every worker thread,
  // which takes seconds when both cores are busy; every engine gets the same.
  const warmStart = performance.now();
  for (let i = 0; i < Math.max(1, warmup) || performance.now() - warmStart < warmupMs; i++) {
    const t0 = performance.now();
    const out = await step();
    warmMs = performance.now() - t0;
    if (!first) first = out;
  }
  const n = runs > 0 ? runs : Math.max(minRuns, Math.min(maxRuns, Math.ceil(budgetMs / Math.max(warmMs, 1e-3))));
  const times = [];
  let last = first;
  // CPU time of the whole process (every thread) over wall time: ~1 when one
  // core works, ~2 when two do. Shows whether a thread setting took effect.
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    last = await step();
    times.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  const cpuUtil = (cpu.user + cpu.system) / 1000 / (performance.now() - wall0);
  return { first, last, times, cpuUtil };
}

// Runs one process; resolves to its JSON lines (an error record when it failed).
export function runProcess(cmd, args, timeoutS) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutS * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const rs = [];
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          rs.push(JSON.parse(line));
        } catch {
          // not one of ours
        }
      }
      if (!rs.length || code !== 0) {
        const why = signal ? `killed (${signal}${signal === 'SIGKILL' ? `, over ${timeoutS} s` : ''})` : `exit ${code}`;
        const r = rs.pop() ?? {};
        rs.push({ ...r, error: r.error ?? `${why}: ${err.trim().split('\n').slice(-3).join(' | ')}` });
      }
      resolve(rs);
    });
  });
}

// One engine's turn in an alternating round (bench/ab.mjs, bench/quantized.mjs): untimed runs for
// settleMs (at least 2: an engine that ran before may still have threads spinning), then timed
// runs for about roundMs (at least 3, at most 200). e.step() runs once and returns the outputs,
// kept in e.last; returns the turn's median time and its number of timed runs.
export async function timeTurn(e, roundMs, settleMs) {
  const settle = performance.now();
  for (let w = 0; w < 2 || performance.now() - settle < settleMs; w++) e.last = await e.step();
  const times = [];
  const start = performance.now();
  while (times.length < 3 || performance.now() - start < roundMs) {
    const t0 = performance.now();
    e.last = await e.step();
    times.push(performance.now() - t0);
    if (times.length >= 200) break;
  }
  return { median: median(times), runs: times.length };
}
