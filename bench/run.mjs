#!/usr/bin/env node
// The cross-engine benchmark (bench/README.md): exports the models if needed,
// then runs interleaved passes in which every (engine, threads) process runs
// once per model, in an order that rotates from pass to pass, so that load
// drifting on the machine hits every engine alike. The final number of each
// (engine, threads, model) is the median across passes of each process's
// median. bench/run.sh (npm ci first) is the usual entry point.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_DIR, REPO, V8_EAGER_WASM_FLAGS, list, median, parseArgs, runProcess } from './lib/common.mjs';

const ALL_MODELS = ['resnet18', 'mobilenet_v2', 'transformer_encoder', 'mlp', 'gemm', 'gemv'];
const ALL_ENGINES = ['ort-web', 'ours', 'tfjs', 'ort-node', 'ours-native', 'xnnpack'];
const WASM_ENGINES = ['ort-web', 'ours', 'tfjs'];
const NATIVE_ENGINES = ['ort-node', 'ours-native'];
// xnnpack: bench/xnnpack_anchor.cpp, one process per thread count and pass for
// every case (gemm, gemv and ResNet-18's conv shapes), not per model.
const GEMM_ONLY = new Set(['tfjs']);

const USAGE = `usage: bench/run.sh [options]      (or: node bench/run.mjs, after npm ci in bench/)
  --models LIST     ${ALL_MODELS.join(',')} (default: all)
  --engines LIST    ${ALL_ENGINES.join(',')} (default: all; tfjs runs gemm/gemv
                    only; xnnpack is the native XNNPACK anchor, bench/xnnpack_anchor.cpp)
  --threads LIST    thread counts (default 1,2)
  --passes N        interleaved passes (default 5)
  --runs N          timed runs per process (default 0: adaptive, about --budget-ms of runs,
                    between --min-runs 10 and --max-runs 50)
  --warmup N        untimed runs first (default 3)
  --warmup-ms MS    ... and at least this long, JS engines (default 3000; 300 with --quick): WASM tier-up
  --budget-ms MS    adaptive run budget per process (default 3000)
  --quick           smoke test: 1 pass, 3 runs, 1 warm-up
  --tiering MODE    eager (default): every Node process runs with ${V8_EAGER_WASM_FLAGS.join(' ')},
                    so WASM runs optimized code from the first run; dynamic: V8's default
                    (baseline code first, hot functions optimized in the background)
  --relaxed-simd    Node processes run with --experimental-wasm-relaxed-simd (Node 20 has relaxed
                    SIMD behind that flag; Chromium and Node 22 have it on): our f32 GEMM then runs
                    on relaxed_madd, as it does in a browser. Every engine gets the flag
  --flavor SUBSTR   IR flavor for our engine (default: the torch 2.x training IR)
  --rtol R --atol A tolerance of the PASS check against PyTorch (default 1e-4 both)
  --dir DIR         exported models and results (default build/bench)
  --no-export       do not run the exporter (use what is in DIR)
  --timeout S       per process (default 900)
  --out FILE        raw results (default DIR/results-<date>.json)
  --baseline REV[,REV...]
                    A/B mode: builds each revision's WASM dist in a worktree (bench/build_baseline.sh,
                    build/baseline/<sha>; ccache makes it cheap) and runs, for every model and
                    thread count, one process (bench/ab.mjs) in which this tree's build ('new'),
                    each REV's (labelled by its short sha) and onnxruntime-web (unless --engines
                    leaves ort-web out) alternate in rounds; prints new/REV and new/ort-web per
                    model and thread count, and flags a model more than 5% slower than a REV
  --rounds N        A/B rounds per process (default 6)
  --round-ms MS     A/B: each engine's share of a round (default 1500)
  --settle-ms MS    A/B: untimed runs before each engine's share of a round (default 50, at least 2 runs)`;

function opts() {
  const a = parseArgs(process.argv.slice(2), ['quick', 'no_export', 'relaxed_simd', 'help', 'h']);
  const baseline = a.baseline;
  if (a.help || a.h) {
    console.log(USAGE);
    process.exit(0);
  }
  const o = {
    models: list(a.models ?? ALL_MODELS.join(',')),
    engines: list(a.engines ?? ALL_ENGINES.join(',')),
    threads: list(a.threads ?? '1,2').map(Number),
    passes: Number(a.passes ?? (a.quick ? 1 : 5)),
    runs: Number(a.runs ?? (a.quick ? 3 : 0)),
    warmup: Number(a.warmup ?? (a.quick ? 1 : 3)),
    warmupMs: Number(a.warmup_ms ?? (a.quick ? 300 : 3000)),
    budgetMs: Number(a.budget_ms ?? 3000),
    minRuns: Number(a.min_runs ?? 10),
    maxRuns: Number(a.max_runs ?? 50),
    flavor: a.flavor,
    rtol: Number(a.rtol ?? 1e-4),
    atol: Number(a.atol ?? 1e-4),
    dir: path.resolve(a.dir ?? path.join(REPO, 'build', 'bench')),
    export: !a.no_export,
    timeout: Number(a.timeout ?? 900),
    out: a.out,
    tiering: a.tiering ?? 'eager',
    relaxedSimd: !!a.relaxed_simd,
    baseline,
    rounds: Number(a.rounds ?? 6),
    roundMs: Number(a.round_ms ?? 1500),
    settleMs: Number(a.settle_ms ?? 50),
  };
  if (baseline) {
    // A/B mode: ours (new), the baseline (old) and, by default, onnxruntime-web.
    if (a.passes == null) o.passes = 1;
    if (a.engines == null) o.engines = ['ours', 'ort-web'];
    const extra = o.engines.filter((e) => !['ours', 'ort-web'].includes(e));
    if (extra.length) throw new Error(`--baseline compares ours with ort-web only, not ${extra.join(', ')}`);
  }
  if (!['eager', 'dynamic'].includes(o.tiering)) throw new Error(`--tiering: eager or dynamic, not ${o.tiering}`);
  const bad = [...o.models.filter((m) => !ALL_MODELS.includes(m)), ...o.engines.filter((e) => !ALL_ENGINES.includes(e))];
  if (bad.length || a._.length) throw new Error(`unknown ${[...bad, ...a._].join(', ')}\n${USAGE}`);
  return o;
}

function exportModels(o) {
  const py = process.env.TIR_PYTHON || '/usr/bin/python3';
  const args = [path.join(BENCH_DIR, 'export_bench.py'), '--out', o.dir, '--models', o.models.join(',')];
  if (o.flavor && ('decomposed'.includes(o.flavor) || o.flavor.includes('decomposed'))) args.push('--decomposed');
  const r = spawnSync(py, args, { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`export_bench.py failed (${r.error?.message ?? `exit ${r.status}`})`);
}

// Our native engine: tir_bench (bench/bench_models.cpp) with --json. Not
// rebuilt from here: the build directory may be busy with another build.
function findTirBench() {
  const cands = [process.env.TIR_BENCH, path.join(REPO, 'build/native/tir_bench'), path.join(REPO, 'build/release/tir_bench')];
  const bin = cands.find((p) => p && fs.existsSync(p));
  if (!bin) return { skip: 'no tir_bench (scripts/build.sh builds build/native/tir_bench)' };
  const help = spawnSync(bin, ['--help'], { encoding: 'utf8' }).stdout || '';
  if (!help.includes('--json')) return { skip: `${bin} predates --json (cmake --build ${path.dirname(bin)} --target tir_bench)` };
  return { bin };
}

// The XNNPACK anchor: Debian's libxnnpack-dev (+ libpthreadpool-dev, whose
// header it includes), compiled here with g++ when the source is newer.
function buildXnnpackAnchor(o) {
  const src = path.join(BENCH_DIR, 'xnnpack_anchor.cpp');
  const bin = path.join(o.dir, 'xnnpack_anchor');
  if (!fs.existsSync('/usr/include/xnnpack.h') || !fs.existsSync('/usr/include/pthreadpool.h')) {
    const r = spawnSync('bash', [path.join(REPO, 'scripts/setup.sh'), 'libxnnpack-dev', 'libpthreadpool-dev'], { stdio: 'inherit' });
    if (r.status !== 0) return { skip: 'libxnnpack-dev / libpthreadpool-dev not installable' };
  }
  if (!fs.existsSync(bin) || fs.statSync(bin).mtimeMs < fs.statSync(src).mtimeMs) {
    fs.mkdirSync(o.dir, { recursive: true });
    const r = spawnSync('g++', ['-O2', '-std=c++17', src, '-o', bin, '-lXNNPACK', '-lpthreadpool'], { stdio: 'inherit' });
    if (r.status !== 0) return { skip: 'bench/xnnpack_anchor.cpp did not compile' };
  }
  return { bin };
}

function flavorOf(o, model) {
  const meta = JSON.parse(fs.readFileSync(path.join(o.dir, 'models', model, 'meta.json'), 'utf8'));
  if (o.flavor) return meta.flavors.find((f) => f.includes(o.flavor)) ?? o.flavor;
  return meta.flavors.find((f) => f.endsWith('-training')) ?? meta.flavors[0];
}

// The V8 flags of every Node process the bench starts.
const nodeFlags = (o) => [...(o.tiering === 'eager' ? V8_EAGER_WASM_FLAGS : []), ...(o.relaxedSimd ? ['--experimental-wasm-relaxed-simd'] : [])];

function command(o, job, tirBench) {
  const common = ['--warmup', o.warmup, '--runs', o.runs, '--budget-ms', o.budgetMs, '--min-runs', o.minRuns,
    '--max-runs', o.maxRuns, '--rtol', o.rtol, '--atol', o.atol].map(String);
  if (job.engine === 'ours-native') {
    return [tirBench, ['--json', '--fixtures', o.dir, '--filter', `${job.model}/${flavorOf(o, job.model)}`,
      '--threads', String(job.threads), ...common]];
  }
  const args = [path.join(BENCH_DIR, 'runner.mjs'), '--engine', job.engine, '--model', job.model,
    '--threads', String(job.threads), '--dir', o.dir, '--warmup-ms', String(o.warmupMs), ...common];
  if (o.flavor) args.push('--flavor', o.flavor);
  return [process.execPath, [...nodeFlags(o), ...args]];
}

const fmtMs = (v) => (v == null || Number.isNaN(v) ? '-' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
const fmtRatio = (a, b) => (a == null || b == null ? '-' : `${(a / b).toFixed(2)}x`);
const fmtDiff = (v) => (v == null ? '-' : v.toExponential(1));

function summarize(raw) {
  const groups = new Map();
  for (const r of raw) {
    const key = `${r.engine}|${r.threads}|${r.model}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(r);
  }
  const sum = {};
  for (const [key, rs] of groups) {
    const ok = rs.filter((r) => !r.error && typeof r.median_ms === 'number');
    const s = {
      engine: rs[0].engine, threads: rs[0].threads, model: rs[0].model, processes: rs.length, ok: ok.length,
      median_ms: ok.length ? median(ok.map((r) => r.median_ms)) : null,
      pass_medians: ok.map((r) => r.median_ms),
      min_ms: ok.length ? Math.min(...ok.map((r) => r.min_ms)) : null,
      max_abs_diff: ok.length ? Math.max(...ok.map((r) => r.max_abs_diff ?? Infinity)) : null,
      max_rel_diff: ok.length ? Math.max(...ok.map((r) => r.max_rel_diff ?? Infinity)) : null,
      checked: ok.some((r) => 'pass' in r), // the XNNPACK anchor has no reference
      pass: ok.length === rs.length && ok.every((r) => r.pass),
      gflops: ok.map((r) => r.gflops).filter((g) => g != null),
      error: rs.find((r) => r.error)?.error,
    };
    sum[key] = s;
  }
  return sum;
}

function printTables(o, sum, flops) {
  const get = (e, t, m) => sum[`${e}|${t}|${m}`];
  const ms = (e, t, m) => get(e, t, m)?.median_ms ?? null;
  const T = o.threads;
  const cell = (e, t, m) => {
    const s = get(e, t, m);
    if (!s) return '-';
    if (s.median_ms == null) return 'error';
    return fmtMs(s.median_ms) + (s.pass || !s.checked ? '' : ' FAIL');
  };
  const lines = [];
  const has = (e) => o.engines.includes(e);
  // WASM in Node: ort-web vs ours (+ tfjs on the GEMMs).
  if (WASM_ENGINES.some(has)) {
    const cols = ['model'];
    for (const e of ['ort-web', 'ours']) if (has(e)) for (const t of T) cols.push(`${e} ${t}t ms`);
    if (has('ort-web') && has('ours')) for (const t of T) cols.push(`ours/ort-web ${t}t`);
    if (has('tfjs')) for (const t of T) cols.push(`tfjs ${t}t ms`);
    lines.push('WASM in Node (median ms; ratio > 1: ours slower)', '', `| ${cols.join(' | ')} |`, `|${cols.map((c, i) => (i ? '---:' : '---')).join('|')}|`);
    for (const m of o.models) {
      const row = [m];
      for (const e of ['ort-web', 'ours']) if (has(e)) for (const t of T) row.push(cell(e, t, m));
      if (has('ort-web') && has('ours')) for (const t of T) row.push(fmtRatio(ms('ours', t, m), ms('ort-web', t, m)));
      if (has('tfjs')) for (const t of T) row.push(GEMM_ONLY.has('tfjs') && !flops[m]?.gemm ? '' : cell('tfjs', t, m));
      lines.push(`| ${row.join(' | ')} |`);
    }
    lines.push('');
  }
  if (NATIVE_ENGINES.some(has)) {
    const cols = ['model'];
    for (const e of NATIVE_ENGINES) if (has(e)) for (const t of T) cols.push(`${e} ${t}t ms`);
    if (NATIVE_ENGINES.every(has)) for (const t of T) cols.push(`ours/ort-node ${t}t`);
    if (has('xnnpack')) for (const t of T) cols.push(`xnnpack ${t}t ms`);
    lines.push('Native (median ms)', '', `| ${cols.join(' | ')} |`, `|${cols.map((c, i) => (i ? '---:' : '---')).join('|')}|`);
    for (const m of o.models) {
      const row = [m];
      for (const e of NATIVE_ENGINES) if (has(e)) for (const t of T) row.push(cell(e, t, m));
      if (NATIVE_ENGINES.every(has)) for (const t of T) row.push(fmtRatio(ms('ours-native', t, m), ms('ort-node', t, m)));
      if (has('xnnpack')) for (const t of T) row.push(flops[m]?.gemm ? cell('xnnpack', t, m) : '');
      lines.push(`| ${row.join(' | ')} |`);
    }
    lines.push('');
  }
  const gemms = o.models.filter((m) => flops[m]?.gemm);
  if (gemms.length) {
    const engines = ALL_ENGINES.filter(has);
    const cols = ['GFLOP/s', ...engines.flatMap((e) => T.map((t) => `${e} ${t}t`))];
    lines.push(`| ${cols.join(' | ')} |`, `|${cols.map((c, i) => (i ? '---:' : '---')).join('|')}|`);
    for (const m of gemms) {
      const row = [m, ...engines.flatMap((e) => T.map((t) => {
        const v = ms(e, t, m);
        return v == null ? '-' : (flops[m].flops / (v * 1e6)).toFixed(1);
      }))];
      lines.push(`| ${row.join(' | ')} |`);
    }
    lines.push('');
  }
  const convs = [...new Set(Object.values(sum).filter((x) => x.engine === 'xnnpack' && x.model.startsWith('conv ')).map((x) => x.model))];
  if (convs.length) {
    const cols = ['XNNPACK anchor (native)', ...T.flatMap((t) => [`${t}t ms`, `${t}t GFLOP/s`])];
    lines.push(`| ${cols.join(' | ')} |`, `|${cols.map((c, i) => (i ? '---:' : '---')).join('|')}|`);
    for (const c of convs) {
      const row = [c.slice(5), ...T.flatMap((t) => {
        const g = get('xnnpack', t, c);
        return g?.median_ms == null ? ['-', '-'] : [fmtMs(g.median_ms), (median(g.gflops) ?? 0).toFixed(0)];
      })];
      lines.push(`| ${row.join(' | ')} |`);
    }
    lines.push('');
  }
  // Accuracy: worst over threads and passes, per engine and model.
  lines.push(`Outputs vs PyTorch (worst over threads and passes; PASS: allclose rtol=${o.rtol} atol=${o.atol})`, '');
  lines.push('| model | engine | max abs diff | max rel diff | result |', '|---|---|---:|---:|---|');
  for (const m of o.models) {
    for (const e of ALL_ENGINES.filter((x) => has(x) && x !== 'xnnpack')) {
      const ss = T.map((t) => get(e, t, m)).filter(Boolean);
      if (!ss.length) continue;
      const err = ss.find((s) => s.error)?.error;
      const vals = (k) => ss.map((s) => s[k]).filter((v) => v != null);
      const worst = (k) => (vals(k).length ? Math.max(...vals(k)) : null);
      const res = err ? `ERROR: ${String(err).slice(0, 160)}` : ss.every((s) => s.pass) ? 'PASS' : 'FAIL';
      lines.push(`| ${m} | ${e} | ${fmtDiff(worst('max_abs_diff'))} | ${fmtDiff(worst('max_rel_diff'))} | ${res} |`);
    }
  }
  console.log('\n' + lines.join('\n'));
}

async function main() {
  const o = opts();
  if (o.export) exportModels(o);
  if (o.baseline) return runBaseline(o);
  const flops = {};
  for (const m of o.models) {
    const meta = JSON.parse(fs.readFileSync(path.join(o.dir, 'models', m, 'meta.json'), 'utf8'));
    flops[m] = { flops: meta.flops, gemm: meta.kind === 'gemm' };
  }
  const skipped = {};
  let tirBench = null;
  if (o.engines.includes('ours-native')) {
    const r = findTirBench();
    if (r.skip) skipped['ours-native'] = r.skip;
    tirBench = r.bin;
  }
  if (o.engines.includes('ours') && !fs.existsSync(path.join(REPO, 'npm/dist/torch-ir-wasm-simd-threaded.wasm'))) {
    skipped.ours = 'npm/dist has no WASM build (scripts/build_wasm.sh)';
  }
  let xnnpack = null;
  if (o.engines.includes('xnnpack')) {
    const r = buildXnnpackAnchor(o);
    if (r.skip) skipped.xnnpack = r.skip;
    xnnpack = r.bin;
  }
  for (const [e, why] of Object.entries(skipped)) console.error(`run: skipping ${e}: ${why}`);
  const procs = [];
  for (const e of o.engines) if (!skipped[e] && e !== 'xnnpack') for (const t of o.threads) procs.push({ engine: e, threads: t });
  const xnnCases = [...o.models.filter((m) => flops[m].gemm), 'conv'].join(',');

  const load0 = os.loadavg();
  if (load0[0] > 0.5) console.error(`run: load average ${load0.map((x) => x.toFixed(2)).join(' ')}: the machine is not idle, timings will be noisy`);
  const started = new Date();
  const raw = [];
  const total = o.passes * o.models.reduce((n, m) => n + procs.filter((p) => !(GEMM_ONLY.has(p.engine) && !flops[m].gemm)).length, 0);
  let done = 0;
  const log = (r, label) => {
    const what = r.error
      ? `ERROR ${r.error}`
      : `median ${fmtMs(r.median_ms)} ms (min ${fmtMs(r.min_ms)}, p90 ${fmtMs(r.p90_ms)}, ${r.runs} runs)` +
        `${r.gflops ? `, ${r.gflops.toFixed(1)} GFLOP/s` : ''}` +
        (r.max_abs_diff !== undefined ? `, max abs diff ${fmtDiff(r.max_abs_diff)}, ${r.pass ? 'PASS' : 'FAIL'}` : '');
    console.error(`${label}: ${what}`);
  };
  for (let pass = 0; pass < o.passes; pass++) {
    for (const [mi, m] of o.models.entries()) {
      const k = procs.length ? (pass + mi) % procs.length : 0;
      const order = [...procs.slice(k), ...procs.slice(0, k)];
      for (const p of order) {
        if (GEMM_ONLY.has(p.engine) && !flops[m].gemm) continue;
        const job = { ...p, model: m };
        const [cmd, args] = command(o, job, tirBench);
        const t0 = performance.now();
        const r = (await runProcess(cmd, args, o.timeout)).pop();
        Object.assign(r, { engine: p.engine, threads: p.threads, model: m, pass_no: pass + 1, wall_s: (performance.now() - t0) / 1000 });
        if (flops[m].gemm && r.gflops == null && r.median_ms) r.gflops = flops[m].flops / (r.median_ms * 1e6);
        raw.push(r);
        done++;
        log(r, `[${done}/${total}] pass ${pass + 1} ${m} ${p.engine} ${p.threads}t`);
      }
    }
    if (xnnpack) {
      for (const t of o.threads) {
        const args = ['--threads', t, '--cases', xnnCases, '--warmup', o.warmup, '--runs', o.runs || 20].map(String);
        for (const r of await runProcess(xnnpack, args, o.timeout)) {
          Object.assign(r, { engine: 'xnnpack', threads: t, pass_no: pass + 1 });
          r.model ??= 'anchor';
          raw.push(r);
          log(r, `pass ${pass + 1} xnnpack ${r.model} ${t}t`);
        }
      }
    }
  }
  const sum = summarize(raw);
  printTables(o, sum, flops);
  for (const [e, why] of Object.entries(skipped)) console.log(`\n(${e} skipped: ${why})`);
  const stamp = started.toISOString().replace(/[:]/g, '-').replace(/\..*/, '');
  const outFile = o.out ?? path.join(o.dir, `results-${stamp}.json`);
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, JSON.stringify({
    started: started.toISOString(), finished: new Date().toISOString(),
    host: { cpu: os.cpus()[0]?.model, cpus: os.cpus().length, node: process.version, loadavg_start: load0, loadavg_end: os.loadavg() },
    options: o, skipped, summary: Object.values(sum), raw,
  }, null, 1) + '\n');
  console.log(`\nraw results: ${path.relative(process.cwd(), outFile) || outFile}`);
  if (raw.some((r) => r.error)) process.exitCode = 1;
}

// --baseline REV[,REV...]: bench/ab.mjs per (pass, model, threads): this tree ('new'), each
// baseline (labelled by its short sha) and ort-web alternating in one process.
async function runBaseline(o) {
  const bases = [];
  for (const rev of list(o.baseline)) {
    const b = spawnSync('bash', [path.join(BENCH_DIR, 'build_baseline.sh'), rev], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`bench/build_baseline.sh ${rev} failed (exit ${b.status})`);
    const wt = b.stdout.trim().split('\n').pop();
    bases.push({ rev, wt, label: path.basename(wt).slice(0, 7) });
  }
  const head = spawnSync('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  const dirty = spawnSync('git', ['-C', REPO, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).stdout.trim() !== '';
  const newLabel = `${head}${dirty ? '+changes' : ''}`;
  const hasOrt = o.engines.includes('ort-web');
  const engines = ['new=ours', ...bases.map((b) => `${b.label}=ours:${b.wt}`), ...(hasOrt ? ['ort-web=ort-web'] : [])];
  const load0 = os.loadavg();
  if (load0[0] > 0.5) console.error(`run: load average ${load0.map((x) => x.toFixed(2)).join(' ')}: the machine is not idle, timings will be noisy`);
  const started = new Date();
  const raw = [];
  for (let pass = 0; pass < o.passes; pass++) {
    for (const m of o.models) {
      for (const t of o.threads) {
        const args = [...nodeFlags(o), path.join(BENCH_DIR, 'ab.mjs'),
          '--model', m, '--threads', String(t), '--dir', o.dir, '--engines', engines.join(','),
          '--rounds', String(o.rounds), '--round-ms', String(o.roundMs), '--settle-ms', String(o.settleMs),
          '--rtol', String(o.rtol), '--atol', String(o.atol)];
        if (o.flavor) args.push('--flavor', o.flavor);
        const r = (await runProcess(process.execPath, args, o.timeout)).pop();
        r.pass_no = pass + 1;
        raw.push(r);
        if (r.error) console.error(`pass ${pass + 1} ${m} ${t}t: ERROR ${r.error}`);
        else console.error(`pass ${pass + 1} ${m} ${t}t: ` + Object.entries(r.engines).map(([k, v]) => `${k} ${fmtMs(v.median_ms)} ms${v.pass ? '' : ' FAIL'}`).join(', ') +
          bases.map((b) => `; new/${b.label} ${r.ratios[`new/${b.label}`].toFixed(3)}`).join(''));
      }
    }
  }
  // Per (model, threads): medians over passes of each process's numbers.
  const cols = ['model', 'threads', `new (${newLabel}) ms`, ...bases.flatMap((b) => [`${b.label} ms`, `new/${b.label}`])];
  if (hasOrt) cols.push('ort-web ms', 'new/ort-web', ...bases.map((b) => `${b.label}/ort-web`));
  cols.push('outputs');
  const lines = [`A/B: this tree (new) against ${bases.map((b) => b.rev).join(', ')}${hasOrt ? ' and onnxruntime-web' : ''}, alternating in one process per row ` +
    `(${o.rounds} rounds x ${o.roundMs} ms each, ${o.passes} pass${o.passes > 1 ? 'es' : ''}); ratio < 1: new faster; ratios are medians of per-round ratios`, '',
    `| ${cols.join(' | ')} |`, `|${cols.map((c, i) => (i < 2 ? '---' : '---:')).join('|')}|`];
  let slower = 0;
  for (const m of o.models) {
    for (const t of o.threads) {
      const rs = raw.filter((r) => r.model === m && r.threads === t && !r.error);
      if (!rs.length) {
        lines.push(`| ${m} | ${t} | error: ${raw.find((r) => r.model === m && r.threads === t)?.error ?? ''} |`);
        continue;
      }
      const med = (f) => median(rs.map(f));
      const eng = (k) => med((r) => r.engines[k].median_ms);
      const ratio = (k) => med((r) => r.ratios[k]);
      const ok = rs.every((r) => Object.values(r.engines).every((e) => e.pass));
      const row = [m, t, fmtMs(eng('new'))];
      for (const b of bases) {
        const x = ratio(`new/${b.label}`);
        if (x > 1.05) slower++;
        row.push(fmtMs(eng(b.label)), `${x.toFixed(3)}${x > 1.05 ? ' (slower)' : ''}`);
      }
      if (hasOrt) row.push(fmtMs(eng('ort-web')), `${ratio('new/ort-web').toFixed(2)}x`, ...bases.map((b) => `${ratio(`${b.label}/ort-web`).toFixed(2)}x`));
      const worst = Math.max(...rs.flatMap((r) => Object.values(r.engines).map((e) => e.max_abs_diff ?? Infinity)));
      row.push(`${ok ? 'PASS' : 'FAIL'} (max abs diff ${fmtDiff(worst)})`);
      lines.push(`| ${row.join(' | ')} |`);
    }
  }
  if (slower) lines.push('', `${slower} cell(s) more than 5% slower than a baseline: say why the change is worth it.`);
  console.log('\n' + lines.join('\n'));
  const stamp = started.toISOString().replace(/[:]/g, '-').replace(/\..*/, '');
  const outFile = o.out ?? path.join(o.dir, `ab-${stamp}.json`);
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, JSON.stringify({
    started: started.toISOString(), finished: new Date().toISOString(), new: newLabel, baselines: bases,
    host: { cpu: os.cpus()[0]?.model, cpus: os.cpus().length, node: process.version, loadavg_start: load0, loadavg_end: os.loadavg() },
    options: o, raw,
  }, null, 1) + '\n');
  console.log(`\nraw results: ${path.relative(process.cwd(), outFile) || outFile}`);
  if (raw.some((r) => r.error || Object.values(r.engines ?? {}).some((e) => !e.pass))) process.exitCode = 1;
}

main().catch((e) => {
  console.error(`run: ${e?.message || e}`);
  process.exit(2);
});
