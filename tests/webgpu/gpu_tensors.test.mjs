// GPU tensors (npm/src/lib/webgpu/gpu_io.ts): inputs given as GPU buffers and outputs left on the
// GPU (preferredOutputLocation 'gpu-buffer'), as onnxruntime-web has them, on dawn.node over
// lavapipe: the values equal the WASM run's, a float32 input and a dense float32 output move
// buffer to buffer (no upload, no download), other outputs are uploaded in their CPU layout,
// and every misuse is an error naming the input, output or option.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest } from './gpu.mjs';
import { getEngine } from './engine.mjs';

const t = (name, shape, dtype = 'float32', producer) => ({ name, shape, dtype, ...(producer ? { producer_node: producer } : {}) });

// x [4, 3], b [3] -> z = 2x + b (dense), tz = z^T (a view of z), am = argmax(z, 1) (int64).
const IR = {
  model_name: 'GpuTensors',
  graph_inputs: [t('x', [4, 3]), t('b', [3])],
  graph_outputs: [t('z', [4, 3]), t('tz', [3, 4]), t('am', [4], 'int64')],
  weights: [],
  weight_name_mapping: {},
  nodes: [
    { name: 'y', op_type: 'aten.mul.Tensor', inputs: [t('x', [4, 3], 'float32', 'x')], outputs: [t('y', [4, 3])], attrs: { other: 2.0 } },
    { name: 'z', op_type: 'aten.add.Tensor', inputs: [t('y', [4, 3], 'float32', 'y'), t('b', [3], 'float32', 'b')], outputs: [t('z', [4, 3])], attrs: {} },
    { name: 'tz', op_type: 'aten.transpose.int', inputs: [t('z', [4, 3], 'float32', 'z')], outputs: [t('tz', [3, 4])], attrs: { dim0: 0, dim1: 1 } },
    { name: 'am', op_type: 'aten.argmax.default', inputs: [t('z', [4, 3], 'float32', 'z')], outputs: [t('am', [4], 'int64')], attrs: { dim: 1, keepdim: false } },
  ],
};
const X = Float32Array.from({ length: 12 }, (_, i) => ((i * 7) % 5) - 1.5);
const B = Float32Array.from([0.25, -1, 3]);

function gpuBuffer(gpu, data, usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST) {
  const buffer = gpu.device.createBuffer({ size: Math.max(4, Math.ceil(data.byteLength / 4) * 4), usage });
  if (data.byteLength) gpu.device.queue.writeBuffer(buffer, 0, data);
  return buffer;
}

async function withGpu(eng, gpu, fn) {
  eng.env.webgpu.device = gpu.device;
  try {
    return await fn();
  } finally {
    eng.env.webgpu.device = undefined;
  }
}

async function cpuOutputs(eng, inputs = { x: X, b: B }) {
  const m = await eng.loadIR(IR, { threads: 1 });
  try {
    return Object.fromEntries((await m.execute(inputs)).map((o) => [o.name, o.data]));
  } finally {
    m.dispose();
  }
}

test('GPU tensors: a GPU-buffer input and outputs left on the GPU equal the WASM run', gpuTest(async (tt, gpu) => {
  const eng = await getEngine();
  if (!eng) { tt.skip('engine not built'); return; }
  const want = await cpuOutputs(eng);
  await withGpu(eng, gpu, async () => {
    const m = await eng.loadIR(IR, { threads: 1, executionProviders: ['webgpu', 'wasm'], preferredOutputLocation: 'gpu-buffer' });
    try {
      const x = { location: 'gpu-buffer', gpuBuffer: gpuBuffer(gpu, X), dims: [4, 3], type: 'float32' };
      const outs = await m.execute({ x, b: B });
      for (const o of outs) {
        assert.equal(o.location, 'gpu-buffer', o.name);
        assert.throws(() => o.data, new RegExp(`output '${o.name}' .* is on the GPU`));
        assert.ok(o.gpuBuffer.usage & GPUBufferUsage.STORAGE, o.name);
        assert.deepEqual(await o.getData(), want[o.name], o.name);
      }
      const plan = m._gpuRuns.last.plan;
      assert.equal(plan.placement.uploads, 1, 'b goes up; x never went through WASM memory');
      assert.equal(m._gpu.plan.placement.uploads, 2, 'without a GPU input both go up');
      assert.deepEqual(plan.kept_outputs, [0], 'z moves buffer to buffer; tz (a view) and am (int64) from the CPU copy');
      // An output fed back in stays on the GPU: z -> 2z + b.
      const again = await m.execute({ x: outs[0], b: B }, { outputs: ['z'] });
      assert.deepEqual(await again[0].getData(), await cpuOutputs(eng, { x: want.z, b: B }).then((o) => o.z));
      // verify() reads every output on the CPU.
      const report = await m.verify({ x, b: B }, [want.z, want.tz, want.am]);
      assert.ok(report.isValid, report.text);
      for (const o of [...outs, ...again]) o.dispose();
    } finally {
      m.dispose();
    }
  });
}));

test('GPU tensors: preferredOutputLocation per output; an input that must be converted is read back first', gpuTest(async (tt, gpu) => {
  const eng = await getEngine();
  if (!eng) { tt.skip('engine not built'); return; }
  const want = await cpuOutputs(eng);
  await withGpu(eng, gpu, async () => {
    const m = await eng.loadIR(IR, { threads: 1, executionProviders: ['webgpu'], preferredOutputLocation: { tz: 'gpu-buffer' } });
    try {
      const x = { location: 'gpu-buffer', gpuBuffer: gpuBuffer(gpu, X), dims: [4, 3], type: 'float32' };
      // b as float16 bits (0.25, -1, 3): widened by the engine, so x is read back and both go in from the CPU
      const b16 = { data: Uint16Array.from([0x3400, 0xbc00, 0x4200]), dtype: 'float16', shape: [3] };
      const [z, tz, am] = await m.execute({ x, b: b16 });
      assert.equal(z.location, undefined);
      assert.deepEqual(z.data, want.z);
      assert.equal(tz.location, 'gpu-buffer');
      assert.deepEqual(await tz.getData(), want.tz);
      assert.deepEqual(am.data, want.am);
      tz.dispose();
    } finally {
      m.dispose();
    }
  });
}));

test('GPU tensors through InferenceSession: Tensor.fromGpuBuffer feeds, gpu-buffer output Tensors', gpuTest(async (tt, gpu) => {
  const eng = await getEngine();
  if (!eng) { tt.skip('engine not built'); return; }
  const want = await cpuOutputs(eng);
  await withGpu(eng, gpu, async () => {
    const session = await eng.InferenceSession.create(IR, { threads: 1, executionProviders: ['webgpu', 'wasm'], preferredOutputLocation: 'gpu-buffer' });
    try {
      let disposed = 0;
      const x = eng.Tensor.fromGpuBuffer(gpuBuffer(gpu, X), { dataType: 'float32', dims: [4, 3], dispose: () => { disposed++; } });
      assert.equal(x.location, 'gpu-buffer');
      assert.throws(() => x.data, /not on CPU/);
      await assert.rejects(x.getData(), /no download function/);
      const out = await session.run({ x, b: new eng.Tensor('float32', B, [3]) });
      assert.equal(out.z.location, 'gpu-buffer');
      assert.deepEqual(await out.z.getData(), want.z);
      assert.deepEqual(await out.z.reshape([12]).getData(), want.z);
      assert.deepEqual(await out.am.getData(true), want.am); // read back, then freed
      x.dispose();
      x.dispose();
      assert.equal(disposed, 1);
      assert.throws(() => new eng.Tensor('float32', B, [3]).gpuBuffer, /not stored as a WebGPU buffer/);
      assert.throws(() => eng.Tensor.fromGpuBuffer(gpuBuffer(gpu, X), { dataType: 'string', dims: [1] }), /type 'string' is not supported/);
    } finally {
      await session.release();
    }
  });
}));

test('GPU tensors: misuse is an error naming the input, output or option', gpuTest(async (tt, gpu) => {
  const eng = await getEngine();
  if (!eng) { tt.skip('engine not built'); return; }
  const want = await cpuOutputs(eng);
  await assert.rejects(eng.loadIR(IR, { threads: 1, preferredOutputLocation: 'gpu-buffer' }),
    /preferredOutputLocation 'gpu-buffer' needs the model on WebGPU/);
  // A GPU input to a WASM model: read back by its download function, else an error.
  const wasm = await eng.loadIR(IR, { threads: 1 });
  try {
    const buffer = gpuBuffer(gpu, X);
    const withDownload = eng.Tensor.fromGpuBuffer(buffer, { dataType: 'float32', dims: [4, 3], download: async () => X });
    assert.deepEqual((await wasm.execute({ x: withDownload, b: B }))[0].data, want.z);
    await assert.rejects(wasm.execute({ x: eng.Tensor.fromGpuBuffer(buffer, { dataType: 'float32', dims: [4, 3] }), b: B }),
      /input 0 \('x'\): a GPU tensor, and this model runs on WASM: reading it back failed: .*no download function/);
  } finally {
    wasm.dispose();
  }
  await withGpu(eng, gpu, async () => {
    await assert.rejects(eng.loadIR(IR, { threads: 1, executionProviders: ['webgpu'], preferredOutputLocation: { zz: 'gpu-buffer' } }),
      /preferredOutputLocation: unknown output 'zz' \(outputs: z, tz, am\)/);
    await assert.rejects(eng.loadIR(IR, { threads: 1, executionProviders: ['webgpu'], preferredOutputLocation: 'texture' }),
      /"texture" is not supported by torch-ir-wasm/);
    const m = await eng.loadIR(IR, { threads: 1, executionProviders: ['webgpu'], preferredOutputLocation: { z: 'gpu-buffer' } });
    try {
      const small = { location: 'gpu-buffer', gpuBuffer: gpuBuffer(gpu, X.subarray(0, 6)), dims: [4, 3], type: 'float32' };
      await assert.rejects(m.execute({ x: small, b: B }), /input 0 \('x'\): its GPU buffer has 24 bytes, the tensor needs 48/);
      const noCopy = { location: 'gpu-buffer', gpuBuffer: gpuBuffer(gpu, X, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST), dims: [4, 3], type: 'float32' };
      await assert.rejects(m.execute({ x: noCopy, b: B }), /input 0 \('x'\): its GPU buffer needs COPY_SRC usage/);
      await assert.rejects(m.execute({ x: { location: 'gpu-buffer', dims: [4, 3], type: 'float32' }, b: B }), /input 0 \('x'\): location 'gpu-buffer' but no gpuBuffer/);
      const [z] = await m.execute({ x: X, b: B });
      await assert.rejects(m.execute({ b: B }, { carry: { x: 'z' } }), /carry: output 'z' was left on the GPU by the last run/);
      z.dispose();
    } finally {
      m.dispose();
    }
  });
}));
