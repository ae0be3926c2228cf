// PyTorch's own quantized models (tests/fixtures/quantized) with executionProviders ['webgpu']:
// within a quarter of the quantization error of PyTorch's run of the quantized module. The
// quantization ops have no WGSL kernel yet: they run on WASM, the float ops on the GPU.
import { test } from 'node:test';
import * as tir from '../../npm/index.js';
import { assertWithinQuantizationError, ioInputs, quantizedFixtures, readIo } from '../../npm/test/helpers.mjs';
import { getDevice } from './gpu.mjs';

for (const fx of quantizedFixtures()) {
  test(`${fx.name} on WebGPU: within a quarter of the quantization error`, async (t) => {
    const gpu = await getDevice();
    if (!gpu) { t.skip('no WebGPU adapter'); return; }
    tir.env.webgpu.device = gpu.device;
    const model = await tir.loadIR(fx.model, { weights: fx.weights, threads: 1, executionProviders: ['webgpu'] });
    try {
      const p = model.placement();
      const outputs = await model.execute(ioInputs(model, readIo(fx.io)));
      const lines = assertWithinQuantizationError(fx.name, outputs, fx.io);
      t.diagnostic([...lines, `placement: ${p.nodes.webgpu} webgpu / ${p.nodes.wasm} wasm nodes`].join('\n'));
    } finally {
      model.dispose();
    }
  });
}
