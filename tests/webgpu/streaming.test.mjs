// Weights streamed to the GPU (docs/webgpu.md, "Weights"): a WebGPU model's safetensors weights
// that only GPU nodes read are uploaded from the file's bytes and never copied into WASM memory
// (models.test.mjs runs every fixture this way); the weights of WASM nodes still are.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as tir from '../../npm/index.js';
import { TOL, fixtureDirs, ioInputs, readIo } from '../../npm/test/helpers.mjs';
import { getDevice } from './gpu.mjs';

async function device(t) {
  const gpu = await getDevice();
  if (!gpu) t.skip('no WebGPU adapter');
  else tir.env.webgpu.device = gpu.device;
  return gpu;
}
after(() => { tir.env.webgpu.device = undefined; });

const fixture = (name) => fixtureDirs().find((f) => f.name === name);

// Sum of the tensor bytes of a safetensors file, from its header.
function tensorBytes(path) {
  const bytes = readFileSync(path);
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  return Object.entries(header).filter(([k]) => k !== '__metadata__')
    .reduce((s, [, v]) => s + v.data_offsets[1] - v.data_offsets[0], 0);
}

// Fused batch norms are the exception: prepare makes their scale and shift from the params in
// WASM memory (a few KB), as the CPU would.
test('an all-GPU model keeps no weight in WASM memory but its fused batch norms\' params', async (t) => {
  if (!(await device(t))) return;
  const fx = fixture('resnet18/torch2.14-training');
  const model = await tir.loadIR(fx.model, { weights: fx.weights, threads: 1, executionProviders: ['webgpu'] });
  try {
    const p = model.placement();
    assert.equal(p.nodes.wasm, 0);
    assert.ok(p.weights.wasm > 0 && p.weights.wasm < 100 << 10, `${p.weights.wasm} bytes in WASM memory`);
    // Every tensor of the file but BatchNorm's num_batches_tracked counters (read by no node).
    assert.ok(p.weights.webgpu > 0.99 * tensorBytes(fx.weights), `${p.weights.webgpu} bytes streamed`);
    const io = readIo(fx.io);
    const report = await model.verify(ioInputs(model, io), io.outputs, { ...TOL, reference64: readIo(fx.truth).outputs });
    assert.ok(report.isValid || report.reference64.reassociationOnly, `maxDiff ${report.maxDiff}`);
    // weightsFrom on the GPU shares the first model's GPU weights (nothing uploaded again), and
    // outlives it; on WASM alone it would need the weights in WASM memory: refused, naming why.
    const twin = await tir.loadIR(fx.model, { weightsFrom: model, executionProviders: ['webgpu'] });
    try {
      assert.equal(twin._gpu.stats.uploads, 0);
      model.dispose();
      const again = await twin.verify(ioInputs(twin, io), io.outputs, { ...TOL, reference64: readIo(fx.truth).outputs });
      assert.ok(again.isValid || again.reference64.reassociationOnly, `maxDiff ${again.maxDiff}`);
    } finally {
      twin.dispose();
    }
    const gpuModel = await tir.loadIR(fx.model, { weights: fx.weights, threads: 1, executionProviders: ['webgpu'] });
    try {
      await assert.rejects(tir.loadIR(fx.model, { weightsFrom: gpuModel }), /streamed to the GPU/);
    } finally {
      gpuModel.dispose();
    }
  } finally {
    model.dispose();
  }
});

test('weights read by WASM nodes stay in WASM memory; the others are streamed', async (t) => {
  if (!(await device(t))) return;
  // The GRU layer stays on WASM and reads its weights there; the linear head after it is on the
  // GPU, with its weights: the split is by reader, not by model.
  const fx = fixture('gru/torch2.14-training');
  const model = await tir.loadIR(fx.model, { weights: fx.weights, threads: 1, executionProviders: ['webgpu'] });
  try {
    const p = model.placement();
    assert.ok(p.nodes.wasm > 0 && p.nodes.webgpu > 0, JSON.stringify(p.nodes));
    assert.ok(p.weights.webgpu > 0 && p.weights.wasm > 0, JSON.stringify(p.weights));
    const io = readIo(fx.io);
    const report = await model.verify(ioInputs(model, io), io.outputs, { ...TOL, reference64: readIo(fx.truth).outputs });
    assert.ok(report.isValid || report.reference64.reassociationOnly, `maxDiff ${report.maxDiff}`);
  } finally {
    model.dispose();
  }
});

test('half-float weights are widened to float32 on their way to the GPU, as the CPU would', async (t) => {
  if (!(await device(t))) return;
  const fx = fixture('convnext_half/torch2.14-training');
  const model = await tir.loadIR(fx.model, { weights: fx.weights, threads: 1, executionProviders: ['webgpu'] });
  try {
    const p = model.placement();
    // The engine's compute dtype for float16 weights is float32: twice the file's bytes.
    assert.ok(p.weights.webgpu > 1.98 * tensorBytes(fx.weights), `${p.weights.webgpu} bytes streamed`);
    const io = readIo(fx.io);
    const report = await model.verify(ioInputs(model, io), io.outputs, { ...TOL, reference64: readIo(fx.truth).outputs });
    assert.ok(report.isValid || report.reference64.reassociationOnly, `maxDiff ${report.maxDiff}`);
  } finally {
    model.dispose();
  }
});

test('weights given as tensors (not a safetensors file) go to WASM memory as before', async (t) => {
  if (!(await device(t))) return;
  const fx = fixture('small_cnn/torch2.14-training');
  const bytes = readFileSync(fx.weights);
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  const weights = {};
  for (const [k, v] of Object.entries(header)) {
    if (k === '__metadata__' || v.dtype !== 'F32') continue;
    const b = bytes.subarray(8 + n + v.data_offsets[0], 8 + n + v.data_offsets[1]);
    weights[k] = { dtype: 'float32', shape: v.shape, data: new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length)) };
  }
  const model = await tir.loadIR(fx.model, { weights, threads: 1, executionProviders: ['webgpu'] });
  try {
    const p = model.placement();
    assert.equal(p.weights.webgpu, 0);
    assert.ok(p.weights.wasm > 0);
    const io = readIo(fx.io);
    const report = await model.verify(ioInputs(model, io), io.outputs, TOL);
    assert.ok(report.isValid, `maxDiff ${report.maxDiff}`);
  } finally {
    model.dispose();
  }
});

// A local HTTP server for one file. ranges: answer Range requests with 206 (else the whole file,
// 200, as a server without Range support does); failRanges: answer those past the start 500.
// Records each response's status and body length.
async function serveFile(path, { ranges = true, failRanges = false } = {}) {
  const { createServer } = await import('node:http');
  const bytes = readFileSync(path);
  const served = [];
  const server = createServer((req, res) => {
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (m && failRanges && Number(m[1]) > 0) {
      served.push({ status: 500, bytes: 0 });
      res.writeHead(500).end();
    } else if (m && ranges) {
      const start = Number(m[1]);
      const end = Math.min(Number(m[2]), bytes.length - 1);
      served.push({ status: 206, bytes: end - start + 1 });
      res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${bytes.length}`, 'content-length': end - start + 1 });
      res.end(bytes.subarray(start, end + 1));
    } else {
      served.push({ status: 200, bytes: bytes.length });
      res.writeHead(200, { 'content-length': bytes.length }).end(bytes);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/weights.safetensors`;
  return { url, served, size: bytes.length, close: () => new Promise((resolve) => server.close(resolve)) };
}

async function verifyStreamed(model, fx) {
  const io = readIo(fx.io);
  const report = await model.verify(ioInputs(model, io), io.outputs, { ...TOL, reference64: readIo(fx.truth).outputs });
  assert.ok(report.isValid || report.reference64.reassociationOnly, `maxDiff ${report.maxDiff}`);
}

test('a URL is read by Range requests, each tensor once, never the whole file', async (t) => {
  if (!(await device(t))) return;
  // gpt2_wide: every weight goes to the GPU, its tied wte / lm_head (147 MB, past lavapipe's
  // 128 MiB binding) as two parts of its rows, both from one read of the tensor.
  const fx = fixture('gpt2_wide/torch2.14-training');
  const server = await serveFile(fx.weights);
  try {
    const events = [];
    let bound = 0;
    const model = await tir.loadIR(fx.model, {
      weights: server.url, threads: 1, executionProviders: ['webgpu'], onProgress: (e) => events.push(e),
    });
    try {
      const p = model.placement();
      assert.ok(p.weights.webgpu > 0, JSON.stringify(p.weights));
      bound = p.weights.wasm + p.weights.webgpu;
      await verifyStreamed(model, fx);
    } finally {
      model.dispose();
    }
    assert.ok(server.served.every((r) => r.status === 206), JSON.stringify(server.served.filter((r) => r.status !== 206)));
    // The probe (16 bytes), the header twice (its length, then itself), then each tensor once.
    const total = server.served.reduce((s, r) => s + r.bytes, 0);
    assert.ok(total <= server.size + 2 * (server.size - tensorBytes(fx.weights)) + 16, `${total} bytes served for a ${server.size}-byte file`);
    // Every bound weight was read (a file may hold tensors no node reads: those are not).
    assert.ok(total >= bound, `${total} bytes served, ${bound} bound`);
    const mine = events.filter((e) => e.file === server.url);
    assert.equal(mine[0].status, 'initiate');
    assert.equal(mine.at(-1).status, 'done');
  } finally {
    await server.close();
  }
});

test('a server without Range support sends the file once; a Blob is sliced; a failing range names the URL', async (t) => {
  if (!(await device(t))) return;
  const fx = fixture('small_cnn/torch2.14-training');
  const plain = await serveFile(fx.weights, { ranges: false });
  try {
    const model = await tir.loadIR(fx.model, { weights: plain.url, threads: 1, executionProviders: ['webgpu'] });
    try {
      await verifyStreamed(model, fx);
    } finally {
      model.dispose();
    }
    assert.deepEqual(plain.served.map((r) => r.status), [200]);
  } finally {
    await plain.close();
  }
  const blob = new Blob([readFileSync(fx.weights)]);
  const model = await tir.loadIR(fx.model, { weights: blob, threads: 1, executionProviders: ['webgpu'] });
  try {
    assert.ok(model.placement().weights.webgpu > 0);
    await verifyStreamed(model, fx);
  } finally {
    model.dispose();
  }
  // The probe and the header are read, then every tensor's range fails: the load rejects
  // naming the URL.
  const failing = await serveFile(fx.weights, { failRanges: true });
  try {
    await assert.rejects(tir.loadIR(fx.model, { weights: failing.url, threads: 1, executionProviders: ['webgpu'] }),
      (e) => e instanceof tir.WeightLoadError && e.message.includes(failing.url) && /HTTP 500/.test(e.message));
    assert.ok(failing.served.some((r) => r.status === 500));
  } finally {
    await failing.close();
  }
});
