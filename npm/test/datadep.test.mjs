// Data-dependent sizes through both WASM builds (threads 1: SIMD build; 2:
// threaded build): the datadep_probe fixture (tools/zoo_datadep.py) run with
// masks whose true counts differ from the export example's, so the engine
// re-plans x[m] -> linear -> relu -> sum(0) and nonzero(m) -> index_select per
// run. Expected values are computed here from x, m and the linear weights; the
// outputs that do not depend on m must equal the recorded ones.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadIR, parseSafetensors } from '../index.js';
import { TOL, assertClose, assertDist, fixture, ioInputs, readIo } from './helpers.mjs';

before(assertDist);

const MASKS = [
  [1, 0, 1, 1, 0, 0], // the example's 3 rows: the static plan
  [1, 1, 1, 1, 1, 1],
  [0, 0, 0, 0, 0, 0],
  [0, 1, 0, 0, 0, 1],
  [1, 1, 0, 1, 1, 0],
  [1, 0, 1, 1, 0, 0],
];

function expected(x, mask, w, b) {
  const rows = [];
  mask.forEach((on, r) => { if (on) rows.push(r); });
  const sel = rows.flatMap((r) => Array.from(x.slice(r * 4, r * 4 + 4)));
  const pooled = [0, 0, 0];
  for (const r of rows)
    for (let o = 0; o < 3; ++o) {
      let acc = b[o];
      for (let i = 0; i < 4; ++i) acc += w[o * 4 + i] * x[r * 4 + i];
      pooled[o] += Math.max(acc, 0);
    }
  const picked = rows.map((r) => x[r * 4] + x[r * 4 + 1] + x[r * 4 + 2] + x[r * 4 + 3]);
  return { n: rows.length, sel, pooled, picked };
}

for (const flavor of ['torch1.13-decomposed', 'torch2.14-training']) {
  for (const threads of [1, 2]) {
    test(`datadep_probe ${flavor} (threads ${threads}): sizes follow the mask per run`, async () => {
      const fx = fixture('datadep_probe', flavor);
      const io = readIo(fx.io);
      const weights = parseSafetensors(readFileSync(fx.weights));
      const w = weights.get('lin.weight').data, b = weights.get('lin.bias').data;
      const model = await loadIR(fx.model, { weights: fx.weights, threads });
      try {
        const inputs = ioInputs(model, io);
        const x = inputs[0].data;
        for (const mask of MASKS) {
          const m = { ...inputs[1], data: Uint8Array.from(mask) };
          const outs = await model.execute([inputs[0], m]);
          const e = expected(x, mask, w, b);
          const what = `mask ${mask.join('')}`;
          assert.deepEqual(outs[0].shape, [e.n, 4], `${what}: x[m] shape`);
          assertClose(outs[0].data, Float32Array.from(e.sel), TOL, `${what}: x[m]`);
          assertClose(outs[1].data, Float32Array.from(e.pooled), { rtol: 1e-5, atol: 1e-5 }, `${what}: pooled`);
          assert.deepEqual(outs[2].shape, [e.n], `${what}: picked shape`);
          assertClose(outs[2].data, Float32Array.from(e.picked), TOL, `${what}: picked`);
          for (let k = 3; k < outs.length; ++k) {
            assert.deepEqual(outs[k].shape, io.outputs[k].shape, `${what}: output ${k} shape`);
            assertClose(outs[k].data, io.outputs[k].data, TOL, `${what}: output ${k}`);
          }
        }
      } finally {
        model.dispose();
      }
    });
  }
}
