// The app under test (TypeScript only so that `node --test npm/test/` does not
// pick it up as a test file; the code is plain JS). Loads small_cnn from
// ./model/, runs it on the recorded inputs, compares with the recorded
// outputs and writes {ok, ...} as JSON into #result (and window.tirResult).
// Query: ?threads=N, ?proxy=1, ?wasmPaths=URL, ?workerPath=URL.
import { env, loadIR, parseSafetensors, splitIo } from 'torch-ir-wasm';

const params = new URLSearchParams(location.search);
if (params.get('proxy') === '1') env.proxy = true;
if (params.get('wasmPaths')) env.wasmPaths = new URL(params.get('wasmPaths'), location.href).href;
if (params.get('workerPath')) env.workerPath = new URL(params.get('workerPath'), location.href).href;
const threads = Number(params.get('threads')) || undefined;

async function fetchBytes(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`HTTP ${res.status} for ${url}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function run() {
  const io = splitIo(parseSafetensors(await fetchBytes('model/io.safetensors')));
  const model = await loadIR(new URL('model/model.json', location.href).href, {
    weights: new URL('model/weights.safetensors', location.href).href,
    threads,
  });
  const inputs = model.inputs.map((m) => io.inputs[m.name]);
  const outputs = await model.execute(inputs);
  let maxDiff = 0;
  outputs.forEach((o, i) => {
    const want = io.outputs[i].data;
    for (let k = 0; k < want.length; ++k) maxDiff = Math.max(maxDiff, Math.abs(Number(o.data[k]) - Number(want[k])));
  });
  const backend = model.backend;
  await model.dispose();
  const ok = outputs.length === io.outputs.length && maxDiff <= 1e-5;
  return { ok, maxDiff, variant: backend.variant, threads: backend.threads, proxy: Boolean(backend.proxy), isolated: crossOriginIsolated };
}

function report(result) {
  (window as any).tirResult = result;
  document.getElementById('result').textContent = JSON.stringify(result);
}

run().then(report, (e) => report({ ok: false, error: String(e?.message || e) }));
