// loadLM on WebGPU (lavapipe): for every LLM fixture (tests/fixtures/llm/*, weights in
// build/fixtures/llm/*), greedy generation with executionProviders ['webgpu', 'wasm'] gives the
// WASM run's tokens, token for token, for prompts of 1, 7 and P tokens and 16 new tokens, and
// again after regenerating. The caches must stay on the GPU: a step uploads only the small
// inputs and downloads only the logits (plus what a WASM-placed node reads), and the tokens
// would diverge within a few steps if the prefill's keys or a step's update were not carried
// (checked directly too, by breaking the carry). A failed GPU load falls back to WASM with a
// warning, or throws with env.webgpu.strict; a lost device is a TorchIrError. The 8da4w model's
// int4 linears sum their floats in another order on the GPU (qlinear.wgsl) than on WASM, and its
// per-token quantization can turn that into a different token where a top-2 margin is thin; on
// lavapipe its prompts' tokens agree (a GPU where one part would be worth a margin check here).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tir from '../../npm/index.js';
import { FIXTURES, GENERATED } from '../../npm/test/helpers.mjs';
import { getDevice } from './gpu.mjs';
import { getEngine } from './engine.mjs';

const LLM = join(FIXTURES, 'llm');
const fixtures = readdirSync(LLM).sort().map((name) => {
  const dir = join(LLM, name);
  return {
    name,
    files: { prefill: join(dir, 'prefill.json'), decode: join(dir, 'decode.json'), kvMapping: join(dir, 'kv_mapping.json'),
      // a quantized fixture carries its own weights (PyTorch's quantized state_dict)
      weights: existsSync(join(dir, 'weights.safetensors')) ? join(dir, 'weights.safetensors') : join(GENERATED, 'llm', name, 'weights.safetensors') },
    prompts: JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')).prompts.map((p) => p.input_ids),
  };
});
// The float32 fixture with random weights (the tests of float16 GEMM weights and of weights
// held in parts are about its sizes).
const tinyLlama = fixtures.find((f) => f.name === 'tiny_llama');
const NEW_TOKENS = 16;
const rows = [];
after(() => { for (const r of rows) console.log(`# ${r}`); });

// The device, or a skip (outside CI) without an adapter or an engine build.
async function ready(t, fx) {
  const gpu = await getDevice();
  if (!gpu) { t.skip('no WebGPU adapter'); return null; }
  if (!(await getEngine())) { t.skip('npm/dist is not built'); return null; }
  if (fx && !existsSync(fx.files.weights)) {
    assert.notEqual(process.env.CI, 'true', `no ${fx.files.weights} (tools/make_fixtures.sh build/fixtures)`);
    t.skip(`no ${fx.files.weights}`);
    return null;
  }
  tir.env.webgpu.device = gpu.device;
  tir.env.webgpu.strict = true; // a GPU load that falls back must fail these tests
  return gpu;
}

// console.warn calls made while fn runs.
async function warnings(fn) {
  const seen = [];
  const orig = console.warn;
  console.warn = (...a) => seen.push(a.join(' '));
  try {
    return { value: await fn(), seen };
  } finally {
    console.warn = orig;
  }
}

for (const fx of fixtures) {
  test(`${fx.name}: greedy tokens on WebGPU equal WASM's, caches resident on the GPU`, async (t) => {
    if (!(await ready(t, fx))) return;
    const wasm = await tir.loadLM({ ...fx.files, threads: 1 });
    const gpu = await tir.loadLM({ ...fx.files, threads: 1, executionProviders: ['webgpu', 'wasm'] });
    try {
      assert.deepEqual(gpu.executionProviders, ['webgpu', 'wasm']);
      assert.deepEqual(wasm.executionProviders, ['wasm']);
      const P = gpu.info.prefillLen;
      const prompts = [...fx.prompts.filter((p) => p.length < P), Array.from({ length: P }, (_, i) => (i * 37 + 5) % gpu.info.vocabSize)];
      for (const prompt of prompts) {
        const want = await wasm.generate(prompt, { maxNewTokens: NEW_TOKENS });
        const got = await gpu.generate(prompt, { maxNewTokens: NEW_TOKENS });
        assert.deepEqual(got, want, `${fx.name}: a ${prompt.length}-token prompt`);
      }
      // Regenerating starts from fresh caches (the prefill's writes replace the last run's, which
      // came from another prompt).
      const first = prompts[0];
      assert.deepEqual(await gpu.generate(first, { maxNewTokens: NEW_TOKENS }),
        await wasm.generate(first, { maxNewTokens: NEW_TOKENS }), `${fx.name}: regenerate`);
      // Residency: no cache value crosses per step; the plan says so and the counters agree.
      const { decode } = gpu._gpu.plan;
      const resident = new Set(decode.values.flatMap((v, i) => (v.resident ? [i] : [])));
      const cacheInputs = gpu._gpu.plan.caches.map((c) => decode.inputs[c.decode_in]);
      assert.deepEqual([...resident].sort(), [...cacheInputs].sort());
      const crossing = decode.program.filter((s) => (s.op === 'upload' || s.op === 'download') && resident.has(s.value));
      const wasmReaders = decode.program.filter((s) => s.op === 'wasm');
      // A WASM-placed reader of a cache would need a download; this fixture's decode has none.
      assert.deepEqual(crossing.map((s) => decode.values[s.value].label), [], `caches crossing per step (WASM ranges: ${JSON.stringify(wasmReaders.map((w) => w.nodes))})`);
      const s = gpu.stats;
      const logitsBytes = gpu.info.vocabSize * 4;
      assert.equal(s.decodeSteps, NEW_TOKENS - 1);
      assert.equal(s.cacheBytesCopiedPerStep, 0);
      assert.equal(s.webgpu.gpuCacheBytesCopiedPerStep, 0, 'donated caches are written in place on the GPU');
      assert.ok(s.webgpu.step.downloadBytes >= logitsBytes, 'the logits come down');
      assert.ok(s.webgpu.step.downloadBytes + s.webgpu.step.uploadBytes < s.cacheBytes / 8,
        `per-step transfers (${JSON.stringify(s.webgpu.step)}) must be far below the caches (${s.cacheBytes} bytes)`);
      const p = gpu.placement();
      // Every compute node of both graphs, the rotary embedding's included, runs on the GPU; in
      // torchao's 8da4w model, the per-token choose / quantize and the int4 linears too.
      assert.deepEqual([p.prefill.nodes.wasm, p.decode.nodes.wasm], [0, 0], JSON.stringify(p));
      // The weights went from the file to the GPU (not into WASM memory), one copy for both graphs
      // (the 8da4w model's int8 weights as bytes).
      assert.ok(p.weights.webgpu > 0 && p.weights.wasm < p.weights.webgpu, JSON.stringify(p.weights));
      const { prefillEx, decodeEx } = gpu._gpu;
      const both = new Set([...prefillEx.slots, ...decodeEx.slots]);
      assert.ok(both.size < prefillEx.slots.length + decodeEx.slots.length, 'prefill and decode share their weight buffers');
      rows.push(`${fx.name}: prefill ${p.prefill.nodes.webgpu} webgpu / ${p.prefill.nodes.wasm} wasm nodes, ` +
        `${s.webgpu.prefill.uploads} up (${s.webgpu.prefill.uploadBytes} B) / ${s.webgpu.prefill.downloads} down (${s.webgpu.prefill.downloadBytes} B); ` +
        `decode ${p.decode.nodes.webgpu} webgpu / ${p.decode.nodes.wasm} wasm nodes, per step ${s.webgpu.step.dispatches} dispatches, ` +
        `${s.webgpu.step.uploads} up (${s.webgpu.step.uploadBytes} B) / ${s.webgpu.step.downloads} down (${s.webgpu.step.downloadBytes} B), ` +
        `${s.webgpu.gpuCacheBytesCopiedPerStep} B of cache copied on the GPU (caches ${s.cacheBytes} B)`);
    } finally {
      wasm.dispose();
      gpu.dispose();
    }
  });

  test(`${fx.name}: without the GPU cache writes the tokens diverge (the comparison can fail)`, async (t) => {
    if (!(await ready(t, fx))) return;
    const wasm = await tir.loadLM({ ...fx.files, threads: 1 });
    // donate: true (default): index_copy writes the resident caches in place, nothing to carry;
    // donate: false: the updated caches are copied back into the decode inputs on the GPU.
    const donated = await tir.loadLM({ ...fx.files, threads: 1, executionProviders: ['webgpu'] });
    const copied = await tir.loadLM({ ...fx.files, threads: 1, executionProviders: ['webgpu'], donate: false });
    try {
      const prompt = fx.prompts[1] ?? fx.prompts[0];
      const opts = { maxNewTokens: NEW_TOKENS };
      const want = await wasm.generate(prompt, opts);
      assert.deepEqual(donated._gpu.plan.caches.map((c) => c.carry.length), donated._gpu.plan.caches.map(() => 0));
      assert.equal(donated._gpu.copyBytesPerStep, 0);
      assert.deepEqual(await copied.generate(prompt, opts), want);
      assert.equal(copied.stats.webgpu.gpuCacheBytesCopiedPerStep, copied.stats.cacheBytes);
      const g = copied._gpu;
      const carries = g._carries;
      g._carries = []; // each step's cache update is lost
      assert.notDeepEqual(await copied.generate(prompt, opts), want);
      g._carries = carries;
      for (const lm of [donated, copied]) {
        const fills = lm._gpu._fills;
        lm._gpu._fills = []; // the prefill's keys/values never reach the caches
        assert.notDeepEqual(await lm.generate(prompt, opts), want);
        lm._gpu._fills = fills;
        assert.deepEqual(await lm.generate(prompt, opts), want);
      }
    } finally {
      wasm.dispose();
      donated.dispose();
      copied.dispose();
    }
  });
}

// A device whose buffers cannot be made: the GPU load fails after compile.
function brokenDevice(real) {
  return {
    limits: real.limits,
    features: real.features,
    lost: new Promise(() => {}),
    queue: real.queue,
    pushErrorScope() {},
    popErrorScope: async () => null,
    createBuffer() { throw new Error('createBuffer: simulated failure'); },
  };
}

// weightDtype 'float16' on a device with shader-f16: both graphs hold the weights their GEMMs
// pack (the CPU's halves) as f16 on the GPU, one shared buffer per weight; the greedy tokens
// equal those of the WASM run at the same weightDtype.
test('weightDtype float16: GEMM weights f16 on the GPU, tokens equal WASM at float16 weights', async (t) => {
  const fx = tinyLlama;
  const gpu = await ready(t, fx);
  if (!gpu) return;
  if (!gpu.f16) { t.skip('adapter has no shader-f16'); return; }
  const wasm = await tir.loadLM({ ...fx.files, threads: 1, weightDtype: 'float16' });
  const lm = await tir.loadLM({ ...fx.files, threads: 1, weightDtype: 'float16', executionProviders: ['webgpu'] });
  try {
    const { prefill, decode } = lm._gpu.plan;
    const halves = (p) => p.values.filter((v) => v.gpu_dtype === 'float16').map((v) => v.label).sort();
    assert.ok(halves(decode).length > 0, 'decode weights held as f16');
    assert.deepEqual(halves(prefill), halves(decode), 'both graphs hold the same weights as f16');
    for (const prompt of fx.prompts) {
      assert.deepEqual(await lm.generate(prompt, { maxNewTokens: NEW_TOKENS }), await wasm.generate(prompt, { maxNewTokens: NEW_TOKENS }),
        `a ${prompt.length}-token prompt`);
    }
    rows.push(`${fx.name} at weightDtype float16: ${halves(decode).length} weights f16 on the GPU; tokens = WASM's`);
  } finally {
    lm.dispose();
    wasm.dispose();
  }
});

// A device whose largest storage binding is smaller than some weights (env.webgpu.maxBindingBytes
// stands in for one): the embedding, the MLP and lm_head weights (1 MiB and 688 KiB) are held as
// parts of their rows under a 600 000-byte limit, read part by part; every node stays on the GPU
// and the greedy tokens equal WASM's.
test('weights past the largest binding run in parts of their rows: tokens equal WASM\'s', async (t) => {
  const fx = tinyLlama;
  if (!(await ready(t, fx))) return;
  const wasm = await tir.loadLM({ ...fx.files, threads: 1 });
  tir.env.webgpu.maxBindingBytes = 600000;
  let lm = null;
  try {
    lm = await tir.loadLM({ ...fx.files, threads: 1, executionProviders: ['webgpu'] });
    const { prefill, decode } = lm._gpu.plan;
    const parts = (p) => p.values.filter((v) => v.slot >= 0 && /\[\d+:\d+\]$/.test(v.label));
    assert.ok(parts(decode).length >= 4, `decode holds weights in parts: ${parts(decode).map((v) => v.label)}`);
    for (const p of [prefill, decode]) {
      assert.equal(p.placement.wasm, 0, JSON.stringify(p.fallbacks));
      for (const bytes of p.slots) assert.ok(bytes <= 600000, `a ${bytes}-byte GPU buffer`);
    }
    for (const prompt of fx.prompts) {
      assert.deepEqual(await lm.generate(prompt, { maxNewTokens: NEW_TOKENS }), await wasm.generate(prompt, { maxNewTokens: NEW_TOKENS }),
        `a ${prompt.length}-token prompt`);
    }
    rows.push(`${fx.name} under a 600000-byte binding limit: ${parts(decode).length} weight parts; tokens = WASM's`);
  } finally {
    tir.env.webgpu.maxBindingBytes = undefined;
    lm?.dispose();
    wasm.dispose();
  }
});

test('a failed GPU load falls back to WASM with a warning; env.webgpu.strict makes it an error', async (t) => {
  const fx = tinyLlama;
  const gpu = await ready(t, fx);
  if (!gpu) return;
  try {
    tir.env.webgpu.device = brokenDevice(gpu.device);
    tir.env.webgpu.strict = false;
    const { value: lm, seen } = await warnings(() => tir.loadLM({ ...fx.files, threads: 1, executionProviders: ['webgpu', 'wasm'] }));
    try {
      assert.deepEqual(lm.executionProviders, ['wasm']);
      assert.equal(seen.length, 1);
      assert.match(seen[0], /WebGPU: loadLM: createBuffer: simulated failure; the model runs on WASM/);
      const wasm = await tir.loadLM({ ...fx.files, threads: 1 });
      const prompt = fx.prompts[0];
      assert.deepEqual(await lm.generate(prompt, { maxNewTokens: 8 }), await wasm.generate(prompt, { maxNewTokens: 8 }));
      wasm.dispose();
    } finally {
      lm.dispose();
    }
    tir.env.webgpu.strict = true;
    await assert.rejects(tir.loadLM({ ...fx.files, threads: 1, executionProviders: ['webgpu'] }),
      (e) => e instanceof tir.TorchIrError && /simulated failure.*env\.webgpu\.strict/.test(e.message));
  } finally {
    tir.env.webgpu.device = gpu.device;
    tir.env.webgpu.strict = true;
  }
});

test('a device lost between steps is a TorchIrError that says so', async (t) => {
  const fx = tinyLlama;
  const gpu = await ready(t, fx);
  if (!gpu) return;
  // A device of its own, destroyed mid-generation (the shared one stays for the other tests).
  const device = await (await gpu.instance.requestAdapter()).requestDevice();
  tir.env.webgpu.device = device;
  const lm = await tir.loadLM({ ...fx.files, threads: 1, executionProviders: ['webgpu'] });
  try {
    await assert.rejects(lm.generate(fx.prompts[0], {
      maxNewTokens: 8,
      onToken: async (id, i) => {
        if (i === 1) { device.destroy(); await device.lost; }
      },
    }), (e) => e instanceof tir.TorchIrError && /WebGPU: the device was lost/.test(e.message));
  } finally {
    lm.dispose();
    tir.env.webgpu.device = gpu.device;
  }
});
