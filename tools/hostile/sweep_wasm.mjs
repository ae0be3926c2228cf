#!/usr/bin/env node
// Runs the hostile manifest (tools/hostile/generate.py) through the JS API (npm/index.js + npm/dist)
// in child processes, with a watchdog, and after every hostile file a good model (SimpleMLP) must still
// load, run and verify on the same module. Outcomes:
//   ok        the call resolved
//   clean     a TorchIrError subclass (IRFormatError, WeightLoadError, ExecutionError, VerificationError)
//   jserror   any other exception reaching the caller (RuntimeError: memory access out of bounds,
//             RangeError: Maximum call stack size exceeded, TypeError, an abort...)
//   unusable  the hostile call was handled, but the good model then failed on the same module
//   hang      no answer within --timeout seconds (the child is killed)
//   death     the child process died (a worker abort, a corrupted table, ...)
//   memcap    the child's RSS went over --mem-mb
// Everything but ok/clean is a failure: exit status 1 and a list of offenders.
//
//   node tools/hostile/sweep_wasm.mjs [--threads 1] [--timeout 10] [--batch 150] [--jobs 2]
//        [--family dim0d,creation] [--json out.json] [--manifest build/hostile/manifest.jsonl]
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FAILING = ['jserror', 'unusable', 'hang', 'death', 'memcap'];
const CLASSES = ['ok', 'clean', ...FAILING];

function parseArgs(argv) {
  const a = { threads: 0, timeout: 10, batch: 150, jobs: 2, family: '', json: '', memMb: 4096,
    manifest: join(REPO, 'build', 'hostile', 'manifest.jsonl'), child: false };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => argv[++i];
    if (k === '--threads') a.threads = Number(v());
    else if (k === '--timeout') a.timeout = Number(v());
    else if (k === '--batch') a.batch = Number(v());
    else if (k === '--jobs') a.jobs = Number(v());
    else if (k === '--family') a.family = v();
    else if (k === '--json') a.json = v();
    else if (k === '--mem-mb') a.memMb = Number(v());
    else if (k === '--manifest') a.manifest = v();
    else if (k === '--child') a.child = true;
    else throw new Error(`unknown option ${k}`);
  }
  return a;
}

// ---------------------------------------------------------------- child: runs entries from stdin
async function child(args) {
  const api = await import(pathToFileURL(join(REPO, 'npm', 'index.js')).href);
  const { loadIR, TorchIrError, parseSafetensors, splitIo } = api;
  const opt = args.threads ? { threads: args.threads } : {};
  const mlpDir = join(REPO, 'tests', 'fixtures', 'models', 'SimpleMLP', 'torch2.14-training');
  const mlpIo = splitIo(parseSafetensors(readFileSync(join(mlpDir, 'io.safetensors'))));
  const entries = JSON.parse(readFileSync(0, 'utf8'));
  const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');

  async function hostile(e) {
    let model;
    try {
      if (e.cmd === 'info') {
        model = await loadIR(join(REPO, e.ir), { ...opt, compile: false });
        model.info();
        return;
      }
      const isSt = (p) => p.endsWith('.safetensors');
      const load = { ...opt, weights: join(REPO, e.weights) };
      let inputs = {};
      if (isSt(e.inputs)) inputs = splitIo(parseSafetensors(readFileSync(join(REPO, e.inputs)), e.inputs)).inputs;
      else load.constants = join(REPO, e.inputs); // a torch.save input file: still parsed by the native reader
      model = await loadIR(join(REPO, e.ir), load);
      await model.execute(inputs);
    } finally {
      try { model?.dispose(); } catch { /* the hostile outcome is what counts */ }
    }
  }

  async function good() {
    const m = await loadIR(join(mlpDir, 'model.json'), { ...opt, weights: join(mlpDir, 'weights.safetensors') });
    try {
      const r = await m.verify([mlpIo.inputs.x.data], mlpIo.outputs, { rtol: 1e-5, atol: 1e-5 });
      if (!r.isValid) throw new Error('good model gives wrong outputs');
    } finally { m.dispose(); }
  }

  await good();
  say({ ready: true });
  for (const e of entries) {
    say({ start: e.id });
    let cls = 'ok';
    let message = '';
    try {
      await hostile(e);
    } catch (err) {
      cls = err instanceof TorchIrError ? 'clean' : 'jserror';
      message = `${err?.name}: ${String(err?.message).split('\n')[0]}`;
    }
    try {
      await good();
    } catch (err) {
      say({ done: e.id, class: 'unusable', message: `${message} / then the good model: ${err?.name}: ${err?.message}` });
      process.exit(3); // the module is unusable: the parent restarts a fresh child
    }
    say({ done: e.id, class: cls, message: message.slice(0, 400) });
  }
}

// ---------------------------------------------------------------- parent: batches, watchdog, table
function rssMb(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch { return 0; }
}

// The line of a dead child's stderr that says why (not the stack frames after it).
function deathCause(stderr) {
  const lines = stderr.trim().split('\n');
  return (lines.find((l) => /Error|abort|Abort|signal|Assertion|RuntimeError/.test(l)) || lines.slice(-1)[0] || '').trim().slice(0, 300);
}

function runBatch(args, entries, record) {
  // Resolves when every entry of `entries` has a result (restarting children after failures).
  return new Promise((done) => {
    let next = 0;
    const startChild = () => {
      if (next >= entries.length) return done();
      const batch = entries.slice(next);
      const argv = [fileURLToPath(import.meta.url), '--child', '--threads', String(args.threads)];
      const p = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
      p.stdin.end(JSON.stringify(batch));
      let current = null;
      let timer = null;
      let buf = '';
      let stderr = '';
      let killedFor = null;
      const arm = (secs) => {
        clearTimeout(timer);
        timer = setTimeout(() => { killedFor = 'hang'; p.kill('SIGKILL'); }, secs * 1000);
      };
      arm(60); // module start-up
      const mem = setInterval(() => {
        if (rssMb(p.pid) > args.memMb) { killedFor = 'memcap'; p.kill('SIGKILL'); }
      }, 200);
      p.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
      p.stdout.on('data', (d) => {
        buf += d;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          let msg;
          try { msg = JSON.parse(line); } catch { continue; }
          if (msg.start) { current = msg.start; arm(args.timeout + 5); } // + the good model's run
          if (msg.done) { record(msg.done, msg.class, msg.message); current = null; next++; arm(args.timeout + 5); }
        }
      });
      p.on('exit', (code, signal) => {
        clearTimeout(timer);
        clearInterval(mem);
        if (current) {
          const why = killedFor || 'death';
          record(current, why, why === 'death' ? `exit ${code} ${signal || ''}: ${deathCause(stderr)}` : '');
          next++;
        } else if (code !== 0 && code !== 3 && next < entries.length && !killedFor) {
          // Died between files (e.g. an async worker abort after the previous file finished).
          record(entries[next].id, 'death', `exit ${code} ${signal || ''} between files: ${stderr.trim().slice(-300)}`);
          next++;
        } else if (killedFor && !current && next < entries.length) {
          record(entries[next].id, killedFor, 'while starting or between files');
          next++;
        }
        startChild();
      });
    };
    startChild();
  });
}

async function parent(args) {
  const fams = new Set(args.family.split(',').filter(Boolean));
  const entries = readFileSync(args.manifest, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .filter((e) => !fams.size || fams.has(e.family));
  const t0 = Date.now();
  console.log(`${entries.length} files through the JS API (${args.threads === 1 ? 'single-threaded' : 'threaded'} build), `
    + `timeout ${args.timeout}s, memory cap ${args.memMb} MB, ${args.jobs} child processes`);
  const byId = new Map(entries.map((e) => [e.id, e]));
  const results = [];
  let n = 0;
  const record = (id, cls, message) => {
    const e = byId.get(id);
    results.push({ id, family: e?.family, class: cls, message });
    if (FAILING.includes(cls)) console.log(`  ${cls.padEnd(8)} ${id}: ${String(message).slice(0, 160)}`);
    if (++n % 200 === 0) console.log(`  ... ${n}/${entries.length} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  };
  const batches = [];
  for (let i = 0; i < entries.length; i += args.batch) batches.push(entries.slice(i, i + args.batch));
  const workers = Array.from({ length: args.jobs }, async () => {
    while (batches.length) await runBatch(args, batches.shift(), record);
  });
  await Promise.all(workers);
  const secs = (Date.now() - t0) / 1000;
  const table = {};
  for (const r of results) {
    table[r.family] ??= Object.fromEntries(CLASSES.map((c) => [c, 0]));
    table[r.family][r.class]++;
  }
  console.log(`\n${'family'.padEnd(18)} ${CLASSES.map((c) => c.padStart(8)).join(' ')}    total`);
  for (const fam of Object.keys(table).sort()) {
    const row = table[fam];
    const tot = CLASSES.reduce((s, c) => s + row[c], 0);
    console.log(`${fam.padEnd(18)} ${CLASSES.map((c) => String(row[c]).padStart(8)).join(' ')}   ${String(tot).padStart(6)}`);
  }
  const sums = CLASSES.map((c) => results.filter((r) => r.class === c).length);
  console.log(`${'TOTAL'.padEnd(18)} ${sums.map((s) => String(s).padStart(8)).join(' ')}   ${String(results.length).padStart(6)}`);
  console.log(`sweep time ${secs.toFixed(0)} s`);
  const bad = results.filter((r) => FAILING.includes(r.class));
  if (bad.length) {
    console.log(`\n${bad.length} offenders:`);
    for (const r of bad) console.log(`  ${r.class.padEnd(8)} ${r.id}\n           ${String(r.message).slice(0, 200)}`);
  }
  if (args.json) writeFileSync(args.json, JSON.stringify({ threads: args.threads, seconds: secs, table, results }, null, 1));
  process.exitCode = bad.length ? 1 : 0;
}

const args = parseArgs(process.argv.slice(2));
if (args.child) {
  child(args).then(() => process.exit(0), (e) => {
    process.stderr.write(`child failed: ${e?.stack || e}\n`);
    process.exit(2);
  });
} else {
  await parent(args);
}
