// Smoke test of the raw Embind module (bindings/API.md), both variants, in Node:
// load -> bind weights -> run a fixture -> verify against its recorded output,
// plus the error path of a malformed IR. Run after scripts/build_wasm.sh:
//   node tests/wasm_smoke.mjs [threaded|simd]...
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'npm', 'dist');
const fixture = path.join(root, 'tests/fixtures/models/small_cnn/torch2.14-training');

let failures = 0;
function check(cond, what) {
  console.log(`  ${cond ? 'ok  ' : 'FAIL'} ${what}`);
  if (!cond) failures++;
}

// Minimal safetensors reader: 8-byte LE header length, JSON header, raw data.
function readSafetensors(file) {
  const buf = readFileSync(file);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const names = { F32: 'float32', F16: 'float16', BF16: 'bfloat16', F64: 'float64', I64: 'int64',
                  I32: 'int32', I16: 'int16', I8: 'int8', U8: 'uint8', BOOL: 'bool' };
  const out = {};
  for (const [key, t] of Object.entries(header)) {
    if (key === '__metadata__') continue;
    const [b, e] = t.data_offsets;
    out[key] = { dtype: names[t.dtype], shape: t.shape, bytes: new Uint8Array(buf.subarray(8 + n + b, 8 + n + e)) };
  }
  return out;
}

// The verify report is Python-style JSON (NaN/Infinity tokens are possible).
const parseReport = (s) => JSON.parse(s.replace(/\b(NaN|-?Infinity)\b/g, '"$1"'));

async function loadVariant(name) {
  const base = path.join(dist, `torch-ir-wasm-${name}`);
  const create = require(`${base}.js`);
  // Node 20's fetch breaks 3.1.6's file loading: hand over the bytes ourselves.
  return create({ wasmBinary: readFileSync(`${base}.wasm`), pthreadPoolSize: 2 });
}

function runFixture(M, threads) {
  const io = readSafetensors(path.join(fixture, 'io.safetensors'));
  const m = new M.WasmModel();
  try {
    const irPath = path.join(fixture, 'model.json');
    let r = m.loadIR(readFileSync(irPath, 'utf8'), irPath);
    check(r === '', `loadIR ${r}`);
    r = m.addWeightsFile(new Uint8Array(readFileSync(path.join(fixture, 'weights.safetensors'))), 'weights.safetensors');
    check(r === '', `addWeightsFile ${r}`);
    r = m.compile('float32');
    check(r === '', `compile ${r} (arena ${m.arenaBytes()} bytes)`);
    check(m.numInputs() === 1 && m.numOutputs() === 1, 'numInputs/numOutputs');
    const inInfo = m.inputInfo(0);
    check(inInfo.name === 'x' && inInfo.dtype === 'float32' && inInfo.shape.join() === '1,3,32,32',
          `inputInfo ${JSON.stringify(inInfo)}`);
    const x = io['input.x'];
    r = m.setInput(0, x.dtype, x.shape, x.bytes);
    check(r === '', `setInput ${r}`);
    if (threads) M.setNumThreads(threads);
    const t0 = performance.now();
    r = m.run();
    const ms = performance.now() - t0;
    check(r === '', `run ${r} (${ms.toFixed(2)} ms, ${M.numThreads()} thread(s))`);
    const info = m.outputInfo(0);
    const out = new Float32Array(m.outputBytes(0).slice().buffer);
    check(info.dtype === 'float32' && info.shape.join() === '1,10' && out.length === 10,
          `outputInfo ${JSON.stringify(info)}`);
    const y = io['output.0'];
    r = m.setExpected(0, y.dtype, y.shape, y.bytes);
    check(r === '', `setExpected ${r}`);
    const report = parseReport(m.verify(1e-5, 1e-5));
    console.log(`  report: ${JSON.stringify(report)}`);
    check(report.is_valid === true, 'verify is_valid');
    console.log(`  mutated buffers: ${m.mutatedBuffers()}`);

    const bad = m.setInput(0, 'float32', [1, 3, 32, 31], x.bytes.subarray(0, 3 * 32 * 31 * 4));
    const badRun = bad === '' ? m.run() : bad;
    const err = badRun ? JSON.parse(badRun) : {};
    check(err.kind === 'ExecutionError' && /expected \[1, 3, 32, 32\] \(float32\), got \[1, 3, 32, 31\]/.test(err.message),
          `wrong input shape -> ${badRun}`);
    check(m.setInput(0, x.dtype, x.shape, x.bytes) === '' && m.run() === '', 'usable after an error');
    check(m.info(false).includes('SmallCNN'), 'info');
    check(m.mermaid(30, true).length > 0 && m.pie(10).startsWith('pie'), 'mermaid / pie');
    return out;
  } finally {
    m.delete();
  }
}

async function main() {
  const variants = process.argv.slice(2).length ? process.argv.slice(2) : ['threaded', 'simd'];
  for (const v of variants) {
    const name = v === 'threaded' ? 'simd-threaded' : v;
    console.log(`torch-ir-wasm-${name}:`);
    const M = await loadVariant(name);
    check(M.hasThreads() === (v === 'threaded'), `hasThreads() = ${M.hasThreads()}`);
    const heap0 = M.heapBytes();
    const a = runFixture(M, 1);
    if (M.hasThreads()) {
      const b = runFixture(M, 2);
      check(a.every((v, i) => v === b[i]), 'threads 1 and 2 give identical outputs');
    }

    const m = new M.WasmModel();
    const r = m.loadIR('{\n  "model_name": "x",\n  "nodes": [,]\n}', 'bad.json');
    const e = r ? JSON.parse(r) : {};
    console.log(`  bad JSON -> ${r}`);
    check(e.kind === 'IRFormatError' && /^bad\.json: .*line 3, column \d+/.test(e.message), 'bad JSON gives IRFormatError naming the origin, with line/column');
    let threw = '';
    try { m.outputBytes(0); } catch (err) { threw = `${err.name}: ${err.message}`; }
    check(/ExecutionError: .*run\(\) first/.test(threw), `misuse throws a JS Error (${threw})`);
    m.delete();
    console.log(`  heap: ${heap0} -> ${M.heapBytes()} bytes`);
  }
  console.log(failures ? `FAILED (${failures})` : 'wasm smoke: all passed');
  process.exitCode = failures ? 1 : 0;
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
