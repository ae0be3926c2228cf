#!/usr/bin/env node
// Our int8 vs our float32, side by side in one process: the two variants of a model that
// bench/export_quantized_bench.py wrote (build/bench/quantized/<name>/{f32,int8}), loaded with
// our npm package at the same thread count, alternating in rounds so that load drifting on a
// shared machine lands on both alike (as bench/ab.mjs does for engines).
//
//   node bench/quantized.mjs --model NAME --threads N [--rounds 6] [--round-ms 1500]
//        [--warmup-ms 2000] [--settle-ms 50] [--dir build/bench/quantized] [--rtol 1e-4]
//        [--atol 1e-4] [--tiering eager|dynamic] [--memory 0] [--weight-dtype int8|int4|int4:G]
//
// --weight-dtype: the quantized variant is the float32 model loaded with that weightDtype
// (load-time quantization; weightGroupSize G), checked against the float32 module's output
// (there is no PyTorch run of it: its max difference is reported, relative to max |output|).
// Each round runs f32 then int8 (int8 then f32 on odd rounds) for about --round-ms each, at
// least 3 timed runs, after untimed runs for --settle-ms (at least 2). A variant's number is the
// median of its per-round medians; the ratio int8/f32 is the median over rounds of the round's
// int8 median over its f32 median, so a slow minute that hits one round hits both sides of
// that round's ratio.
// Checks (first and last output of each variant):
//   f32:  vs the f32 io's output.0 (the float32 PyTorch module), allclose rtol/atol 1e-4
//   int8: vs the int8 io's output.0 (PyTorch's quantized module): max |ours - output.0| <=
//         quant_error / 4, quant_error = max |output.0 - float_output.0| (as
//         tests/fixtures/quantized verifies); also reported: max |ours - float_output.0|
// Memory: the weight files' sizes, the bound weights' bytes in WASM memory (placement()), the
// WASM heap malloc holds for each variant alone in a fresh process once it is loaded
// (bound weights + packed/folded copies + activation arena; needs build/wasm-test, the
// test build with its _debugHeapInUse hook; --memory 0 skips it) and that less the model's
// activation arena (weights as bound + packed/folded copies).
// After the timed rounds, one profiled run of the int8 model lists the quantization nodes that
// still ran as nodes (not lowered into an integer op, not folded at load).
// Prints one JSON line. Node runs with V8_EAGER_WASM_FLAGS (every WASM function compiled by the
// optimizing tier at load, as bench/run.mjs starts its processes): this script re-executes
// itself with them unless they are already given (--tiering dynamic: V8's default tiering).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { REPO, compare, median, parseArgs, readSafetensors, reexecWithEagerWasm, testBuildHeap, timeTurn } from './lib/common.mjs';

const VARIANTS = ['f32', 'int8'];

/** Max |a - b| (Infinity when a value is not finite or the sizes differ). */
function maxAbsDiff(a, b) {
  if (!a || a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = Number.isNaN(d) ? Infinity : d;
  }
  return m;
}

// The loadIR options of --weight-dtype SPEC ('int4:G': a group size).
function weightOptions(spec) {
  if (!spec) return {};
  const [weightDtype, g] = String(spec).split(':');
  return { weightDtype, ...(g ? { weightGroupSize: Number(g) } : {}) };
}

async function loadVariant(tir, vdir, threads, weightDtype) {
  const io = readSafetensors(path.join(vdir, 'io.safetensors'));
  const weights = path.join(vdir, 'weights.safetensors');
  const t0 = performance.now();
  const model = await tir.loadIR(path.join(vdir, 'model.json'), { weights, threads, ...weightOptions(weightDtype) });
  const load_ms = performance.now() - t0;
  const feeds = {};
  for (const m of model.inputs) {
    const t = io[`input.${m.name}`];
    if (!t) throw new Error(`${vdir}/io.safetensors has no input.${m.name}`);
    feeds[m.name] = t.data;
  }
  let wasm_weight_bytes = null;
  try {
    wasm_weight_bytes = model.placement().weights?.wasm ?? null;
  } catch {
    // no placement on this build: file sizes only
  }
  return {
    model, io, feeds, load_ms,
    step: async () => (await model.execute(feeds))[0].data,
    file_bytes: fs.statSync(weights).size, wasm_weight_bytes, arena_bytes: model.arenaBytes(),
    rounds: [], runs: 0, first: null, last: null,
  };
}

// --memory-probe DIR: a child process (default tiering: it times nothing) that loads one variant
// on the test build (build/wasm-test: the same engine plus bindings/embind_debug.cpp's hooks),
// runs it once and prints the WASM heap malloc holds for it (_debugHeapInUse, dlmalloc's
// mallinfo: bound weights, packed/folded copies, activation arena).
async function memoryProbe(vdir, weightDtype) {
  const heap = await testBuildHeap();
  if (!heap) return { error: 'build/wasm-test not built (scripts/build_wasm.sh --tests)' };
  const { tir, backend, inUse } = heap;
  const before = inUse();
  const v = await loadVariant(tir, vdir, 1, weightDtype);
  const loaded = inUse() - before;
  await v.step();
  // What the model holds besides its activation arena: weights as bound + packed/folded copies.
  return { loaded_bytes: loaded, arena_bytes: v.arena_bytes, weights_in_memory_bytes: loaded - v.arena_bytes,
           in_use_after_run_bytes: inUse() - before, heap_bytes: backend.heapBytes() };
}

function runMemoryProbe(vdir, weightDtype) {
  const extra = weightDtype ? ['--weight-dtype', weightDtype] : [];
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--memory-probe', vdir, ...extra],
    { encoding: 'utf8', maxBuffer: 1 << 20, timeout: 300e3 });
  const line = (r.stdout || '').split('\n').find((l) => l.startsWith('{'));
  if (!line) return { error: `memory probe: exit ${r.status}: ${(r.stderr || '').trim().split('\n').slice(-2).join(' | ')}` };
  return JSON.parse(line);
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  if (a.memory_probe) {
    process.stdout.write(JSON.stringify(await memoryProbe(path.resolve(a.memory_probe), a.weight_dtype)) + '\n');
    return;
  }
  reexecWithEagerWasm(import.meta.url, a.tiering ?? 'eager');
  const name = a.model;
  if (!name) throw new Error('--model is required');
  const threads = Number(a.threads ?? 1);
  const dir = path.resolve(a.dir ?? path.join(REPO, 'build', 'bench', 'quantized'));
  const rounds = Number(a.rounds ?? 6);
  const roundMs = Number(a.round_ms ?? 1500);
  const warmupMs = Number(a.warmup_ms ?? 2000);
  const settleMs = Number(a.settle_ms ?? 50);
  const rtol = Number(a.rtol ?? 1e-4);
  const atol = Number(a.atol ?? 1e-4);
  const mdir = path.join(dir, name);
  const metaPath = path.join(mdir, 'meta.json');
  if (!fs.existsSync(metaPath)) throw new Error(`${metaPath} missing: run bench/export_quantized_bench.py (bench/quantized.sh)`);
  const meta = JSON.parse(fs.readFileSync(metaPath, 'utf8'));

  const distWasm = path.join(REPO, 'npm', 'dist', threads === 1 ? 'torch-ir-wasm-simd.wasm' : 'torch-ir-wasm-simd-threaded.wasm');
  if (!fs.existsSync(distWasm)) throw new Error(`${distWasm} not built (scripts/build_wasm.sh)`);
  // Memory first, one fresh process per variant (nothing else in its heap).
  // --weight-dtype: the quantized variant is the f32 folder, quantized at load
  const vdirOf = (k) => path.join(mdir, k === 'int8' && a.weight_dtype ? 'f32' : k);
  const dtypeOf = (k) => (k === 'int8' ? a.weight_dtype : undefined);
  const memory = a.memory === '0' ? null
    : Object.fromEntries(VARIANTS.map((k) => [k, runMemoryProbe(vdirOf(k), dtypeOf(k))]));
  const tir = await import(pathToFileURL(path.join(REPO, 'npm', 'index.js')).href);

  // Both variants share one backend (one WASM memory).
  const v = {};
  for (const k of VARIANTS) v[k] = await loadVariant(tir, vdirOf(k), threads, dtypeOf(k));

  // Warm-up, alternating: JIT tier-up and the first runs' page faults.
  const w0 = performance.now();
  do {
    for (const k of VARIANTS) {
      const out = await v[k].step();
      v[k].first ??= out;
    }
  } while (performance.now() - w0 < warmupMs);

  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 ? [...VARIANTS].reverse() : VARIANTS;
    for (const k of order) {
      const e = v[k];
      const turn = await timeTurn(e, roundMs, settleMs);
      e.rounds.push(turn.median);
      e.runs += turn.runs;
    }
  }
  const cpu = process.cpuUsage(cpu0);
  const cpuUtil = (cpu.user + cpu.system) / 1000 / (performance.now() - wall0);

  // Checks.
  const f = v.f32;
  const c1 = compare(f.first, f.io['output.0'], rtol, atol);
  const c2 = compare(f.last, f.io['output.0'], rtol, atol);
  const f32Check = {
    max_abs_diff: Math.max(c1.max_abs_diff ?? Infinity, c2.max_abs_diff ?? Infinity),
    rtol, atol, pass: c1.pass && c2.pass, ...(c1.error ? { error: c1.error } : {}),
  };
  const q = v.int8;
  const ref = q.io['output.0'].data;
  const fref = a.weight_dtype ? ref : q.io['float_output.0'].data;
  const quantError = maxAbsDiff(ref, fref);
  const qDiff = Math.max(maxAbsDiff(q.first, ref), maxAbsDiff(q.last, ref));
  const over = (out) => out.reduce((n, x, i) => n + (Math.abs(x - ref[i]) > quantError / 4 ? 1 : 0), 0);
  const yMax = ref.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
  const int8Check = a.weight_dtype ? {
    weight_dtype: a.weight_dtype, vs_float_output: qDiff, relative_to_max_output: qDiff / yMax,
    pass: Number.isFinite(qDiff) && maxAbsDiff(q.first, q.last) === 0,
  } : {
    max_abs_diff: qDiff, tol: quantError / 4, quant_error: quantError,
    over_tol: Math.max(over(q.first), over(q.last)), values: ref.length,
    vs_float_output: Math.max(maxAbsDiff(q.first, fref), maxAbsDiff(q.last, fref)),
    pass: qDiff <= quantError / 4,
  };

  // Which quantization nodes still ran as nodes (one profiled run of int8).
  let quantNodesRun = null;
  try {
    q.model.setProfiling(true);
    await q.step();
    quantNodesRun = {};
    for (const t of q.model.profile()) {
      if (t.folded) continue;
      if (/^(quantized_decomposed|torchao)\./.test(t.opType)) {
        const short = t.opType.replace(/^(quantized_decomposed|torchao)\./, '');
        quantNodesRun[short] = (quantNodesRun[short] ?? 0) + 1;
      }
    }
    q.model.setProfiling(false);
  } catch (e) {
    quantNodesRun = { error: String(e?.message || e) };
  }

  const f32Ms = median(f.rounds);
  const int8Ms = median(q.rounds);
  const result = {
    model: name, threads, f32_ms: f32Ms, int8_ms: int8Ms,
    ratio: median(q.rounds.map((x, r) => x / f.rounds[r])),
    rounds, round_ms: roundMs,
    f32_round_ms: f.rounds, int8_round_ms: q.rounds, runs: { f32: f.runs, int8: q.runs },
    ...(meta.flops ? { gops: { f32: meta.flops / (f32Ms * 1e6), int8: meta.flops / (int8Ms * 1e6) } } : {}),
    checks: { f32: f32Check, int8: int8Check },
    pass: f32Check.pass && int8Check.pass,
    weights: {
      file_bytes: { f32: f.file_bytes, int8: q.file_bytes },
      wasm_bytes: { f32: f.wasm_weight_bytes, int8: q.wasm_weight_bytes },
      // WASM heap malloc holds for the model once loaded, alone in a fresh process (test build),
      // less its activation arena: the weights as bound plus their packed/folded copies.
      in_memory_bytes: memory && { f32: memory.f32.weights_in_memory_bytes ?? null, int8: memory.int8.weights_in_memory_bytes ?? null },
      ...(memory ? { memory_probe: memory } : {}),
      arena_bytes: { f32: f.arena_bytes, int8: q.arena_bytes },
    },
    int8_quant_nodes_run: quantNodesRun,
    load_ms: { f32: f.load_ms, int8: q.load_ms },
    flow: meta.flow, input_shape: meta.input_shape,
    variant: f.model.backend.variant, engine_threads: f.model.backend.threads,
    cpu_util: cpuUtil, node: process.version, cpus: os.cpus().length, loadavg: os.loadavg(),
  };
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().then(
  () => process.exit(0), // the engine's worker threads would keep the process alive
  (e) => {
    const a = parseArgs(process.argv.slice(2));
    process.stdout.write(JSON.stringify({ model: a.model, threads: Number(a.threads ?? 1), error: String(e?.message || e).split('\n')[0] }) + '\n');
    process.stderr.write(`quantized: ${e?.stack || e}\n`);
    process.exit(1);
  },
);
