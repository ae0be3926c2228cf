// Shared test helpers: fixture discovery and io files. (No tests here; node's
// runner lists this file as one passing entry.)
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';
import { parseSafetensors, splitIo } from '../index.js';

export const NPM_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REPO = resolve(NPM_DIR, '..');
export const FIXTURES = join(REPO, 'tests', 'fixtures');
export const MODELS = join(FIXTURES, 'models');
export const GENERATED = process.env.TIR_GENERATED_FIXTURES || join(REPO, 'build', 'fixtures');

// Tolerance of every check against recorded PyTorch outputs (as the native suites).
export const TOL = { rtol: 1e-5, atol: 1e-5 };

export const DIST_FILES = [
  'torch-ir-wasm-simd.js', 'torch-ir-wasm-simd.wasm',
  'torch-ir-wasm-simd-threaded.js', 'torch-ir-wasm-simd-threaded.wasm', 'torch-ir-wasm-simd-threaded.worker.js',
];

export function assertDist() {
  const missing = DIST_FILES.filter((f) => !existsSync(join(NPM_DIR, 'dist', f)));
  assert.deepEqual(missing, [], `npm/dist is missing ${missing.join(', ')}: run scripts/build_wasm.sh first`);
}

// The test-only WASM modules (scripts/build_wasm.sh --tests -> build/wasm-test/):
// the dist builds' objects linked again with the internal hooks of
// bindings/embind_debug.cpp (_debugFault, _debugHeapInUse, kernelSelfcheck),
// which npm/dist does not ship. Same file names: select them with wasmPaths.
export const TEST_WASM_DIR = join(REPO, 'build', 'wasm-test');
export const TEST_WASM_PATHS = pathToFileURL(TEST_WASM_DIR).href + '/';

export function assertTestBuild() {
  assertDist();
  const missing = DIST_FILES.filter((f) => !existsSync(join(TEST_WASM_DIR, f)));
  assert.deepEqual(missing, [], `build/wasm-test is missing ${missing.join(', ')}: run scripts/build_wasm.sh --tests first`);
}

// Where tools/make_fixtures.sh writes a fixture's float64 truth (output.<i>, float64).
export const truthPath = (name) => join(GENERATED, name, 'truth64.safetensors');

// Every fixture dir with committed weights + io, plus the generated large ones when present.
// -> [{name: 'small_cnn/torch2.14-training', dir, model, weights, io, truth}]
export function fixtureDirs({ generated = true } = {}) {
  const out = [];
  for (const root of generated ? [MODELS, GENERATED] : [MODELS]) {
    if (!existsSync(root)) continue;
    for (const model of readdirSync(root).sort()) {
      const mdir = join(root, model);
      if (!existsSync(mdir) || !readdirSync(mdir, { withFileTypes: true }).some((d) => d.isDirectory())) continue;
      for (const flavor of readdirSync(mdir).sort()) {
        const dir = join(mdir, flavor);
        const files = ['model.json', 'weights.safetensors', 'io.safetensors'].map((f) => join(dir, f));
        if (!files.every((f) => existsSync(f))) continue;
        if (out.some((f) => f.name === `${model}/${flavor}`)) continue;
        out.push({
          name: `${model}/${flavor}`, dir, model: files[0], weights: files[1], io: files[2],
          truth: truthPath(`${model}/${flavor}`),
        });
      }
    }
  }
  return out;
}

export function readIo(path) {
  return splitIo(parseSafetensors(readFileSync(path), path));
}

// Inputs in graph_inputs order from an io file.
export function ioInputs(model, io) {
  return model.inputs.map((m) => io.inputs[m.name]);
}

export const fixture = (model, flavor = 'torch2.14-training') => {
  const dir = join(MODELS, model, flavor);
  return { dir, model: join(dir, 'model.json'), weights: join(dir, 'weights.safetensors'), io: join(dir, 'io.safetensors') };
};

// The native CLI if built (for cross-checks), else null.
export function nativeCli() {
  const candidates = [process.env.TIR_NATIVE_CLI, join(REPO, 'build', 'native', 'torchir')];
  return candidates.find((p) => p && existsSync(p)) || null;
}

export function maxAbsDiff(a, b) {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; ++i) {
    const d = Math.abs(Number(a[i]) - Number(b[i]));
    if (!(d <= m)) m = d; // NaN propagates
  }
  return m;
}

// torch.allclose semantics.
export function assertClose(actual, expected, { rtol, atol } = TOL, what = 'values') {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < actual.length; ++i) {
    const a = Number(actual[i]);
    const e = Number(expected[i]);
    if (a === e) continue;
    assert.ok(Math.abs(a - e) <= atol + rtol * Math.abs(e), `${what}[${i}]: ${a} vs ${e}`);
  }
}

// y = x W^T + b with W [n, n] (weight names 'weight' / 'bias'): the output
// 'linear' is 4n bytes, W 4n^2.
export function linearIr(n) {
  const t = (name, shape, extra = {}) => ({ name, shape, dtype: 'float32', ...extra });
  return {
    model_name: 'BigLinear',
    graph_inputs: [t('x', [1, n])],
    graph_outputs: [t('linear', [1, n])],
    weights: [t('weight', [n, n]), t('bias', [n])],
    weight_name_mapping: { p_weight: 'weight', p_bias: 'bias' },
    nodes: [{
      name: 'linear',
      op_type: 'aten.linear.default',
      inputs: [t('x', [1, n], { producer_node: 'x', producer_output_idx: 0 }), t('p_weight', [n, n]), t('p_bias', [n])],
      outputs: [t('linear', [1, n])],
      attrs: {},
    }],
  };
}

// PyTorch's own quantized models (tests/fixtures/quantized, tools/export_quantized.py): io files
// hold PyTorch's run of the quantized module (output.<i>) and of the float32 module
// (float_output.<i>).
export const QUANTIZED = join(FIXTURES, 'quantized');
export function quantizedFixtures() {
  if (!existsSync(QUANTIZED)) return [];
  return readdirSync(QUANTIZED).filter((n) => existsSync(join(QUANTIZED, n, 'model.json'))).sort().map((name) => {
    const dir = join(QUANTIZED, name);
    return { name, model: join(dir, 'model.json'), weights: join(dir, 'weights.safetensors'), io: join(dir, 'io.safetensors') };
  });
}

// The quantized models' criterion: per output, max |ours - PyTorch quantized| <= a quarter of the
// quantization error max |PyTorch quantized - PyTorch float32|. Returns one line per output.
export function assertWithinQuantizationError(name, outputs, ioPath) {
  const tensors = parseSafetensors(readFileSync(ioPath), ioPath);
  const lines = [];
  outputs.forEach((o, i) => {
    const q = tensors.get(`output.${i}`).data;
    const f = tensors.get(`float_output.${i}`).data;
    const quantError = maxAbsDiff(q, f);
    const diff = maxAbsDiff(o.data, q);
    lines.push(`${name} output ${i}: ours vs PyTorch quantized ${diff.toExponential(2)}, quantization error ${quantError.toExponential(2)}`);
    assert.ok(diff <= 0.25 * quantError, lines.at(-1));
  });
  return lines;
}

/**
 * Runs a task page (docs/tasks/*.md) as written: its ```js blocks joined in order, as one ES
 * module from the repository root, each `from 'NAME'` of `modules` pointed at that file (default:
 * torch-ir-wasm at this checkout's package). Asserts it exits 0 and prints something.
 */
export function runTaskPage(file, modules = {}) {
  const md = readFileSync(file, 'utf8');
  const blocks = [...md.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length > 0, `${file} has no js block`);
  let code = blocks.join('\n');
  for (const [name, path] of Object.entries({ 'torch-ir-wasm': join(NPM_DIR, 'index.js'), ...modules })) {
    code = code.replaceAll(`from '${name}'`, `from '${pathToFileURL(path).href}'`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'tir-task-'));
  try {
    writeFileSync(join(dir, 'page.mjs'), code);
    const r = spawnSync(process.execPath, [join(dir, 'page.mjs')], { cwd: REPO, encoding: 'utf8', timeout: 300000 });
    assert.equal(r.status, 0, `${file}: ${r.stderr}`);
    assert.ok(r.stdout.trim().length > 0, `${file} printed nothing`);
    return r.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
