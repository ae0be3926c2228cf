#!/usr/bin/env node
// Side-by-side in one process: several engines on one model and thread count,
// alternating in rounds, so that load drifting on a shared machine lands on
// every engine alike. bench/run.sh --baseline REV starts one of these per
// (model, threads) with this tree's build, REV's build and onnxruntime-web.
//
//   node bench/ab.mjs --model NAME --threads N --engines LABEL=SPEC,...
//        [--rounds 6] [--round-ms 1500] [--warmup-ms 2000] [--settle-ms 50] [--dir build/bench]
//        [--flavor DIR] [--rtol 1e-4] [--atol 1e-4]
//   SPEC: ours (this checkout's npm/), ours:DIR (the npm/ of the checkout at DIR),
//         or any engine of lib/engines.mjs (ort-web, ort-node, tfjs).
//
// Each round runs every engine in turn (the order rotates, and reverses every
// other round: ABC CBA BCA ACB ...) for about --round-ms each, at least 3 runs,
// after untimed runs for --settle-ms (at least 2).
// An engine's number is the median of its per-round medians; a ratio A/B is the
// median over rounds of A's round median over B's, so a slow minute that hits
// one round hits both sides of that round's ratio. Every engine's first and
// last outputs are checked against PyTorch's. Prints one JSON line.
import os from 'node:os';
import path from 'node:path';
import { REPO, compare, list, loadBenchModel, median, parseArgs, timeTurn } from './lib/common.mjs';
import { ENGINES } from './lib/engines.mjs';

function parseEngineSpecs(s) {
  return list(s).map((item) => {
    const eq = item.indexOf('=');
    const label = eq > 0 ? item.slice(0, eq) : item;
    const spec = eq > 0 ? item.slice(eq + 1) : item;
    const colon = spec.indexOf(':');
    const engine = colon > 0 ? spec.slice(0, colon) : spec;
    const repo = colon > 0 ? path.resolve(spec.slice(colon + 1)) : undefined;
    if (!ENGINES[engine]) throw new Error(`--engines: unknown engine '${engine}' in '${item}' (${Object.keys(ENGINES).join(', ')})`);
    if (repo && engine !== 'ours') throw new Error(`--engines: only 'ours' takes a checkout (${item})`);
    return { label, engine, repo };
  });
}

// Round r's engine order: rotated by r, reversed on odd rounds.
function roundOrder(n, r) {
  const order = [...Array(n).keys()].map((i) => (i + r) % n);
  return r % 2 ? order.reverse() : order;
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const name = a.model;
  if (!name) throw new Error('--model is required');
  const threads = Number(a.threads ?? 1);
  const dir = path.resolve(a.dir ?? path.join(REPO, 'build', 'bench'));
  const rounds = Number(a.rounds ?? 6);
  const roundMs = Number(a.round_ms ?? 1500);
  const warmupMs = Number(a.warmup_ms ?? 2000);
  const settleMs = Number(a.settle_ms ?? 50);
  const rtol = Number(a.rtol ?? 1e-4);
  const atol = Number(a.atol ?? 1e-4);
  const specs = parseEngineSpecs(a.engines ?? 'ours,ort-web');
  const { mdir, meta, input, expected } = loadBenchModel(dir, name);

  const engines = [];
  for (const s of specs) {
    const t0 = performance.now();
    const { step, info } = await ENGINES[s.engine]({ dir, name, mdir, meta, input, threads, flavor: a.flavor, repo: s.repo });
    engines.push({ ...s, step, info, load_ms: performance.now() - t0, rounds: [], runs: 0, first: null, last: null });
  }
  // Warm-up, alternating too: JIT tier-up and the first runs' page faults.
  const w0 = performance.now();
  do {
    for (const e of engines) {
      const out = await e.step();
      e.first ??= out;
    }
  } while (performance.now() - w0 < warmupMs);

  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const i of roundOrder(engines.length, r)) {
      const e = engines[i];
      // Untimed runs first: onnxruntime-web's pool keeps threads spinning for a while after a
      // run, which doubled a 2-thread GEMV's first runs.
      const turn = await timeTurn(e, roundMs, settleMs);
      e.rounds.push(turn.median);
      e.runs += turn.runs;
    }
  }
  const cpu = process.cpuUsage(cpu0);
  const result = {
    model: name, threads, rounds, round_ms: roundMs, engines: {}, ratios: {},
    cpu_util: (cpu.user + cpu.system) / 1000 / (performance.now() - wall0),
    node: process.version, cpus: os.cpus().length, loadavg: os.loadavg(),
  };
  for (const e of engines) {
    const c1 = compare(e.first, expected, rtol, atol);
    const c2 = compare(e.last, expected, rtol, atol);
    result.engines[e.label] = {
      engine: e.engine, repo: e.repo, median_ms: median(e.rounds), round_medians: e.rounds, runs: e.runs,
      load_ms: e.load_ms, info: e.info,
      max_abs_diff: c1.max_abs_diff == null || c2.max_abs_diff == null ? null : Math.max(c1.max_abs_diff, c2.max_abs_diff),
      pass: c1.pass && c2.pass, ...(c1.error ? { error: c1.error } : {}),
      ...(meta.kind === 'gemm' ? { gflops: meta.flops / (median(e.rounds) * 1e6) } : {}),
    };
  }
  for (const x of engines) {
    for (const y of engines) {
      if (x === y) continue;
      result.ratios[`${x.label}/${y.label}`] = median(x.rounds.map((v, r) => v / y.rounds[r]));
    }
  }
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().then(
  () => process.exit(0), // engines' worker threads would keep the process alive
  (e) => {
    const a = parseArgs(process.argv.slice(2));
    process.stdout.write(JSON.stringify({ model: a.model, threads: Number(a.threads ?? 1), error: String(e?.message || e).split('\n')[0] }) + '\n');
    process.stderr.write(`ab: ${e?.stack || e}\n`);
    process.exit(1);
  },
);
