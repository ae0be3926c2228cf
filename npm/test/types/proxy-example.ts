// Proxy mode under TypeConfig {proxy: true}: what must compile, and the sync
// uses (forgotten awaits) that must not.
import { loadIR, loadLM, InferenceSession, type ProxyModel, type ProxyLanguageModel } from 'torch-ir-wasm';

const model = await loadIR('model.json', { weights: 'weights.safetensors' });
const typed: ProxyModel = model;
const info: string = await model.info();
const arena: number = await model.arenaBytes();
const [y] = await model.execute<'float32'>([new Float32Array(4)]);
console.log(typed.backend.proxy, info, arena, y?.data.map((v) => v * 2));
await model.dispose();

// @ts-expect-error info() is a Promise in proxy mode
const text: string = model.info();
// @ts-expect-error the model is a ProxyModel, not a Model
model.lastCarryBytes;
// @ts-expect-error profile() must be awaited before mapping
model.profile().map((t) => t.ms);

const session = await InferenceSession.create('model.json');
const pie: string = await session.model.opDistributionPie();
// @ts-expect-error session.model is a ProxyModel here too
const sync: string = session.model.toMermaid();
console.log(text, pie, sync);

// loadLM gives a ProxyLanguageModel: generation in the worker, the tokenizer here too.
const lm: ProxyLanguageModel = await loadLM({ prefill: 'p.json', decode: 'd.json', kvMapping: 'kv.json', weights: 'w.safetensors', tokenizer: 'tokenizer.json' });
const continuation: string = await lm.generate('Hello', { maxNewTokens: 8 });
for await (const piece of lm.stream('Hello')) console.log(piece);
console.log(continuation, lm.tokenizer?.encode('x').length, lm.backend.proxy);
// @ts-expect-error placement() is a Promise in proxy mode
lm.placement().prefill;
await lm.dispose();
