// Data-dependent sizes through both WASM builds (threads 1: SIMD build; 2:
// threaded build): the datadep_probe fixture (tools/zoo_datadep.py) run on one
// model with masks whose true counts differ from the export example's
// (io_mask<k>.safetensors: 5, 0 and 1 rows, with torch's outputs), so the
// engine re-plans x[m] -> linear -> relu -> sum(0) and nonzero(m) ->
// index_select per run, then goes back to the example's sizes.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { loadIR } from '../index.js';
import { TOL, assertClose, assertDist, fixture, ioInputs, readIo } from './helpers.mjs';

before(assertDist);

const RUNS = ['io_mask2', 'io', 'io_mask3', 'io_mask4', 'io_mask2', 'io'];

for (const flavor of ['torch1.13-decomposed', 'torch2.14-training']) {
  for (const threads of [1, 2]) {
    test(`datadep_probe ${flavor} (threads ${threads}): sizes follow the mask per run`, async () => {
      const fx = fixture('datadep_probe', flavor);
      const model = await loadIR(fx.model, { weights: fx.weights, threads });
      try {
        for (const name of RUNS) {
          const io = readIo(fx.io.replace('io.safetensors', `${name}.safetensors`));
          const outs = await model.execute(ioInputs(model, io));
          assert.equal(outs.length, io.outputs.length, name);
          outs.forEach((o, k) => {
            assert.deepEqual(o.shape, io.outputs[k].shape, `${name}: output ${k} shape`);
            assertClose(o.data, io.outputs[k].data, TOL, `${name}: output ${k}`);
          });
        }
      } finally {
        model.dispose();
      }
    });
  }
}
