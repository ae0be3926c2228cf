// Misuses the types must reject: every `@ts-expect-error` line has to be an
// error, or tsc fails ("Unused '@ts-expect-error' directive"). Not run.
import { env, loadIR, execute, Tensor, InferenceSession, type LanguageModel, type Model, type ProxyModel } from 'torch-ir-wasm';

declare const lm: LanguageModel;

declare const model: Model;
declare const proxyModel: ProxyModel;

// dtype typos
// @ts-expect-error 'flaot32' is not a dtype
new Tensor('flaot32', [1, 2]);
// @ts-expect-error 'uint32' is onnxruntime-web's, not this engine's
new Tensor('uint32', [1, 2]);
// @ts-expect-error a dtype typo in a {data, dtype} input
await model.execute([{ data: new Float32Array(2), dtype: 'flaot32' }]);

// data that does not fit its dtype
// @ts-expect-error int64 data must be a BigInt64Array (no silent conversion of typed arrays)
new Tensor('int64', new Float32Array(2));
// @ts-expect-error float16 data is raw bits in a Uint16Array
new Tensor('float16', [1.5, 2]);
// @ts-expect-error float16 value data is raw bits in a Uint16Array
await model.execute([{ data: new Float32Array(2), dtype: 'float16' }]);
// @ts-expect-error the type follows the typed array: this is an int32 tensor
const wrongClass: Tensor<'float32'> = new Tensor(new Int32Array(2));
// @ts-expect-error strings are not tensor data
new Tensor('float32', ['1', '2']);

// using outputs as the wrong type
const [out] = await model.execute({ x: new Float32Array(4) });
if (out) {
  // @ts-expect-error data is a union over dtypes until narrowed (or execute<'float32'>)
  out.data.map((v) => v * 2);
  // @ts-expect-error not a dtype this output can have
  if (out.dtype === 'complex64') console.log(out);
}
const [ids] = await execute<'int64'>(model, [new BigInt64Array(2)]);
// @ts-expect-error int64 elements are bigints
const id: number | undefined = ids?.data[0];
const t64 = new Tensor(new BigInt64Array(2));
// @ts-expect-error int64 elements are bigints
t64.data.map((v) => v * 2);

// proxy-mode models: every method is async
// @ts-expect-error info() returns Promise<string> in proxy mode
const text: string = proxyModel.info();
// @ts-expect-error arenaBytes() returns Promise<number> in proxy mode
const bytes: number = proxyModel.arenaBytes() + 1;
// @ts-expect-error the output list must be awaited
proxyModel.execute([new Float32Array(4)]).map((o) => o.name);
// @ts-expect-error model.info() is a string in the default mode (no await needed, but no Promise either)
await model.info().then((s) => s);

// options
// @ts-expect-error weightDtype is float32 / float16 / bfloat16 / int8 / int4
await loadIR('m.json', { weightDtype: 'int3' });
// @ts-expect-error weightGroupSize is a number
await loadIR('m.json', { weightDtype: 'int4', weightGroupSize: '32' });
// @ts-expect-error signal is an AbortSignal, not a controller
await loadIR('m.json', { signal: new AbortController() });
// @ts-expect-error unknown option (typo)
await loadIR('m.json', { weight: 'w.safetensors' });
// @ts-expect-error progress status is initiate / progress / done
await loadIR('m.json', { onProgress: (e) => e.status === 'started' });
// @ts-expect-error the execution providers are 'webgpu' and 'wasm'
await InferenceSession.create('m.json', { executionProviders: ['webnn'] });
// @ts-expect-error numThreads is a number
env.numThreads = '4';
// @ts-expect-error env.wasm.proxy is a boolean
env.wasm.proxy = 'yes';
// @ts-expect-error env.wasm has no numthreads (typo)
env.wasm.numthreads = 2;

// InferenceSession
const session = await InferenceSession.create('m.json');
// @ts-expect-error feeds are keyed by input name, not a list
await session.run([new Tensor('float32', [1])]);
// @ts-expect-error fetches are output names
await session.run({}, [0]);
// @ts-expect-error run() resolves to outputs by name: await it
session.run({}).x;

console.log(wrongClass, id, text, bytes);

// generate(): a text prompt gives text, ids give ids
// @ts-expect-error a text prompt's result is a string, not ids
const notIds: number[] = await lm.generate('hello');
// @ts-expect-error stopStrings are strings
await lm.generate('hello', { stopStrings: [1] });

// GPU tensors: locations and reference names are checked
// @ts-expect-error 'texture' is onnxruntime-web's, not this engine's
await loadIR('m.json', { preferredOutputLocation: 'texture' });
// @ts-expect-error dataType must be a dtype
Tensor.fromGpuBuffer({}, { dataType: 'float', dims: [1] });
