// PyTorch's own quantized models (PT2E static/dynamic int8, torchao int4 weight-only and 8da4w;
// tests/fixtures/quantized) in both WASM builds: every output within a quarter of the
// quantization error of PyTorch's run of the quantized module (tests/cpp/unit/quantized_models_test.cpp
// checks the same natively).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadIR, loadLM } from '../index.js';
import { FIXTURES, assertDist, assertWithinQuantizationError, ioInputs, quantizedFixtures, readIo } from './helpers.mjs';

before(assertDist);

const fixtures = quantizedFixtures();
test('the quantized corpus is there', (t) => {
  if (fixtures.length < 10) throw new Error(`expected the 10 quantized fixtures, found ${fixtures.length}`);
  t.diagnostic(fixtures.map((f) => f.name).join(', '));
});

for (const fx of fixtures) {
  for (const threads of [1, 2]) {
    test(`${fx.name} (threads ${threads}): within a quarter of the quantization error`, async (t) => {
      const model = await loadIR(fx.model, { weights: fx.weights, threads });
      try {
        const io = readIo(fx.io);
        const outputs = await model.execute(ioInputs(model, io));
        t.diagnostic(assertWithinQuantizationError(fx.name, outputs, fx.io).join('\n'));
      } finally {
        model.dispose();
      }
    });
  }
}

// The LLM demo's model in int4 (tests/fixtures/llm/tiny_llama_8da4w: torchao 8da4w, its
// quantized weights committed): greedy tokens follow PyTorch's generation of the quantized
// module up to the first step whose top-1 / top-2 margin is below 0.05 (dynamic per-token
// activation quantization is chaotic where the margin is thinner: tests/cpp/unit/quantized_lm_test.cpp).
const LM8 = join(FIXTURES, 'llm', 'tiny_llama_8da4w');
for (const threads of [1, 2]) {
  test(`tiny_llama_8da4w (threads ${threads}): int4 greedy tokens follow PyTorch's quantized generation`, async () => {
    const lm = await loadLM({ prefill: join(LM8, 'prefill.json'), decode: join(LM8, 'decode.json'),
      kvMapping: join(LM8, 'kv_mapping.json'), weights: join(LM8, 'weights.safetensors'), threads });
    try {
      let pinned = 0;
      for (const p of JSON.parse(readFileSync(join(LM8, 'expected.json'), 'utf8')).prompts) {
        const got = await lm.generate(p.input_ids, { maxNewTokens: p.generated_ids.length });
        let n = 0;
        while (n < p.top1_top2_margins.length && p.top1_top2_margins[n] >= 0.05) n++;
        assert.deepEqual(got.slice(0, n), p.generated_ids.slice(0, n), `prompt of ${p.input_ids.length} tokens, first ${n} steps`);
        pinned += n;
      }
      assert.ok(pinned >= 12, `only ${pinned} tokens pinned`);
    } finally {
      lm.dispose();
    }
  });
}
