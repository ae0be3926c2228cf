// Issue 12 "silent surprises" and CLI hygiene: Map inputs, unknown weight keys
// (warning, strictWeights, none on any fixture), --version, unknown options,
// usage exit codes and file names in errors, in both CLIs where built.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  env, loadIR, loadLM, parseSafetensors, writeSafetensors, WeightLoadError,
} from '../index.js';
import { FIXTURES, GENERATED, NPM_DIR, REPO, assertDist, fixture, fixtureDirs, nativeCli, readIo } from './helpers.mjs';

before(assertDist);

const BIN = join(NPM_DIR, 'bin', 'torch-ir-wasm.js');
const native = nativeCli();
const tmp = mkdtempSync(join(tmpdir(), 'tir-hygiene-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const cli = (...args) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120000 });
const nat = (...args) => spawnSync(native, args, { encoding: 'utf8', timeout: 120000 });
const cnn = fixture('small_cnn');
const VERSION = JSON.parse(readFileSync(join(NPM_DIR, 'package.json'), 'utf8')).version;

// Runs fn with console.warn captured; returns [result, warnings].
async function captureWarnings(fn) {
  const seen = [];
  const orig = console.warn;
  console.warn = (...args) => seen.push(args.join(' '));
  try {
    return [await fn(), seen];
  } finally {
    console.warn = orig;
  }
}

// small_cnn's weights plus a misspelled copy of conv1.weight (different values).
function typoWeights() {
  const w = parseSafetensors(readFileSync(cnn.weights));
  const conv = w.get('conv1.weight');
  w.set('conv1.wieght', { ...conv, data: conv.data.map((x) => x + 1) });
  return w;
}
const TYPO_MESSAGE = "weights: 1 key matches no weight, buffer or constant of the IR: 'conv1.wieght' (did you mean 'conv1.weight'?)";

test('inputs and expected outputs given as a Map work in execute and verify', async () => {
  const model = await loadIR(cnn.model, { weights: cnn.weights });
  const io = readIo(cnn.io);
  const inputs = new Map(Object.entries(io.inputs));
  const [out] = await model.execute(inputs);
  const [ref] = await model.execute(io.inputs);
  assert.deepEqual(out.data, ref.data);
  const report = await model.verify(inputs, new Map([[model.outputs[0].name, io.outputs[0]]]));
  assert.equal(report.isValid, true, report.errorMessage);
  await assert.rejects(model.execute(new Map()), /input 0 \('x'\) is missing/);
  model.dispose();
});

test('unknown weight keys: a warning naming the key and the closest IR key', async () => {
  const weights = typoWeights();
  let [model, warnings] = await captureWarnings(() => loadIR(cnn.model, { weights }));
  assert.deepEqual(warnings, [`torch-ir-wasm: ${TYPO_MESSAGE}; ignored (strictWeights: true or the CLI's --strict-weights makes this an error)`]);
  model.dispose();
  // The same from .safetensors bytes (keys read from the header).
  [model, warnings] = await captureWarnings(() => loadIR(cnn.model, { weights: writeSafetensors(weights) }));
  assert.equal(warnings.length, 1);
  assert.ok(warnings[0].includes(TYPO_MESSAGE), warnings[0]);
  model.dispose();
  // env.warnings = false silences it.
  env.warnings = false;
  try {
    [model, warnings] = await captureWarnings(() => loadIR(cnn.model, { weights }));
  } finally {
    env.warnings = true;
  }
  assert.deepEqual(warnings, []);
  model.dispose();
});

test('unknown weight keys: strictWeights makes them a WeightLoadError', async () => {
  await assert.rejects(loadIR(cnn.model, { weights: typoWeights(), strictWeights: true }),
    (e) => e instanceof WeightLoadError && e.message === `${TYPO_MESSAGE} (strictWeights)`);
  // Many keys: the first five, then a count.
  const weights = parseSafetensors(readFileSync(cnn.weights));
  for (let i = 0; i < 7; ++i) weights.set(`extra${i}`, { dtype: 'float32', shape: [1], data: new Float32Array([i]) });
  await assert.rejects(loadIR(cnn.model, { weights, constants: { zzz: new Float32Array(1) }, strictWeights: true }),
    /^WeightLoadError: weights: 7 keys match no weight, buffer or constant of the IR: 'extra0', 'extra1', 'extra2', 'extra3', 'extra4', and 2 more \(strictWeights\)$/);
});

test('not unknown: tied copies of a bound weight and BatchNorm num_batches_tracked counters', async () => {
  const weights = parseSafetensors(readFileSync(cnn.weights));
  weights.set('head.weight', weights.get('fc.weight')); // tied: same shape and bytes
  weights.set('bn9.num_batches_tracked', { dtype: 'int64', shape: [], data: new BigInt64Array(1) });
  const [model, warnings] = await captureWarnings(() => loadIR(cnn.model, { weights, strictWeights: true }));
  assert.deepEqual(warnings, []);
  model.dispose();
  // A same-shaped tensor with other values is not a tied copy.
  const fc = weights.get('fc.weight');
  weights.set('head.weight', { ...fc, data: fc.data.map((x) => x + 1) });
  await assert.rejects(loadIR(cnn.model, { weights, strictWeights: true }), /'head\.weight'/);
});

test('unknown weight keys in torch.save files too (the engine, which reads them, checks the keys)', async () => {
  const t = (name, shape) => ({ name, shape, dtype: 'float32' });
  const ir = {
    model_name: 'Scale',
    graph_inputs: [t('x', [2, 3])],
    graph_outputs: [t('mul', [2, 3])],
    weights: [t('scale', [2, 3])],
    weight_name_mapping: { p_scale: 'scale' },
    nodes: [{
      name: 'mul',
      op_type: 'aten.mul.Tensor',
      inputs: [{ ...t('x', [2, 3]), producer_node: 'x', producer_output_idx: 0 }, t('p_scale', [2, 3])],
      outputs: [t('mul', [2, 3])],
      attrs: {},
    }],
  };
  // nn.Linear(3, 2)'s state_dict: 'weight' and 'bias', neither of which this IR reads.
  await assert.rejects(loadIR(ir, { weights: join(FIXTURES, 'weights', 'linear.pt'), strictWeights: true }),
    (e) => e instanceof WeightLoadError &&
      /^weights: 2 keys match no weight, buffer or constant of the IR: '(weight|bias)', '(weight|bias)' \(strictWeights\)$/.test(e.message));
});

test('no unknown-key warning for any fixture model, nor the LLM pair', async () => {
  let checked = 0;
  for (const f of fixtureDirs()) {
    const [model, warnings] = await captureWarnings(() => loadIR(f.model, { weights: f.weights, compile: false }));
    assert.deepEqual(warnings, [], f.name);
    model.dispose();
    ++checked;
  }
  assert.ok(checked >= 30, `only ${checked} fixtures found`);
  const llm = join(FIXTURES, 'llm', 'tiny_llama');
  const [lm, warnings] = await captureWarnings(() => loadLM({
    prefill: join(llm, 'prefill.json'),
    decode: join(llm, 'decode.json'),
    kvMapping: join(llm, 'kv_mapping.json'),
    weights: join(GENERATED, 'llm', 'tiny_llama', 'weights.safetensors'),
    strictWeights: true,
  }));
  assert.deepEqual(warnings, []);
  lm.dispose();
});

// Both CLIs: [name, run, program prefix].
const clis = [['torch-ir-wasm', cli, 'torch-ir-wasm']];
if (native) clis.push(['native torchir', nat, 'torchir']);

test('the native CLI and the npm package have one version', () => {
  const cmake = readFileSync(join(REPO, 'CMakeLists.txt'), 'utf8');
  assert.equal(/project\(torch_ir_wasm VERSION (\S+)/.exec(cmake)?.[1], VERSION);
});

for (const [name, run, prog] of clis) {
  test(`${name}: --version prints the package version`, () => {
    const r = run('--version');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `${prog} ${VERSION}\n`);
  });

  test(`${name}: an unknown option is named, with the command's usage, exit 2`, () => {
    let r = run('info', cnn.model, '--bogus');
    assert.equal(r.status, 2);
    assert.equal(r.stderr, `${prog}: usage error: unknown option --bogus\nusage: ${prog} info IR [--json] [-o FILE]\n` +
      `(${prog} --help lists every command and option)\n`);
    // A flag of another command is unknown too; a value option without its value is still named so.
    r = run('info', cnn.model, '--weights', cnn.weights);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /usage error: unknown option --weights\n/);
    r = run('verify', cnn.model, '--weights', cnn.weights, '--io');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /usage error: option --io expects a value\n/);
  });

  test(`${name}: usage errors exit 2, engine and file errors exit 1`, () => {
    const usage = [
      [['verify', cnn.model, '--weights', cnn.weights], 'missing required option --io'],
      [['info'], 'missing IR file argument'],
      [['verify', cnn.model, '--weights', cnn.weights, '--io', cnn.io, '--rtol', 'abc'], "option --rtol expects a number, got 'abc'"],
      [['run', cnn.model, '--weights', cnn.weights, '--inputs', cnn.io, '--repeat', '0'], '--repeat must be at least 1'],
      [['run', cnn.model, '--weights', cnn.weights, '--inputs', cnn.io, '--weight-dtype', 'int4:6'], "--weight-dtype must be float32, float16, bfloat16, int8, int4 or int4:G (G a positive multiple of 4), got 'int4:6'"],
      [['run', cnn.model, '--weights', cnn.weights, '--inputs', cnn.io, '--max-tensor-bytes', '12X'], '--max-tensor-bytes expects a non-negative integer'],
      [['generate', cnn.model, '--kv-mapping', 'k', '--weights', 'w', '--prompt-ids', '1'], 'generate needs two IR files: PREFILL DECODE'],
    ];
    for (const [args, message] of usage) {
      const r = run(...args);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.ok(r.stderr.startsWith(`${prog}: usage error: ${message}`), r.stderr);
    }
    const r = run('info', join(tmp, 'nope.json'));
    assert.equal(r.status, 1);
    assert.equal(r.stderr, `${prog}: IRFormatError: ${join(tmp, 'nope.json')}: cannot open IR file: No such file or directory\n`);
  });

  test(`${name}: JSON parse errors and unreadable files name the file`, () => {
    const bad = join(tmp, 'broken.json');
    writeFileSync(bad, '{"model_name": "x",\n  "nodes": [,]}');
    let r = run('info', bad);
    assert.equal(r.status, 1);
    assert.equal(r.stderr, `${prog}: IRFormatError: ${bad}: JSON parse error at line 2, column 13: Invalid value.\n`);
    // generate reads three JSON files: each error names its file.
    const llm = join(FIXTURES, 'llm', 'tiny_llama');
    const weights = join(GENERATED, 'llm', 'tiny_llama', 'weights.safetensors');
    const gen = (prefill, decode, mapping) => run('generate', prefill, decode, '--kv-mapping', mapping, '--weights', weights,
      '--prompt-ids', '1');
    r = gen(join(llm, 'prefill.json'), bad, join(llm, 'kv_mapping.json'));
    assert.equal(r.status, 1);
    assert.equal(r.stderr, `${prog}: IRFormatError: ${bad}: JSON parse error at line 2, column 13: Invalid value.\n`);
    r = gen(join(llm, 'prefill.json'), join(llm, 'decode.json'), bad);
    assert.equal(r.status, 1);
    assert.ok(r.stderr.startsWith(`${prog}: IRFormatError: ${bad}: `), r.stderr);
    assert.match(r.stderr, /JSON parse error at line 2, column 13/);
    // A directory as the IR, an unwritable output.
    r = run('info', tmp);
    assert.equal(r.stderr, `${prog}: IRFormatError: ${tmp}: cannot open IR file: Is a directory\n`);
    const out = join(tmp, 'no-such-dir', 'out.safetensors');
    r = run('run', cnn.model, '--weights', cnn.weights, '--inputs', cnn.io, '-o', out);
    assert.equal(r.status, 1);
    assert.ok(r.stderr.endsWith(`${prog}: Error: cannot write '${out}': No such file or directory\n`), r.stderr);
    r = run('info', cnn.model, '-o', out);
    assert.equal(r.stderr, `${prog}: Error: cannot write '${out}': No such file or directory\n`);
  });

  test(`${name}: unknown weight keys warn on stderr; --strict-weights fails`, () => {
    const typo = join(tmp, `typo-${prog}.safetensors`);
    writeFileSync(typo, writeSafetensors(typoWeights()));
    let r = run('verify', cnn.model, '--weights', typo, '--io', cnn.io);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Verification PASSED/);
    assert.ok(r.stderr.startsWith(`${prog}: warning: ${TYPO_MESSAGE}; ignored (`) ||
      r.stderr.startsWith(`${prog}: ${TYPO_MESSAGE}; ignored (`), r.stderr);
    r = run('verify', cnn.model, '--weights', typo, '--io', cnn.io, '--strict-weights');
    assert.equal(r.status, 1);
    assert.match(r.stderr, new RegExp(`^${prog}: WeightLoadError: weights: 1 key matches .*'conv1\\.wieght' \\(did you mean 'conv1\\.weight'\\?\\)`));
    r = run('verify', cnn.model, '--weights', cnn.weights, '--io', cnn.io, '--strict-weights');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
  });
}

test('the proxied methods: one list (lib/proxy_methods.js) that Model and ProxyModel implement and the declarations derive ProxyModel from', async () => {
  const { FORWARDED_METHODS, WORKER_METHODS } = await import('../lib/proxy_methods.js');
  const { Model } = await import('../lib/model.js');
  const { ProxyModel } = await import('../lib/proxy.js');
  for (const m of WORKER_METHODS) {
    assert.equal(typeof Model.prototype[m], 'function', `Model lacks ${m}`);
    assert.equal(typeof ProxyModel.prototype[m], 'function', `ProxyModel lacks ${m}`);
  }
  assert.ok(FORWARDED_METHODS.length >= 11);
  // The generated declarations (tsc, npm/src): the list's type is its literal names, and
  // ProxyModel's forwarded methods are a mapped type over them, so the type cannot lack one.
  const listDts = readFileSync(join(NPM_DIR, 'lib', 'proxy_methods.d.ts'), 'utf8');
  assert.match(listDts, new RegExp(`FORWARDED_METHODS: readonly \\[${FORWARDED_METHODS.map((m) => `"${m}"`).join(', ')}\\]`));
  const proxyDts = readFileSync(join(NPM_DIR, 'lib', 'proxy.d.ts'), 'utf8');
  assert.match(proxyDts, /export type ForwardedMethods = \{\s*\[M in ForwardedMethod\]: Proxied<Model\[M\]>;?\s*\}/);
  assert.match(proxyDts, /export interface ProxyModel extends ForwardedMethods \{/);
  for (const m of ['execute', 'dispose']) assert.match(proxyDts, new RegExp(`\\n    ${m}(<[^(]*>)?\\(`), `ProxyModel declares no ${m}`);
  assert.match(readFileSync(join(NPM_DIR, 'index.d.ts'), 'utf8'), /export type \{ ProxyModel \} from '\.\/lib\/proxy\.js'/);
});

// The product (the package's sources, the viewer and its tools) imports no example: examples use
// the product, never the other way (a shared helper lives in the product).
test('the package and the viewer import nothing from examples/', () => {
  const files = [];
  const walk = (dir) => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (f === 'node_modules' || f === 'vendor') continue;
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(m?js|ts)$/.test(f)) files.push(p);
    }
  };
  for (const d of ['npm/src', 'web/src', 'web/tools']) walk(join(REPO, d));
  assert.ok(files.length > 20);
  const offenders = files.filter((f) => /(from|import\()\s*['"][^'"]*\/examples\//.test(readFileSync(f, 'utf8')));
  assert.deepEqual(offenders, []);
});
