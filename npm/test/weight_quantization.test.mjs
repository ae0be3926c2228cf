// weightDtype 'int8' / 'int4' (load-time quantization of float32 linears; docs/quantization.md)
// in both WASM builds: the BERT encoder fixture's output stays within the quantization's error
// of PyTorch's float32 output and differs from ours in float32 (the integer kernels ran);
// weightGroupSize's checks; loadLM generates reproducibly from the int4 tiny LLaMA.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadIR, loadLM } from '../index.js';
import { FIXTURES, GENERATED, assertDist, fixture, ioInputs, maxAbsDiff, readIo } from './helpers.mjs';

before(assertDist);

const bert = fixture('bert_encoder');

async function run(options) {
  const model = await loadIR(bert.model, { weights: bert.weights, ...options });
  try {
    return (await model.execute(ioInputs(model, readIo(bert.io))))[0].data;
  } finally {
    model.dispose();
  }
}

for (const threads of [1, 2]) {
  test(`bert_encoder with weightDtype int8 / int4 (threads ${threads}): near float32, not float32`, async (t) => {
    const want = readIo(bert.io).outputs[0].data;
    const f32 = await run({ threads });
    const scale = Math.max(...Array.from(want, Math.abs));
    for (const [weightDtype, weightGroupSize, bound] of [['int8', undefined, 0.05], ['int4', undefined, 0.3], ['int4', 16, 0.3]]) {
      const got = await run({ threads, weightDtype, weightGroupSize });
      const err = maxAbsDiff(got, want);
      t.diagnostic(`${weightDtype}${weightGroupSize ? ` (groups of ${weightGroupSize})` : ''}: max |ours - PyTorch float32| ${err.toExponential(2)} of max |y| ${scale.toFixed(3)}`);
      assert.ok(err < bound * scale, `${weightDtype}: error ${err} past ${bound} x ${scale}`);
      assert.ok(maxAbsDiff(got, f32) > 0, `${weightDtype}: the float32 weights ran`);
      assert.deepEqual(Array.from(await run({ threads, weightDtype, weightGroupSize })), Array.from(got), 'reruns agree');
    }
  });
}

test('weightGroupSize: a positive multiple of 4, for int4 only', async () => {
  await assert.rejects(run({ weightDtype: 'int4', weightGroupSize: 6 }), /weightGroupSize must be a positive multiple of 4, got 6/);
  await assert.rejects(run({ weightDtype: 'int8', weightGroupSize: 32 }), /weightGroupSize applies to weightDtype 'int4', not 'int8'/);
  await assert.rejects(run({ weightDtype: 'int3' }), /weightDtype must be 'float32', 'float16', 'bfloat16', 'int8' or 'int4'/);
});

const LM = join(FIXTURES, 'llm', 'tiny_llama');
const LM_WEIGHTS = join(GENERATED, 'llm', 'tiny_llama', 'weights.safetensors');
test('loadLM with weightDtype int4: generates, the same tokens on a rerun', { skip: existsSync(LM_WEIGHTS) ? false : `no ${LM_WEIGHTS}` }, async () => {
  const files = { prefill: join(LM, 'prefill.json'), decode: join(LM, 'decode.json'), kvMapping: join(LM, 'kv_mapping.json'), weights: LM_WEIGHTS };
  const lm = await loadLM({ ...files, threads: 1, weightDtype: 'int4' });
  try {
    const prompt = [1, 15, 27, 300, 42];
    const ids = await lm.generate(prompt, { maxNewTokens: 16 });
    assert.equal(ids.length, 16);
    assert.ok(ids.every((id) => Number.isInteger(id) && id >= 0 && id < lm.info.vocabSize));
    assert.deepEqual(await lm.generate(prompt, { maxNewTokens: 16 }), ids);
  } finally {
    lm.dispose();
  }
});
