// PyTorch's own quantized models (tests/fixtures/quantized) with executionProviders ['webgpu']:
// within a quarter of the quantization error of PyTorch's run of the quantized module. torchao's
// 8da4w runs wholly on the GPU (its per-token choose / quantize and the int4 linears:
// choose_qparams_rows.wgsl, quantize_blocks.wgsl, qlinear.wgsl); PT2E's int8 forms and their
// quantize / dequantize nodes have no WGSL kernel yet and run on WASM, the float ops on the GPU.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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
      if (fx.name.endsWith('_8da4w')) assert.equal(p.nodes.wasm, 0, `${fx.name}: placement ${JSON.stringify(p.nodes)}`);
      // Each node kept on WASM is named, with its op and why; none is listed when none stays.
      const names = new Set(JSON.parse(readFileSync(fx.model, 'utf8')).nodes.map((n) => n.name));
      assert.equal(p.wasmNodes.length > 0, p.nodes.wasm > 0, JSON.stringify(p.wasmNodes));
      for (const w of p.wasmNodes) {
        assert.ok(names.has(w.node) && w.opType && w.why, JSON.stringify(w));
      }
      if (p.wasmNodes.length) t.diagnostic(`kept on WASM: ${p.wasmNodes.slice(0, 3).map((w) => `${w.node} (${w.opType}): ${w.why}`).join('; ')}`);
      t.diagnostic([...lines, `placement: ${p.nodes.webgpu} webgpu / ${p.nodes.wasm} wasm nodes`].join('\n'));
    } finally {
      model.dispose();
    }
  });
}
