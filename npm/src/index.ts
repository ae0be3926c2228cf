// torch-ir-wasm: run pytorch-ir JSON IR graphs in browsers and Node.js (WASM).
export { loadIR, execute, verify, Model } from './lib/model.js';
export { loadLM, LanguageModel } from './lib/lm.js';
export { env, getBackend } from './lib/backend.js';
export {
  TorchIrError, IRFormatError, WeightLoadError, ExecutionError, VerificationError, EngineTrapError,
} from './lib/errors.js';
export { parseSafetensors, writeSafetensors, splitIo } from './lib/safetensors.js';
export { formatReport } from './lib/report.js';
export { parseJsonLoose as parseIRJson } from './lib/json.js';
export { Tensor, InferenceSession } from './lib/ort.js';
