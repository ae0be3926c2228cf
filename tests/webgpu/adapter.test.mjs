// The environment itself: dawn.node's create([]) gives an adapter (lavapipe's llvmpipe on the CI
// machine) and a compute shader runs on it; the kernel library's parameter packing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gpuTest, upload, download, submit } from './gpu.mjs';
import { packMeta, metaSlots, grid } from '../../npm/lib/webgpu/kernels.js';

test('adapter and a compute shader', gpuTest(async (t, gpu) => {
  const info = gpu.adapter.info;
  t.diagnostic(`adapter: ${info.vendor} / ${info.architecture} / ${info.device} / ${info.description}; shader-f16: ${gpu.f16}`);
  const x = upload(gpu, new Float32Array([1, 2, 3, -4.5]), 'float32', [4]);
  const code = `@group(0) @binding(0) var<uniform> p: vec4<u32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  if (g.x < p.x) { b[g.x] = b[g.x] * 2.0 + 1.0; } }`;
  const module = gpu.device.createShaderModule({ code });
  const pipeline = gpu.device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const ub = gpu.device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  gpu.device.queue.writeBuffer(ub, 0, new Uint32Array([3, 0, 0, 0]));
  const enc = gpu.device.createCommandEncoder();
  const pass = enc.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, gpu.device.createBindGroup({ layout: pipeline.getBindGroupLayout(0),
    entries: [{ binding: 0, resource: { buffer: ub } }, { binding: 1, resource: { buffer: x.buffer } }] }));
  pass.dispatchWorkgroups(1);
  pass.end();
  gpu.device.queue.submit([enc.finish()]);
  assert.deepEqual([...await download(gpu, x)], [3, 5, 7, -4.5]);
}));

test('a shader that does not compile is an error, not a silent no-op', gpuTest(async (t, gpu) => {
  const b = upload(gpu, new Float32Array(1), 'float32', [1]).buffer;
  await assert.rejects(submit(gpu, (d) => d('matmul', 'fn main( {', {}, [b, b, b, b, b, b], [1, 1, 1])),
    /WebGPU validation: .*WGSL/s);
}));

test('parameter blocks: slots, floats as bits, bad values refused', () => {
  const s = metaSlots('matmul');
  assert.deepEqual(s.m, { at: 0, count: 1 });
  assert.deepEqual(s.batch_shape, { at: 4, count: 4 });
  const u = packMeta('matmul', { m: 3, batch_shape: [2, 5], alpha: { f32: 0.5 } });
  assert.equal(u[0], 3);
  assert.deepEqual([...u.slice(4, 8)], [2, 5, 0, 0]);
  assert.equal(new Float32Array(u.buffer)[s.alpha.at], 0.5);
  assert.throws(() => packMeta('matmul', { m: -1 }), /not a u32/);
  assert.throws(() => packMeta('matmul', { nope: 1 }), /no parameter 'nope'/);
  assert.throws(() => packMeta('matmul', { batch_shape: [1, 2, 3, 4, 5] }), /takes 4 values/);
  assert.deepEqual(grid(10), [10, 1, 1]);
  assert.deepEqual(grid(70000), [65535, 2, 1]);
});
