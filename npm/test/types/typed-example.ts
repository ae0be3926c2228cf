// How an app uses torch-ir-wasm from TypeScript. Must compile under `strict`
// (scripts/test_types.sh runs tsc over it with TypeScript 5 and 7); it is not run.
import {
  env, loadIR, execute, verify, Tensor, InferenceSession, TorchIrError, IRFormatError, ExecutionError,
  loadLM, loadTokenizer, compareProviders,
  type DType, type Model, type OutputTensor, type Progress, type TypedArrayFor, type TensorInfo, type LogitsProcessor,
} from 'torch-ir-wasm';

env.numThreads = 4;
env.wasm.numThreads = 2; // onnxruntime-web's spelling, same setting
env.wasmPaths = '/static/torch-ir-wasm/';
env.workerPath = new URL('https://example.com/proxy-worker.js');
env.warnings = false;
env.workerStartTimeoutMs = 10_000;

function onProgress(e: Progress): void {
  if (e.status === 'progress' && e.total > 0) console.log(`${e.file}: ${e.progress.toFixed(0)}%`);
}

const controller = new AbortController();
const model: Model = await loadIR('model.json', {
  weights: 'weights.safetensors',
  signal: controller.signal,
  fetchOptions: { headers: { authorization: 'Bearer x' }, credentials: 'include' },
  onProgress,
  weightDtype: 'float16',
  limits: { maxArenaBytes: 1 << 28 },
  strictWeights: true,
});
const inputs: readonly TensorInfo[] = model.inputs;
const firstDtype: DType = inputs[0]?.dtype ?? 'float32';
console.log(firstDtype, model.backend.variant, model.info(), model.toMermaid({ maxNodes: 10 }).length);

// Outputs are a union discriminated by dtype: narrow, then use the data.
const outputs = await model.execute({ x: new Float32Array(4) });
for (const out of outputs) {
  if (out.dtype === 'float32') console.log(out.name, out.data.map((v) => v * 2));
  else if (out.dtype === 'int64') console.log(out.data.reduce((a, b) => a + b, 0n));
}
// ... or state the dtype of every output (unchecked, like a cast).
const [logits] = await model.execute<'float32'>([[[[0, 1], [2, 3]]]]);
if (logits) {
  const doubled: Float32Array = logits.data.map((v) => v * 2);
  console.log(doubled, logits.shape);
}
const ids: OutputTensor<'int64'>[] = await execute<'int64'>(model, new Map([['input_ids', { data: [1n, 2n], dtype: 'int64' }]]));
const firstId: bigint | undefined = ids[0]?.data[0];
console.log(firstId);

// N-d nested arrays, typed arrays, {data, shape, dtype} with the loader's spellings.
await model.execute([
  [[[1, 2, 3]]],
  new Int32Array(3),
  { data: new Uint16Array(3), shape: [1, 3], dtype: 'float16' },
  { data: [true, false], dtype: 'torch.bool' },
  { data: new Float32Array(2), dtype: 'F32' },
]);
const report = await verify(model, [new Float32Array(4)], { out: new Float32Array(2) }, { atol: 1e-4 });
if (!report.isValid) console.log(report.errorMessage?.toUpperCase(), report.outputDetails[0]?.maxDiff);
// Float64 reference: our and PyTorch's errors against it, side by side.
const r64 = await model.verify([new Float32Array(4)], [new Float32Array(2)], { reference64: [new Float64Array(2)] });
const t64 = r64.reference64;
if (t64 && !t64.withinBound) {
  const o = t64.outputs[0];
  console.log(t64.reassociationOnly, o?.judged, o?.ours.toFixed(3), o?.reference, o?.scale, o?.bound, o?.withinBound);
}
model.dispose();

// `using` frees the model at the end of the block.
{
  using m = await loadIR({ nodes: [] });
  console.log(m.opDistributionPie({ topN: 3 }), m.profile().map((t) => t.opType));
}

// onnxruntime-web style.
const typed: TypedArrayFor<'int64'> = new BigInt64Array([1n, 2n, 3n]);
const a = new Tensor('float32', [1, 2, 3, 4], [2, 2]);
const b = new Tensor(typed, [1, 3]);
const c = new Tensor('bool', [true, false]);
const d = new Tensor(new Uint16Array(2)); // float16 bits
const e = new Tensor([1, 2, 3]);
const f: Tensor<'float32'> = a.reshape([4]);
const g: Tensor = new Tensor('int64', [1, 2n]);
const bigs: BigInt64Array = b.data;
const bools: Uint8Array = c.data;
const halves: Uint16Array = d.data;
const floats: Float32Array = e.data;
console.log(f.dims, g.type, bigs, bools, halves, floats, a.data.map((v) => v + 1), await a.getData());
if (g.type === 'int64') console.log(g.data[0] === 1n);

{
  await using session = await InferenceSession.create('model.json', {
    weights: 'weights.safetensors', executionProviders: ['wasm'], signal: AbortSignal.timeout(5000),
  });
  const names: readonly string[] = session.inputNames;
  const results = await session.run({ [names[0] ?? 'x']: a, mask: b });
  for (const [name, t] of Object.entries(results)) console.log(name, t.dims, t.size, t.type);
  const probs = await session.run<'float32'>(new Map([['x', a]]), ['probs']);
  console.log(probs.probs?.data.map((v) => Math.exp(v)));
  await session.run({ x: a }, { probs: null }, { tag: 'step' });
  await session.run({ x: a }, { logSeverityLevel: 3 });
  const sameModel = session.model;
  console.log(sameModel.outputs.length);
  // a Tensor is also a value for execute()
  await sameModel.execute([a]);
}

try {
  await loadIR('missing.json');
} catch (err) {
  if (err instanceof IRFormatError) console.log('bad IR:', err.message, err.kind);
  else if (err instanceof ExecutionError || err instanceof TorchIrError) console.log(err.name);
  else if (err instanceof DOMException && err.name === 'AbortError') console.log('aborted');
}

// Text generation: text in, text out; ids in, ids out; streamed pieces.
{
  const lm = await loadLM({ prefill: 'prefill.json', decode: 'decode.json', kvMapping: 'kv_mapping.json', weights: 'weights.safetensors', tokenizer: 'tokenizer.json' });
  const text: string = await lm.generate('This package provides', { maxNewTokens: 16, minNewTokens: 4, repetitionPenalty: 1.2, stopStrings: ['.'] });
  const ids: number[] = await lm.generate([1, 2, 3], { frequencyPenalty: 0.5, presencePenalty: 0.1 });
  const banFirst: LogitsProcessor = (logits, seen) => {
    if (seen.length) logits[0] = -Infinity;
  };
  for await (const piece of lm.stream('A library for', { temperature: 0.8, topK: 40, seed: 1, logitsProcessor: banFirst })) console.log(piece);
  const tok = lm.tokenizer ?? (await loadTokenizer('tokenizer.json'));
  console.log(text, ids, tok.decode(tok.encode('x')), tok.endIds.length);
  lm.dispose();
}

// GPU tensors (onnxruntime-web's names) and the per-node provider comparison.
declare const gpuBuffer: unknown; // a GPUBuffer (the package is typed without @webgpu/types)
const onGpu = await loadIR('model.json', { weights: 'weights.safetensors', executionProviders: ['webgpu', 'wasm'], preferredOutputLocation: { y: 'gpu-buffer' } });
const gpuInput = Tensor.fromGpuBuffer(gpuBuffer, { dataType: 'float32', dims: [1, 4], dispose: () => {} });
const [y] = await onGpu.execute({ x: gpuInput, other: { location: 'gpu-buffer', gpuBuffer, dims: [4], type: 'float32' } });
if (y && y.location === 'gpu-buffer' && y.getData) {
  const values = await y.getData();
  console.log(values.length);
  y.dispose?.();
}
const comparison = await compareProviders('model.json', { weights: 'weights.safetensors', inputs: { x: new Float32Array(4) }, reference: 'wasm', rtol: 1e-3 });
const first = comparison.firstMismatch;
if (first) console.log(first.node, first.webgpu, first.wasm, first.float64 ?? 'no float64 run', first.position.join(','));
const debugModel = await loadIR('model.json', { weights: 'weights.safetensors', keepIntermediates: true });
await debugModel.execute({ x: new Float32Array(4) });
console.log(debugModel.intermediate('relu')?.shape);
