// A model larger than the WASM heap on WebGPU (bench/gpu/big_decoder.sh makes it): a LLaMA-style
// decoder of 856M float32 parameters (3.4 GB of weights; WASM memory is capped at 2 GiB). Its
// safetensors weights are streamed to the GPU (docs/webgpu.md, "Weights"): this loads the prefill
// IR with executionProviders ['webgpu'] (strict), runs it on the prompt PyTorch ran, and compares
// the logits with PyTorch's; then, with DIR/expected.json, generates with loadLM (caches on the GPU)
// and compares the greedy tokens with PyTorch's. Prints where the weights live, the WASM memory
// size and the process's peak memory. Manual (not in CI): about 10 GB of disk and RAM, minutes on
// lavapipe.
//
//   node bench/gpu/big_decoder.mjs [DIR] [--wasm]
//
// --wasm also tries the same load on WASM alone, which must fail cleanly (the weights do not fit).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as tir from '../../npm/index.js';
import { REPO } from '../lib/common.mjs';
import { ioInputs, readIo } from '../../npm/test/helpers.mjs';

const dawnPath = process.env.TIR_DAWN_NODE ?? join(REPO, 'tests', 'webgpu', 'node_modules', 'webgpu', 'index.js');
const { create, globals } = await import(pathToFileURL(dawnPath).href);
Object.assign(globalThis, globals);
const gpu = create([]); // kept referenced for the whole run (docs/webgpu.md, dawn.node pitfalls)
tir.env.webgpu.gpu = gpu;

const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith('--')) ?? 'build/big_decoder';
const alsoWasm = args.includes('--wasm');
const weights = join(dir, 'weights.safetensors');
const gb = (n) => `${(n / 2 ** 30).toFixed(2)} GiB`;

console.log(`weights: ${weights}, ${gb(statSync(weights).size)}`);
tir.env.webgpu.strict = true;
const t0 = performance.now();
const model = await tir.loadIR(join(dir, 'prefill.json'), { weights, threads: 1, executionProviders: ['webgpu'] });
const loadMs = performance.now() - t0;
const p = model.placement();
console.log(`loaded in ${(loadMs / 1000).toFixed(1)} s: ${p.nodes.webgpu} nodes on WebGPU, ${p.nodes.wasm} on WASM`);
console.log(`weights streamed to the GPU: ${gb(p.weights.webgpu)}; in WASM memory: ${gb(p.weights.wasm)}`);
console.log(`WASM memory: ${gb(model._backend.module.HEAPU8.length)}`);

const io = readIo(join(dir, 'prefill_io.safetensors'));
const t1 = performance.now();
const outs = await model.execute(ioInputs(model, io));
console.log(`prefill run: ${((performance.now() - t1) / 1000).toFixed(1)} s (lavapipe: a CPU, not a timing)`);

// Logits [1, P, V] against PyTorch's (float32, CPU).
const got = outs[0].data;
const want = io.outputs[0].data;
let maxDiff = 0;
let scale = 0;
for (let i = 0; i < want.length; i++) {
  maxDiff = Math.max(maxDiff, Math.abs(got[i] - want[i]));
  scale = Math.max(scale, Math.abs(want[i]));
}
const [, P, V] = io.outputs[0].shape;
const argmax = (a, row) => {
  let best = 0;
  for (let j = 1; j < V; j++) if (a[row * V + j] > a[row * V + best]) best = j;
  return best;
};
let agree = 0;
for (let r = 0; r < P; r++) agree += argmax(got, r) === argmax(want, r) ? 1 : 0;
console.log(`logits vs PyTorch: max |diff| ${maxDiff.toExponential(2)} (max |logit| ${scale.toFixed(3)}), ` +
  `top-1 token equal at ${agree}/${P} positions`);
// The KV caches (outputs 1..) too.
let cacheDiff = 0;
for (let k = 1; k < outs.length; k++) {
  const a = outs[k].data;
  const b = io.outputs[k].data;
  for (let i = 0; i < b.length; i++) cacheDiff = Math.max(cacheDiff, Math.abs(a[i] - b[i]));
}
console.log(`${outs.length - 1} KV-cache outputs vs PyTorch: max |diff| ${cacheDiff.toExponential(2)}`);
model.dispose();

let ok = agree === P && maxDiff <= 1e-4 * Math.max(1, scale);

// Greedy generation with loadLM (prefill + decode, caches on the GPU) against PyTorch's greedy
// tokens for the first prompt of expected.json (export_llm.py without --skip-reference).
const expectedPath = join(dir, 'expected.json');
if (existsSync(expectedPath)) {
  const ref = JSON.parse(readFileSync(expectedPath, 'utf8'));
  const t2 = performance.now();
  const lm = await tir.loadLM({
    prefill: join(dir, 'prefill.json'), decode: join(dir, 'decode.json'), kvMapping: join(dir, 'kv_mapping.json'),
    weights, threads: 1, executionProviders: ['webgpu'],
  });
  const lp = lm.placement();
  console.log(`loadLM in ${((performance.now() - t2) / 1000).toFixed(1)} s: weights streamed ${gb(lp.weights.webgpu)}, ` +
    `in WASM memory ${gb(lp.weights.wasm)}; WASM memory ${gb(lm._backend.module.HEAPU8.length)}`);
  const prompt = ref.prompts[0];
  const got = await lm.generate(prompt.input_ids, { maxNewTokens: ref.max_new_tokens });
  lm.dispose();
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  console.log(`greedy tokens (${prompt.input_ids.length}-token prompt): ours ${JSON.stringify(got)}, ` +
    `PyTorch wrappers ${JSON.stringify(prompt.wrapper_ids)}, Hugging Face generate ${JSON.stringify(prompt.generated_ids)}`);
  ok = ok && same(got, prompt.wrapper_ids);
} else {
  console.log(`no ${expectedPath}: generation not checked`);
}
console.log(`peak RSS of this process: ${gb(process.resourceUsage().maxRSS * 1024)}`);
if (alsoWasm) {
  try {
    const m = await tir.loadIR(join(dir, 'prefill.json'), { weights, threads: 1 });
    m.dispose();
    console.log('WASM alone: loaded (unexpected: 3.4 GB of weights in a 2 GiB memory)');
    ok = false;
  } catch (e) {
    console.log(`WASM alone: ${e.name}: ${e.message}`);
  }
}
console.log(ok ? 'PASS' : 'FAIL');
process.exitCode = ok ? 0 : 1;
