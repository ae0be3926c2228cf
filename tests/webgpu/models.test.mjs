// Whole models on WebGPU through the npm package (executionProviders: ['webgpu']): every
// fixture with weights verifies against PyTorch's recorded outputs (rtol = atol = 1e-5) or, where
// that fails, against the float64 truth (our error within 2x PyTorch float32's + 1e-6 x scale:
// reassociation only), as the WASM suites do. Placement is checked too: over the whole set, at
// least 90% of the compute nodes run on the GPU, and the per-run transfers are reported.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as tir from '../../npm/index.js';
import { TOL, fixtureDirs, ioInputs, readIo } from '../../npm/test/helpers.mjs';
import { getDevice } from './gpu.mjs';

// TIR_WEBGPU_MODELS: a comma-separated list of fixture names ("resnet18/torch2.14-training"), or
// "all" (default: every torch 2.x training-IR fixture, the flavor users export).
const wanted = process.env.TIR_WEBGPU_MODELS ?? 'training';
const fixtures = fixtureDirs().filter((f) => (wanted === 'all' ? true
  : wanted === 'training' ? /torch2\.\d+-training$/.test(f.name) && !f.name.includes('torch2.6')
    : wanted.split(',').includes(f.name)));

const totals = { webgpu: 0, wasm: 0, uploads: 0, downloads: 0, streamed: 0, wasmWeights: 0, rows: [] };
const mb = (n) => `${(n / 2 ** 20).toFixed(1)} MB`;

async function device(t) {
  const gpu = await getDevice();
  if (!gpu) t.skip('no WebGPU adapter');
  else tir.env.webgpu.device = gpu.device;
  return gpu;
}

for (const fx of fixtures) {
  test(`${fx.name} on WebGPU: verify (rtol=atol=1e-5, else float64 truth)`, async (t) => {
    if (!(await device(t))) return;
    assert.ok(existsSync(fx.truth), `${fx.name}: no float64 truth ${fx.truth} (run tools/make_fixtures.sh build/fixtures)`);
    const model = await tir.loadIR(fx.model, { weights: fx.weights, threads: 1, executionProviders: ['webgpu'] });
    try {
      const p = model.placement();
      const io = readIo(fx.io);
      const report = await model.verify(ioInputs(model, io), io.outputs, { ...TOL, reference64: readIo(fx.truth).outputs });
      const r64 = report.reference64;
      assert.equal(r64.errorMessage, null);
      assert.ok(report.isValid || r64.reassociationOnly,
        `${fx.name} on WebGPU: maxDiff ${report.maxDiff}; vs float64: ${JSON.stringify(r64.outputs)}`);
      // Runs again: the second run must give the same outputs (state left by the first: none).
      const again = await model.execute(ioInputs(model, io));
      const first = await model.execute(ioInputs(model, io));
      for (let k = 0; k < again.length; k++) assert.deepEqual(again[k].data, first[k].data, `${fx.name}: output ${k} differs between runs`);
      totals.webgpu += p.nodes.webgpu;
      totals.wasm += p.nodes.wasm;
      totals.uploads += p.transfers.uploads;
      totals.downloads += p.transfers.downloads;
      totals.streamed += p.weights.webgpu;
      totals.wasmWeights += p.weights.wasm;
      totals.rows.push(`${fx.name}: ${p.nodes.webgpu} webgpu / ${p.nodes.wasm} wasm nodes, ` +
        `${p.transfers.uploads} uploads / ${p.transfers.downloads} downloads per run, ` +
        `weights ${mb(p.weights.webgpu)} streamed to the GPU / ${mb(p.weights.wasm)} in WASM memory`);
    } finally {
      model.dispose();
    }
  });
}

test('placement over the whole set: >= 90% of compute nodes on the GPU', async (t) => {
  if (!(await device(t))) return;
  if (wanted !== 'training' && wanted !== 'all') { t.skip('a partial set'); return; }
  const share = totals.webgpu / Math.max(1, totals.webgpu + totals.wasm);
  t.diagnostic(totals.rows.join('\n'));
  t.diagnostic(`total: ${totals.webgpu} webgpu / ${totals.wasm} wasm nodes (${(100 * share).toFixed(1)}% on the GPU), ` +
    `${totals.uploads} uploads / ${totals.downloads} downloads per run of every model; weights ` +
    `${mb(totals.streamed)} streamed to the GPU, ${mb(totals.wasmWeights)} in WASM memory`);
  assert.equal(totals.rows.length, fixtures.length, 'every model ran');
  assert.ok(share >= 0.9, `only ${(100 * share).toFixed(1)}% of compute nodes on the GPU`);
});

// Under a 6000-byte binding limit (env.webgpu.maxBindingBytes) the LLaMA decoder's embedding,
// MLP and lm_head weights (8 KiB each) are held as parts of their rows: linear, and the
// decomposed flavor's mm(x, t(W)) and addmm(b, x, t(W)), run a GEMM per part into their column
// windows; both flavors stay wholly on the GPU and verify.
test('weights past the binding limit run in parts: LLaMA decoder, training and decomposed IR', async (t) => {
  if (!(await device(t))) return;
  tir.env.webgpu.maxBindingBytes = 6000;
  try {
    for (const name of ['llama_decoder/torch2.14-training', 'llama_decoder/torch1.13-decomposed']) {
      const fx = fixtureDirs().find((f) => f.name === name);
      const model = await tir.loadIR(fx.model, { weights: fx.weights, threads: 1, executionProviders: ['webgpu'] });
      try {
        assert.equal(model.placement().nodes.wasm, 0, name);
        const parts = model._gpu.plan.values.filter((v) => v.slot >= 0 && /\[\d+:\d+\]$/.test(v.label));
        assert.ok(parts.length >= 8, `${name}: ${parts.length} weight parts`);
        const io = readIo(fx.io);
        const report = await model.verify(ioInputs(model, io), io.outputs, { ...TOL, reference64: readIo(fx.truth).outputs });
        assert.ok(report.isValid || report.reference64.reassociationOnly, `${name}: maxDiff ${report.maxDiff}`);
      } finally {
        model.dispose();
      }
    }
  } finally {
    tir.env.webgpu.maxBindingBytes = undefined;
  }
});

after(() => { tir.env.webgpu.device = undefined; });

// profile() on WebGPU: one entry per GPU node, WASM segments as entries of their own, and the
// same outputs as a normal run. On a device with 'timestamp-query' (lavapipe has it) the GPU
// entries are GPU times (clock 'gpu'); on one without, wall times with a sync per node.
async function profiledRun(t, gpuDevice, clock) {
  const fx = fixtureDirs().find((f) => f.name === 'gpt2_decoder/torch2.14-training') ?? fixtures[0];
  if (!fx) { t.skip('no fixture'); return; }
  tir.env.webgpu.device = gpuDevice;
  const model = await tir.loadIR(fx.model, { weights: fx.weights, threads: 1, executionProviders: ['webgpu'], profile: true });
  try {
    const io = readIo(fx.io);
    const profiled = await model.execute(ioInputs(model, io));
    const p = model.profile();
    const gpuEntries = p.filter((e) => e.device === 'webgpu');
    assert.ok(gpuEntries.length > 0 && gpuEntries.length <= model.placement().nodes.webgpu + 1, `${gpuEntries.length} GPU entries`);
    const names = new Set(JSON.parse(readFileSync(fx.model, 'utf8')).nodes.map((n) => n.name));
    for (const e of p) {
      assert.ok(e.ms >= 0 && Number.isFinite(e.ms), `${e.node}: ms ${e.ms}`);
      assert.ok(e.device === 'webgpu' || e.device === 'wasm', e.device);
      assert.equal(e.clock, e.device === 'webgpu' ? clock : 'wall', `${e.node}: clock`);
      assert.ok(names.has(e.node), `${e.node} is not an IR node`);
    }
    assert.ok(gpuEntries.some((e) => e.ms > 0), 'every GPU node took 0 ms');
    const again = (await model.execute(ioInputs(model, io)), model.profile());
    assert.deepEqual(again.map((e) => e.node), p.map((e) => e.node), 'a second profiled run has the same entries');
    model.setProfiling(false);
    const plain = await model.execute(ioInputs(model, io));
    for (let k = 0; k < plain.length; k++) assert.deepEqual(plain[k].data, profiled[k].data, `output ${k}`);
  } finally {
    model.dispose();
  }
}

test('profile() on WebGPU with timestamp queries: GPU time per node, same outputs', async (t) => {
  const gpu = await device(t);
  if (!gpu) return;
  if (!gpu.device.features.has('timestamp-query')) { t.skip('the adapter has no timestamp-query'); return; }
  await profiledRun(t, gpu.device, 'gpu');
});

test('profile() on WebGPU without timestamp queries: wall time per node, same outputs', async (t) => {
  const gpu = await device(t);
  if (!gpu) return;
  const plain = await (await gpu.instance.requestAdapter()).requestDevice(); // no features: no timestamps
  try {
    await profiledRun(t, plain, 'wall');
  } finally {
    tir.env.webgpu.device = gpu.device;
    plain.destroy();
  }
});

// More timed passes than one query set holds (2048 nodes per set): each pass gets its own time.
test('GpuTimer: passes past one query set', async (t) => {
  const gpu = await device(t);
  if (!gpu) return;
  if (!gpu.device.features.has('timestamp-query')) { t.skip('the adapter has no timestamp-query'); return; }
  const { GpuTimer } = await import('../../npm/lib/webgpu/gpu_timer.js');
  const n = 2100;
  const timer = new GpuTimer(gpu.device, n);
  try {
    const enc = gpu.device.createCommandEncoder();
    for (let k = 0; k < n; k++) enc.beginComputePass(timer.passOf(k)).end();
    gpu.device.queue.submit([enc.finish()]);
    const ms = await timer.read(n);
    assert.equal(ms.length, n);
    assert.ok(ms.every((x) => Number.isFinite(x) && x >= 0 && x < 1000), 'times are finite, non-negative ms');
  } finally {
    timer.destroy();
  }
});
