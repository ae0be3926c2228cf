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
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { REPO, compare, loadBenchModel, parseArgs, readSafetensors, timeRuns, timingStats } from './lib/common.mjs';

const require = createRequire(import.meta.url);

// Every engine: setup(ctx) -> { step: async () => Float32Array, info }.
// `step` covers what a caller pays per inference: input in, run, output out.
const ENGINES = {
  // Our WASM build through the npm package. threads 1 -> the single-threaded
  // SIMD build (what { threads: 1 } gives a user); otherwise the threaded
  // build with its pool sized to `threads`.
  async ours({ dir, name, meta, input, threads, flavor }) {
    const distWasm = path.join(REPO, 'npm', 'dist', threads === 1 ? 'torch-ir-wasm-simd.wasm' : 'torch-ir-wasm-simd-threaded.wasm');
    if (!fs.existsSync(distWasm)) throw new Error(`${distWasm} not built (scripts/build_wasm.sh)`);
    const tir = await import(pathToFileURL(path.join(REPO, 'npm', 'index.js')).href);
    const fdir = path.join(dir, 'models', name, pickFlavor(meta, flavor));
    const model = await tir.loadIR(path.join(fdir, 'model.json'), {
      weights: path.join(fdir, 'weights.safetensors'), threads,
    });
    const feeds = { [meta.input]: input.data };
    return {
      step: async () => (await model.execute(feeds))[0].data,
      info: { flavor: path.basename(fdir), variant: model.backend.variant, engine_threads: model.backend.threads },
    };
  },

  // onnxruntime-web, WASM backend, in Node (its Node entry loads the same
  // ort-wasm-simd-threaded.wasm that pages get; threads via worker_threads).
  async 'ort-web'({ mdir, meta, input, threads }) {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = threads;
    ort.env.wasm.proxy = false;
    if ('simd' in ort.env.wasm) ort.env.wasm.simd = true; // deprecated (always SIMD) in 1.2x
    const session = await ort.InferenceSession.create(fs.readFileSync(path.join(mdir, 'model.onnx')), {
      executionProviders: ['wasm'], graphOptimizationLevel: 'all',
    });
    const outName = session.outputNames[0];
    return {
      step: async () => (await session.run({ [meta.onnx_input]: new ort.Tensor('float32', input.data, input.shape) }))[outName].data,
      info: { version: ort.env.versions?.web, numThreads: ort.env.wasm.numThreads },
    };
  },

  // onnxruntime-node: the native CPU execution provider (MLAS), for the native column.
  async 'ort-node'({ mdir, meta, input, threads }) {
    const ort = require('onnxruntime-node');
    const session = await ort.InferenceSession.create(path.join(mdir, 'model.onnx'), {
      executionProviders: ['cpu'], graphOptimizationLevel: 'all',
      intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
    });
    const outName = session.outputNames[0];
    return {
      step: async () => (await session.run({ [meta.onnx_input]: new ort.Tensor('float32', input.data, input.shape) }))[outName].data,
      info: { version: ort.env.versions?.node },
    };
  },

  // tfjs-backend-wasm (XNNPACK inside): GEMM/GEMV only, as tf.matMul(x, Wt)
  // with Wt = the nn.Linear weight ([out, in]) transposed once at load:
  // matMul(x, W, false, true) is ~12x slower (not XNNPACK's fully-connected path).
  async tfjs({ mdir, meta, input, threads }) {
    if (meta.kind !== 'gemm') throw new Error(`tfjs runs only the GEMM/GEMV models, not ${meta.name}`);
    if (threads > 1) require('./lib/tfjs-node-threads.cjs'); // its threaded build in Node
    const tf = require('@tensorflow/tfjs-core');
    const wasm = require('@tensorflow/tfjs-backend-wasm');
    wasm.setWasmPaths(path.join(path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm')), path.sep));
    wasm.setThreadsCount(threads);
    // Its threaded-build check fails in Node (no crossOriginIsolated), and it
    // caps its pool at hardwareConcurrency / 2 (os.cpus() in Node), which is 1
    // on a 2-vCPU machine: report threads * 2 cores while it initializes.
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', threads > 1);
    const cpus = os.cpus;
    if (threads > 1) os.cpus = () => { const c = cpus(); return c.length >= 2 * threads ? c : Array(2 * threads).fill(c[0]); };
    try {
      if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not initialize');
      await tf.ready();
    } finally {
      os.cpus = cpus;
    }
    const w = readSafetensors(path.join(mdir, 'weights.safetensors'))[meta.weight_key];
    const W = tf.tidy(() => tf.transpose(tf.tensor(w.data, w.shape, 'float32')));
    W.dataSync(); // materialize the transpose before the timed runs
    return {
      step: async () => {
        const x = tf.tensor(input.data, input.shape, 'float32');
        const y = tf.matMul(x, W);
        const data = await y.data();
        x.dispose();
        y.dispose();
        return data;
      },
      info: {
        version: tf.version_core,
        engine_threads: typeof wasm.getThreadsCount === 'function' ? wasm.getThreadsCount() : undefined,
        simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
        multithread: await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'),
      },
    };
  },
};

function pickFlavor(meta, flavor) {
  if (flavor) {
    const hit = meta.flavors.find((f) => f === flavor || f.includes(flavor));
    if (!hit) throw new Error(`${meta.name} has no IR flavor '${flavor}' (have: ${meta.flavors.join(', ')})`);
    return hit;
  }
  return meta.flavors.find((f) => f.endsWith('-training')) ?? meta.flavors[0];
}

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
