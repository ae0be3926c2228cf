// PyTorch's own quantized models (PT2E static/dynamic int8, torchao int4 weight-only and 8da4w;
// tests/fixtures/quantized) in both WASM builds: every output within a quarter of the
// quantization error of PyTorch's run of the quantized module (tests/cpp/unit/quantized_models_test.cpp
// checks the same natively).
import { test, before } from 'node:test';
import { loadIR } from '../index.js';
import { assertDist, assertWithinQuantizationError, ioInputs, quantizedFixtures, readIo } from './helpers.mjs';

before(assertDist);

const fixtures = quantizedFixtures();
test('the quantized corpus is there', (t) => {
  if (fixtures.length < 10) throw new Error(`expected the 10 quantized fixtures, found ${fixtures.length}`);
  t.diagnostic(fixtures.map((f) => f.name).join(', '));
});

for (const fx of fixtures) {
  for (const threads of [1, 2]) {
    test(`${fx.name} (threads ${threads}): within a quarter of the quantization error`, async (t) => {
      const model = await loadIR(fx.model, { weights: fx.weights, threads });
      try {
        const io = readIo(fx.io);
        const outputs = await model.execute(ioInputs(model, io));
        t.diagnostic(assertWithinQuantizationError(fx.name, outputs, fx.io).join('\n'));
      } finally {
        model.dispose();
      }
    });
  }
}
