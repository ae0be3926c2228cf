// The torch-ir-wasm CLI: same commands, flags and output text as the native
// torchir (compared directly when the native build is present).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSafetensors, writeSafetensors } from '../index.js';
import {
  FIXTURES, NPM_DIR, TOL, assertClose, assertDist, fixture, nativeCli, readIo, truthPath,
} from './helpers.mjs';

before(assertDist);

const BIN = join(NPM_DIR, 'bin', 'torch-ir-wasm.js');
const native = nativeCli();
const tmp = mkdtempSync(join(tmpdir(), 'tir-cli-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

const cli = (...args) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120000 });
const nat = (...args) => spawnSync(native, args, { encoding: 'utf8' });

const seeds = join(FIXTURES, 'seeds');
const mlp = fixture('SimpleMLP');
const cnn = fixture('small_cnn');

test('info / visualize / pie print what pytorch-ir prints', () => {
  const ir = join(seeds, 'SimpleMLP.json');
  const exp = (f) => readFileSync(join(seeds, 'expected', f), 'utf8');
  let r = cli('info', ir);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, exp('SimpleMLP.info.txt') + '\n');
  r = cli('info', ir, '--json');
  assert.equal(r.stdout, exp('SimpleMLP.info.json') + '\n');
  r = cli('visualize', ir);
  assert.equal(r.stdout, readFileSync(join(seeds, 'SimpleMLP.mmd'), 'utf8'));
  r = cli('visualize', ir, '--max-nodes', '3');
  assert.equal(r.stdout, exp('SimpleMLP.max3.mmd') + '\n');
  r = cli('visualize', ir, '--no-weights');
  assert.equal(r.stdout, exp('SimpleMLP.noweights.mmd') + '\n');
  r = cli('pie', ir, '--top', '1');
  assert.equal(r.stdout, exp('SimpleMLP.pie.top1') + '\n');
  const out = join(tmp, 'pie.mmd');
  r = cli('pie', ir, '-o', out);
  assert.equal(r.status, 0);
  assert.equal(r.stdout, '');
  assert.equal(readFileSync(out, 'utf8'), exp('SimpleMLP.pie') + '\n');
});

test('verify prints the native report and exits 0 when valid', () => {
  const r = cli('verify', cnn.model, '--weights', cnn.weights, '--io', cnn.io);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Verification PASSED\n  outputs: 1\n  max_diff: \d\.\d{6}e-\d\d\n  mean_diff: \d\.\d{6}e-\d\d\n  output 0 \[1, 10\]: close, max_diff \S+, mean_diff \S+\n$/);
  if (native) {
    const n = nat('verify', cnn.model, '--weights', cnn.weights, '--io', cnn.io);
    // the same text (lib/report.js formats it in JS, src/verify/verify.cpp natively); the digits
    // may differ in the last places
    const masked = (text) => text.replace(/\d\.\d+e[-+]\d+/g, 'N');
    assert.equal(masked(r.stdout), masked(n.stdout));
  }
});

test('verify exits 1 and prints FAILED when outputs differ (tight tolerance on another io)', () => {
  const other = fixture('kv_cache');
  const step2 = other.io.replace('io.safetensors', 'io_step2.safetensors');
  const r = cli('verify', other.model, '--weights', other.weights, '--io', step2, '--rtol', '0', '--atol', '0');
  assert.equal(r.status, 1);
  assert.match(r.stdout, /^Verification FAILED\n/);
  assert.match(r.stdout, /NOT close/);
  assert.match(r.stdout, /  error: Output tensors do not match within tolerance\n$/);
});

test('verify --reference64: ours and PyTorch against float64 side by side, like the native CLI', (t) => {
  const truth = truthPath('small_cnn/torch2.14-training');
  assert.ok(existsSync(truth), `no float64 truth ${truth} (run tools/make_fixtures.sh build/fixtures)`);
  const args = [cnn.model, '--weights', cnn.weights, '--io', cnn.io, '--reference64', truth];
  let r = cli('verify', ...args);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\nFloat64 reference \(error = max \|x - float64\|, bound = 2 x PyTorch's \+ 1e-6 x max\|float64\|\):\n  output 0: ours \d\.\d{3}e-\d\d, PyTorch 2\.479e-07, ratio \S+, scale 8\.802e-01: within bound 1\.376e-06\n$/);
  // rtol = atol = 0 fails, but only by reassociation: the exit status stays rtol/atol's
  r = cli('verify', ...args, '--rtol', '0', '--atol', '0');
  assert.equal(r.status, 1);
  assert.match(r.stdout, /  => the rtol\/atol failure is only reassociation: our error vs float64 is within 2x PyTorch's\n$/);
  // bfloat16 weights: far from float64, not reassociation
  r = cli('verify', ...args, '--weight-dtype', 'bfloat16');
  assert.equal(r.status, 1);
  assert.match(r.stdout, /OUTSIDE bound/);
  assert.match(r.stdout, /  => not only reassociation: our error vs float64 exceeds 2x PyTorch's\n$/);
  if (native) {
    const n = nat('verify', ...args, '--weight-dtype', 'bfloat16');
    assert.equal(n.status, 1);
    assert.equal(r.stdout.split('\n').slice(-4).join('\n').replace(/\d\.\d+e[-+]\d+/g, 'N'),
      n.stdout.split('\n').slice(-4).join('\n').replace(/\d\.\d+e[-+]\d+/g, 'N'));
  }
  r = cli('verify', ...args.slice(0, -1), join(tmp, 'nope.safetensors'));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /nope\.safetensors/);
});

test('run prints shapes and time, writes outputs, and matches native', () => {
  const out = join(tmp, 'out.safetensors');
  const r = cli('run', cnn.model, '--weights', cnn.weights, '--inputs', cnn.io, '-o', out, '--profile', '--threads', '1');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^output 0: \[1, 10\] float32\nrun time: \d+\.\d{3} ms\n/);
  assert.match(r.stdout, /\n  \S+ +aten\.\S+ +\d+\.\d{3} ms\n/);
  const got = parseSafetensors(readFileSync(out)).get('output.0');
  assertClose(got.data, readIo(cnn.io).outputs[0].data, TOL, 'cli run output');
  if (native) {
    const nout = join(tmp, 'native.safetensors');
    assert.equal(nat('run', cnn.model, '--weights', cnn.weights, '--inputs', cnn.io, '-o', nout).status, 0);
    const ref = parseSafetensors(readFileSync(nout)).get('output.0');
    assertClose(got.data, ref.data, TOL, 'cli run vs native');
  }
});

test('errors: same kinds and messages as native, exit 1; usage errors exit 2', () => {
  const bad = join(FIXTURES, 'ir_bad', 'syntax_error.json');
  let r = cli('info', bad);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^torch-ir-wasm: IRFormatError: .*JSON parse error at line 4, column 5: Missing a comma or '}' after an object member\.\n$/);
  r = cli('verify', mlp.model, '--weights', join(FIXTURES, 'weights', 'truncated.safetensors'), '--io', mlp.io);
  assert.equal(r.status, 1);
  const want = `WeightLoadError: ${join(FIXTURES, 'weights', 'truncated.safetensors')}: tensor 'u8_pad'`;
  assert.ok(r.stderr.startsWith(`torch-ir-wasm: ${want}`), r.stderr);
  if (native) {
    const n = nat('verify', mlp.model, '--weights', join(FIXTURES, 'weights', 'truncated.safetensors'), '--io', mlp.io);
    assert.equal(r.stderr.replace('torch-ir-wasm:', ''), n.stderr.replace('torchir:', ''));
  }
  r = cli('verify', mlp.model, '--weights', mlp.weights);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^torch-ir-wasm: usage error: missing required option --io\nusage: torch-ir-wasm verify IR /);
  const noInputs = join(tmp, 'no-inputs.safetensors');
  writeFileSync(noInputs, writeSafetensors([{ name: 'output.0', dtype: 'float32', shape: [1], data: new Float32Array(1) }]));
  r = cli('run', mlp.model, '--weights', mlp.weights, '--inputs', noInputs);
  assert.equal(r.status, 1);
  assert.equal(r.stderr, `torch-ir-wasm: WeightLoadError: ${noInputs}: no tensor 'input.x' for graph input 'x'\n`);
  r = cli('verify', mlp.model, '--weights', mlp.weights, '--io', mlp.io, '--rtol', 'abc');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^torch-ir-wasm: usage error: option --rtol expects a number, got 'abc'\n/);
  r = cli('frob');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /^torch-ir-wasm: unknown command 'frob'\nusage: torch-ir-wasm/);
  r = cli();
  assert.equal(r.status, 2);
  assert.match(r.stdout, /^usage: torch-ir-wasm <command>/);
  r = cli('--help');
  assert.equal(r.status, 0);
});

test('the command line is the engine\'s: bad lines fail as torchir\'s do; native-only parts are refused', () => {
  const ir = join(seeds, 'SimpleMLP.json');
  const bad = [
    ['info', ir, '--weights', 'x'],
    ['pie', ir, '--top', 'x'],
    ['run', ir, '--weights', 'w', '--inputs', 'i', '--repeat', '0'],
    ['run', ir, '--weights', 'w', '--inputs', 'i', '--threads', '-2'],
    ['run', ir, '--weights', 'w', '--inputs', 'i', '--max-arena-bytes', '12Q'],
    ['verify', ir, '--weights', 'w', '--io', 'i', '--weight-dtype', 'int3'],
    ['verify', ir, '--weights', 'w', '--io', 'i', '--backend', 'onnx'],
    ['verify', '--weights', 'w', '--io', 'i'],
    ['generate', ir, '--weights', 'w', '--kv-mapping', 'k', '--prompt-ids', '1'],
    ['generate', ir, ir, '--weights', 'w', '--kv-mapping', 'k', '--prompt-ids', '1,x'],
    ['run', ir, '--weights'],
  ];
  for (const args of bad) {
    const r = cli(...args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^torch-ir-wasm: usage error: .+\nusage: torch-ir-wasm \S+/, args.join(' '));
    if (native) {
      const n = nat(...args);
      assert.equal(n.status, 2, args.join(' '));
      // The first line is the same words; the usage lines are the same command's.
      assert.equal(r.stderr.split('\n')[0].replace('torch-ir-wasm', 'torchir'), n.stderr.split('\n')[0], args.join(' '));
    }
  }
  let r = cli('parity', ir, '--weights', 'w', '--io', 'i');
  assert.equal(r.status, 1);
  assert.equal(r.stderr, "torch-ir-wasm: Error: 'parity' needs the native build with LibTorch (torchir parity)\n");
  r = cli('verify', ir, '--weights', 'w', '--io', 'i', '--backend', 'libtorch');
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^torch-ir-wasm: Error: backend 'libtorch' needs the native build/);
  r = cli('--help');
  assert.doesNotMatch(r.stdout, /\n {2}parity /);
  assert.match(r.stdout, /\n {2}generate PREFILL DECODE /);
  if (native) {
    // The commands both run have the same usage lines.
    const lines = (t) => t.split('\n').filter((l) => /^ {2}(info|visualize|pie|run|verify|generate) /.test(l));
    assert.deepEqual(lines(r.stdout), lines(nat('--help').stdout));
  }
});
