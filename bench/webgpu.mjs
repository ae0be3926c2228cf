// The WebGPU execution provider per model: placement (compute nodes on each device), and per
// run the dispatches, uploads and downloads with the bytes moved between the devices. These
// counts do not depend on the clock, so they catch regressions on lavapipe (a CPU emulation,
// whose timings mean nothing). On a real GPU it also times ours on WebGPU against ours on WASM,
// interleaved, with every output checked against the WASM run.
//   node bench/webgpu.mjs [--models small_cnn,resnet18,...] [--flavor torch2.14-training]
//                         [--runs N] [--json FILE]
// Models are fixtures (tests/fixtures/models, build/fixtures). dawn.node comes from
// tests/webgpu (scripts/setup_webgpu.sh installs it); in a browser, use navigator.gpu instead.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO, median, parseArgs } from './lib/common.mjs';

const a = parseArgs(process.argv.slice(2));
const flavor = a.flavor ?? 'torch2.14-training';
const models = (a.models ?? 'small_cnn,resnet18,mobilenet_v2,bert_encoder,vit_tiny,gpt2_decoder,llama_decoder,convnext_tiny').split(',');
const runs = Number(a.runs ?? 5);

const dawn = join(REPO, 'tests', 'webgpu', 'node_modules', 'webgpu', 'index.js');
if (!existsSync(dawn)) throw new Error(`${dawn} missing: run scripts/setup_webgpu.sh`);
const { create } = await import(pathToFileURL(dawn).href);
const tir = await import(pathToFileURL(join(REPO, 'npm', 'index.js')).href);
const { fixtureDirs, readIo, ioInputs } = await import(pathToFileURL(join(REPO, 'npm', 'test', 'helpers.mjs')).href);
const gpu = create([]);
tir.env.webgpu.gpu = gpu;
const adapter = await gpu.requestAdapter();
const info = adapter?.info ?? {};
const device = `${info.vendor ?? '?'} ${info.architecture ?? ''} ${info.device ?? ''} ${info.description ?? ''}`.trim();
const emulated = /llvmpipe|lavapipe|swiftshader/i.test(device);

const rows = [];
for (const name of models) {
  const fx = fixtureDirs().find((f) => f.name === `${name}/${flavor}`);
  if (!fx) { console.log(`${name}: no fixture ${name}/${flavor}`); continue; }
  const io = readIo(fx.io);
  const cpu = await tir.loadIR(fx.model, { weights: fx.weights, threads: 1 });
  const g = await tir.loadIR(fx.model, { weights: fx.weights, threads: 1, executionProviders: ['webgpu'] });
  const inputs = ioInputs(g, io);
  const ref = await cpu.execute(inputs);
  const out = await g.execute(inputs);
  let maxDiff = 0;
  out.forEach((o, k) => o.data.forEach((v, i) => { maxDiff = Math.max(maxDiff, Math.abs(Number(v) - Number(ref[k].data[i]))); }));
  const before = { ...g._gpu?.stats };
  const tg = [], tc = [];
  for (let r = 0; r < runs; r++) {  // interleaved: WASM, WebGPU, WASM, ...
    let t = performance.now(); await cpu.execute(inputs); tc.push(performance.now() - t);
    t = performance.now(); await g.execute(inputs); tg.push(performance.now() - t);
  }
  const s = g._gpu?.stats ?? {};
  const per = (k) => (s[k] - before[k]) / runs;
  const p = g.placement();
  rows.push({
    model: name, webgpu_nodes: p.nodes.webgpu, wasm_nodes: p.nodes.wasm,
    dispatches: per('dispatches'), uploads: per('uploads'), downloads: per('downloads'),
    upload_bytes: per('uploadBytes'), download_bytes: per('downloadBytes'), max_abs_diff_vs_wasm: maxDiff,
    webgpu_ms: median(tg), wasm_ms: median(tc),
  });
  cpu.dispose();
  g.dispose();
}

console.log(`WebGPU adapter: ${device}${emulated ? ' (emulated on the CPU: times mean nothing)' : ''}\n`);
console.log('| model | nodes webgpu / wasm | dispatches/run | uploads/run (bytes) | downloads/run (bytes) | max |webgpu - wasm| |' +
  (emulated ? '' : ' webgpu ms | wasm ms |'));
console.log('|---|---:|---:|---:|---:|---:|' + (emulated ? '' : '---:|---:|'));
for (const r of rows) {
  console.log(`| ${r.model} | ${r.webgpu_nodes} / ${r.wasm_nodes} | ${r.dispatches} | ${r.uploads} (${r.upload_bytes}) | ` +
    `${r.downloads} (${r.download_bytes}) | ${r.max_abs_diff_vs_wasm.toExponential(1)} |` +
    (emulated ? '' : ` ${r.webgpu_ms.toFixed(2)} | ${r.wasm_ms.toFixed(2)} |`));
}
if (a.json) writeFileSync(a.json, JSON.stringify({ device, emulated, rows }, null, 1));
process.exit(0);
