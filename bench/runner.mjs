#!/usr/bin/env node
// One benchmark process: one engine, one thread count, one model. Loads the
// files export_bench.py wrote, checks the output against PyTorch's, times the
// runs and prints one JSON line (stdout). run.mjs starts one of these per
// (engine, threads, model) so that no engine inherits another's heap, thread
// pool or JIT state.
//
//   node bench/runner.mjs --engine ours|ort-web|ort-node|tfjs --model NAME --threads N
//        [--dir build/bench] [--flavor DIR] [--runs N] [--warmup N] [--warmup-ms MS] [--budget-ms MS]
//        [--min-runs N] [--max-runs N] [--rtol 1e-4] [--atol 1e-4]
import os from 'node:os';
import path from 'node:path';
import { REPO, compare, loadBenchModel, parseArgs, timeRuns, timingStats } from './lib/common.mjs';
import { ENGINES } from './lib/engines.mjs';

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const engine = a.engine;
  const name = a.model;
  const threads = Number(a.threads ?? 1);
  const dir = path.resolve(a.dir ?? path.join(REPO, 'build', 'bench'));
  const rtol = Number(a.rtol ?? 1e-4);
  const atol = Number(a.atol ?? 1e-4);
  if (!ENGINES[engine]) throw new Error(`unknown engine '${engine}' (${Object.keys(ENGINES).join(', ')})`);
  if (!name) throw new Error('--model is required');
  const result = { engine, model: name, threads };
  const { mdir, meta, input, expected } = loadBenchModel(dir, name);
  const tLoad = performance.now();
  const { step, info } = await ENGINES[engine]({ dir, name, mdir, meta, input, threads, flavor: a.flavor });
  result.load_ms = performance.now() - tLoad;
  const { first, last, times, cpuUtil } = await timeRuns(step, {
    warmup: Number(a.warmup ?? 3),
    warmupMs: Number(a.warmup_ms ?? 3000),
    runs: Number(a.runs ?? 0),
    minRuns: Number(a.min_runs ?? 10),
    maxRuns: Number(a.max_runs ?? 50),
    budgetMs: Number(a.budget_ms ?? 3000),
  });
  const c1 = compare(first, expected, rtol, atol);
  const c2 = compare(last, expected, rtol, atol);
  const worse = (x, y) => (x === null || y === null ? null : Math.max(x, y));
  Object.assign(result, timingStats(times), { runs: times.length, cpu_util: cpuUtil });
  if (meta.kind === 'gemm') result.gflops = meta.flops / (result.median_ms * 1e6);
  Object.assign(result, {
    max_abs_diff: worse(c1.max_abs_diff, c2.max_abs_diff),
    max_rel_diff: worse(c1.max_rel_diff, c2.max_rel_diff),
    rtol, atol, pass: c1.pass && c2.pass,
    ...(c1.error ? { error: c1.error } : {}),
    info, node: process.version, cpus: os.cpus().length,
  });
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().then(
  () => process.exit(0), // ort-web / tfjs worker threads would keep the process alive
  (e) => {
    const a = parseArgs(process.argv.slice(2));
    process.stdout.write(JSON.stringify({
      engine: a.engine, model: a.model, threads: Number(a.threads ?? 1), error: String(e?.message || e).split('\n')[0],
    }) + '\n');
    process.stderr.write(`runner: ${e?.stack || e}\n`);
    process.exit(1);
  },
);
