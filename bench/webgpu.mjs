// The WebGPU execution provider per model: placement (compute nodes on each device), and per
// run the dispatches, uploads and downloads with the bytes moved between the devices. These
// counts do not depend on the clock, so they catch regressions on lavapipe (a CPU emulation,
// whose timings mean nothing). On a real GPU it also times ours on WebGPU against ours on WASM,
// interleaved, with every output checked against the WASM run.
//   node bench/webgpu.mjs [--models small_cnn,resnet18,...] [--flavor torch2.14-training]
//                         [--runs N] [--json FILE] [--lm tiny_llama,...|none] [--new-tokens N]
// For the LLM fixtures (tests/fixtures/llm) it reports the prefill's and each decode step's
// transfers (the KV caches stay on the GPU: a step moves the small inputs up, the logits down)
// and whether the greedy tokens equal the WASM run's.
// Models are fixtures (tests/fixtures/models, build/fixtures). dawn.node comes from
// tests/webgpu (scripts/setup_webgpu.sh installs it); in a browser, use navigator.gpu instead.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
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

const lmNames = (a.lm ?? 'tiny_llama').split(',').filter((n) => n && n !== 'none');
const newTokens = Number(a['new-tokens'] ?? 32);
const lmRows = [];
for (const name of lmNames) {
  const dir = join(REPO, 'tests', 'fixtures', 'llm', name);
  const weights = join(REPO, 'build', 'fixtures', 'llm', name, 'weights.safetensors');
  if (!existsSync(weights)) { console.log(`${name}: no ${weights}`); continue; }
  const files = { prefill: join(dir, 'prefill.json'), decode: join(dir, 'decode.json'), kvMapping: join(dir, 'kv_mapping.json'), weights };
  const prompt = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')).prompts.at(-1).input_ids;
  const cpu = await tir.loadLM({ ...files, threads: 1 });
  const g = await tir.loadLM({ ...files, threads: 1, executionProviders: ['webgpu'] });
  const want = await cpu.generate(prompt, { maxNewTokens: newTokens });
  const got = await g.generate(prompt, { maxNewTokens: newTokens });
  const s = g.stats;
  const p = g.placement();
  lmRows.push({
    model: name, prefill_nodes: `${p.prefill.nodes.webgpu} / ${p.prefill.nodes.wasm}`, decode_nodes: `${p.decode.nodes.webgpu} / ${p.decode.nodes.wasm}`,
    prefill: s.webgpu.prefill, step: s.webgpu.step, gpu_cache_bytes_copied_per_step: s.webgpu.gpuCacheBytesCopiedPerStep,
    cache_bytes: s.cacheBytes, tokens_equal_wasm: JSON.stringify(got) === JSON.stringify(want),
    webgpu_decode_tps: s.decodeTokensPerSecond, wasm_decode_tps: cpu.stats.decodeTokensPerSecond,
  });
  cpu.dispose();
  g.dispose();
}
if (lmRows.length) {
  console.log(`\nGeneration (${newTokens} new tokens from the fixture's longest prompt), per decode step:\n`);
  console.log('| model | prefill nodes webgpu / wasm | decode nodes webgpu / wasm | prefill up (bytes) / down (bytes) | step dispatches | step up (bytes) | step down (bytes) | cache bytes copied on the GPU / caches | tokens = WASM |' +
    (emulated ? '' : ' webgpu tok/s | wasm tok/s |'));
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---|' + (emulated ? '' : '---:|---:|'));
  for (const r of lmRows) {
    console.log(`| ${r.model} | ${r.prefill_nodes} | ${r.decode_nodes} | ${r.prefill.uploads} (${r.prefill.uploadBytes}) / ${r.prefill.downloads} (${r.prefill.downloadBytes}) | ` +
      `${r.step.dispatches} | ${r.step.uploads} (${r.step.uploadBytes}) | ${r.step.downloads} (${r.step.downloadBytes}) | ` +
      `${r.gpu_cache_bytes_copied_per_step} / ${r.cache_bytes} | ${r.tokens_equal_wasm ? 'yes' : 'NO'} |` +
      (emulated ? '' : ` ${r.webgpu_decode_tps.toFixed(1)} | ${r.wasm_decode_tps.toFixed(1)} |`));
  }
}
if (a.json) writeFileSync(a.json, JSON.stringify({ device, emulated, rows, lm: lmRows }, null, 1));
process.exit(0);
