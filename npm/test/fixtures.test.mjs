// Every seed IR and every whole-model fixture, verified through the JS API
// against the outputs recorded from PyTorch (rtol = atol = 1e-5), judged
// against the float64 truth (tools/fixture_truth.py) in both WASM builds, and
// compared with the native build's outputs for the same inputs (rtol = atol = 1e-5).
//
// Float64 criterion (verify's reference64, the engine's src/verify/truth.cpp), per floating output:
// error = max |x - truth|, scale = max |truth|, and our error must be <= 2 x
// PyTorch float32's error + 1e-6 x scale. Every fixture must pass it; the
// rtol/atol check must pass too unless the criterion shows the difference is
// only reassociation. A missing truth file fails (run tools/make_fixtures.sh).
// TIR_TRUTH_TABLE=FILE appends one line per output (for the fidelity table).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { loadIR, parseSafetensors } from '../index.js';
import {
  FIXTURES, MODELS, TOL, assertClose, assertDist, fixtureDirs, ioInputs, nativeCli, readIo, truthPath,
} from './helpers.mjs';

before(assertDist);

const native = nativeCli();
const tmp = mkdtempSync(join(tmpdir(), 'tir-js-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

// Outputs of the native CLI (`torchir run -o`) for the same IR/weights/io.
function nativeOutputs(model, weights, io) {
  const out = join(tmp, `native-${Math.random().toString(36).slice(2)}.safetensors`);
  const r = spawnSync(native, ['run', model, '--weights', weights, '--inputs', io, '-o', out], { encoding: 'utf8' });
  assert.equal(r.status, 0, `native run failed: ${r.stderr}`);
  const t = parseSafetensors(readFileSync(out));
  return [...t.keys()].sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1])).map((k) => t.get(k));
}

// Verify (rtol/atol and float64 truth) on one build: threads 1 is the simd build, else the
// threaded one.
async function verifyWithTruth(name, modelPath, weightsPath, ioPath, truthFile, threads) {
  assert.ok(existsSync(truthFile), `${name}: no float64 truth ${truthFile} (run tools/make_fixtures.sh build/fixtures)`);
  const model = await loadIR(modelPath, { weights: weightsPath, threads });
  try {
    const io = readIo(ioPath);
    const truth = readIo(truthFile).outputs;
    const report = await model.verify(ioInputs(model, io), io.outputs, { ...TOL, reference64: truth });
    const { variant } = model.backend;
    const t = report.reference64;
    assert.equal(t.errorMessage, null);
    if (process.env.TIR_TRUTH_TABLE) {
      for (const o of t.outputs.filter((x) => x.judged)) {
        appendFileSync(process.env.TIR_TRUTH_TABLE, `${variant} ${name} ${o.index} ${o.ours} ${o.reference} ${o.scale}\n`);
      }
    }
    assert.ok(t.withinBound, `${name} (${variant}): our error vs float64 exceeds 2x PyTorch's + 1e-6 x scale: ` +
      JSON.stringify(t.outputs));
    assert.equal(report.errorMessage === null || t.reassociationOnly, true, `${name} (${variant}): ${report.errorMessage}`);
    assert.ok(report.isValid || t.reassociationOnly, `not within rtol=atol=1e-5: maxDiff ${report.maxDiff}`);
    assert.equal(report.numOutputs, io.outputs.length);
    assert.equal(report.outputDetails.length, io.outputs.length);
    for (const d of report.outputDetails) {
      assert.ok(d.isClose || t.reassociationOnly);
      assert.deepEqual(d.shape, io.outputs[d.index].shape);
    }
    return { model, inputs: ioInputs(model, io), reassociationOnly: !report.isValid && t.reassociationOnly };
  } catch (e) {
    model.dispose();
    throw e;
  }
}

async function checkFixture(name, modelPath, weightsPath, ioPath, truthFile) {
  const { model: single } = await verifyWithTruth(name, modelPath, weightsPath, ioPath, truthFile, 1);
  single.dispose();
  const { model, inputs, reassociationOnly } = await verifyWithTruth(name, modelPath, weightsPath, ioPath, truthFile, undefined);
  try {
    if (native) {
      model.resetBuffers(); // stateful models: run from the loaded state like the native CLI
      const outs = await model.execute(inputs);
      const ref = nativeOutputs(modelPath, weightsPath, ioPath);
      assert.equal(outs.length, ref.length);
      outs.forEach((o, i) => {
        assert.deepEqual(o.shape, ref[i].shape, `output ${i} shape`);
        assert.equal(o.dtype, ref[i].dtype, `output ${i} dtype`);
        // Large activations (rtol missed by reassociation only, judged against float64 above):
        // WASM's 4-lane sums and native's 8-lane ones differ the same way, so no 1e-5 here.
        if (!reassociationOnly) assertClose(o.data, ref[i].data, TOL, `output ${i} vs native`);
      });
    }
  } finally {
    model.dispose();
  }
}

const seeds = readdirSync(join(FIXTURES, 'seeds')).filter((f) => f.endsWith('.json')).sort();
for (const f of seeds) {
  const name = basename(f, '.json');
  const dir = join(MODELS, name, 'torch2.14-training');
  test(`seed ${name}: verify (rtol=atol=1e-5, float64 truth; both builds)${native ? ' and match native' : ''}`, async () => {
    assert.ok(existsSync(join(dir, 'weights.safetensors')), `no weights for seed ${name}`);
    await checkFixture(`seed ${name}`, join(FIXTURES, 'seeds', f), join(dir, 'weights.safetensors'), join(dir, 'io.safetensors'),
      truthPath(`${name}/torch2.14-training`));
  });
}

const fixtures = fixtureDirs();
test('fixture discovery finds the committed models', () => {
  const names = fixtures.map((f) => f.name);
  for (const m of ['small_cnn', 'vit_tiny', 'kv_cache', 'masked_ops', 'SimpleMLP']) {
    assert.ok(names.includes(`${m}/torch2.14-training`), `${m} missing from ${names}`);
    assert.ok(names.includes(`${m}/torch1.13-decomposed`), `${m} missing from ${names}`);
  }
});

for (const fx of fixtures) {
  test(`fixture ${fx.name}: verify (rtol=atol=1e-5, float64 truth; both builds)${native ? ' and match native' : ''}`, async () => {
    await checkFixture(fx.name, fx.model, fx.weights, fx.io, fx.truth);
  });
}

for (const big of ['resnet18', 'mobilenet_v2']) {
  if (!fixtures.some((f) => f.name.startsWith(big + '/'))) {
    test(`fixture ${big}`, { skip: 'weights not generated (tools/make_fixtures.sh build/fixtures)' }, () => {});
  }
}
