// Bad inputs give the right error class with the native message, and leave
// the module usable: every case is followed by a good run on the same module.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  loadIR, IRFormatError, WeightLoadError, ExecutionError, VerificationError, TorchIrError,
} from '../index.js';
import { FIXTURES, TOL, assertDist, fixture, readIo } from './helpers.mjs';

before(assertDist);

const mlp = fixture('SimpleMLP');
const mlpIo = readIo(mlp.io);
const x = mlpIo.inputs.x.data; // [1, 4] float32

// A good load + run + verify on the same (cached) module.
async function stillUsable(options = {}) {
  const m = await loadIR(mlp.model, { weights: mlp.weights, ...options });
  const r = await m.verify([x], mlpIo.outputs, TOL);
  assert.ok(r.isValid, 'module unusable after an error');
  m.dispose();
}

async function rejectsWith(promise, Cls, message) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof Cls, `expected ${Cls.name}, got ${e?.name}: ${e?.message}`);
    assert.ok(e instanceof TorchIrError);
    if (message instanceof RegExp) assert.match(e.message, message);
    else assert.equal(e.message, message);
    return true;
  });
}

for (const threads of [undefined, 1]) {
  const opt = threads ? { threads } : {};
  const tag = threads ? 'single-threaded' : 'threaded';

  test(`${tag}: malformed JSON -> IRFormatError with line and column`, async () => {
    const bad = readFileSync(join(FIXTURES, 'ir_bad', 'syntax_error.json'), 'utf8');
    await rejectsWith(loadIR(bad, opt), IRFormatError,
      /JSON parse error at line 4, column 5: Missing a comma or '}' after an object member\./);
    await rejectsWith(loadIR('{"model_name": ', opt), IRFormatError, /JSON parse error at line 1, column \d+/);
    await stillUsable(opt);
  });

  test(`${tag}: an IR with several problems reports all of them`, async () => {
    await rejectsWith(loadIR(join(FIXTURES, 'ir_bad', 'three_problems.json'), opt), IRFormatError,
      /^IR validation failed with 3 problem\(s\):\n  - node 'relu' input 0 \('linear'\): producer_node 'linear' is a later node/);
    await stillUsable(opt);
  });

  test(`${tag}: a missing IR file -> IRFormatError naming it`, async () => {
    const p = join(FIXTURES, 'nope.json');
    await rejectsWith(loadIR(p, opt), IRFormatError, `${p}: cannot open IR file: No such file or directory`);
    await stillUsable(opt);
  });

  test(`${tag}: truncated safetensors / torch.save -> WeightLoadError`, async () => {
    const w = join(FIXTURES, 'weights');
    await rejectsWith(loadIR(mlp.model, { ...opt, weights: join(w, 'truncated.safetensors') }), WeightLoadError,
      `${join(w, 'truncated.safetensors')}: tensor 'u8_pad': data_offsets [131, 133] extend past the end of the data section (131 bytes; file truncated?)`);
    await rejectsWith(loadIR(mlp.model, { ...opt, weights: readFileSync(join(w, 'truncated_header.safetensors')) }),
      WeightLoadError, /^weights: truncated: header says 912 bytes but file has 32 after the 8-byte length$/);
    await rejectsWith(loadIR(mlp.model, { ...opt, weights: join(w, 'truncated.pt') }), WeightLoadError,
      /truncated or not a zip archive/);
    await rejectsWith(loadIR(mlp.model, { ...opt, weights: join(w, 'missing.safetensors') }), WeightLoadError,
      /cannot open '.*missing\.safetensors': No such file or directory/);
    await stillUsable(opt);
  });

  test(`${tag}: missing weights or constants -> WeightLoadError naming the reader node`, async () => {
    // MaskedLinear's IR without its constants: the mask has no value.
    const fx = fixture('MaskedLinear');
    const ir = JSON.parse(readFileSync(fx.model, 'utf8'));
    delete ir.constants;
    await rejectsWith(loadIR(ir, { ...opt, weights: fx.weights }), WeightLoadError,
      "Weight/input 'c_mask' not found in registry for node 'mul'.");
    // ... and works once the constant is passed.
    const m = await loadIR(ir, { ...opt, weights: fx.weights, constants: { mask: new Float32Array([1, 0, 1, 0]) } });
    const io = readIo(fx.io);
    assert.ok((await m.verify([io.inputs.x.data], io.outputs, TOL)).isValid);
    m.dispose();
    await rejectsWith(loadIR(mlp.model, { ...opt, weights: {} }), WeightLoadError,
      /^Weight\/input 'p_.*' not found in registry for node '.*'\.$/);
    await stillUsable(opt);
  });

  test(`${tag}: wrong input count, shape, dtype, size, name -> ExecutionError naming the input`, async () => {
    const m = await loadIR(mlp.model, { ...opt, weights: mlp.weights });
    await rejectsWith(m.execute([]), ExecutionError, "expected 1 input(s) ('x'), got 0");
    await rejectsWith(m.execute([x, x]), ExecutionError, "expected 1 input(s) ('x'), got 2");
    await rejectsWith(m.execute([{ data: new Float32Array(8), shape: [2, 4] }]), ExecutionError,
      "input 0 ('x'): expected [1, 4] (float32), got [2, 4] (float32)");
    await rejectsWith(m.execute([new Int32Array(4)]), ExecutionError,
      "input 0 ('x'): expected [1, 4] (float32), got [1, 4] (int32)");
    await rejectsWith(m.execute([new Float32Array(5)]), ExecutionError,
      "input 0 ('x'): data has 5 element(s) but shape [1, 4] needs 4");
    await rejectsWith(m.execute({ y: x }), ExecutionError, "unknown input 'y' (graph inputs: x)");
    await rejectsWith(m.execute({}), ExecutionError, "input 0 ('x') is missing");
    await rejectsWith(m.execute([{ data: x, dtype: 'complex32' }]), ExecutionError, "input 0 ('x'): unknown dtype 'complex32'");
    // the same model still runs
    const r = await m.verify([x], mlpIo.outputs, TOL);
    assert.ok(r.isValid);
    m.dispose();
    await stillUsable(opt);
  });

  test(`${tag}: unsupported op -> ExecutionError listing it`, async () => {
    const ir = JSON.parse(readFileSync(mlp.model, 'utf8'));
    ir.nodes[0].op_type = 'aten.frobnicate.default';
    await rejectsWith(loadIR(ir, { ...opt, weights: mlp.weights }), ExecutionError,
      `Unsupported op type(s) (1):\n  - aten.frobnicate.default (node '${ir.nodes[0].name}')`);
    await stillUsable(opt);
  });

  test(`${tag}: verify with bad expected values`, async () => {
    const m = await loadIR(mlp.model, { ...opt, weights: mlp.weights });
    // wrong count: reported like pytorch-ir's verify_ir, not thrown
    const r = await m.verify([x], [], TOL);
    assert.equal(r.isValid, false);
    assert.equal(r.errorMessage, 'Output count mismatch: expected 0, got 1');
    assert.equal(r.text, 'Verification FAILED\n  outputs: 1\n  max_diff: 0.000000e+00\n  mean_diff: 0.000000e+00\n' +
      '  error: Output count mismatch: expected 0, got 1\n');
    // wrong shape: not close, diff inf
    const s = await m.verify([x], [{ data: new Float32Array(3), shape: [1, 3] }], TOL);
    assert.equal(s.isValid, false);
    assert.equal(s.outputDetails[0].maxDiff, Infinity);
    assert.equal(s.errorMessage, 'Output tensors do not match within tolerance');
    // wrong values
    const v = await m.verify([x], [new Float32Array(mlpIo.outputs[0].data.length)], TOL);
    assert.equal(v.isValid, false);
    assert.ok(v.maxDiff > 0);
    await rejectsWith(m.verify([x], [{ data: new Float32Array(2), shape: [1, 3] }]), VerificationError,
      "expected output 0 ('linear_1'): data has 2 element(s) but shape [1, 3] needs 3".replace('linear_1', m.outputs[0].name));
    assert.ok((await m.verify([x], mlpIo.outputs)).isValid);
    m.dispose();
  });
}
