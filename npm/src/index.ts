// torch-ir-wasm: run pytorch-ir JSON IR graphs in browsers and Node.js (WASM).
export { execute, verify, Model } from './lib/model.js';
export { loadIR } from './lib/load_model.js';
export { loadLM, LanguageModel } from './lib/lm.js';
export { TextTokenizer, loadTokenizer } from './lib/text.js';
export { env, getBackend } from './lib/backend.js';
export {
  TorchIrError, IRFormatError, WeightLoadError, ExecutionError, VerificationError, EngineTrapError,
} from './lib/errors.js';
export { parseSafetensors, writeSafetensors, splitIo } from './lib/safetensors.js';
export { formatReport } from './lib/report.js';
export { parseJsonLoose as parseIRJson } from './lib/json.js';
export { Tensor, InferenceSession } from './lib/ort.js';
export { compareProviders } from './lib/compare.js';

// The public types, each declared next to the code it describes (the generated
// index.d.ts re-exports them; there is no hand-written declaration file).
export type {
  DType, DTypeArrays, TypedArrayFor, TypedArray, DTypeSpellings, DTypeName, NestedArray, Scalar, TensorValue,
  TensorLike, Inputs, TensorData, OutputTensor, TensorInfo, GpuTensorValue,
} from './lib/tensor_types.js';
export type {
  Source, TensorSource, IRSource, WasmPaths, Progress, WeightDtype, LoadOptions, ExecutionProvider, Placement,
  ExecuteOptions, VerifyOptions, Reference64Output, Reference64Report, OutputDetail, VerifyReport, NodeTiming, Expected,
  TypeConfig, LoadedModel, LoadedLM, OutputLocation,
} from './lib/model_types.js';
export type { Limits } from './lib/limits.js';
export type { ProxyModel } from './lib/proxy.js';
export type { ProxyLanguageModel } from './lib/proxy_lm.js';
export type { TensorBase, TensorDataFor, TensorConstructor } from './lib/ort.js';
export type { LoadLMOptions, GenerateOptions, GenerationStats, GpuTransfers, LogitsProcessor } from './lib/lm_types.js';
export type { WasmEnv, Backend } from './lib/backend.js';
export type { CacheSettings } from './lib/cache.js';
export type { CompareOptions, NodeComparison, FirstMismatch, ProviderComparison } from './lib/compare.js';
export type { GpuBufferTensorOptions } from './lib/ort.js';

// `using` / `await using` need these symbols; declared here too (as @types/node
// does) so that projects whose `lib` predates them still compile the declarations.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
    readonly asyncDispose: unique symbol;
  }
}
