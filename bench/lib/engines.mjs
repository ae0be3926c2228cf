// The engines the benchmarks run in Node, shared by runner.mjs (one engine per
// process) and ab.mjs (several alternating in one process). Every engine:
// setup(ctx) -> { step: async () => Float32Array, info }, where `step` covers
// what a caller pays per inference: input in, run, output out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { REPO, readSafetensors } from './common.mjs';

const require = createRequire(import.meta.url);

export const ENGINES = {
  // Our WASM build through the npm package. threads 1 -> the single-threaded
  // SIMD build (what { threads: 1 } gives a user); otherwise the threaded
  // build with its pool sized to `threads`.
  // `repo` (default this checkout) is the tree whose npm/ package runs: bench/ab.mjs
  // passes a baseline revision's worktree.
  async ours({ dir, name, meta, input, threads, flavor, repo = REPO }) {
    const distWasm = path.join(repo, 'npm', 'dist', threads === 1 ? 'torch-ir-wasm-simd.wasm' : 'torch-ir-wasm-simd-threaded.wasm');
    if (!fs.existsSync(distWasm)) throw new Error(`${distWasm} not built (scripts/build_wasm.sh)`);
    const tir = await import(pathToFileURL(path.join(repo, 'npm', 'index.js')).href);
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
    if (threads > 1) require('./tfjs-node-threads.cjs'); // its threaded build in Node
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

export function pickFlavor(meta, flavor) {
  if (flavor) {
    const hit = meta.flavors.find((f) => f === flavor || f.includes(flavor));
    if (!hit) throw new Error(`${meta.name} has no IR flavor '${flavor}' (have: ${meta.flavors.join(', ')})`);
    return hit;
  }
  return meta.flavors.find((f) => f.endsWith('-training')) ?? meta.flavors[0];
}
